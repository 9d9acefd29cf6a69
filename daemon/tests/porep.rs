//! PoRep C2 through the daemon as Curio asks for it: a sealed 2 KiB test
//! sector's C1 output in Curio's `{"SectorNum", "Phase1Out", "SectorSize"}`
//! wrapper, sent with `Prove` (request id, registered proof, sector and
//! miner numbers as Curio fills them); the proof must pass filecoin-proofs'
//! `verify_seal`, and a flipped byte must not.
//!
//! Ignored by default: the first run on a machine generates the 2 KiB
//! parameters (~15 min, ~5 GB of memory; cached in ~/.cache/cuzk/filecoin,
//! like the cuzk-filecoin e2e test). Run it with
//! `cargo test -p cuzk-daemon --test porep -- --ignored`.

mod common;

use common::{Harness, S};
use cuzk_daemon::pb;
use cuzk_filecoin::{verify_c2, SealProofKind, SealVersion};
use cuzk_filecoin_tools::testdata;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "generates 2 KiB Groth16 parameters on first run (~15 min); cached afterwards"]
async fn porep_2kib_from_curio_wrapper_verifies_with_filecoin_proofs() {
    use base64::Engine as _;
    let kind = SealProofKind::new(2048, SealVersion::V1_1).unwrap();
    let td = tokio::task::spawn_blocking(move || testdata::ensure_testdata(&kind).unwrap())
        .await
        .unwrap();
    let inner = std::fs::read(&td.sector.c1_path).unwrap();
    let sector = td.sector.meta.sector_id;
    let wrapped = serde_json::to_vec(&serde_json::json!({
        "SectorNum": sector,
        "Phase1Out": base64::engine::general_purpose::STANDARD.encode(&inner),
        "SectorSize": 2048,
    }))
    .unwrap();
    let params = td.dirs.params.clone();
    // The budget holds the parameter set (~1.1 GB at 2 KiB) and a partition.
    let h = Harness::start_with(move |s| {
        s.porep_params = Some(params);
        s.opts.memory_budget = 6 << 30;
    })
    .await;
    let req = pb::SubmitProofRequest {
        request_id: format!("porep-1000-{sector}"),
        proof_kind: pb::ProofKind::PorepSealCommit as i32,
        sector_size: 2048,
        registered_proof: kind.registered_id(),
        priority: pb::Priority::Normal as i32,
        vanilla_proof: wrapped,
        sector_number: sector,
        miner_id: 1000,
        ..Default::default()
    };
    let r = h.prove(req).await;
    assert_eq!(r.status(), S::Completed, "{}", r.error_message);
    assert_eq!(r.proof.len(), 192);
    let c1 = testdata::read_c1(&td.sector).unwrap();
    let prover = td.sector.meta.prover_id_bytes().unwrap();
    let dir = td.dirs.params.clone();
    let proof = r.proof.clone();
    let ok = tokio::task::spawn_blocking(move || {
        let good = verify_c2(&c1.kind, &c1.public, prover, sector, &proof, &dir).unwrap();
        let mut bad = proof.clone();
        bad[100] ^= 1;
        let flipped = verify_c2(&c1.kind, &c1.public, prover, sector, &bad, &dir).unwrap();
        (good, flipped)
    })
    .await
    .unwrap();
    assert_eq!(ok, (true, false));
    let st = h.status().await;
    assert!(st
        .loaded_srs
        .iter()
        .any(|s| s.circuit_id.starts_with("v28-") && s.size_bytes > 0));
}
