//! CPU MSM benchmarks: cuzk-msm against bellperson 0.26's CPU multiexp
//! (ec-gpu-gen 0.7 `multiexp_cpu`, as bellperson's prover calls it) and
//! blst's own thread pool, on the same inputs.
//!
//! `cargo bench -p cuzk-msm --bench msm` runs everything; set
//! `CUZK_MSM_SWEEP=1` to add the window sweep used to calibrate the planner.

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion};
use cuzk_field::{Bitmap, Curve, Field, Fr, G1Affine, G2Affine, Group, PrimeField};
use cuzk_msm::cpu::tuning;
use cuzk_msm::{msm, msm_density, MsmCurve, Projective};
use ec_gpu_gen::multiexp_cpu::{multiexp_cpu, DensityTracker, FullDensity};
use ec_gpu_gen::threadpool::Worker;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;

/// `n` pseudo-random points, cheaply: sums of two of 2·√n hashed points
/// (hashing every point would take minutes at 2^20).
fn points<C: MsmCurve>(n: usize, seed: u64) -> Vec<C> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let k = ((n as f64).sqrt() as usize).max(1) + 1;
    let a: Vec<Projective<C>> = (0..k).map(|_| Projective::<C>::random(&mut rng)).collect();
    let b: Vec<Projective<C>> = (0..k).map(|_| Projective::<C>::random(&mut rng)).collect();
    let proj: Vec<Projective<C>> = (0..n)
        .into_par_iter()
        .map(|i| a[i % k] + b[i / k % k])
        .collect();
    let mut out = vec![C::identity(); n];
    out.par_chunks_mut(4096)
        .zip(proj.par_chunks(4096))
        .for_each(|(o, p)| {
            Projective::<C>::batch_normalize(p, o);
        });
    out
}

fn scalars(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| Fr::random(&mut rng)).collect()
}

/// 70% zeros, 25% ones, 5% random: a Filecoin-like aux assignment.
fn boolean_heavy(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| match rng.next_u32() % 100 {
            0..=69 => Fr::ZERO,
            70..=94 => Fr::ONE,
            _ => Fr::random(&mut rng),
        })
        .collect()
}

fn bellperson_full<C: MsmCurve>(
    pool: &Worker,
    bases: &Arc<Vec<C>>,
    reprs: &Arc<Vec<[u8; 32]>>,
) -> Projective<C> {
    multiexp_cpu::<FullDensity, _, C, _>(pool, (bases.clone(), 0), FullDensity, reprs.clone())
        .wait()
        .expect("bellperson multiexp")
}

fn label(n: usize) -> String {
    format!("2^{}", n.trailing_zeros())
}

fn configure<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g
}

fn full_msm<C: MsmCurve>(c: &mut Criterion, sizes: &[usize], with_bellperson: bool) {
    let max = *sizes.iter().max().unwrap();
    let all_bases = points::<C>(max, 1);
    let all_scalars = scalars(max, 2);
    let pool = Worker::new();
    let mut g = configure(c, &format!("{}_msm", C::NAME));
    for &n in sizes {
        let bases = &all_bases[..n];
        let s = &all_scalars[..n];
        let want = msm(bases, s).unwrap();
        g.bench_with_input(BenchmarkId::new("cuzk", label(n)), &n, |b, _| {
            b.iter(|| msm(bases, s).unwrap())
        });
        assert_eq!(tuning::msm_blst_pool(bases, s), want);
        g.bench_with_input(BenchmarkId::new("blst_pool", label(n)), &n, |b, _| {
            b.iter(|| tuning::msm_blst_pool(bases, s))
        });
        if with_bellperson {
            let arc_bases = Arc::new(bases.to_vec());
            let reprs = Arc::new(s.iter().map(|x| x.to_repr()).collect::<Vec<_>>());
            assert_eq!(bellperson_full(&pool, &arc_bases, &reprs), want);
            g.bench_with_input(BenchmarkId::new("bellperson", label(n)), &n, |b, _| {
                b.iter(|| bellperson_full(&pool, &arc_bases, &reprs))
            });
        }
    }
    g.finish();
}

fn density_msm(c: &mut Criterion) {
    let n = 1 << 18;
    // A-query-like: 90% of the variables appear in A.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let density = Bitmap::from_bools((0..n).map(|_| rng.next_u32() % 10 != 0));
    let need = density.count_ones();
    let bases = points::<G1Affine>(need, 4);
    let s = boolean_heavy(n, 5);

    let mut tracker = DensityTracker::new();
    for i in 0..n {
        tracker.add_element();
        if density.get(i) {
            tracker.inc(i);
        }
    }
    let tracker = Arc::new(tracker);
    let arc_bases = Arc::new(bases.clone());
    let reprs = Arc::new(s.iter().map(|x| x.to_repr()).collect::<Vec<_>>());
    let pool = Worker::new();
    let bellperson = || {
        multiexp_cpu::<DensityTracker, _, G1Affine, _>(
            &pool,
            (arc_bases.clone(), 0),
            tracker.clone(),
            reprs.clone(),
        )
        .wait()
        .expect("bellperson multiexp")
    };

    let want = msm_density(&bases, &s, Some(&density)).unwrap();
    assert_eq!(
        tuning::msm_density_full(&bases, &s, Some(&density)).unwrap(),
        want
    );
    assert_eq!(bellperson(), want);

    let mut g = configure(c, "G1_density_boolean");
    let id = label(n);
    g.bench_function(BenchmarkId::new("cuzk", &id), |b| {
        b.iter(|| msm_density(&bases, &s, Some(&density)).unwrap())
    });
    g.bench_function(BenchmarkId::new("cuzk_full_path", &id), |b| {
        b.iter(|| tuning::msm_density_full(&bases, &s, Some(&density)).unwrap())
    });
    g.bench_function(BenchmarkId::new("bellperson", &id), |b| b.iter(bellperson));
    g.finish();
}

/// Window × chunk sweep at a few sizes (planner calibration).
fn sweep(c: &mut Criterion) {
    if std::env::var_os("CUZK_MSM_SWEEP").is_none() {
        return;
    }
    let max = 1 << 18;
    let bases = points::<G1Affine>(max, 6);
    let s = scalars(max, 7);
    let mut g = configure(c, "G1_window_sweep");
    for log in [12usize, 14, 16, 18] {
        let n = 1 << log;
        let (pw, pc) = tuning::plan_for::<G1Affine>(n);
        eprintln!("plan for 2^{log}: window {pw}, chunks {pc}");
        for w in (log.saturating_sub(6).max(4)..=(log - 1).min(18)).filter(|w| 255 % w != 0) {
            for chunks in [1, 2, 4] {
                g.bench_function(
                    BenchmarkId::new(format!("2^{log}"), format!("w{w}_c{chunks}")),
                    |b| b.iter(|| tuning::msm_with_plan(&bases[..n], &s[..n], w, chunks)),
                );
            }
        }
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    sweep(c);
    full_msm::<G1Affine>(c, &[1 << 12, 1 << 16, 1 << 18, 1 << 20], true);
    full_msm::<G2Affine>(c, &[1 << 16], true);
    density_msm(c);
}

criterion_group!(msm_benches, benches);

fn main() {
    // The GPU bundle (`cargo xtask gpu-bundle`, run.sh sets CUZK_EXPECT_GPU)
    // carries every bench of the msm crate; this CPU sweep takes many
    // minutes there and belongs to the CPU machine, so it steps aside.
    if std::env::var_os("CUZK_EXPECT_GPU").is_some() {
        println!("msm CPU bench skipped in the GPU bundle (see benches/gpu_msm.rs)");
        return;
    }
    msm_benches();
    Criterion::default().configure_from_args().final_summary();
}
