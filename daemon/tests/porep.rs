//! PoRep C2 through the daemon as Curio asks for it: a sealed 2 KiB test
//! sector's C1 output in Curio's `{"SectorNum", "Phase1Out", "SectorSize"}`
//! wrapper, sent with `Prove` (request id, registered proof, sector and
//! miner numbers as Curio fills them); the proof must pass filecoin-proofs'
//! `verify_seal`, and a flipped byte must not. Then the cuzk extension
//! CUZK_AGGREGATE_SEAL: that proof aggregated with others (SnarkPack), the
//! aggregate checked by filecoin-proofs' verifier, bad manifests refused.
//!
//! The first run on a machine makes the 2 KiB parameters with cuzk's setup
//! (~3 min on 2 cores; cached in ~/.cache/cuzk/filecoin, shared with the
//! cuzk-filecoin tests).

mod common;

use std::sync::OnceLock;

use base64::Engine as _;
use common::{metric, Harness, S};
use cuzk_daemon::pb;
use cuzk_filecoin::{verify_c2, SealProofKind, SealVersion};
use cuzk_filecoin_tools::testdata::{self, TestData};

fn kind() -> SealProofKind {
    SealProofKind::new(2048, SealVersion::V1_1).unwrap()
}

/// The 2 KiB test data (and the TEST SnarkPack SRS), made once for both
/// tests of this binary.
async fn testdata() -> &'static TestData {
    static TD: OnceLock<TestData> = OnceLock::new();
    tokio::task::spawn_blocking(|| {
        TD.get_or_init(|| {
            let td =
                testdata::ensure_testdata_with(&kind(), testdata::ParamsGenerator::Cuzk).unwrap();
            testdata::ensure_srs(&td.dirs).unwrap();
            td
        })
    })
    .await
    .unwrap()
}

/// The sector's C1 output in Curio's wrapper, as Curio sends it.
fn porep_request(td: &TestData) -> pb::SubmitProofRequest {
    let inner = std::fs::read(&td.sector.c1_path).unwrap();
    let sector = td.sector.meta.sector_id;
    let wrapped = serde_json::to_vec(&serde_json::json!({
        "SectorNum": sector,
        "Phase1Out": base64::engine::general_purpose::STANDARD.encode(&inner),
        "SectorSize": 2048,
    }))
    .unwrap();
    pb::SubmitProofRequest {
        request_id: format!("porep-1000-{sector}"),
        proof_kind: pb::ProofKind::PorepSealCommit as i32,
        sector_size: 2048,
        registered_proof: kind().registered_id(),
        priority: pb::Priority::Normal as i32,
        vanilla_proof: wrapped,
        sector_number: sector,
        miner_id: 1000,
        ..Default::default()
    }
}

async fn harness(td: &TestData) -> Harness {
    let params = td.dirs.params.clone();
    // The budget holds the parameter set (~1.1 GB at 2 KiB) and a partition.
    Harness::start_with(move |s| {
        s.porep_params = Some(params);
        s.opts.memory_budget = 6 << 30;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn porep_2kib_from_curio_wrapper_verifies_with_filecoin_proofs() {
    let td = testdata().await;
    let sector = td.sector.meta.sector_id;
    let h = harness(td).await;
    let r = h.prove(porep_request(td)).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregate_seal_extension_makes_an_aggregate_filecoin_proofs_accepts() {
    let td = testdata().await;
    let h = harness(td).await;
    let r = h.prove(porep_request(td)).await;
    assert_eq!(r.status(), S::Completed, "{}", r.error_message);
    let c1 = testdata::read_c1(&td.sector).unwrap();
    let hex = cuzk_filecoin::c1::to_hex;
    let manifest = |n: usize, seed: [u8; 32], proof: serde_json::Value| {
        let s = serde_json::json!({
            "sector_id": td.sector.meta.sector_id,
            "prover_id": td.sector.meta.prover_id,
            "comm_r": hex(&c1.public.comm_r),
            "comm_d": hex(&c1.public.comm_d),
            "ticket": hex(&c1.public.ticket),
            "seed": hex(&seed),
            "proof": proof,
        });
        serde_json::to_vec(&serde_json::json!({
            "registered_proof": "StackedDrg2KiBV1_1",
            "sectors": vec![s; n],
        }))
        .unwrap()
    };
    let b64 = serde_json::json!(base64::engine::general_purpose::STANDARD.encode(&r.proof));
    let req = |vanilla_proof: Vec<u8>| pb::SubmitProofRequest {
        proof_kind: pb::ProofKind::CuzkAggregateSeal as i32,
        vanilla_proof,
        ..Default::default()
    };

    // Three sectors (padded to four): an aggregate filecoin-proofs accepts.
    let a = h.prove(req(manifest(3, c1.public.seed, b64.clone()))).await;
    assert_eq!(a.status(), S::Completed, "{}", a.error_message);
    let parsed =
        cuzk_filecoin::AggregateRequest::parse(&manifest(3, c1.public.seed, b64.clone()), None)
            .unwrap();
    let st: Vec<_> = parsed.seals.iter().map(|s| s.statement).collect();
    let (agg, dir) = (a.proof.clone(), td.dirs.params.clone());
    let ok = tokio::task::spawn_blocking(move || {
        let v = |bytes: &[u8]| {
            cuzk_filecoin::verify_aggregate(&parsed.kind, parsed.version, &st, bytes, &dir).unwrap()
        };
        let mut bad = agg.clone();
        bad[7] ^= 1;
        (v(&agg), v(&bad))
    })
    .await
    .unwrap();
    assert_eq!(ok, (true, false));

    // A seed the proof was not made for: the job fails, naming the sector.
    let mut seed = c1.public.seed;
    seed[0] ^= 1;
    let f = h.prove(req(manifest(2, seed, b64.clone()))).await;
    assert_eq!(f.status(), S::Failed);
    assert!(
        f.error_message.contains("does not verify"),
        "{}",
        f.error_message
    );
    assert!(f.proof.is_empty());

    // Malformed manifests are refused at submission.
    let mut c = h.client.clone();
    for (bad, want) in [
        (b"{".to_vec(), "not a JSON manifest"),
        (manifest(0, c1.public.seed, b64.clone()), "no sectors"),
        (
            manifest(2, c1.public.seed, serde_json::json!("AAEC")),
            "192 bytes",
        ),
        (
            String::from_utf8(manifest(2, c1.public.seed, b64.clone()))
                .unwrap()
                .replace("\"proof\"", "\"proof_file\"")
                .into_bytes(),
            "proof_file",
        ),
    ] {
        let e = c.submit_proof(req(bad)).await.unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument);
        assert!(e.message().contains(want), "{want}: {}", e.message());
    }
    let mut wrong_type = req(manifest(2, c1.public.seed, b64));
    wrong_type.registered_proof = 8; // StackedDrg32GiBV1_1
    let e = c.submit_proof(wrong_type).await.unwrap_err();
    assert!(
        e.message().contains("registered_proof 8"),
        "{}",
        e.message()
    );

    // Status and metrics list the kind.
    let st = h.status().await;
    assert!(st
        .queues
        .iter()
        .any(|q| q.proof_kind == "CUZK_AGGREGATE_SEAL"));
    let text = h.metrics().await;
    assert_eq!(
        metric(
            &text,
            r#"cuzk_jobs_finished_total{proof_kind="aggregate_seal",status="completed"}"#
        ),
        Some(1.0),
        "{text}"
    );
}
