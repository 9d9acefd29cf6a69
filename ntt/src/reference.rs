//! Naive O(n²) transforms and a literal transcription of bellperson's
//! quotient sequence, for differential tests (here and in other crates).
//! Far too slow for anything but small sizes.
#![doc(hidden)]

use crate::cpu::{coset_generator, root_of_unity};
use cuzk_field::{Field, Fr};
use rayon::prelude::*;

/// `out[j] = Σ_i values[i]·omega^{ij}` (evaluation at the powers of `omega`).
pub fn naive_dft(values: &[Fr], omega: Fr) -> Vec<Fr> {
    naive_coset_dft(values, omega, Fr::ONE)
}

/// `out[j] = Σ_i values[i]·(shift·omega^j)^i`.
pub fn naive_coset_dft(values: &[Fr], omega: Fr, shift: Fr) -> Vec<Fr> {
    let n = values.len();
    (0..n)
        .into_par_iter()
        .map(|j| {
            let x = shift * omega.pow_vartime([j as u64]);
            evaluate(values, x)
        })
        .collect()
}

/// The polynomial with coefficients `coeffs` (lowest first) at `x` (Horner).
pub fn evaluate(coeffs: &[Fr], x: Fr) -> Fr {
    coeffs.iter().rev().fold(Fr::ZERO, |acc, c| acc * x + c)
}

/// bellperson 0.26 `execute_fft`, step by step, with naive transforms:
/// pad to `m`; ifft (`naive_dft` with `ω^{-1}`, times `1/m`); multiply
/// coefficient `i` by `g^i`; `naive_dft`; `a·b − c`; times `(g^m − 1)^{-1}`;
/// ifft; multiply coefficient `i` by `g^{-i}`; keep `m − 1` coefficients.
/// Panics on unequal lengths (test helper).
pub fn naive_h_step(a: &[Fr], b: &[Fr], c: &[Fr]) -> Vec<Fr> {
    assert!(a.len() == b.len() && b.len() == c.len());
    let m = a.len().max(1).next_power_of_two();
    let log_m = m.trailing_zeros();
    let omega = root_of_unity(log_m).expect("small domain");
    let omega_inv = omega.invert().unwrap();
    let m_inv = Fr::from(m as u64).invert().unwrap();
    let g = coset_generator();
    let g_inv = g.invert().unwrap();
    let ifft = |v: &[Fr]| -> Vec<Fr> {
        naive_dft(v, omega_inv)
            .into_iter()
            .map(|x| x * m_inv)
            .collect()
    };
    let distribute = |v: &mut [Fr], s: Fr| {
        let mut p = Fr::ONE;
        for x in v.iter_mut() {
            *x *= p;
            p *= s;
        }
    };
    let coset = |v: &[Fr]| -> Vec<Fr> {
        let mut v = v.to_vec();
        v.resize(m, Fr::ZERO);
        let mut v = ifft(&v);
        distribute(&mut v, g);
        naive_dft(&v, omega)
    };
    let (ea, eb, ec) = (coset(a), coset(b), coset(c));
    let z_inv = (g.pow_vartime([m as u64]) - Fr::ONE).invert().unwrap();
    let q: Vec<Fr> = (0..m).map(|i| (ea[i] * eb[i] - ec[i]) * z_inv).collect();
    let mut h = ifft(&q);
    distribute(&mut h, g_inv);
    h.truncate(m - 1);
    h
}
