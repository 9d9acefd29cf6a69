//! Shared by the host (field_host.rs) and device (field_gpu.rs) differential
//! tests: inputs with edge values, blst expectations, XYZZ checks.
#![allow(dead_code)]

use cuzk_field::repr::{fp_from_mont, fp_to_mont, fr_from_mont, fr_to_mont};
use cuzk_field::{Field, Fp, Fp2, Fr, G1Affine, G1Projective, G2Affine, G2Projective, Group};
use cuzk_gpu::field_test::{CurveOp, FieldOp, GpuCurve, GpuField, Xyzz};
use group::prime::PrimeCurveAffine;
use group::Curve;
use rand_core::RngCore;

/// What the tests need beyond GpuField: edge values, and the blst
/// meaning of ToMont/FromMont.
pub trait TestField: GpuField + std::fmt::Debug {
    const NAME: &'static str;
    fn edges() -> Vec<Self>;
    /// Element whose value is the integer given by self's Montgomery limbs.
    fn expect_to_mont(&self) -> Self;
    /// Element whose Montgomery limbs are self's canonical limbs.
    fn expect_from_mont(&self) -> Self;
}

fn u64s<const N: usize>(b: &[u8]) -> [u64; N] {
    let mut l = [0u64; N];
    for (i, c) in b.chunks(8).enumerate() {
        l[i] = u64::from_le_bytes(c.try_into().unwrap());
    }
    l
}

const R_MINUS_1: [u64; 4] = [
    0xffff_ffff_0000_0000,
    0x53bd_a402_fffe_5bfe,
    0x3339_d808_09a1_d805,
    0x73ed_a753_299d_7d48,
];
const P_MINUS_1: [u64; 6] = [
    0xb9fe_ffff_ffff_aaaa,
    0x1eab_fffe_b153_ffff,
    0x6730_d2a0_f6b0_f624,
    0x6477_4b84_f385_12bf,
    0x4b1b_a7b6_434b_acd7,
    0x1a01_11ea_397f_e69a,
];

impl TestField for Fr {
    const NAME: &'static str = "Fr";
    fn edges() -> Vec<Fr> {
        let raw = |l: [u64; 4]| fr_from_mont(l).expect("reduced");
        let mut r_minus_2 = R_MINUS_1;
        r_minus_2[0] -= 1;
        let mut half = R_MINUS_1; // (r − 1)/2 as raw limbs
        for i in 0..4 {
            half[i] = (half[i] >> 1) | if i < 3 { half[i + 1] << 63 } else { 0 };
        }
        vec![
            Fr::ZERO,
            Fr::ONE,
            -Fr::ONE,
            Fr::from(2u64),
            -Fr::from(2u64),
            Fr::ONE.double().invert().unwrap(),
            raw([1, 0, 0, 0]),
            raw(R_MINUS_1),
            raw(r_minus_2),
            raw(half),
            raw([u64::MAX, u64::MAX, 0, 0]),
            raw([0, 0, 0, 1 << 62]),
            raw([u64::MAX, u64::MAX, u64::MAX, 0x73ed_a753_299d_7d47]),
        ]
    }
    fn expect_to_mont(&self) -> Fr {
        Option::from(Fr::from_u64s_le(&fr_to_mont(self))).expect("limbs < r")
    }
    fn expect_from_mont(&self) -> Fr {
        fr_from_mont(u64s::<4>(&self.to_bytes_le())).expect("canonical < r")
    }
}

impl TestField for Fp {
    const NAME: &'static str = "Fp";
    fn edges() -> Vec<Fp> {
        let raw = |l: [u64; 6]| fp_from_mont(l).expect("reduced");
        let mut p_minus_2 = P_MINUS_1;
        p_minus_2[0] -= 1;
        let mut half = P_MINUS_1;
        for i in 0..6 {
            half[i] = (half[i] >> 1) | if i < 5 { half[i + 1] << 63 } else { 0 };
        }
        vec![
            Fp::ZERO,
            Fp::ONE,
            -Fp::ONE,
            Fp::ONE.double(),
            -Fp::ONE.double(),
            Fp::ONE.double().invert().unwrap(),
            raw([1, 0, 0, 0, 0, 0]),
            raw(P_MINUS_1),
            raw(p_minus_2),
            raw(half),
            raw([u64::MAX, u64::MAX, u64::MAX, 0, 0, 0]),
            raw([0, 0, 0, 0, 0, 1 << 60]),
            raw([
                u64::MAX,
                u64::MAX,
                u64::MAX,
                u64::MAX,
                u64::MAX,
                0x1a01_11ea_397f_e699,
            ]),
        ]
    }
    fn expect_to_mont(&self) -> Fp {
        Option::from(Fp::from_u64s_le(&fp_to_mont(self))).expect("limbs < p")
    }
    fn expect_from_mont(&self) -> Fp {
        fp_from_mont(u64s::<6>(&self.to_bytes_le())).expect("canonical < p")
    }
}

impl TestField for Fp2 {
    const NAME: &'static str = "Fp2";
    fn edges() -> Vec<Fp2> {
        let e = Fp::edges();
        let mut v = Vec::new();
        for (i, a) in e.iter().enumerate() {
            v.push(Fp2::new(*a, Fp::ZERO));
            v.push(Fp2::new(Fp::ZERO, *a));
            v.push(Fp2::new(*a, e[(i + 3) % e.len()]));
        }
        v
    }
    fn expect_to_mont(&self) -> Fp2 {
        unreachable!("Fp2 has no ToMont")
    }
    fn expect_from_mont(&self) -> Fp2 {
        unreachable!("Fp2 has no FromMont")
    }
}

/// Operations that apply to the field.
pub fn ops_for<F: TestField>() -> Vec<FieldOp> {
    FieldOp::ALL
        .into_iter()
        .filter(|op| op.applies_to::<F>())
        .collect()
}

/// (a, b) with every pair of edge values first, then `random` random pairs.
pub fn field_inputs<F: TestField>(random: usize, rng: &mut impl RngCore) -> (Vec<F>, Vec<F>) {
    let e = F::edges();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for x in &e {
        for y in &e {
            a.push(*x);
            b.push(*y);
        }
    }
    for _ in 0..random {
        a.push(F::random(&mut *rng));
        b.push(F::random(&mut *rng));
    }
    (a, b)
}

/// blst's answer.
pub fn expect_field<F: TestField>(op: FieldOp, a: &F, b: &F) -> F {
    match op {
        FieldOp::Add => *a + b,
        FieldOp::Sub => *a - b,
        FieldOp::Mul | FieldOp::MulPortable => *a * b,
        FieldOp::Sqr => a.square(),
        FieldOp::Neg => -*a,
        FieldOp::Dbl => a.double(),
        FieldOp::Inv => Option::from(a.invert()).unwrap_or(F::ZERO),
        FieldOp::ToMont => a.expect_to_mont(),
        FieldOp::FromMont => a.expect_from_mont(),
    }
}

/// Index of the first mismatch, with a description.
pub fn first_field_mismatch<F: TestField>(
    op: FieldOp,
    a: &[F],
    b: &[F],
    got: &[F],
) -> Option<String> {
    assert_eq!(got.len(), a.len());
    (0..a.len()).find_map(|i| {
        let want = expect_field(op, &a[i], &b[i]);
        (got[i] != want).then(|| {
            format!(
                "{} {op:?} #{i}: a={:?} b={:?} got={:?} want={want:?}",
                F::NAME,
                a[i],
                b[i],
                got[i]
            )
        })
    })
}

/// Curve glue for the tests.
pub trait TestCurve: GpuCurve + PrimeCurveAffine<Curve = Self::Proj> + std::fmt::Debug
where
    Self::Base: TestField,
{
    type Proj: Group + Curve<AffineRepr = Self>;
    const NAME: &'static str;
    fn xy(&self) -> (Self::Base, Self::Base);
}

impl TestCurve for G1Affine {
    type Proj = G1Projective;
    const NAME: &'static str = "G1";
    fn xy(&self) -> (Fp, Fp) {
        (self.x(), self.y())
    }
}

impl TestCurve for G2Affine {
    type Proj = G2Projective;
    const NAME: &'static str = "G2";
    fn xy(&self) -> (Fp2, Fp2) {
        (self.x(), self.y())
    }
}

/// (a, b, la, lb) of the curve tests.
pub type CurveInputs<C> = (
    Vec<C>,
    Vec<C>,
    Vec<<C as GpuCurve>::Base>,
    Vec<<C as GpuCurve>::Base>,
);

/// Curve inputs: (a, b, la, lb). The first cases are the exceptional ones
/// (∞ + P, P + ∞, ∞ + ∞, P + P, P + (−P), λ = 1 and −1); the rest are random
/// points from a walk P_{i+1} = P_i + Q (cheap, all distinct) with random λ.
pub fn curve_inputs<C: TestCurve>(random: usize, rng: &mut impl RngCore) -> CurveInputs<C>
where
    C::Base: TestField,
{
    let inf = C::identity();
    let g = C::generator();
    let p = (C::Proj::random(&mut *rng)).to_affine();
    let q = (C::Proj::random(&mut *rng)).to_affine();
    let neg_p = -p;
    let one = <C::Base as Field>::ONE;
    let m1 = -one;
    let mut a = vec![inf, p, inf, p, p, g, p, neg_p, q, g];
    let mut b = vec![p, inf, inf, p, neg_p, g, q, p, q, -g];
    let mut la = vec![one, one, one, one, one, m1, m1, one, m1, one];
    let mut lb = vec![one, m1, one, m1, one, one, m1, m1, one, one];
    // the same cases with random scales, so ZZ, ZZZ are general
    let k = a.len();
    for i in 0..k {
        a.push(a[i]);
        b.push(b[i]);
        la.push(<C::Base as Field>::random(&mut *rng));
        lb.push(<C::Base as Field>::random(&mut *rng));
    }
    let step = C::Proj::random(&mut *rng);
    let mut cur = C::Proj::random(&mut *rng);
    let mut pa = Vec::with_capacity(random);
    let mut pb = Vec::with_capacity(random);
    for _ in 0..random {
        pa.push(cur);
        cur += step;
        pb.push(cur);
        cur += step;
    }
    let mut aa = vec![C::identity(); random];
    let mut bb = vec![C::identity(); random];
    C::Proj::batch_normalize(&pa, &mut aa);
    C::Proj::batch_normalize(&pb, &mut bb);
    a.extend(aa);
    b.extend(bb);
    for _ in 0..random {
        la.push(nonzero(rng));
        lb.push(nonzero(rng));
    }
    (a, b, la, lb)
}

fn nonzero<F: Field>(rng: &mut impl RngCore) -> F {
    loop {
        let x = F::random(&mut *rng);
        if !bool::from(x.is_zero()) {
            return x;
        }
    }
}

/// blst's answer as a projective point.
pub fn expect_curve<C: TestCurve>(op: CurveOp, a: &C, b: &C) -> C::Proj
where
    C::Base: TestField,
{
    let pa = a.to_curve();
    match op {
        CurveOp::Add | CurveOp::MAdd | CurveOp::Affine => pa + b.to_curve(),
        CurveOp::Dbl => pa.double(),
        CurveOp::Neg => -pa,
    }
}

/// Does the XYZZ point equal the affine one? ZZ³ = ZZZ² must also hold.
pub fn xyzz_matches<C: TestCurve>(got: &Xyzz<C::Base>, want: &C, affine_form: bool) -> bool
where
    C::Base: TestField,
{
    if bool::from(want.is_identity()) {
        return got.zz.is_zero_vartime() && got.zzz.is_zero_vartime();
    }
    if got.zz.is_zero_vartime() {
        return false;
    }
    let (x, y) = want.xy();
    let curve_ok = got.zz.square() * got.zz == got.zzz.square();
    let coords_ok = got.x == x * got.zz && got.y == y * got.zzz;
    let form_ok = !affine_form || (got.zz == <C::Base as Field>::ONE && got.zzz == got.zz);
    curve_ok && coords_ok && form_ok
}

/// First mismatch of a curve op, with a description.
pub fn first_curve_mismatch<C: TestCurve>(
    op: CurveOp,
    a: &[C],
    b: &[C],
    got: &[Xyzz<C::Base>],
) -> Option<String>
where
    C::Base: TestField,
{
    let want_proj: Vec<C::Proj> = (0..a.len())
        .map(|i| expect_curve(op, &a[i], &b[i]))
        .collect();
    let mut want = vec![C::identity(); a.len()];
    C::Proj::batch_normalize(&want_proj, &mut want);
    (0..a.len()).find_map(|i| {
        (!xyzz_matches::<C>(&got[i], &want[i], op == CurveOp::Affine)).then(|| {
            format!(
                "{} {op:?} #{i}: a={:?} b={:?} got={:?} want={:?}",
                C::NAME,
                a[i],
                b[i],
                got[i],
                want[i]
            )
        })
    })
}
