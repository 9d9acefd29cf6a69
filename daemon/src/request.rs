//! Checking a `SubmitProofRequest` before anything is queued: kind,
//! priority, payload. A malformed request is an `INVALID_ARGUMENT` error; a
//! well-formed request of a kind this daemon cannot prove yet becomes a job
//! that ends FAILED with "not supported yet".

use crate::engine_glue::{BenchJob, ProofInput};
use crate::error::DaemonError;
use crate::jobs::{Fingerprint, Kind};
use crate::pb;
use std::hash::{Hash, Hasher};

/// Longest request_id accepted (Curio's are ~30 bytes).
const MAX_REQUEST_ID: usize = 256;
/// Most partitions of one bench job.
const MAX_BENCH_PARTITIONS: usize = 64;
/// Sector sizes Filecoin proofs exist for.
const SECTOR_SIZES: [u64; 5] = [2 << 10, 8 << 20, 512 << 20, 32 << 30, 64 << 30];

/// The engine priorities of the four proto levels. CRITICAL is far above
/// the others so that aging (one level per `aging` partitions waited) can
/// never lift a waiting PoRep batch past a WinningPoSt.
pub fn engine_priority(p: pb::Priority) -> i32 {
    match p {
        pb::Priority::Low => 0,
        pb::Priority::Unspecified | pb::Priority::Normal => 1,
        pb::Priority::High => 2,
        pb::Priority::Critical => 1000,
    }
}

/// A checked request.
#[derive(Debug)]
pub struct Checked {
    /// The kind.
    pub kind: Kind,
    /// The engine priority.
    pub priority: i32,
    /// What to prove, or why this daemon cannot.
    pub input: Result<ProofInput, String>,
    /// Hash of the contents (for request_id retries).
    pub fingerprint: Fingerprint,
}

fn invalid(m: impl Into<String>) -> DaemonError {
    DaemonError::InvalidArgument(m.into())
}

/// Checks `req`. Cheap except for a PoRep payload's JSON syntax check;
/// call it off the async threads for large payloads.
pub fn check(
    req: &pb::SubmitProofRequest,
    bench_max_log_size: u32,
) -> Result<Checked, DaemonError> {
    if req.request_id.len() > MAX_REQUEST_ID {
        return Err(invalid(format!(
            "request_id is {} bytes; at most {MAX_REQUEST_ID}",
            req.request_id.len()
        )));
    }
    let pk = pb::ProofKind::try_from(req.proof_kind)
        .map_err(|_| invalid(format!("unknown proof_kind {}", req.proof_kind)))?;
    let kind = match pk {
        pb::ProofKind::Unspecified => return Err(invalid("proof_kind is not set")),
        pb::ProofKind::PorepSealCommit => Kind::PorepSealCommit,
        pb::ProofKind::SnapDealsUpdate => Kind::SnapDealsUpdate,
        pb::ProofKind::WindowPostPartition => Kind::WindowPostPartition,
        pb::ProofKind::WinningPost => Kind::WinningPost,
        pb::ProofKind::CuzkBenchCircuit => Kind::Bench,
    };
    let level = pb::Priority::try_from(req.priority)
        .map_err(|_| invalid(format!("unknown priority {}", req.priority)))?;
    // Unset: the kind's natural urgency (WinningPoSt is due within the epoch).
    let level = match (level, kind) {
        (pb::Priority::Unspecified, Kind::WinningPost) => pb::Priority::Critical,
        (pb::Priority::Unspecified, Kind::WindowPostPartition) => pb::Priority::High,
        (l, _) => l,
    };
    let input = match kind {
        Kind::Bench => Ok(ProofInput::Bench(bench(req, bench_max_log_size)?)),
        Kind::PorepSealCommit => Ok(porep(req)?),
        other => Err(format!(
            "{} is not supported yet by this daemon",
            other.name()
        )),
    };
    Ok(Checked {
        kind,
        priority: engine_priority(level),
        input,
        fingerprint: fingerprint(req),
    })
}

fn bench(req: &pb::SubmitProofRequest, max: u32) -> Result<BenchJob, DaemonError> {
    let b: BenchJob = serde_json::from_slice(&req.vanilla_proof).map_err(|e| {
        invalid(format!(
            "CUZK_BENCH_CIRCUIT: vanilla_proof must be JSON {{\"log_size\": k, \"partitions\": p, \"seed\": s}}: {e}"
        ))
    })?;
    if !(10..=max).contains(&b.log_size) {
        return Err(invalid(format!(
            "CUZK_BENCH_CIRCUIT: log_size {} is outside 10..={max} (raise [daemon] bench_max_log_size)",
            b.log_size
        )));
    }
    if !(1..=MAX_BENCH_PARTITIONS).contains(&b.partitions) {
        return Err(invalid(format!(
            "CUZK_BENCH_CIRCUIT: partitions {} is outside 1..={MAX_BENCH_PARTITIONS}",
            b.partitions
        )));
    }
    Ok(b)
}

/// A PoRep request: a Filecoin sector size, and a C1 output (Curio's
/// `{"SectorNum", "Phase1Out", "SectorSize"}` wrapper or filecoin-proofs'
/// JSON) that agrees with it, with the sector number and with the
/// registered proof type when those are given.
fn porep(req: &pb::SubmitProofRequest) -> Result<ProofInput, DaemonError> {
    if req.sector_size == 0 {
        return Err(invalid("POREP_SEAL_COMMIT: sector_size is 0"));
    }
    if !SECTOR_SIZES.contains(&req.sector_size) {
        return Err(invalid(format!(
            "POREP_SEAL_COMMIT: sector_size {} is not a Filecoin sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)",
            req.sector_size
        )));
    }
    if req.vanilla_proof.is_empty() {
        return Err(invalid(
            "POREP_SEAL_COMMIT: vanilla_proof (the C1 output) is empty",
        ));
    }
    let c1 = cuzk_filecoin::parse_c1(&req.vanilla_proof, Some(req.sector_size)).map_err(|e| {
        invalid(format!(
            "POREP_SEAL_COMMIT: vanilla_proof is not a C1 output: {e}"
        ))
    })?;
    if let Some(n) = c1.sector_num {
        if req.sector_number != 0 && n != req.sector_number {
            return Err(invalid(format!(
                "POREP_SEAL_COMMIT: sector_number {} but the C1 output is for sector {n}",
                req.sector_number
            )));
        }
    }
    // 0 is also StackedDrg2KiBV1, so only a non-zero id is checked.
    if req.registered_proof != 0 && c1.kind.registered_id() != req.registered_proof {
        return Err(invalid(format!(
            "POREP_SEAL_COMMIT: registered_proof {} but the C1 output is {:?} (id {})",
            req.registered_proof,
            c1.kind,
            c1.kind.registered_id()
        )));
    }
    ProofInput::porep(c1)
}

/// A hash of everything that defines the proof (not the priority: a retry
/// may come at another priority and is still the same proof).
fn fingerprint(req: &pb::SubmitProofRequest) -> Fingerprint {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    req.proof_kind.hash(&mut h);
    req.sector_size.hash(&mut h);
    req.registered_proof.hash(&mut h);
    req.vanilla_proof.hash(&mut h);
    req.vanilla_proofs.hash(&mut h);
    req.sector_number.hash(&mut h);
    req.miner_id.hash(&mut h);
    req.randomness.hash(&mut h);
    req.partition_index.hash(&mut h);
    req.comm_r_old.hash(&mut h);
    req.comm_r_new.hash(&mut h);
    req.comm_d_new.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench_req(json: &str) -> pb::SubmitProofRequest {
        pb::SubmitProofRequest {
            proof_kind: pb::ProofKind::CuzkBenchCircuit as i32,
            vanilla_proof: json.as_bytes().to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn priorities_are_ordered_and_critical_is_out_of_aging_reach() {
        use pb::Priority::*;
        assert!(engine_priority(Critical) > engine_priority(High));
        assert!(engine_priority(High) > engine_priority(Normal));
        assert!(engine_priority(Normal) > engine_priority(Low));
        assert!(engine_priority(Critical) - engine_priority(High) >= 100);
        let winning = pb::SubmitProofRequest {
            proof_kind: pb::ProofKind::WinningPost as i32,
            ..Default::default()
        };
        assert_eq!(
            check(&winning, 20).unwrap().priority,
            engine_priority(Critical)
        );
    }

    #[test]
    fn bench_payload() {
        let c = check(
            &bench_req(r#"{"log_size": 12, "partitions": 2, "seed": 5}"#),
            20,
        )
        .unwrap();
        match c.input {
            Ok(ProofInput::Bench(b)) => assert_eq!((b.log_size, b.partitions, b.seed), (12, 2, 5)),
            other => panic!("{other:?}"),
        }
        for bad in [
            r#"{"log_size": 9}"#,
            r#"{"log_size": 21}"#,
            r#"{"log_size": 12, "partitions": 0}"#,
            r#"{"log_size": 12, "x": 1}"#,
            "nope",
            "",
        ] {
            let e = check(&bench_req(bad), 20).unwrap_err();
            assert!(matches!(e, DaemonError::InvalidArgument(_)), "{bad}: {e}");
        }
    }

    #[test]
    fn malformed_requests() {
        let mut r = pb::SubmitProofRequest {
            proof_kind: 77,
            ..Default::default()
        };
        assert!(check(&r, 20)
            .unwrap_err()
            .to_string()
            .contains("unknown proof_kind 77"));
        r.proof_kind = 0;
        assert!(check(&r, 20).unwrap_err().to_string().contains("not set"));
        r.proof_kind = pb::ProofKind::PorepSealCommit as i32;
        assert!(check(&r, 20)
            .unwrap_err()
            .to_string()
            .contains("sector_size is 0"));
        r.sector_size = 2048;
        assert!(check(&r, 20).unwrap_err().to_string().contains("empty"));
        r.vanilla_proof = b"{not json".to_vec();
        assert!(check(&r, 20)
            .unwrap_err()
            .to_string()
            .contains("not a C1 output"));
        r.priority = 9;
        assert!(check(&r, 20).unwrap_err().to_string().contains("priority"));
    }

    #[test]
    fn unsupported_kinds_are_jobs_that_fail() {
        let r = pb::SubmitProofRequest {
            proof_kind: pb::ProofKind::SnapDealsUpdate as i32,
            ..Default::default()
        };
        let c = check(&r, 20).unwrap();
        assert!(c.input.unwrap_err().contains("not supported yet"));
    }

    #[test]
    fn fingerprint_ignores_priority_only() {
        let a = bench_req(r#"{"log_size": 12}"#);
        let mut b = a.clone();
        b.priority = 3;
        assert_eq!(fingerprint(&a), fingerprint(&b));
        b.sector_number = 1;
        assert_ne!(fingerprint(&a), fingerprint(&b));
    }
}
