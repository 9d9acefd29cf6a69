//! The fixed-base kernels' host C++ twin (same step functors as the device,
//! loops instead of kernels) against blstrs, on any CPU: `scalars[i]·base`
//! must equal `(base * s).to_affine()` limb for limb (Montgomery limbs, so
//! "equal" means bit-identical, and scalar 0 gives the all-zero identity),
//! for G1 and G2, edge scalars (0, 1, r − 1, small, 2^k, 2^k − 1, −2^k),
//! random ones, every window width, group boundaries of the batch
//! inversion with infinities inside the groups, and typed errors.

mod gpu_common;

use cuzk_field::repr::fp_to_mont;
use cuzk_field::{Curve, Field, Fr, G1Affine, G2Affine, PrimeCurveAffine, PrimeField};
use cuzk_msm::gpu::{fixed_base_window, host, GpuPoint, FIXED_BASE_WINDOWS};
use gpu_common::*;
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// The Montgomery limbs of an affine point, exactly as stored.
trait Limbs: GpuPoint {
    fn limbs(&self) -> Vec<u64>;
}

impl Limbs for G1Affine {
    fn limbs(&self) -> Vec<u64> {
        [fp_to_mont(&self.x()), fp_to_mont(&self.y())].concat()
    }
}

impl Limbs for G2Affine {
    fn limbs(&self) -> Vec<u64> {
        let (x, y) = (self.x(), self.y());
        [x.c0(), x.c1(), y.c0(), y.c1()]
            .iter()
            .flat_map(fp_to_mont)
            .collect()
    }
}

fn expect<C: Limbs>(base: &C, scalars: &[Fr], got: &[C], label: &str) {
    assert_eq!(got.len(), scalars.len(), "{label}: length");
    for (i, (s, g)) in scalars.iter().zip(got).enumerate() {
        let want = (base.to_curve() * s).to_affine();
        assert_eq!(g.limbs(), want.limbs(), "{} {label}: scalar {i}", C::NAME);
    }
}

fn check<C: Limbs>(base: &C, scalars: &[Fr], window: Option<u32>, label: &str) {
    let got = host::fixed_base_mul(base, scalars, window).unwrap();
    expect(base, scalars, &got, label);
}

/// 0, 1, r − 1, 2..=20, r − 2, 2^k, 2^k − 1 and −2^k for several k
/// (digits that carry through every window), u64::MAX.
fn edge_set() -> Vec<Fr> {
    let two = Fr::from(2u64);
    let mut s = vec![Fr::ZERO, Fr::ONE, -Fr::ONE, -two, Fr::from(u64::MAX)];
    s.extend((2..=20u64).map(Fr::from));
    for k in [1u64, 7, 8, 15, 16, 17, 31, 63, 64, 127, 128, 200, 253, 254] {
        let p = two.pow_vartime([k]);
        s.extend([p, p - Fr::ONE, -p]);
    }
    s
}

fn scalars(n_random: usize, seed: u64) -> Vec<Fr> {
    let mut s = edge_set();
    s.extend(random_scalars(n_random, seed));
    s
}

#[test]
fn g1_edge_and_random() {
    let s = scalars(300, 1);
    check(&G1Affine::generator(), &s, None, "generator");
    check(&G1Affine::pool()[3], &s, None, "random base");
    check(&G1Affine::pool()[4], &s, Some(16), "window 16");
}

#[test]
fn g2_edge_and_random() {
    let s = scalars(100, 2);
    check(&G2Affine::generator(), &s, None, "generator");
    check(&G2Affine::pool()[5], &s, None, "random base");
    check(&G2Affine::pool()[6], &s, Some(10), "window 10");
}

/// Every window up to 12 (G1; 16, the one large inputs use, is in
/// `g1_edge_and_random`: the twin builds a table of 2^19 points on one CPU
/// core, seconds per table, so 13..=15 are left to the GPU tests).
#[test]
fn every_window() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut s = edge_set();
    s.extend(edge_scalars(20, &mut rng));
    for w in *FIXED_BASE_WINDOWS.start()..=12 {
        let base = G1Affine::pool()[w as usize];
        check(&base, &s, Some(w), &format!("w {w}"));
    }
    for w in [2, 3, 6, 9, 12] {
        let base = G2Affine::pool()[w as usize];
        check(&base, &s[..40], Some(w), &format!("w {w}"));
    }
}

/// Sizes around the 32-point groups of the batch inversion, with zero
/// scalars (infinity, skipped in the inversion) scattered through them.
#[test]
fn group_boundaries_and_infinities() {
    for n in [1usize, 2, 31, 32, 33, 63, 64, 65, 97, 1000] {
        let mut s = random_scalars(n, n as u64);
        for i in (0..n).step_by(7) {
            s[i] = Fr::ZERO;
        }
        check(&G1Affine::pool()[n % 100], &s, None, &format!("n {n}"));
        if n <= 97 {
            check(&G2Affine::pool()[n % 100], &s, None, &format!("n {n}"));
        }
    }
    // all infinities, and all but one
    let zeros = vec![Fr::ZERO; 65];
    check(&G1Affine::pool()[0], &zeros, None, "all zero");
    check(&G2Affine::pool()[0], &zeros, None, "all zero");
    let mut one = zeros.clone();
    one[40] = Fr::from(5u64);
    check(&G1Affine::pool()[0], &one, None, "one non-zero");
    // repeated scalars (identical points in one group) and r − 1 everywhere
    check(
        &G1Affine::pool()[1],
        &vec![r_minus_1(); 70],
        None,
        "all r-1",
    );
    check(&G2Affine::pool()[1], &vec![Fr::ONE; 40], None, "all one");
}

#[test]
fn identity_base_and_empty_input() {
    let s = scalars(10, 4);
    let got = host::fixed_base_mul(&G1Affine::identity(), &s, None).unwrap();
    assert!(got.iter().all(|p| bool::from(p.is_identity())));
    expect(&G1Affine::identity(), &s, &got, "identity base");
    let got = host::fixed_base_mul(&G2Affine::identity(), &s, Some(5)).unwrap();
    expect(&G2Affine::identity(), &s, &got, "identity base");
    assert!(host::fixed_base_mul(&G1Affine::generator(), &[], None)
        .unwrap()
        .is_empty());
}

#[test]
fn scalar_zero_is_all_zero_bytes() {
    let got = host::fixed_base_mul(&G1Affine::generator(), &[Fr::ZERO], None).unwrap();
    assert!(got[0].limbs().iter().all(|&l| l == 0));
    assert_eq!(got[0], G1Affine::identity());
    let got = host::fixed_base_mul(&G2Affine::generator(), &[Fr::ZERO], None).unwrap();
    assert!(got[0].limbs().iter().all(|&l| l == 0));
}

#[test]
fn bad_windows_are_errors() {
    let g = G1Affine::generator();
    for w in [0, 1, 17, 32] {
        let e = host::fixed_base_mul(&g, &[Fr::ONE], Some(w)).unwrap_err();
        assert!(e.to_string().contains("window"), "{e}");
    }
    assert_eq!(fixed_base_window(0), 2);
    // the modulus minus one has 255 bits: no scalar needs a carry past the top
    assert_eq!(Fr::NUM_BITS, 255);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_shapes(n in 0usize..90, w in 2u32..=10, seed in any::<u64>(), zeros in 0usize..4) {
        let mut s = random_scalars(n, seed);
        for i in (0..n).step_by(zeros + 2) {
            if zeros > 0 { s[i] = Fr::ZERO; }
        }
        let base = G1Affine::pool()[(seed % 1000) as usize];
        let got = host::fixed_base_mul(&base, &s, Some(w)).unwrap();
        for (i, x) in s.iter().enumerate() {
            prop_assert_eq!(got[i].limbs(), (base.to_curve() * x).to_affine().limbs());
        }
    }
}
