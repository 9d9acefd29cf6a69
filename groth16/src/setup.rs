//! Test parameter generation ("trusted setup" from seeded toxic waste).
//!
//! **Not for production**: whoever knows the seed can forge proofs. Real
//! deployments use parameters from a multi-party ceremony (Filecoin's v28
//! files). This exists so every circuit size can be tested and benchmarked.
//!
//! We evaluate the QAP directly in the field: with m the domain size and ω its
//! generator, the Lagrange basis at τ is `Lₖ(τ) = (τᵐ − 1)·ωᵏ / (m·(τ − ωᵏ))`,
//! one batch inversion for all k. Column j of A evaluates to
//! `Aⱼ(τ) = Σ coeff·Lₖ(τ)` over its non-zeros. Only then do we leave the
//! field, with fixed-base tables for the generator (see `fixed_base`). This
//! yields the same polynomials bellperson's generator computes with a group
//! FFT over powers of τ, and the same filtering of zero A/B columns.

use crate::error::{Groth16Error, Result};
use crate::fixed_base::FixedBase;
use crate::params::Parameters;
use crate::vk::VerifyingKey;
use bellpepper_core::Circuit;
use cuzk_field::{batch_inverse, Fr, G1Affine, G1Projective, G2Projective};
use cuzk_synth::KeypairAssembly;
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand_chacha::rand_core::SeedableRng;
use rayon::prelude::*;

/// The secret scalars of a setup. Knowing them allows forging proofs.
#[derive(Clone, Debug)]
pub struct ToxicWaste {
    /// Evaluation point.
    pub tau: Fr,
    /// α.
    pub alpha: Fr,
    /// β.
    pub beta: Fr,
    /// γ.
    pub gamma: Fr,
    /// δ.
    pub delta: Fr,
}

impl ToxicWaste {
    /// Deterministic toxic waste from a seed (tests and benchmarks only).
    pub fn from_seed(seed: u64) -> Self {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        Self::random(&mut rng)
    }

    /// Toxic waste from an RNG.
    pub fn random(rng: &mut impl rand_core::RngCore) -> Self {
        let mut nz = || loop {
            let x = Fr::random(&mut *rng);
            if !bool::from(x.is_zero()) {
                return x;
            }
        };
        Self {
            tau: nz(),
            alpha: nz(),
            beta: nz(),
            gamma: nz(),
            delta: nz(),
        }
    }
}

/// Progress callback: (stage name, items done in this call, stage total).
pub type Progress<'a> = &'a (dyn Fn(&'static str, usize, usize) + Sync);

/// Records the circuit's shape and generates test parameters for it.
pub fn generate_parameters<C: Circuit<Fr>>(
    circuit: C,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
) -> Result<Parameters> {
    let shape = cuzk_synth::record_shape(circuit)?;
    parameters_from_shape(&shape, toxic, progress)
}

/// Evaluates every column of one matrix at τ: `Σ coeff·Lₖ(τ)`.
fn eval_columns(cols: &[Vec<(Fr, usize)>], lagrange: &[Fr]) -> Vec<Fr> {
    cols.par_iter()
        .map(|col| {
            col.iter()
                .fold(Fr::ZERO, |acc, (coeff, k)| acc + *coeff * lagrange[*k])
        })
        .collect()
}

/// Generates parameters from a recorded shape.
pub fn parameters_from_shape(
    shape: &KeypairAssembly,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
) -> Result<Parameters> {
    let noop = |_: &'static str, _: usize, _: usize| {};
    let progress: Progress<'_> = progress.unwrap_or(&noop);
    let n = shape.num_constraints;
    let log_m = n.max(1).next_power_of_two().trailing_zeros();
    if log_m > Fr::S {
        return Err(Groth16Error::Mismatch(format!(
            "{n} constraints exceed the field's 2-adicity"
        )));
    }
    let m = 1usize << log_m;
    let mut omega = Fr::ROOT_OF_UNITY;
    for _ in log_m..Fr::S {
        omega = omega.square();
    }
    let ToxicWaste {
        tau,
        alpha,
        beta,
        gamma,
        delta,
    } = *toxic;
    let z_tau = tau.pow_vartime([m as u64]) - Fr::ONE;
    let (gamma_inv, delta_inv) = (gamma.invert(), delta.invert());
    let (gamma_inv, delta_inv) =
        match (Option::<Fr>::from(gamma_inv), Option::<Fr>::from(delta_inv)) {
            (Some(g), Some(d)) => (g, d),
            _ => {
                return Err(Groth16Error::Mismatch(
                    "gamma and delta must be non-zero".into(),
                ))
            }
        };

    // Lagrange basis at tau.
    let omegas: Vec<Fr> = powers(omega, m);
    let mut denom: Vec<Fr> = omegas.par_iter().map(|w| tau - w).collect();
    if denom.par_iter().any(|d| bool::from(d.is_zero())) || bool::from(z_tau.is_zero()) {
        return Err(Groth16Error::Mismatch(
            "tau lies in the evaluation domain; pick another seed".into(),
        ));
    }
    batch_inverse(&mut denom);
    let scale = z_tau * Fr::from(m as u64).invert().expect("m < r is invertible");
    let lagrange: Vec<Fr> = omegas
        .par_iter()
        .zip(denom.par_iter())
        .map(|(w, d)| scale * w * d)
        .collect();

    let at: Vec<Fr> = [
        eval_columns(&shape.at_inputs, &lagrange),
        eval_columns(&shape.at_aux, &lagrange),
    ]
    .concat();
    let bt: Vec<Fr> = [
        eval_columns(&shape.bt_inputs, &lagrange),
        eval_columns(&shape.bt_aux, &lagrange),
    ]
    .concat();
    let ct: Vec<Fr> = [
        eval_columns(&shape.ct_inputs, &lagrange),
        eval_columns(&shape.ct_aux, &lagrange),
    ]
    .concat();
    drop(lagrange);
    let ni = shape.num_inputs;

    // (β·A + α·B + C) for every variable; divided by γ (inputs) or δ (aux).
    let lc: Vec<Fr> = (0..at.len())
        .into_par_iter()
        .map(|j| {
            let v = beta * at[j] + alpha * bt[j] + ct[j];
            v * if j < ni { gamma_inv } else { delta_inv }
        })
        .collect();
    let h_scalars: Vec<Fr> = {
        let f = z_tau * delta_inv;
        powers(tau, m - 1).into_par_iter().map(|t| t * f).collect()
    };

    let g1 = FixedBase::new(G1Projective::generator());
    let g2 = FixedBase::new(G2Projective::generator());
    let stage = |name: &'static str, total: usize| move |done: usize| progress(name, done, total);

    let h = g1.mul_many(&h_scalars, &stage("H", h_scalars.len()));
    let ic = g1.mul_many(&lc[..ni], &stage("IC", ni));
    let l = g1.mul_many(&lc[ni..], &stage("L", lc.len() - ni));
    let nonzero = |v: &[Fr]| -> Vec<Fr> {
        v.iter()
            .copied()
            .filter(|x| !bool::from(x.is_zero()))
            .collect()
    };
    let (a_s, b_s) = (nonzero(&at), nonzero(&bt));
    let a = g1.mul_many(&a_s, &stage("A", a_s.len()));
    let b_g1 = g1.mul_many(&b_s, &stage("B_G1", b_s.len()));
    let b_g2 = g2.mul_many(&b_s, &stage("B_G2", b_s.len()));

    if ic
        .iter()
        .chain(&l)
        .chain(&h)
        .any(|p: &G1Affine| bool::from(p.is_identity()))
    {
        // bellperson refuses to read parameters holding the point at infinity
        // in IC, L or H; that happens when a variable appears in no constraint.
        return Err(Groth16Error::Mismatch(
            "a variable appears in no constraint (its IC/L point would be infinity, which .params cannot hold)".into(),
        ));
    }

    let vk = VerifyingKey {
        alpha_g1: g1.mul(&alpha).to_affine(),
        beta_g1: g1.mul(&beta).to_affine(),
        beta_g2: g2.mul(&beta).to_affine(),
        gamma_g2: g2.mul(&gamma).to_affine(),
        delta_g1: g1.mul(&delta).to_affine(),
        delta_g2: g2.mul(&delta).to_affine(),
        ic,
    };
    Ok(Parameters {
        vk,
        h,
        l,
        a,
        b_g1,
        b_g2,
    })
}

/// `[1, x, x², …]` of length n, computed in parallel blocks.
fn powers(x: Fr, n: usize) -> Vec<Fr> {
    const BLOCK: usize = 1 << 14;
    let step = x.pow_vartime([BLOCK as u64]);
    let starts: Vec<Fr> = std::iter::successors(Some(Fr::ONE), |s| Some(*s * step))
        .take(n.div_ceil(BLOCK))
        .collect();
    let mut out = vec![Fr::ZERO; n];
    out.par_chunks_mut(BLOCK)
        .zip(starts)
        .for_each(|(chunk, mut acc)| {
            for v in chunk {
                *v = acc;
                acc *= x;
            }
        });
    out
}
