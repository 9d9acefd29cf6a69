//! CPU NTT benchmarks against bellperson 0.26's `EvaluationDomain`.
//!
//! `cargo bench -p cuzk-ntt --bench ntt` (add a filter such as `fft/` or
//! `h_step/cuzk` to run a subset). Inputs are full domains (`len = n`).
//! - `fft/{cuzk,bellperson}/2^k`: one forward transform, natural order in and
//!   out (ours with a prebuilt `Domain`; bellperson has no tables to build);
//! - `domain_new/2^k`: building our twiddle tables;
//! - `h_step/{cuzk,bellperson}/2^k`: the Groth16 quotient, ours including the
//!   domain construction, bellperson's as its prover sequences it
//!   (ifft_many, coset_fft_many, mul, sub, divide_by_z, icoset_fft).

use bellperson::domain::EvaluationDomain;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use cuzk_field::{random_vec, Fr};
use cuzk_ntt::{h_step, Domain};
use ec_gpu_gen::threadpool::Worker;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::time::Duration;

const LOGS: [u32; 3] = [16, 18, 20];

fn bench_fft(c: &mut Criterion) {
    let worker = Worker::new();
    let mut group = c.benchmark_group("fft");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for log_n in LOGS {
        let x = random_vec(1 << log_n, &mut ChaCha8Rng::seed_from_u64(u64::from(log_n)));
        let d = Domain::new(log_n).unwrap();
        group.bench_with_input(
            BenchmarkId::new("cuzk", format!("2^{log_n}")),
            &x,
            |bch, x| {
                bch.iter_batched_ref(|| x.clone(), |v| d.fft(v).unwrap(), BatchSize::LargeInput)
            },
        );
        group.bench_with_input(
            BenchmarkId::new("bellperson", format!("2^{log_n}")),
            &x,
            |bch, x| {
                bch.iter_batched_ref(
                    || EvaluationDomain::from_coeffs(x.clone()).unwrap(),
                    |dom| dom.fft(&worker, &mut None).unwrap(),
                    BatchSize::LargeInput,
                )
            },
        );
    }
    group.finish();

    let mut group = c.benchmark_group("domain_new");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    for log_n in LOGS {
        group.bench_function(format!("2^{log_n}"), |bch| {
            bch.iter(|| Domain::new(log_n).unwrap())
        });
    }
    group.finish();
}

fn bellperson_h(worker: &Worker, a: Vec<Fr>, b: Vec<Fr>, c: Vec<Fr>) -> Vec<Fr> {
    let mut a = EvaluationDomain::from_coeffs(a).unwrap();
    let mut b = EvaluationDomain::from_coeffs(b).unwrap();
    let mut c = EvaluationDomain::from_coeffs(c).unwrap();
    EvaluationDomain::ifft_many(&mut [&mut a, &mut b, &mut c], worker, &mut None).unwrap();
    EvaluationDomain::coset_fft_many(&mut [&mut a, &mut b, &mut c], worker, &mut None).unwrap();
    a.mul_assign(worker, &b);
    drop(b);
    a.sub_assign(worker, &c);
    drop(c);
    a.divide_by_z_on_coset(worker);
    a.icoset_fft(worker, &mut None).unwrap();
    let mut h = a.into_coeffs();
    h.truncate(h.len() - 1);
    h
}

fn bench_h_step(c: &mut Criterion) {
    let worker = Worker::new();
    let mut group = c.benchmark_group("h_step");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    for log_n in LOGS {
        let n = 1usize << log_n;
        let mut rng = ChaCha8Rng::seed_from_u64(100 + u64::from(log_n));
        let abc = (
            random_vec(n, &mut rng),
            random_vec(n, &mut rng),
            random_vec(n, &mut rng),
        );
        group.bench_with_input(
            BenchmarkId::new("cuzk", format!("2^{log_n}")),
            &abc,
            |bch, abc| {
                bch.iter_batched(
                    || abc.clone(),
                    |(a, b, c)| h_step(a, b, c).unwrap(),
                    BatchSize::LargeInput,
                )
            },
        );
        group.bench_with_input(
            BenchmarkId::new("bellperson", format!("2^{log_n}")),
            &abc,
            |bch, abc| {
                bch.iter_batched(
                    || abc.clone(),
                    |(a, b, c)| bellperson_h(&worker, a, b, c),
                    BatchSize::LargeInput,
                )
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_fft, bench_h_step);
criterion_main!(benches);
