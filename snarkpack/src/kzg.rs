//! The KZG openings that bind GIPA's final commitment keys to the SRS.
//!
//! The final keys are the SRS powers folded by the challenges, i.e. the
//! commitment to f(X) = Π_j (1 + x_{l−j} (sX)^{2^j}) (s = 1 for v, r⁻¹ for
//! w, whose key starts at the power n: X^n·f(X)). The opening at z is
//! g^{q(α)} and g^{q(β)} for the quotient q = (f − f(z)) / (X − z).

use cuzk_field::{Curve, Field, Fr};
use cuzk_msm::MsmCurve;

use crate::SnarkpackError;

/// The coefficients of Π_j (1 + x_j (sX)^{2^j}) for the challenges
/// `xs` in the order the product takes them (the GIPA order reversed):
/// each factor doubles the list, appending the old list times x·s^{2^j}.
pub(crate) fn fold_coefficients(xs: &[Fr], s: &Fr) -> Vec<Fr> {
    let mut c = Vec::with_capacity(1 << xs.len());
    c.push(Fr::ONE);
    let mut s_pow = *s;
    for (j, x) in xs.iter().enumerate() {
        if j > 0 {
            s_pow = s_pow.square();
        }
        let f = *x * s_pow;
        let n = c.len();
        for i in 0..n {
            let v = c[i] * f;
            c.push(v);
        }
    }
    c
}

/// q = (f − f(z)) / (X − z) by synthetic division: the remainder is f(z)
/// and is dropped, so f(z) itself is never needed. `f` has its constant
/// term first; q has one coefficient fewer.
pub(crate) fn quotient(f: &[Fr], z: &Fr) -> Vec<Fr> {
    let mut q = vec![Fr::ZERO; f.len().saturating_sub(1)];
    let mut acc = Fr::ZERO;
    for i in (1..f.len()).rev() {
        acc = f[i] + acc * z;
        q[i - 1] = acc;
    }
    q
}

/// (Σ qᵢ·alphaᵢ, Σ qᵢ·betaᵢ) for the quotient of `f` at `z`.
pub(crate) fn open<C: MsmCurve>(
    alpha: &[C],
    beta: &[C],
    f: &[Fr],
    z: &Fr,
) -> Result<(C, C), SnarkpackError> {
    let q = quotient(f, z);
    let (a, b) = rayon::join(
        || cuzk_msm::msm(&alpha[..q.len()], &q),
        || cuzk_msm::msm(&beta[..q.len()], &q),
    );
    Ok((a?.to_affine(), b?.to_affine()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::SeedableRng;

    fn eval(f: &[Fr], x: &Fr) -> Fr {
        f.iter().rev().fold(Fr::ZERO, |acc, c| acc * x + c)
    }

    #[test]
    fn coefficients_are_the_product_form() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let xs: Vec<Fr> = (0..5).map(|_| Fr::random(&mut rng)).collect();
        let s = Fr::random(&mut rng);
        let z = Fr::random(&mut rng);
        let f = fold_coefficients(&xs, &s);
        assert_eq!(f.len(), 32);
        let mut want = Fr::ONE;
        let mut zs = z * s;
        for x in &xs {
            want *= Fr::ONE + *x * zs;
            zs = zs.square();
        }
        assert_eq!(eval(&f, &z), want);
    }

    #[test]
    fn quotient_times_x_minus_z_is_f_minus_f_of_z() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let f: Vec<Fr> = (0..17).map(|_| Fr::random(&mut rng)).collect();
        let z = Fr::random(&mut rng);
        let q = quotient(&f, &z);
        let t = Fr::random(&mut rng);
        assert_eq!(eval(&q, &t) * (t - z), eval(&f, &t) - eval(&f, &z));
    }
}
