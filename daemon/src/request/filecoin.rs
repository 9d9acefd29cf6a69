//! The Filecoin kinds' requests (feature `filecoin`): PoRep, PoSt and
//! SnapDeals payloads checked and parsed into a [`ProofInput`].

use super::invalid;
use crate::engine_glue::ProofInput;
use crate::error::DaemonError;
use crate::jobs::Kind;
use crate::pb;

/// Sector sizes Filecoin proofs exist for.
const SECTOR_SIZES: [u64; 5] = [2 << 10, 8 << 20, 512 << 20, 32 << 30, 64 << 30];

/// A PoRep request: a Filecoin sector size, and a C1 output (Curio's
/// `{"SectorNum", "Phase1Out", "SectorSize"}` wrapper or filecoin-proofs'
/// JSON) that agrees with it, with the sector number and with the
/// registered proof type when those are given.
pub(super) fn porep(req: &pb::SubmitProofRequest) -> Result<ProofInput, DaemonError> {
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
pub(super) fn post(req: &pb::SubmitProofRequest, kind: Kind) -> Result<ProofInput, DaemonError> {
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
pub(super) fn snap(req: &pb::SubmitProofRequest) -> Result<ProofInput, DaemonError> {
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

/// An aggregation request: the manifest of `cuzk aggregate porep` in
/// `vanilla_proof`, its proofs inline (a request never names a file on
/// this host), its shape checked now; the proofs are verified when it
/// runs.
pub(super) fn aggregate(req: &pb::SubmitProofRequest) -> Result<ProofInput, DaemonError> {
    let what = "CUZK_AGGREGATE_SEAL";
    if req.vanilla_proof.is_empty() {
        return Err(invalid(format!(
            "{what}: vanilla_proof (the aggregation manifest) is empty"
        )));
    }
    let r = cuzk_filecoin::AggregateRequest::parse(&req.vanilla_proof, None)
        .and_then(|r| cuzk_filecoin::aggregate::check_request(&r).map(|()| r))
        .map_err(|e| invalid(format!("{what}: {e}")))?;
    if req.registered_proof != 0 && r.kind.registered_id() != req.registered_proof {
        return Err(invalid(format!(
            "{what}: registered_proof {} but the manifest's sectors are {}",
            req.registered_proof,
            r.kind.api_name()
        )));
    }
    Ok(ProofInput::Aggregate(std::sync::Arc::new(r)))
}
