//! The worker-side checks of a PoSt job: a circuit that the vanilla checks
//! cannot see is wrong still ends in a typed error, not a proof.

use super::vanilla::{prepare, Prepared};
use super::*;
use crate::testdata::{self, POST_PROVER_ID};
use crate::{SealProofKind, SealVersion};
use filecoin_proofs::SectorShape2KiB;

#[test]
fn unsatisfied_partition_is_a_typed_worker_error() {
    let dirs = testdata::init_env(&testdata::testdata_root()).unwrap();
    let seal = SealProofKind::new(2048, SealVersion::V1_1).unwrap();
    let sectors = testdata::post_test_sectors(&seal, &dirs, 1).unwrap();
    let kind = PostProofKind::new(PostType::Winning, 2048, PostVersion::V1).unwrap();
    let params = testdata::ensure_post_params(&kind, &dirs, testdata::PARAMS_SEED).unwrap();
    let mut r = [0x51u8; 32];
    r[31] &= 0x3f;
    let vanilla = testdata::post_vanilla_proofs(&kind, &sectors, r, POST_PROVER_ID).unwrap();
    let input = PostInput {
        kind,
        randomness: r,
        prover_id: POST_PROVER_ID,
        vanilla_proofs: vanilla,
        partition: None,
    };
    let engine = Engine::cpu().unwrap();
    let tampered = |checks: bool| {
        let Prepared {
            mut circuits,
            inputs,
        } = prepare::<SectorShape2KiB>(&input, true).unwrap();
        circuits[0].sectors[3].comm_r_last = Some(Fr::from(7u64));
        circuit_job(params.path.clone(), circuits, inputs, checks, None).unwrap()
    };

    let e = run_job(&engine, tampered(true), 0).unwrap_err();
    assert!(
        matches!(e, FilecoinError::Unsatisfied { partition: 0, .. }),
        "{e}"
    );
    // Without the worker's check the engine's self-check refuses the proof.
    let e = run_job(&engine, tampered(false), 0).unwrap_err();
    assert!(matches!(e, FilecoinError::Engine(_)), "{e}");
    // The untampered job proves.
    let Prepared { circuits, inputs } = prepare::<SectorShape2KiB>(&input, true).unwrap();
    let job = circuit_job(params.path, circuits, inputs, true, None).unwrap();
    let out = run_job(&engine, job, 0).unwrap();
    assert_eq!(out.proof.len(), 192);
}
