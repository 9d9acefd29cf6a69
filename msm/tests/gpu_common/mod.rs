//! Inputs shared by the host-twin tests (gpu_host.rs), the device tests
//! (gpu_device.rs) and the GPU benchmark: random and awkward bases, edge
//! scalars, and large base sets with known discrete logarithms.
#![allow(dead_code)]

use std::sync::OnceLock;

use cuzk_field::{Curve, Field, Fr, G1Affine, G2Affine, Group};
use cuzk_msm::gpu::GpuPoint;
use cuzk_msm::Projective;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;

pub type P<C> = Projective<C>;

/// Random points of each group, generated once per test binary.
pub trait Pool: GpuPoint {
    fn pool() -> &'static [Self];
}

fn make_pool<C: GpuPoint>(n: usize, seed: u64) -> Vec<C> {
    let proj: Vec<P<C>> = (0..n)
        .into_par_iter()
        .map(|i| P::<C>::random(&mut ChaCha8Rng::seed_from_u64(seed * 1_000_003 + i as u64)))
        .collect();
    let mut out = vec![C::identity(); n];
    P::<C>::batch_normalize(&proj, &mut out);
    out
}

impl Pool for G1Affine {
    fn pool() -> &'static [Self] {
        static POOL: OnceLock<Vec<G1Affine>> = OnceLock::new();
        POOL.get_or_init(|| make_pool(1100, 1))
    }
}

impl Pool for G2Affine {
    fn pool() -> &'static [Self] {
        static POOL: OnceLock<Vec<G2Affine>> = OnceLock::new();
        POOL.get_or_init(|| make_pool(300, 2))
    }
}

/// `n` bases cycling through the pool (distinct while the pool lasts).
pub fn bases_of<C: Pool>(n: usize) -> Vec<C> {
    C::pool().iter().copied().cycle().take(n).collect()
}

pub fn random_scalars(n: usize, seed: u64) -> Vec<Fr> {
    (0..n.div_ceil(4096))
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ ((c as u64) << 24));
            let len = 4096.min(n - c * 4096);
            (0..len)
                .map(move |_| Fr::random(&mut rng))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// r − 1 = −1 (bit 254 set, every window busy).
pub fn r_minus_1() -> Fr {
    -Fr::ONE
}

/// Edge scalars cycling with random ones: 0, 1, r − 1, 2, r − 2, 2^254,
/// 2^k − 1 patterns that make every window carry, a random value.
pub fn edge_scalars(n: usize, rng: &mut ChaCha8Rng) -> Vec<Fr> {
    let two = Fr::from(2u64);
    let two_254 = two.pow_vartime([254]);
    let all_ones_128 = two.pow_vartime([128]) - Fr::ONE;
    (0..n)
        .map(|i| match i % 9 {
            0 => Fr::ZERO,
            1 => Fr::ONE,
            2 => r_minus_1(),
            3 => two,
            4 => -two,
            5 => two_254,
            6 => all_ones_128,
            7 => Fr::from(u64::MAX),
            _ => Fr::random(&mut *rng),
        })
        .collect()
}

/// Identity bases, repeated bases, and P next to −P.
pub fn awkward_bases<C: Pool>(n: usize, rng: &mut ChaCha8Rng) -> Vec<C> {
    let pool = C::pool();
    (0..n)
        .map(|i| {
            let p = pool[(rng.next_u32() as usize) % 8];
            match i % 5 {
                0 => C::identity(),
                1 | 2 => p,
                3 => -p,
                _ => pool[i % pool.len()],
            }
        })
        .collect()
}

/// Bases with known discrete logs: bases[i] = (a + i·d)·G for random a, d,
/// built by repeated addition in parallel chunks (cheap at 2^26), so that
/// Σ sᵢ·basesᵢ = (Σ sᵢ·(a + i·d))·G can be checked without a CPU MSM.
pub fn known_log_bases<C: GpuPoint>(n: usize, seed: u64) -> (Vec<C>, Fr, Fr) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let a = Fr::random(&mut rng);
    let d = Fr::random(&mut rng);
    let g = P::<C>::generator();
    let step = g * d;
    const CH: usize = 1 << 14;
    let mut out = vec![C::identity(); n];
    out.par_chunks_mut(CH).enumerate().for_each(|(c, o)| {
        let mut p = g * (a + d * Fr::from((c * CH) as u64));
        let mut proj = Vec::with_capacity(o.len());
        for _ in 0..o.len() {
            proj.push(p);
            p += step;
        }
        P::<C>::batch_normalize(&proj, o);
    });
    (out, a, d)
}

/// (Σ sᵢ·(a + i·d))·G: the MSM of `scalars` against `known_log_bases`
/// starting at base `start`.
pub fn known_log_msm<C: GpuPoint>(scalars: &[Fr], a: Fr, d: Fr, start: usize) -> P<C> {
    const CH: usize = 1 << 14;
    let e: Fr = scalars
        .par_chunks(CH)
        .enumerate()
        .map(|(c, s)| {
            let mut k = a + d * Fr::from((start + c * CH) as u64);
            let mut acc = Fr::ZERO;
            for x in s {
                acc += *x * k;
                k += d;
            }
            acc
        })
        .reduce(|| Fr::ZERO, |x, y| x + y);
    P::<C>::generator() * e
}

/// Affine equality of two projective results (for messages).
pub fn same<C: GpuPoint>(a: P<C>, b: P<C>) -> bool {
    a.to_affine() == b.to_affine()
}
