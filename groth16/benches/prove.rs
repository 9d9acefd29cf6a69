//! Whole proofs on the CPU: cuzk vs bellperson 0.26 on the same circuit and
//! the same parameters, in one run.
//!
//! Sizes are log2 of the domain: `CUZK_BENCH_LOGS=12,14,16,18` (default
//! 12,14,16,18; 20 takes ~15 min on 2 cores). Each size measures synthesis +
//! proving (what a caller of `create_random_proof` pays); parameters are
//! generated once per size, outside the timing.

use bellperson::groth16 as bp;
use blstrs::Bls12;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use cuzk_groth16::{prove, CpuBackend, ProveOptions, ToxicWaste};
use cuzk_synth::circuits::BenchCircuit;
use rand_chacha::rand_core::SeedableRng;
use std::time::Duration;

fn logs() -> Vec<u32> {
    std::env::var("CUZK_BENCH_LOGS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![12, 14, 16, 18])
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("prove");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(5));
    for k in logs() {
        let params = cuzk_groth16::generate_parameters(
            BenchCircuit::new(k, 0).unwrap(),
            &ToxicWaste::from_seed(1),
            None,
        )
        .unwrap();
        let mut bytes = Vec::new();
        params.write(&mut bytes).unwrap();
        let bp_params = bp::Parameters::<Bls12>::read(&bytes[..], false).unwrap();
        drop(bytes);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(k as u64);
        // Our self-check is off: bellperson does not verify its proofs either.
        let opts = ProveOptions { self_check: false };
        g.bench_with_input(BenchmarkId::new("cuzk", k), &k, |b, &k| {
            b.iter(|| {
                prove(
                    &params,
                    BenchCircuit::new(k, 7).unwrap(),
                    &CpuBackend,
                    &mut rng,
                    opts,
                )
                .unwrap()
            })
        });
        g.bench_with_input(BenchmarkId::new("bellperson", k), &k, |b, &k| {
            b.iter(|| {
                bp::create_random_proof(BenchCircuit::new(k, 7).unwrap(), &bp_params, &mut rng)
                    .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
