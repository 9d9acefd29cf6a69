//! On the GPU machine (`cargo xtask gpu-bundle`): an aggregate whose
//! pairing products' Miller loops ran on the GPU has the same bytes as
//! one made on the CPU, at an n where every early GIPA round takes the
//! device (more than `cuzk_pairing::GPU_MIN_PAIRS` pairs per call).
#![cfg(feature = "cuda")]

use bellperson::groth16::aggregate::setup_fake_srs;
use cuzk_field::Bls12;
use cuzk_snarkpack::{aggregate, AggregateVersion, Pairing};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

mod common;

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_aggregate_equals_cpu_aggregate() {
    let n = 1024;
    let srs = setup_fake_srs::<Bls12, _>(&mut ChaCha8Rng::seed_from_u64(50), 2 * n);
    let proofs = common::proofs(n, 51);
    let device = cuzk_gpu::Device::new(0).expect("a GPU");
    let gpu = Pairing::gpu(&device).unwrap();
    let mut bytes = Vec::new();
    for pairing in [&Pairing::cpu(), &gpu] {
        let agg = aggregate(pairing, &srs, &[9; 32], &proofs, AggregateVersion::V2).unwrap();
        let mut b = Vec::new();
        agg.write(&mut b).unwrap();
        bytes.push(b);
    }
    assert_eq!(bytes[0], bytes[1]);
}
