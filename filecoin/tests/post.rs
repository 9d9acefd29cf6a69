//! WinningPoSt and WindowPoSt end to end against filecoin-proofs at 2 KiB
//! on the CPU: sealed test sectors → filecoin-proofs' vanilla proofs
//! (bincode, as filecoin-proofs-api returns them) → cuzk's engine →
//! filecoin-proofs' `verify_winning_post` / `verify_window_post`. The
//! parameters are made by cuzk's setup (seconds at 2 KiB) and, with the
//! sealed sectors, cached under ~/.cache/cuzk/filecoin (or
//! $CUZK_TESTDATA_DIR).
//!
//! `cargo test -p cuzk-filecoin --test post`

use cuzk_field::Fr;
use cuzk_filecoin::post::{post_job, post_public_inputs, prepare, vanilla_sectors};
use cuzk_filecoin::{
    circuit_job, prove_post, run_job, verify_post, FilecoinError, PostInput, PostOptions,
    PostProofKind, PostType, PostVersion, SealProofKind, SealVersion, WitnessGen,
};
use cuzk_filecoin_tools::testdata::{self, PostTestSector, TestDirs, POST_PROVER_ID};
use cuzk_scheduler::{Engine, PartitionSource};
use filecoin_proofs::{FallbackPoStSectorProof, SectorShape2KiB};
use std::sync::{Mutex, OnceLock};

const SIZE: u64 = 2048;

/// The cache directories and three sealed 2 KiB sectors in sector-id
/// order (the order WindowPoSt's verifier uses), made once per process.
fn setup() -> &'static (TestDirs, Vec<PostTestSector>) {
    static SETUP: OnceLock<(TestDirs, Vec<PostTestSector>)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let dirs = testdata::init_env(&testdata::testdata_root()).unwrap();
        let seal = SealProofKind::new(SIZE, SealVersion::V1_1).unwrap();
        let mut sectors = testdata::post_test_sectors(&seal, &dirs, 3).unwrap();
        sectors.sort_by_key(|s| s.sector_id);
        (dirs, sectors)
    })
}

/// Parameters of `kind`, generated once per process (tests run in parallel).
fn params(kind: &PostProofKind) {
    static LOCK: Mutex<()> = Mutex::new(());
    let _one = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    testdata::ensure_post_params(kind, &setup().0, testdata::PARAMS_SEED).unwrap();
}

fn randomness(seed: u8) -> [u8; 32] {
    let mut r = [seed; 32];
    r[31] &= 0x3f; // as the chain draws it: a canonical field element
    r
}

fn winning() -> PostProofKind {
    PostProofKind::new(PostType::Winning, SIZE, PostVersion::V1).unwrap()
}

fn window() -> PostProofKind {
    PostProofKind::new(PostType::Window, SIZE, PostVersion::V1_2).unwrap()
}

fn input(kind: PostProofKind, randomness: [u8; 32], vanilla: Vec<Vec<u8>>) -> PostInput {
    PostInput {
        kind,
        randomness,
        prover_id: POST_PROVER_ID,
        vanilla_proofs: vanilla,
        partition: None,
    }
}

fn public(sectors: &[PostTestSector]) -> Vec<(u64, [u8; 32])> {
    sectors.iter().map(|s| (s.sector_id, s.comm_r)).collect()
}

fn verify(kind: &PostProofKind, r: [u8; 32], sectors: &[(u64, [u8; 32])], proof: &[u8]) -> bool {
    verify_post(kind, r, POST_PROVER_ID, sectors, proof, &setup().0.params).unwrap()
}

#[test]
fn winning_post_2kib_verifies_with_filecoin_proofs() {
    let (dirs, sectors) = setup();
    let kind = winning();
    params(&kind);
    let r = randomness(0x11);
    // The challenged sector, picked as Lotus picks it.
    let picked = filecoin_proofs::generate_winning_post_sector_challenge::<SectorShape2KiB>(
        &kind.post_config(),
        &r,
        sectors.len() as u64,
        POST_PROVER_ID,
    )
    .unwrap();
    let sector = &sectors[picked[0] as usize];
    let vanilla =
        testdata::post_vanilla_proofs(&kind, std::slice::from_ref(sector), r, POST_PROVER_ID)
            .unwrap();
    let engine = Engine::cpu().unwrap();
    let out = prove_post(
        &input(kind, r, vanilla.clone()),
        &PostOptions::new(dirs.params.clone(), &engine),
    )
    .unwrap();
    assert_eq!(out.partitions, 1);
    assert_eq!(out.proof.len(), 192);
    let set = public(std::slice::from_ref(sector));
    assert_eq!(
        vanilla_sectors(&input(kind, r, vanilla)).unwrap(),
        set,
        "the vanilla proofs name the sector they prove"
    );
    assert!(verify(&kind, r, &set, &out.proof));

    // Rejected: other randomness, another sector, a flipped byte.
    assert!(!verify(&kind, randomness(0x12), &set, &out.proof));
    let other = sectors
        .iter()
        .find(|s| s.sector_id != sector.sector_id)
        .unwrap();
    assert!(!verify(
        &kind,
        r,
        &public(std::slice::from_ref(other)),
        &out.proof
    ));
    for pos in [0, 50, 100, 191] {
        let mut bad = out.proof.clone();
        bad[pos] ^= 1;
        assert!(!verify(&kind, r, &set, &bad), "byte {pos}");
    }
    // Wrong length and a WinningPoSt over two sectors are errors.
    assert!(verify_post(
        &kind,
        r,
        POST_PROVER_ID,
        &set,
        &out.proof[..191],
        &dirs.params
    )
    .is_err());
    let two = public(&sectors[..2]);
    assert!(matches!(
        verify_post(&kind, r, POST_PROVER_ID, &two, &out.proof, &dirs.params),
        Err(FilecoinError::SectorCount {
            got: 2,
            expected: 1,
            ..
        })
    ));
}

#[test]
fn window_post_2kib_two_partitions_verify_with_filecoin_proofs() {
    let (dirs, sectors) = setup();
    let kind = window();
    params(&kind);
    assert_eq!(kind.sectors_per_partition(), 2);
    let r = randomness(0x21);
    let vanilla = testdata::post_vanilla_proofs(&kind, sectors, r, POST_PROVER_ID).unwrap();
    let engine = Engine::cpu().unwrap();
    let opts = PostOptions::new(dirs.params.clone(), &engine);
    // Given out of order: proved in sector-id order, as the verifier expects.
    let mut shuffled = vanilla.clone();
    shuffled.reverse();
    let out = prove_post(&input(kind, r, shuffled), &opts).unwrap();
    assert_eq!(out.partitions, 2);
    assert_eq!(out.proof.len(), 2 * 192);
    let set = public(sectors);
    assert!(verify(&kind, r, &set, &out.proof));
    assert!(!verify(&kind, randomness(0x22), &set, &out.proof));
    let mut bad = out.proof.clone();
    bad[192 + 7] ^= 1;
    assert!(!verify(&kind, r, &set, &bad));
    // A sector set with another comm_r for one sector.
    let mut swapped = set.clone();
    swapped[2].1 = set[0].1;
    assert!(!verify(&kind, r, &swapped, &out.proof));

    // generate_single_window_post_with_vanilla's form: each partition on
    // its own, concatenated, is the same proof to the verifier.
    let mut merged = Vec::new();
    for (k, chunk) in vanilla.chunks(2).enumerate() {
        let mut one = input(kind, r, chunk.to_vec());
        one.partition = Some(k);
        let p = prove_post(&one, &opts).unwrap();
        assert_eq!((p.partitions, p.proof.len()), (1, 192));
        merged.extend(p.proof);
    }
    assert!(verify(&kind, r, &set, &merged));

    // The verifier's inputs of the single partition 1 equal those of
    // partition 1 of the whole proof.
    let whole = post_public_inputs(&input(kind, r, vanilla.clone())).unwrap();
    let mut last = input(kind, r, vanilla[2..].to_vec());
    last.partition = Some(1);
    assert_eq!(post_public_inputs(&last).unwrap(), whole[1..].to_vec());
}

/// The pre-compiled path: each PoSt kind recorded from the blank
/// circuit (its sectors on all cores, equal to the sequential branch's
/// record), then witness-only synthesis whose sectors
/// run in parallel (the extensible branch: two sectors per 2 KiB WindowPoSt
/// partition are two sub-systems on two cores), equals the classic
/// synthesis field for field in every partition, and its proofs verify
/// with filecoin-proofs.
#[test]
fn post_2kib_compiled_equals_classic_and_verifies() {
    let (dirs, sectors) = setup();
    let engine = Engine::cpu().unwrap();
    for kind in [window(), winning()] {
        params(&kind);
        let r = randomness(0x31);
        let chosen: Vec<PostTestSector> = match kind.typ {
            PostType::Window => sectors.clone(),
            PostType::Winning => {
                let picked =
                    filecoin_proofs::generate_winning_post_sector_challenge::<SectorShape2KiB>(
                        &kind.post_config(),
                        &r,
                        sectors.len() as u64,
                        POST_PROVER_ID,
                    )
                    .unwrap();
                vec![sectors[picked[0] as usize].clone()]
            }
        };
        let vanilla = testdata::post_vanilla_proofs(&kind, &chosen, r, POST_PROVER_ID).unwrap();
        let rec = std::sync::Arc::new(cuzk_filecoin::compiled::record_post(&kind).unwrap());
        // Recorded sector by sector on all cores, renumbered into the
        // sequential layout the parameters come from.
        let seq = cuzk_synth::compiled::CompiledR1cs::record(cuzk_synth::Sequential(
            cuzk_filecoin::post::blank_circuit::<SectorShape2KiB>(&kind).unwrap(),
        ))
        .unwrap();
        assert!(*rec == seq, "{}: parallel record", kind.api_name());
        let job = |r1cs, witness| {
            post_job(
                &input(kind, r, vanilla.clone()),
                &dirs.params,
                true,
                r1cs,
                witness,
            )
            .unwrap()
        };
        let classic = job(None, WitnessGen::Generic);
        let n = classic.source.num_partitions();
        let compiled = [WitnessGen::Generic, WitnessGen::Native, WitnessGen::Check]
            .map(|w| (w, job(Some(&rec), w)));
        for k in 0..n {
            let want = classic.source.synthesize(k).unwrap();
            assert_eq!(rec.shape(), want.shape());
            for (w, job) in &compiled {
                assert_eq!(n, job.source.num_partitions());
                let mut got = job.source.synthesize(k).unwrap();
                assert!(got.a.is_empty(), "a compiled partition defers a, b, c");
                got.evaluate_deferred().unwrap();
                assert!(
                    want == got,
                    "{} {w:?}: partition {k} differs",
                    kind.api_name()
                );
            }
        }
        // Proved and verified through each witness generator.
        for w in [WitnessGen::Generic, WitnessGen::Native] {
            let mut opts = PostOptions::new(dirs.params.clone(), &engine);
            opts.r1cs = Some(rec.clone());
            opts.witness = w;
            let out = prove_post(&input(kind, r, vanilla.clone()), &opts).unwrap();
            assert!(
                verify(&kind, r, &public(&chosen), &out.proof),
                "{} {w:?}",
                kind.api_name()
            );
        }
    }
}

fn decode(bytes: &[u8]) -> FallbackPoStSectorProof<SectorShape2KiB> {
    bincode::deserialize(bytes).unwrap()
}

#[test]
fn bad_vanilla_proofs_are_typed_errors() {
    let (dirs, sectors) = setup();
    let (win, win_r) = (winning(), randomness(0x31));
    let sector = &sectors[0..1];
    let wv = testdata::post_vanilla_proofs(&win, sector, win_r, POST_PROVER_ID).unwrap();
    let (wnd, wnd_r) = (window(), randomness(0x32));
    let dv = testdata::post_vanilla_proofs(&wnd, &sectors[..2], wnd_r, POST_PROVER_ID).unwrap();
    let check = |i: PostInput| post_public_inputs(&i).map(|_| ());
    check(input(win, win_r, wv.clone())).unwrap();
    check(input(wnd, wnd_r, dv.clone())).unwrap();

    // Counts: WinningPoSt takes one sector, a single WindowPoSt partition
    // at most two (2 KiB), and nothing is not a proof.
    let e = check(input(win, win_r, vec![wv[0].clone(), wv[0].clone()])).unwrap_err();
    assert!(
        matches!(
            e,
            FilecoinError::VanillaCount {
                got: 2,
                min: 1,
                max: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = check(input(wnd, wnd_r, vec![])).unwrap_err();
    assert!(
        matches!(e, FilecoinError::VanillaCount { got: 0, .. }),
        "{e}"
    );
    let mut three = input(wnd, wnd_r, [dv.clone(), dv[..1].to_vec()].concat());
    three.partition = Some(0);
    let e = check(three).unwrap_err();
    assert!(
        matches!(e, FilecoinError::VanillaCount { got: 3, max: 2, .. }),
        "{e}"
    );
    let e = check(input(wnd, wnd_r, vec![dv[0].clone(), dv[0].clone()])).unwrap_err();
    assert!(matches!(e, FilecoinError::DuplicateSector(_)), "{e}");

    // The other kind's vanilla proof; another sector size's proof type.
    let e = check(input(win, win_r, dv[..1].to_vec())).unwrap_err();
    assert!(
        matches!(e, FilecoinError::BadVanilla { index: 0, .. }),
        "{e}"
    );
    let big = PostProofKind::new(PostType::Winning, 8 << 20, PostVersion::V1).unwrap();
    let e = check(input(big, win_r, wv.clone())).unwrap_err();
    assert!(matches!(e, FilecoinError::SectorSize(_)), "{e}");

    // Wrong randomness: the challenged leaves differ.
    let e = check(input(win, randomness(0x33), wv.clone())).unwrap_err();
    assert!(
        matches!(e, FilecoinError::VanillaInvalid { partition: 0 }),
        "{e}"
    );
    let e = check(input(win, [0xff; 32], wv.clone())).unwrap_err();
    assert!(
        matches!(e, FilecoinError::NotFieldElement("randomness")),
        "{e}"
    );

    // Truncated bytes, and flipped bytes anywhere: an error, never a panic
    // (non-canonical field elements would panic inside filecoin-proofs).
    let e = check(input(win, win_r, vec![wv[0][..100].to_vec()])).unwrap_err();
    assert!(
        matches!(e, FilecoinError::BadVanilla { index: 0, .. }),
        "{e}"
    );
    let len = wv[0].len();
    for pos in (0..len).step_by(len / 61 + 1).chain([len - 1, len - 33]) {
        for mask in [0x01, 0x80] {
            let mut bad = wv[0].clone();
            bad[pos] ^= mask;
            assert!(
                check(input(win, win_r, vec![bad])).is_err(),
                "byte {pos} ^ {mask:#x} of {len} went unnoticed"
            );
        }
    }

    // A comm_r_last the vanilla verifier does not look at (it takes the
    // paths' root) but the circuit does: refused before synthesis, and a
    // prove call ends in the same error without touching the engine.
    let mut vp = decode(&wv[0]);
    vp.vanilla_proof.sectors[0].comm_r_last = vp.vanilla_proof.sectors[0].comm_c;
    let bad = input(win, win_r, vec![bincode::serialize(&vp).unwrap()]);
    let e = check(bad.clone()).unwrap_err();
    assert!(
        matches!(e, FilecoinError::BadVanilla { index: 0, .. }),
        "{e}"
    );
    params(&win);
    let engine = Engine::cpu().unwrap();
    let e = prove_post(&bad, &PostOptions::new(dirs.params.clone(), &engine)).unwrap_err();
    assert!(
        matches!(e, FilecoinError::BadVanilla { index: 0, .. }),
        "{e}"
    );
    // The job itself carries the right shape and priority for the engine.
    let job = post_job(
        &input(win, win_r, wv),
        &dirs.params,
        true,
        None,
        WitnessGen::Generic,
    )
    .unwrap();
    assert_eq!(job.inputs.len(), 1);
    assert_eq!(
        job.inputs[0].len() + 1,
        job.source.partition_shape().num_inputs
    );
    assert!(win.priority() > wnd.priority() && wnd.priority() > 0);
}

#[test]
fn proof_type_names_round_trip() {
    for name in [
        "StackedDrgWinning2KiBV1",
        "StackedDrgWindow2KiBV1",
        "StackedDrgWindow32GiBV1_2",
        "StackedDrgWinning64GiBV1",
    ] {
        assert_eq!(PostProofKind::from_api_name(name).unwrap().api_name(), name);
    }
    for bad in [
        "StackedDrgWinning2KiBV1_2",
        "StackedDrgWindow3KiBV1",
        "Winning2KiBV1",
    ] {
        assert!(PostProofKind::from_api_name(bad).is_err(), "{bad}");
    }
    // Window V1 and V1_2 share one parameter file; Winning has its own.
    let v1 = PostProofKind::from_api_name("StackedDrgWindow2KiBV1").unwrap();
    let name = cuzk_filecoin::ProofKind::Post(v1)
        .params_file_name()
        .unwrap();
    assert_eq!(
        name,
        cuzk_filecoin::ProofKind::Post(window())
            .params_file_name()
            .unwrap()
    );
    assert_ne!(
        name,
        cuzk_filecoin::ProofKind::Post(winning())
            .params_file_name()
            .unwrap()
    );
    assert!(name.starts_with("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"));
    // go-state-types' numbers: Winning 0..=4, Window V1 5..=9, V1_1 (our
    // V1_2) 10..=14.
    for (id, name) in [
        (0, "StackedDrgWinning2KiBV1"),
        (3, "StackedDrgWinning32GiBV1"),
        (8, "StackedDrgWindow32GiBV1"),
        (13, "StackedDrgWindow32GiBV1_2"),
        (14, "StackedDrgWindow64GiBV1_2"),
    ] {
        let k = PostProofKind::from_registered_id(id).unwrap();
        assert_eq!((k.api_name().as_str(), k.registered_id()), (name, id));
    }
    assert!(PostProofKind::from_registered_id(15).is_err());
}

/// The worker-side checks of a PoSt job: a circuit that the vanilla checks
/// cannot see is wrong still ends in a typed error, not a proof.
#[test]
fn unsatisfied_partition_is_a_typed_worker_error() {
    let (dirs, sectors) = setup();
    let kind = winning();
    params(&kind);
    let params = testdata::ensure_post_params(&kind, dirs, testdata::PARAMS_SEED).unwrap();
    let r = randomness(0x51);
    let vanilla = testdata::post_vanilla_proofs(&kind, &sectors[..1], r, POST_PROVER_ID).unwrap();
    let input = input(kind, r, vanilla);
    let engine = Engine::cpu().unwrap();
    let tampered = |checks: bool| {
        let (mut circuits, inputs) = prepare::<SectorShape2KiB>(&input, true).unwrap();
        circuits[0].sectors[3].comm_r_last = Some(Fr::from(7u64));
        circuit_job(params.path.clone(), circuits, inputs, checks, None).unwrap()
    };

    // The worker's typed failure, through the engine's typed error.
    let e = run_job(&engine, tampered(true), 0).unwrap_err();
    assert!(
        matches!(e.cause(), FilecoinError::Unsatisfied { partition: 0, .. }),
        "{e}"
    );
    // Without the worker's check the engine's self-check refuses the proof.
    let e = run_job(&engine, tampered(false), 0).unwrap_err();
    assert!(
        matches!(
            &e,
            FilecoinError::Engine(cuzk_scheduler::EngineError::Partition {
                stage: cuzk_scheduler::Stage::Verify,
                ..
            })
        ),
        "{e}"
    );
    assert!(std::ptr::eq(e.cause(), &e), "no worker error inside: {e}");
    // The untampered job proves.
    let (circuits, inputs) = prepare::<SectorShape2KiB>(&input, true).unwrap();
    let job = circuit_job(params.path, circuits, inputs, true, None).unwrap();
    let out = run_job(&engine, job, 0).unwrap();
    assert_eq!(out.proof.len(), 192);
}
