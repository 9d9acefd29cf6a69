//! WinningPoSt, a WindowPoSt partition and a SnapDeals update through the
//! daemon as Curio asks for them (numeric registered proof types, miner id,
//! raw chain randomness, vanilla proofs as filecoin-proofs-api's bytes), on
//! 2 KiB test data made here in seconds (sealed sectors, cuzk's test
//! parameters); every proof must pass filecoin-proofs' verifier and a
//! flipped byte must not.

mod common;

use common::{Harness, S};
use cuzk_daemon::pb;
use cuzk_filecoin::{
    verify_post, verify_snap, PostProofKind, PostType, PostVersion, SealProofKind, SealVersion,
    SnapProofKind,
};
use cuzk_filecoin_tools::testdata;

const SIZE: u64 = 2048;

/// The prover id of miner `f0<miner>`, as filecoin-ffi derives it.
fn prover(miner: u64) -> [u8; 32] {
    cuzk_filecoin::parse_prover_id(&format!("f0{miner}")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_and_snap_2kib_through_the_daemon_verify_with_filecoin_proofs() {
    let winning = PostProofKind::new(PostType::Winning, SIZE, PostVersion::V1).unwrap();
    let window = PostProofKind::new(PostType::Window, SIZE, PostVersion::V1_2).unwrap();
    let snap = SnapProofKind::new(SIZE).unwrap();
    // Raw randomness as the chain gives it; the daemon clears the top bits.
    let raw = [0xa7u8; 32];
    let mut r = raw;
    r[31] &= 0x3f;
    let miner = 1000;
    let (dirs, sectors, win_v, win_sector, window_v, update) =
        tokio::task::spawn_blocking(move || {
            let dirs = testdata::init_env(&testdata::testdata_root()).unwrap();
            let seal = SealProofKind::new(SIZE, SealVersion::V1_1).unwrap();
            let mut sectors = testdata::post_test_sectors(&seal, &dirs, 3).unwrap();
            sectors.sort_by_key(|s| s.sector_id);
            for k in [&winning, &window] {
                testdata::ensure_post_params(k, &dirs, testdata::PARAMS_SEED).unwrap();
            }
            testdata::ensure_snap_params(&snap, &dirs, testdata::PARAMS_SEED).unwrap();
            // The test sectors are sealed for POST_PROVER_ID; PoSt's
            // vanilla proofs and circuit do not depend on the sealing
            // prover, only on the proving one.
            let p = prover(miner);
            // A one-sector set: WinningPoSt's challenge picks that sector.
            let win_sector = sectors[0].clone();
            let win_v =
                testdata::post_vanilla_proofs(&winning, std::slice::from_ref(&win_sector), r, p)
                    .unwrap();
            let window_v = testdata::post_vanilla_proofs(&window, &sectors[..2], r, p).unwrap();
            let update = testdata::snap_test_update(&snap, &dirs, 0).unwrap();
            (dirs, sectors, win_v, win_sector, window_v, update)
        })
        .await
        .unwrap();
    let params = dirs.params.clone();
    let records = tempfile::tempdir().unwrap();
    let r1cs = records.path().to_path_buf();
    let h = Harness::start_with(move |s| {
        s.porep_params = Some(params);
        s.opts.memory_budget = 4 << 30;
        s.r1cs_dir = Some(r1cs);
    })
    .await;

    // A preload makes the kind's circuit record ready (recorded here into
    // an empty folder), not only its parameters: the first proof of it
    // does not wait for a recording.
    let window_file = cuzk_filecoin::ProofKind::Post(window)
        .params_file_name()
        .unwrap();
    let record = records.path().join(format!("{window_file}.r1cs"));
    assert!(!record.exists());
    h.client
        .clone()
        .preload_srs(pb::PreloadSrsRequest {
            circuit_id: "wpost-2k".into(),
        })
        .await
        .unwrap();
    assert!(
        record.is_file(),
        "{} not recorded at preload",
        record.display()
    );

    // WinningPoSt: priority left unset (the daemon makes it CRITICAL).
    let w = h
        .prove(pb::SubmitProofRequest {
            request_id: "winning-1".into(),
            proof_kind: pb::ProofKind::WinningPost as i32,
            registered_proof: winning.registered_id(),
            sector_size: SIZE,
            miner_id: miner,
            randomness: raw.to_vec(),
            vanilla_proofs: win_v,
            ..Default::default()
        })
        .await;
    assert_eq!(w.status(), S::Completed, "{}", w.error_message);
    // WindowPoSt partition 0 of a two-sector deadline.
    let d = h
        .prove(pb::SubmitProofRequest {
            request_id: "wdpost-0".into(),
            proof_kind: pb::ProofKind::WindowPostPartition as i32,
            registered_proof: window.registered_id(),
            miner_id: miner,
            randomness: raw.to_vec(),
            partition_index: 0,
            vanilla_proofs: window_v,
            ..Default::default()
        })
        .await;
    assert_eq!(d.status(), S::Completed, "{}", d.error_message);
    // SnapDeals.
    let u = h
        .prove(pb::SubmitProofRequest {
            request_id: "snap-1".into(),
            proof_kind: pb::ProofKind::SnapDealsUpdate as i32,
            registered_proof: snap.registered_id(),
            sector_size: SIZE,
            comm_r_old: update.comm_r_old.to_vec(),
            comm_r_new: update.comm_r_new.to_vec(),
            comm_d_new: update.comm_d_new.to_vec(),
            vanilla_proofs: update.vanilla_proofs.clone(),
            ..Default::default()
        })
        .await;
    assert_eq!(u.status(), S::Completed, "{}", u.error_message);
    // Vanilla proofs of another randomness: refused with the reason.
    let bad = h
        .try_prove(pb::SubmitProofRequest {
            request_id: "winning-2".into(),
            proof_kind: pb::ProofKind::WinningPost as i32,
            registered_proof: winning.registered_id(),
            miner_id: miner,
            randomness: vec![0x11; 32],
            vanilla_proofs: testdata::post_vanilla_proofs(
                &winning,
                std::slice::from_ref(&win_sector),
                r,
                prover(miner),
            )
            .unwrap(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    assert!(bad.message().contains("do not verify"), "{}", bad.message());

    let p = prover(miner);
    let dir = dirs.params.clone();
    let (wp, dp, up) = (w.proof.clone(), d.proof.clone(), u.proof.clone());
    let checks = tokio::task::spawn_blocking(move || {
        let flip = |b: &[u8]| {
            let mut b = b.to_vec();
            b[77] ^= 1;
            b
        };
        let win_set = [(win_sector.sector_id, win_sector.comm_r)];
        let window_set: Vec<_> = sectors[..2]
            .iter()
            .map(|s| (s.sector_id, s.comm_r))
            .collect();
        let v_win = |b: &[u8]| verify_post(&winning, r, p, &win_set, b, &dir).unwrap();
        let v_window = |b: &[u8]| verify_post(&window, r, p, &window_set, b, &dir).unwrap();
        let v_snap = |b: &[u8]| {
            verify_snap(
                &snap,
                update.comm_r_old,
                update.comm_r_new,
                update.comm_d_new,
                b,
                &dir,
            )
            .unwrap()
        };
        [
            v_win(&wp),
            !v_win(&flip(&wp)),
            v_window(&dp),
            !v_window(&flip(&dp)),
            v_snap(&up),
            !v_snap(&flip(&up)),
        ]
    })
    .await
    .unwrap();
    assert_eq!(checks, [true; 6], "accepted / flipped rejected, per kind");
}
