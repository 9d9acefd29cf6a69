//! Checking a `SubmitProofRequest` before anything is queued: kind,
//! priority, payload. A malformed request is an `INVALID_ARGUMENT` error
//! naming the field; every proof kind of the proto is provable.

use crate::engine_glue::{BenchJob, ProofInput};
use crate::error::DaemonError;
use crate::jobs::{Fingerprint, Kind};
use crate::pb;
use std::hash::{Hash, Hasher};

#[cfg(feature = "filecoin")]
mod filecoin;

/// Longest request_id accepted (Curio's are ~30 bytes).
const MAX_REQUEST_ID: usize = 256;
/// Most partitions of one bench job.
const MAX_BENCH_PARTITIONS: usize = 64;

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
    /// What to prove.
    pub input: ProofInput,
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
        pb::ProofKind::CuzkAggregateSeal => Kind::AggregateSeal,
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
        Kind::Bench => ProofInput::Bench(bench(req, bench_max_log_size)?),
        #[cfg(feature = "filecoin")]
        Kind::PorepSealCommit => filecoin::porep(req)?,
        #[cfg(feature = "filecoin")]
        Kind::WinningPost | Kind::WindowPostPartition => filecoin::post(req, kind)?,
        #[cfg(feature = "filecoin")]
        Kind::SnapDealsUpdate => filecoin::snap(req)?,
        #[cfg(feature = "filecoin")]
        Kind::AggregateSeal => filecoin::aggregate(req)?,
        #[cfg(not(feature = "filecoin"))]
        _ => {
            return Err(DaemonError::Unimplemented(format!(
                "{}: this daemon is built without the Filecoin proofs",
                kind.name()
            )))
        }
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
    #[cfg(feature = "filecoin")]
    fn priorities_are_ordered_and_critical_is_out_of_aging_reach() {
        use pb::Priority::*;
        assert!(engine_priority(Critical) > engine_priority(High));
        assert!(engine_priority(High) > engine_priority(Normal));
        assert!(engine_priority(Normal) > engine_priority(Low));
        assert!(engine_priority(Critical) - engine_priority(High) >= 100);
        let winning = pb::SubmitProofRequest {
            proof_kind: pb::ProofKind::WinningPost as i32,
            randomness: vec![0; 32],
            vanilla_proofs: vec![vec![0]],
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
            ProofInput::Bench(b) => assert_eq!((b.log_size, b.partitions, b.seed), (12, 2, 5)),
            // The only kind there is without the `filecoin` feature.
            #[allow(unreachable_patterns)]
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
    #[cfg(feature = "filecoin")]
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
    #[cfg(feature = "filecoin")]
    fn post_and_snap_requests_are_checked() {
        let msg = |r: &pb::SubmitProofRequest| check(r, 20).unwrap_err().to_string();
        let mut w = pb::SubmitProofRequest {
            proof_kind: pb::ProofKind::WinningPost as i32,
            registered_proof: 3,
            randomness: vec![0xff; 32],
            miner_id: 1000,
            vanilla_proofs: vec![vec![1, 2, 3]],
            ..Default::default()
        };
        match check(&w, 20).unwrap().input {
            ProofInput::Post { input, circuit_id } => {
                assert_eq!(input.kind.api_name(), "StackedDrgWinning32GiBV1");
                // The top two bits cleared, as Lotus does before filecoin-ffi.
                assert_eq!(input.randomness[31], 0x3f);
                assert_eq!(input.partition, None);
                assert!(circuit_id.starts_with("v28-proof-of-spacetime-fallback"));
            }
            other => panic!("{other:?}"),
        }
        w.randomness.pop();
        assert!(msg(&w).contains("randomness is 31 bytes"));
        w.randomness.push(0);
        w.registered_proof = 13; // a WindowPoSt type for WINNING_POST
        assert!(msg(&w).contains("not a WinningPoSt"));
        w.proof_kind = pb::ProofKind::WindowPostPartition as i32;
        w.partition_index = 4;
        w.sector_size = 2048;
        assert!(msg(&w).contains("sector_size 2048"));
        w.sector_size = 32 << 30;
        match check(&w, 20).unwrap().input {
            ProofInput::Post { input, .. } => assert_eq!(input.partition, Some(4)),
            other => panic!("{other:?}"),
        }
        w.vanilla_proofs.clear();
        assert!(msg(&w).contains("vanilla_proofs is empty"));
        w.registered_proof = 99;
        assert!(msg(&w).contains("RegisteredPoStProof"));

        let mut s = pb::SubmitProofRequest {
            proof_kind: pb::ProofKind::SnapDealsUpdate as i32,
            sector_size: 32 << 30,
            comm_r_old: vec![1; 32],
            comm_r_new: vec![2; 32],
            comm_d_new: vec![3; 32],
            vanilla_proofs: vec![vec![1]],
            ..Default::default()
        };
        match check(&s, 20).unwrap().input {
            ProofInput::Snap { input, .. } => {
                assert_eq!(input.kind.api_name(), "StackedDrg32GiBV1")
            }
            other => panic!("{other:?}"),
        }
        s.comm_d_new.pop();
        assert!(msg(&s).contains("comm_d_new is 31 bytes"));
        s.comm_d_new.push(3);
        s.registered_proof = 1;
        assert!(msg(&s).contains("sector_size"));
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
