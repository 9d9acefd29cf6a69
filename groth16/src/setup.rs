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
//!
//! [`parameters_from_shape`] and, with feature `cuda`,
//! `parameters_from_shape_gpu` share every field-side step; they differ
//! only in who turns the scalar vectors into points (`fixed_base`'s
//! `GeneratorMul`: byte tables on the CPU, or cuzk-msm's fixed-base kernels
//! on a GPU), and produce identical parameters.

use crate::error::{Groth16Error, Result};
use crate::fixed_base::{CpuGeneratorMul, GeneratorMul};
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

/// Records the circuit's shape and generates test parameters for it, the
/// fixed-base multiplications on GPU `device_ordinal` (see
/// [`parameters_from_shape_gpu`]).
#[cfg(feature = "cuda")]
pub fn generate_parameters_gpu<C: Circuit<Fr>>(
    circuit: C,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
    device_ordinal: usize,
) -> Result<Parameters> {
    let shape = cuzk_synth::record_shape(circuit)?;
    parameters_from_shape_gpu(&shape, toxic, progress, device_ordinal)
}

/// Evaluation domain size m = 2^log_m ≥ the constraint count.
fn domain(shape: &KeypairAssembly) -> Result<(u32, usize)> {
    let n = shape.num_constraints;
    let log_m = n.max(1).next_power_of_two().trailing_zeros();
    if log_m > Fr::S {
        return Err(Groth16Error::Mismatch(format!(
            "{n} constraints exceed the field's 2-adicity"
        )));
    }
    Ok((log_m, 1usize << log_m))
}

/// Generates parameters from a recorded shape (fixed-base multiplication
/// on the CPU).
pub fn parameters_from_shape(
    shape: &KeypairAssembly,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
) -> Result<Parameters> {
    parameters_with(shape, toxic, progress, &CpuGeneratorMul::new())
}

/// [`parameters_from_shape`] with the fixed-base multiplications (the H, IC,
/// L, A and B points: nearly all of the setup's time at 2^26–2^27
/// constraints) on GPU `device_ordinal`. The field-side work is the same
/// code, and so are the parameters, bit for bit. The generators' tables are
/// built on the device before any field work, so a missing or unusable GPU
/// fails at once, as [`Groth16Error::Backend`].
#[cfg(feature = "cuda")]
pub fn parameters_from_shape_gpu(
    shape: &KeypairAssembly,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
    device_ordinal: usize,
) -> Result<Parameters> {
    let (_, m) = domain(shape)?;
    // The longest vector: H (m − 1 points) or the variables (IC + L, A, B).
    let longest = m.max(shape.num_inputs + shape.num_aux);
    let mul = crate::fixed_base::GpuGeneratorMul::new(device_ordinal, longest)?;
    parameters_with(shape, toxic, progress, &mul)
}

/// The setup, with `mul` turning scalar vectors into points.
fn parameters_with(
    shape: &KeypairAssembly,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
    mul: &dyn GeneratorMul,
) -> Result<Parameters> {
    let noop = |_: &'static str, _: usize, _: usize| {};
    let progress: Progress<'_> = progress.unwrap_or(&noop);
    let (log_m, m) = domain(shape)?;
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

    let stage = |name: &'static str, total: usize| move |done: usize| progress(name, done, total);

    let h = mul.g1(&h_scalars, &stage("H", h_scalars.len()))?;
    let ic = mul.g1(&lc[..ni], &stage("IC", ni))?;
    let l = mul.g1(&lc[ni..], &stage("L", lc.len() - ni))?;
    let nonzero = |v: &[Fr]| -> Vec<Fr> {
        v.iter()
            .copied()
            .filter(|x| !bool::from(x.is_zero()))
            .collect()
    };
    let (a_s, b_s) = (nonzero(&at), nonzero(&bt));
    let a = mul.g1(&a_s, &stage("A", a_s.len()))?;
    let b_g1 = mul.g1(&b_s, &stage("B_G1", b_s.len()))?;
    let b_g2 = mul.g2(&b_s, &stage("B_G2", b_s.len()))?;

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

    let (g1, g2) = (G1Projective::generator(), G2Projective::generator());
    let vk = VerifyingKey {
        alpha_g1: (g1 * alpha).to_affine(),
        beta_g1: (g1 * beta).to_affine(),
        beta_g2: (g2 * beta).to_affine(),
        gamma_g2: (g2 * gamma).to_affine(),
        delta_g1: (g1 * delta).to_affine(),
        delta_g2: (g2 * delta).to_affine(),
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

#[cfg(all(test, feature = "cuda"))]
mod gpu_tests {
    use super::*;
    use cuzk_synth::circuits::BenchCircuit;
    use std::collections::HashMap;
    use std::sync::Mutex;

    fn shape(log: u32) -> KeypairAssembly {
        cuzk_synth::record_shape(BenchCircuit::new(log, 3).unwrap()).unwrap()
    }

    /// The GPU setup gives the CPU setup's parameters bit for bit, and its
    /// progress reports add up to each stage's total.
    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn gpu_setup_matches_cpu() {
        for log in [6, 12, 16] {
            let s = shape(log);
            let toxic = ToxicWaste::from_seed(u64::from(log));
            let cpu = parameters_from_shape(&s, &toxic, None).unwrap();
            let seen: Mutex<HashMap<&'static str, (usize, usize)>> = Mutex::default();
            let progress = |stage: &'static str, done: usize, total: usize| {
                let mut m = seen.lock().unwrap();
                let e = m.entry(stage).or_insert((0, total));
                e.0 += done;
            };
            let t = std::time::Instant::now();
            let gpu = parameters_from_shape_gpu(&s, &toxic, Some(&progress), 0).unwrap();
            eprintln!("2^{log}: GPU setup {:.3} s", t.elapsed().as_secs_f64());
            assert!(gpu == cpu, "2^{log}: GPU and CPU parameters differ");
            for (stage, (done, total)) in seen.into_inner().unwrap() {
                assert_eq!(done, total, "2^{log}: stage {stage}");
            }
        }
    }

    /// Without a usable GPU the GPU setup is a typed error, before any
    /// field work (skipped where a GPU exists).
    #[test]
    fn gpu_setup_without_device_is_an_error() {
        if cuzk_gpu::device_count() > 0 {
            return;
        }
        match parameters_from_shape_gpu(&shape(6), &ToxicWaste::from_seed(1), None, 0) {
            Err(Groth16Error::Backend { backend, message }) => {
                assert_eq!(backend, "gpu setup");
                assert!(!message.is_empty());
            }
            other => panic!("expected a backend error, got {other:?}"),
        }
    }
}
