//! Fixed-base multiplication ON THE GPU against blstrs: `scalars[i]·base`
//! must equal `(base * s).to_affine()` exactly (affine points are unique,
//! so `==` is bit identity), G1 and G2, at 1, 33, 1000, 2^16 and 2^20
//! scalars (random plus edge scalars 0, 1, r − 1, small, 2^k patterns);
//! several chunks with a short last one; a table reused across calls;
//! every window width; and a 2^24 G1 / 2^22 G2 run against points with
//! known discrete logs that prints the time against the floor.
//!
//! Up to 2^16 every point is checked against blstrs; at 2^20 and above the
//! scalars are `a + i·d` (plus edge and random scalars at sampled
//! positions), whose points the CPU gets cheaply by repeated addition.
//!
//! Needs an NVIDIA GPU: `#[ignore]`d; gpu-bundle/run.sh runs them with
//! `--include-ignored`. Built only with the `cuda` feature.
#![cfg(feature = "cuda")]

mod gpu_common;

use std::time::Instant;

use cuzk_field::{Curve, Field, Fr, G1Affine, G2Affine, PrimeCurveAffine};
use cuzk_gpu::Device;
use cuzk_msm::gpu::{fixed_base_mul, fixed_base_window, GpuFixedBase, FIXED_BASE_WINDOWS};
use gpu_common::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;

fn device() -> Device {
    Device::new(0).expect("a CUDA device")
}

fn cpu<C: Pool>(base: &C, s: &[Fr]) -> Vec<C> {
    s.par_iter()
        .map(|x| (base.to_curve() * x).to_affine())
        .collect()
}

/// Edge scalars first (0, 1, r − 1, 2..=20, 2^k, 2^k − 1, −2^k), then
/// `edge_scalars` (random among them) up to `n`.
fn scalars(n: usize, seed: u64) -> Vec<Fr> {
    let two = Fr::from(2u64);
    let mut s = vec![Fr::ZERO, Fr::ONE, r_minus_1()];
    s.extend((2..=20u64).map(Fr::from));
    for k in [8u64, 15, 16, 17, 64, 128, 254] {
        let p = two.pow_vartime([k]);
        s.extend([p, p - Fr::ONE, -p]);
    }
    s.truncate(n);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rest = n - s.len();
    s.extend(edge_scalars(rest, &mut rng));
    s
}

fn check_full<C: Pool>(base: &C, n: usize, seed: u64) {
    let s = scalars(n, seed);
    let t = Instant::now();
    let got = fixed_base_mul(&device(), base, &s).unwrap();
    let gpu_s = t.elapsed().as_secs_f64();
    let want = cpu(base, &s);
    assert_eq!(got.len(), n);
    for i in 0..n {
        assert_eq!(got[i], want[i], "{} n={n}: scalar {i}", C::NAME);
    }
    eprintln!(
        "{} n={n} (w {}): matches blstrs ({gpu_s:.3} s incl. table)",
        C::NAME,
        fixed_base_window(n)
    );
}

/// Scalars `a + i·d` with edge and random scalars at every 997th index;
/// checks the arithmetic-progression points against `known_log_bases`
/// (generator base) and the sampled ones against blstrs.
fn check_known_log<C: Pool>(n: usize, seed: u64, floor_products: f64) {
    let (want, a, d) = known_log_bases::<C>(n, seed);
    let mut s: Vec<Fr> = (0..n)
        .into_par_iter()
        .map(|i| a + d * Fr::from(i as u64))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let special = scalars(200, seed);
    let sampled: Vec<usize> = (0..n).step_by(997).collect();
    for (k, &i) in sampled.iter().enumerate() {
        s[i] = if k < special.len() {
            special[k]
        } else {
            Fr::random(&mut rng)
        };
    }
    let g = C::generator();
    let dev = device();
    let t = Instant::now();
    let fb = GpuFixedBase::new(&dev, &g, fixed_base_window(n)).unwrap();
    let table_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let got = fb.mul(&s).unwrap();
    let mul_s = t.elapsed().as_secs_f64();
    let mut is_sampled = vec![false; n];
    for &i in &sampled {
        is_sampled[i] = true;
        assert_eq!(
            got[i],
            (g.to_curve() * s[i]).to_affine(),
            "{} sampled {i}",
            C::NAME
        );
    }
    let bad = (0..n)
        .into_par_iter()
        .filter(|&i| !is_sampled[i] && got[i] != want[i])
        .count();
    assert_eq!(bad, 0, "{} n={n}: {bad} points differ", C::NAME);
    let floor = n as f64 * floor_products / 1.6e10;
    eprintln!(
        "{} n={n} (w {}): matches; table {table_s:.3} s, mul {mul_s:.3} s incl. copies \
         (kernel floor {floor:.3} s at 1.6e10 Fp products/s)",
        C::NAME,
        fb.window()
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_fixed_base_g1_sizes() {
    for n in [1usize, 33, 1000, 1 << 16] {
        check_full(&G1Affine::pool()[n % 1000], n, n as u64);
        check_full(&G1Affine::generator(), n, 7 + n as u64);
    }
    check_known_log::<G1Affine>(1 << 20, 20, 178.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_fixed_base_g2_sizes() {
    for n in [1usize, 33, 1000, 1 << 16] {
        check_full(&G2Affine::pool()[n % 300], n, n as u64);
    }
    check_known_log::<G2Affine>(1 << 20, 21, 463.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_fixed_base_chunks_and_reuse() {
    let dev = device();
    let base = G1Affine::pool()[7];
    let fb = GpuFixedBase::new(&dev, &base, 9).unwrap();
    let n = 10_000;
    let s = scalars(n, 5);
    let want = cpu(&base, &s);
    for chunk in [n, 4096, 1000, 333, 1] {
        let seen = std::sync::atomic::AtomicUsize::new(0);
        let got = fb
            .mul_chunked(&s[..if chunk == 1 { 500 } else { n }], chunk, &|k| {
                seen.fetch_add(k, std::sync::atomic::Ordering::Relaxed);
            })
            .unwrap();
        let m = got.len();
        assert_eq!(seen.into_inner(), m, "progress sums to the count");
        assert_eq!(got, want[..m], "chunk {chunk}");
    }
    // the same table again, G2 too, and the empty input
    assert_eq!(fb.mul(&s[..100]).unwrap(), want[..100]);
    assert!(fb.mul(&[]).unwrap().is_empty());
    let b2 = G2Affine::pool()[3];
    let fb2 = GpuFixedBase::new(&dev, &b2, 6).unwrap();
    let s2 = scalars(2000, 6);
    assert_eq!(fb2.mul_chunked(&s2, 700, &|_| {}).unwrap(), cpu(&b2, &s2));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_fixed_base_every_window() {
    let dev = device();
    let s = scalars(300, 9);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for w in FIXED_BASE_WINDOWS {
        let b1 = G1Affine::pool()[rng.next_u32() as usize % 1000];
        let got = GpuFixedBase::new(&dev, &b1, w).unwrap().mul(&s).unwrap();
        assert_eq!(got, cpu(&b1, &s), "G1 w {w}");
        let b2 = G2Affine::pool()[rng.next_u32() as usize % 300];
        let got = GpuFixedBase::new(&dev, &b2, w)
            .unwrap()
            .mul(&s[..60])
            .unwrap();
        assert_eq!(got, cpu(&b2, &s[..60]), "G2 w {w}");
    }
    // identity base: every output is the identity
    let got = fixed_base_mul(&dev, &G1Affine::identity(), &s).unwrap();
    assert!(got.iter().all(|p| bool::from(p.is_identity())));
    assert!(GpuFixedBase::new(&dev, &G1Affine::generator(), 17).is_err());
}

#[test]
#[ignore = "needs an NVIDIA GPU; prints timings"]
fn gpu_fixed_base_large_known_log() {
    check_known_log::<G1Affine>(1 << 24, 24, 178.0);
    check_known_log::<G2Affine>(1 << 22, 22, 463.0);
}
