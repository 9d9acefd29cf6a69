//! The CUDA field and curve templates (field/cuda), compiled as host C++,
//! against blst: every operation on every edge-value pair plus random
//! inputs (fixed seeds), and proptest on multiplication. Runs on any CPU.

mod common;

use common::*;
use cuzk_field::{Fp, Fp2, Fr, G1Affine, G2Affine};
use cuzk_gpu::field_test::{host_curve, host_field, host_is_portable, CurveOp, FieldOp};
use cuzk_gpu::GpuError;
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

fn check_field<F: TestField>(seed: u64, random: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (a, b) = field_inputs::<F>(random, &mut rng);
    for op in ops_for::<F>() {
        let got = host_field(op, &a, &b).unwrap();
        if let Some(m) = first_field_mismatch(op, &a, &b, &got) {
            panic!("{m}");
        }
    }
}

#[test]
fn fr_all_ops_match_blst() {
    check_field::<Fr>(1, 2000);
}

#[test]
fn fp_all_ops_match_blst() {
    check_field::<Fp>(2, 1000);
}

#[test]
fn fp2_all_ops_match_blst() {
    check_field::<Fp2>(3, 300);
}

fn check_curve<C: TestCurve>(seed: u64, random: usize)
where
    C::Base: TestField,
{
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (a, b, la, lb) = curve_inputs::<C>(random, &mut rng);
    for op in CurveOp::ALL {
        let got = host_curve(op, &a, &b, &la, &lb).unwrap();
        if let Some(m) = first_curve_mismatch(op, &a, &b, &got) {
            panic!("{m}");
        }
    }
}

#[test]
fn g1_ops_match_blst() {
    check_curve::<G1Affine>(4, 200);
}

#[test]
fn g2_ops_match_blst() {
    check_curve::<G2Affine>(5, 60);
}

#[test]
fn host_twin_is_portable_and_rejects_bad_input() {
    assert!(host_is_portable().unwrap());
    // length mismatch is a typed error, not a panic or UB
    let e = host_field::<Fr>(FieldOp::Mul, &[Fr::from(1u64)], &[]).unwrap_err();
    assert!(matches!(e, GpuError::InvalidArgument(_)), "{e}");
    // empty input is fine
    assert!(host_field::<Fp>(FieldOp::Add, &[], &[]).unwrap().is_empty());
}

#[test]
fn the_checker_can_fail() {
    // A wrong answer must be reported: feed the checker a shifted output.
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let (a, b) = field_inputs::<Fr>(10, &mut rng);
    let mut got = host_field(FieldOp::Mul, &a, &b).unwrap();
    got.rotate_left(1);
    assert!(first_field_mismatch(FieldOp::Mul, &a, &b, &got).is_some());
    let (pa, pb, la, lb) = curve_inputs::<G1Affine>(4, &mut rng);
    let mut pg = host_curve(CurveOp::Add, &pa, &pb, &la, &lb).unwrap();
    pg.swap(6, 7);
    assert!(first_curve_mismatch(CurveOp::Add, &pa, &pb, &pg).is_some());
}

fn fp_from_seed(s: u64) -> Fp {
    <Fp as cuzk_field::Field>::random(ChaCha8Rng::seed_from_u64(s))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn fp_mul_and_inverse_agree(s1 in any::<u64>(), s2 in any::<u64>()) {
        let a = fp_from_seed(s1);
        let b = fp_from_seed(s2);
        let got = host_field(FieldOp::Mul, &[a], &[b]).unwrap();
        prop_assert_eq!(got[0], a * b);
        let inv = host_field(FieldOp::Inv, &[a], &[b]).unwrap();
        prop_assert_eq!(inv[0] * a, <Fp as cuzk_field::Field>::ONE);
    }
}
