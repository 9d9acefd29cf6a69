//! SnapDeals end to end against filecoin-proofs at 2 KiB on the CPU: a
//! sealed test sector as the sector key, new data encoded into it, the
//! update's vanilla partition proofs from filecoin-proofs
//! (`generate_partition_proofs`, bincode as filecoin-proofs-api returns
//! them) → cuzk's engine → filecoin-proofs'
//! `verify_empty_sector_update_proof`. Parameters from cuzk's setup, test
//! data cached under ~/.cache/cuzk/filecoin (or $CUZK_TESTDATA_DIR).
//!
//! `cargo test -p cuzk-filecoin --test snap`

use cuzk_filecoin::snap::snap_job;
use cuzk_filecoin::{prove_snap, verify_snap, FilecoinError, SnapInput, SnapProofKind, WitnessGen};
use cuzk_filecoin_tools::testdata::{self, SnapTestUpdate, TestDirs};
use cuzk_scheduler::{Engine, PartitionSource};
use filecoin_proofs::SectorShape2KiB;
use std::sync::OnceLock;
use storage_proofs_update::PartitionProof;

const SIZE: u64 = 2048;

fn kind() -> SnapProofKind {
    SnapProofKind::new(SIZE).unwrap()
}

/// The cache directories, the parameters and one update, made once per
/// process.
fn setup() -> &'static (TestDirs, SnapTestUpdate) {
    static SETUP: OnceLock<(TestDirs, SnapTestUpdate)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let dirs = testdata::init_env(&testdata::testdata_root()).unwrap();
        testdata::ensure_snap_params(&kind(), &dirs, testdata::PARAMS_SEED).unwrap();
        let update = testdata::snap_test_update(&kind(), &dirs, 0).unwrap();
        (dirs, update)
    })
}

fn input(u: &SnapTestUpdate) -> SnapInput {
    SnapInput {
        kind: kind(),
        comm_r_old: u.comm_r_old,
        comm_r_new: u.comm_r_new,
        comm_d_new: u.comm_d_new,
        vanilla_proofs: u.vanilla_proofs.clone(),
    }
}

fn verify(u: &SnapTestUpdate, proof: &[u8]) -> bool {
    verify_snap(
        &kind(),
        u.comm_r_old,
        u.comm_r_new,
        u.comm_d_new,
        proof,
        &setup().0.params,
    )
    .unwrap()
}

#[test]
fn snap_2kib_verifies_with_filecoin_proofs() {
    let (dirs, u) = setup();
    assert_eq!(kind().public_params().partition_count, 1);
    let engine = Engine::cpu().unwrap();
    let out = prove_snap(
        &input(u),
        &dirs.params,
        &engine,
        None,
        None,
        WitnessGen::Generic,
    )
    .unwrap();
    assert_eq!(out.partitions, 1);
    assert_eq!(out.proof.len(), 192);
    assert!(verify(u, &out.proof));

    // Rejected: a flipped byte, another comm_r_new, another comm_d_new.
    for pos in [0, 60, 150, 191] {
        let mut bad = out.proof.clone();
        bad[pos] ^= 1;
        assert!(!verify(u, &bad), "byte {pos}");
    }
    let mut other = u.clone();
    other.comm_r_new = u.comm_r_old;
    assert!(!verify(&other, &out.proof));
    let mut other = u.clone();
    other.comm_d_new[0] ^= 1;
    assert!(!verify(&other, &out.proof));
    // A proof of the wrong length is an error, not a `false`.
    assert!(verify_snap(
        &kind(),
        u.comm_r_old,
        u.comm_r_new,
        u.comm_d_new,
        &out.proof[..100],
        &dirs.params
    )
    .is_err());

    // filecoin-proofs' own prover on the same vanilla proofs and
    // parameters: its proof verifies too and has the same format (the
    // bytes differ only by the randomness r, s).
    cuzk_filecoin::use_param_dir(&dirs.params).unwrap();
    let vanilla: Vec<PartitionProof<SectorShape2KiB>> = u
        .vanilla_proofs
        .iter()
        .map(|b| bincode::deserialize(b).unwrap())
        .collect();
    let theirs =
        filecoin_proofs::generate_empty_sector_update_proof_with_vanilla::<SectorShape2KiB>(
            &kind().porep_config().unwrap(),
            vanilla,
            u.comm_r_old,
            u.comm_r_new,
            u.comm_d_new,
        )
        .unwrap();
    assert_eq!(theirs.0.len(), out.proof.len());
    assert!(verify(u, &theirs.0));
}

/// The pre-compiled path: the partition recorded from the blank circuit
/// the parameters come from, then witness-only synthesis and the SpMV,
/// equals the classic synthesis field for field, and its proof verifies
/// with filecoin-proofs.
#[test]
fn snap_2kib_compiled_equals_classic_and_verifies() {
    let (dirs, u) = setup();
    let rec = std::sync::Arc::new(cuzk_filecoin::compiled::record_snap(&kind()).unwrap());
    let classic = snap_job(&input(u), &dirs.params, true, None, WitnessGen::Generic)
        .unwrap()
        .source
        .synthesize(0)
        .unwrap();
    assert_eq!(rec.shape(), classic.shape());
    for w in [WitnessGen::Generic, WitnessGen::Native, WitnessGen::Check] {
        let mut new = snap_job(&input(u), &dirs.params, true, Some(&rec), w)
            .unwrap()
            .source
            .synthesize(0)
            .unwrap();
        assert!(new.a.is_empty(), "a compiled partition defers a, b, c");
        new.evaluate_deferred().unwrap();
        assert!(classic == new, "{w:?}: the compiled path differs");
    }

    let engine = Engine::cpu().unwrap();
    for w in [WitnessGen::Generic, WitnessGen::Native] {
        let out = prove_snap(&input(u), &dirs.params, &engine, None, Some(&rec), w).unwrap();
        assert!(verify(u, &out.proof), "{w:?}");
    }
}

#[test]
fn bad_snap_inputs_are_typed_errors() {
    let (dirs, u) = setup();
    let job = |i: &SnapInput| snap_job(i, &dirs.params, true, None, WitnessGen::Generic);

    // Wrong count of vanilla proofs.
    let mut i = input(u);
    i.vanilla_proofs.push(i.vanilla_proofs[0].clone());
    assert!(matches!(
        job(&i),
        Err(FilecoinError::VanillaCount { got: 2, .. })
    ));
    let mut i = input(u);
    i.vanilla_proofs.clear();
    assert!(matches!(
        job(&i),
        Err(FilecoinError::VanillaCount { got: 0, .. })
    ));
    // Bytes that are no PartitionProof.
    let mut i = input(u);
    i.vanilla_proofs[0].truncate(40);
    assert!(matches!(
        job(&i),
        Err(FilecoinError::BadVanilla { index: 0, .. })
    ));
    // A non-canonical commitment, a zero commitment.
    let mut i = input(u);
    i.comm_r_new = [0xff; 32];
    assert!(matches!(
        job(&i),
        Err(FilecoinError::NotFieldElement("comm_r_new"))
    ));
    let mut i = input(u);
    i.comm_d_new = [0; 32];
    assert!(matches!(
        job(&i),
        Err(FilecoinError::ZeroCommitment("comm_d_new"))
    ));
    // Well-formed vanilla proofs of another statement.
    let mut i = input(u);
    i.comm_r_new = u.comm_r_old;
    assert!(matches!(
        job(&i),
        Err(FilecoinError::VanillaInvalid { partition: 0 })
    ));
    // A challenge dropped, an apex leaf dropped, a path cut short: shape
    // errors before any synthesis.
    let decode = |b: &[u8]| -> PartitionProof<SectorShape2KiB> { bincode::deserialize(b).unwrap() };
    let tamper = |f: &dyn Fn(&mut PartitionProof<SectorShape2KiB>)| {
        let mut p = decode(&u.vanilla_proofs[0]);
        f(&mut p);
        let mut i = input(u);
        i.vanilla_proofs[0] = bincode::serialize(&p).unwrap();
        job(&i).unwrap_err()
    };
    let e = tamper(&|p| {
        p.challenge_proofs.pop();
    });
    assert!(
        matches!(e, FilecoinError::BadVanilla { index: 0, .. }),
        "{e}"
    );
    let e = tamper(&|p| {
        p.apex_leafs.pop();
    });
    assert!(
        matches!(e, FilecoinError::BadVanilla { index: 0, .. }),
        "{e}"
    );
    // Another sector size's kind: its parameters are not there, or its
    // shape does not fit.
    let i = SnapInput {
        kind: SnapProofKind::new(8 << 20).unwrap(),
        ..input(u)
    };
    assert!(job(&i).is_err());
}

#[test]
fn update_proof_type_names_and_ids() {
    for (id, name) in [
        (0, "StackedDrg2KiBV1"),
        (3, "StackedDrg32GiBV1"),
        (4, "StackedDrg64GiBV1"),
    ] {
        let k = SnapProofKind::from_registered_id(id).unwrap();
        assert_eq!(k.api_name(), name);
        assert_eq!(k.registered_id(), id);
        assert_eq!(SnapProofKind::from_api_name(name).unwrap(), k);
    }
    assert!(SnapProofKind::from_registered_id(5).is_err());
    assert!(SnapProofKind::new(4096).is_err());
    // filecoin-proofs' standard parameter name at 32 GiB.
    let name = cuzk_filecoin::ProofKind::Snap(SnapProofKind::new(32 << 30).unwrap())
        .params_file_name()
        .unwrap();
    assert!(
        name.starts_with("v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"),
        "{name}"
    );
}
