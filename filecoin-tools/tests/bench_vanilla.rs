//! Random shape-correct PoSt and SnapDeals inputs (the 32 GiB benchmarks'
//! inputs) at 2 KiB on the CPU: they pass the shape checks, build the real
//! circuits and prove through the engine with the self-check off; the
//! proofs are well-formed and do not verify. Real vanilla proofs' jobs
//! refuse them.
//!
//! `cargo test -p cuzk-filecoin-tools --test bench_vanilla`

use cuzk_filecoin::post::{post_bench_job, post_job};
use cuzk_filecoin::snap::{snap_bench_job, snap_job};
use cuzk_filecoin::{
    verify_snap, FilecoinError, PostProofKind, PostType, PostVersion, ProofJob, SnapProofKind,
};
use cuzk_filecoin_tools::bench_vanilla::{random_post, random_snap};
use cuzk_filecoin_tools::testdata;
use cuzk_scheduler::{Engine, JobSpec, PartitionSource, WitnessGen};

fn prove_unchecked(engine: &Engine, job: ProofJob) -> Vec<u8> {
    engine
        .load_circuit(
            &job.circuit_id,
            &job.params_path,
            cuzk_groth16::CheckMode::Trusted,
            &|_, _| {},
        )
        .unwrap();
    let spec = JobSpec::new(job.circuit_id.clone(), job.source).without_self_check();
    engine
        .submit_blocking(spec)
        .unwrap()
        .wait()
        .unwrap()
        .proof_bytes()
}

#[test]
fn random_window_post_and_snap_prove_unchecked_and_do_not_verify() {
    let dirs = testdata::init_env(&testdata::testdata_root()).unwrap();
    let engine = Engine::cpu().unwrap();

    let window = PostProofKind::new(PostType::Window, 2048, PostVersion::V1_2).unwrap();
    testdata::ensure_post_params(&window, &dirs, testdata::PARAMS_SEED).unwrap();
    let input = random_post(&window, 3, 7).unwrap();
    assert_eq!(input.vanilla_proofs.len(), 3);
    // The real job verifies the vanilla proofs and refuses them.
    assert!(matches!(
        post_job(&input, &dirs.params, false, None, WitnessGen::Generic),
        Err(FilecoinError::VanillaInvalid { .. })
    ));
    let job = post_bench_job(&input, &dirs.params, None, WitnessGen::Generic).unwrap();
    assert_eq!(job.inputs.len(), 2, "3 sectors at 2 per partition");
    // On random paths the native aux values are the circuit's, value for
    // value (the last partition repeats its last sector). The public
    // inputs are not: a native partition takes the verifier's (the
    // challenged leaves' positions), the circuit its paths' index bits,
    // which random paths do not share, and the check mode says so.
    let rec = std::sync::Arc::new(cuzk_filecoin::compiled::record_post(&window).unwrap());
    let of = |w| post_bench_job(&input, &dirs.params, Some(&rec), w).unwrap();
    let (generic, native, check) = (
        of(WitnessGen::Generic),
        of(WitnessGen::Native),
        of(WitnessGen::Check),
    );
    for k in 0..2 {
        let want = generic.source.synthesize(k).unwrap();
        let got = native.source.synthesize(k).unwrap();
        assert!(want.aux_assignment == got.aux_assignment, "partition {k}");
        assert_eq!(got.input_assignment[1..], native.inputs[k][..]);
        assert_ne!(want.input_assignment, got.input_assignment);
        let e = check.source.synthesize(k).unwrap_err();
        let e = e.downcast_ref::<FilecoinError>().unwrap();
        assert!(
            matches!(
                e,
                FilecoinError::WitnessMismatch {
                    what: "public input",
                    ..
                }
            ),
            "{e}"
        );
    }
    assert_eq!(prove_unchecked(&engine, job).len(), 2 * 192);

    let snap = SnapProofKind::new(2048).unwrap();
    testdata::ensure_snap_params(&snap, &dirs, testdata::PARAMS_SEED).unwrap();
    let u = random_snap(&snap, 9).unwrap();
    assert!(matches!(
        snap_job(&u, &dirs.params, false, None, WitnessGen::Generic),
        Err(FilecoinError::VanillaInvalid { partition: 0 })
    ));
    let proof = prove_unchecked(
        &engine,
        snap_bench_job(&u, &dirs.params, None, WitnessGen::Generic).unwrap(),
    );
    assert_eq!(proof.len(), 192);
    assert!(!verify_snap(
        &snap,
        u.comm_r_old,
        u.comm_r_new,
        u.comm_d_new,
        &proof,
        &dirs.params
    )
    .unwrap());
    // Same seed, same input.
    assert_eq!(
        random_snap(&snap, 9).unwrap().vanilla_proofs,
        u.vanilla_proofs
    );
}

/// At 32 GiB a SnapDeals update has 16 partitions, and storage-proofs-update
/// asserts while it synthesizes (not as a constraint) that every challenge
/// of a partition has the same top 4 data-path levels: the partition's
/// path above its apex. The random bench inputs must obey it, as the real
/// ones do, or the 32 GiB bench panics in every partition.
#[test]
fn random_snap_32gib_challenges_share_their_partition_path() {
    use filecoin_proofs::SectorShape32GiB;
    use storage_proofs_core::merkle::MerkleProofTrait;
    use storage_proofs_update::PartitionProof;
    let snap = SnapProofKind::new(32 << 30).unwrap();
    let pp = snap.public_params();
    assert_eq!(pp.partition_count, 16);
    let u = random_snap(&snap, 3).unwrap();
    assert_eq!(u.vanilla_proofs.len(), 16);
    let mut tops = Vec::new();
    for bytes in &u.vanilla_proofs[..2] {
        let p: PartitionProof<SectorShape32GiB> = bincode::deserialize(bytes).unwrap();
        let top = |c: &storage_proofs_update::ChallengeProof<SectorShape32GiB>| {
            let path = c.proof_d_new.path();
            path[path.len() - 4..]
                .iter()
                .map(|(siblings, _)| siblings.clone())
                .collect::<Vec<_>>()
        };
        let first = top(&p.challenge_proofs[0]);
        assert!(p.challenge_proofs.len() > 1);
        for c in &p.challenge_proofs[1..] {
            assert!(top(c) == first, "a challenge leaves its partition's path");
        }
        tops.push(first);
    }
    assert!(tops[0] != tops[1], "partitions have their own paths");
}

/// SnapDeals' native generator against witness-only synthesis on a random
/// 8 MiB update: several partitions (the partition bits, apex tree and
/// partition path), a shape 2 KiB does not reach.
#[test]
fn random_snap_native_witness_equals_the_circuits() {
    snap_native_equals(8 << 20, 3);
}

/// The same at 512 MiB, the large sectors' h values (hs = 7..12). Ignored
/// in `cargo test` for CI's time (76 s on 2 cores): run with
/// `cargo test -p cuzk-filecoin-tools --test bench_vanilla -- --ignored`.
#[test]
#[ignore = "76 s on 2 cores; the 8 MiB case runs in CI"]
fn random_snap_512mib_native_witness_equals_the_circuits() {
    snap_native_equals(512 << 20, 9);
}

fn snap_native_equals(size: u64, partition: usize) {
    let kind = SnapProofKind::new(size).unwrap();
    let u = random_snap(&kind, 4).unwrap();
    let n = cuzk_filecoin::snap::check_native_witness(&u, partition, false).unwrap();
    assert!(n > 1_000_000, "{size}: {n} aux values compared");
}
