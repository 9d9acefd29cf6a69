//! Checking a `SubmitProofRequest` before anything is queued: kind,
//! priority, payload. A malformed request is an `INVALID_ARGUMENT` error
//! naming the field; every proof kind of the proto is provable.

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
        Kind::PorepSealCommit => porep(req)?,
        Kind::WinningPost | Kind::WindowPostPartition => post(req, kind)?,
        Kind::SnapDealsUpdate => snap(req)?,
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

/// The size a request's `sector_size` names, checked against the
/// registered proof type's.
fn sector_size(what: &str, req: &pb::SubmitProofRequest, of_type: u64) -> Result<(), DaemonError> {
    if req.sector_size != 0 && req.sector_size != of_type {
        return Err(invalid(format!(
            "{what}: sector_size {} but registered_proof {} is for {of_type}-byte sectors",
            req.sector_size, req.registered_proof
        )));
    }
    Ok(())
}

fn commitment(what: &str, field: &str, b: &[u8]) -> Result<[u8; 32], DaemonError> {
    <[u8; 32]>::try_from(b)
        .map_err(|_| invalid(format!("{what}: {field} is {} bytes, not 32", b.len())))
}

/// A PoSt request: the registered proof type (go-state-types' number),
/// 32 bytes of randomness, the miner, the vanilla proofs (one per sector,
/// bincode as filecoin-proofs-api's `generate_single_vanilla_proof` returns
/// them) and, for WindowPoSt, the partition.
fn post(req: &pb::SubmitProofRequest, kind: Kind) -> Result<ProofInput, DaemonError> {
    let what = kind.name();
    let pk = cuzk_filecoin::PostProofKind::from_registered_id(req.registered_proof)
        .map_err(|e| invalid(format!("{what}: {e}")))?;
    let want = match kind {
        Kind::WinningPost => cuzk_filecoin::PostType::Winning,
        _ => cuzk_filecoin::PostType::Window,
    };
    if pk.typ != want {
        return Err(invalid(format!(
            "{what}: registered_proof {} is {}, not a {want:?}PoSt proof type",
            req.registered_proof,
            pk.api_name()
        )));
    }
    sector_size(what, req, pk.sector_size)?;
    let mut randomness = commitment(what, "randomness", &req.randomness)?;
    // As Lotus and Curio do before calling filecoin-ffi: the chain's
    // randomness made a canonical field element.
    randomness[31] &= 0x3f;
    if req.vanilla_proofs.is_empty() {
        return Err(invalid(format!("{what}: vanilla_proofs is empty")));
    }
    let prover_id = cuzk_filecoin::parse_prover_id(&format!("f0{}", req.miner_id))
        .map_err(|e| invalid(format!("{what}: miner_id: {e}")))?;
    ProofInput::post(cuzk_filecoin::PostInput {
        kind: pk,
        randomness,
        prover_id,
        vanilla_proofs: req.vanilla_proofs.clone(),
        partition: (kind == Kind::WindowPostPartition).then_some(req.partition_index as usize),
    })
}

/// A SnapDeals request: the registered update proof type (0 = 2 KiB …
/// 4 = 64 GiB), the three commitments and one vanilla proof per
/// partition (bincode as `generate_partition_proofs` returns them).
fn snap(req: &pb::SubmitProofRequest) -> Result<ProofInput, DaemonError> {
    let what = "SNAP_DEALS_UPDATE";
    // 0 is also 2 KiB: with a sector size given, that decides.
    let sk = match (req.registered_proof, req.sector_size) {
        (0, s) if s != 0 => cuzk_filecoin::SnapProofKind::new(s),
        (id, _) => cuzk_filecoin::SnapProofKind::from_registered_id(id),
    }
    .map_err(|e| invalid(format!("{what}: {e}")))?;
    sector_size(what, req, sk.sector_size)?;
    if req.vanilla_proofs.is_empty() {
        return Err(invalid(format!("{what}: vanilla_proofs is empty")));
    }
    ProofInput::snap(cuzk_filecoin::SnapInput {
        kind: sk,
        comm_r_old: commitment(what, "comm_r_old", &req.comm_r_old)?,
        comm_r_new: commitment(what, "comm_r_new", &req.comm_r_new)?,
        comm_d_new: commitment(what, "comm_d_new", &req.comm_d_new)?,
        vanilla_proofs: req.vanilla_proofs.clone(),
    })
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
