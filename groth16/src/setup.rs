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
//! The QAP at τ comes from the circuit's record ([`CompiledR1cs`]): a
//! transposed SpMV on all cores ([`QapAtTau::from_record`]).
//! [`generate_parameters`] records the circuit first;
//! [`parameters_from_record`] takes a record the caller has (and keeps for
//! the prover afterwards).
//!
//! The CPU and GPU setups (the latter with feature `cuda`) share every
//! field-side step; they differ only in who turns the scalar vectors into
//! points (`fixed_base`'s `GeneratorMul`: byte tables on the CPU, or
//! cuzk-msm's fixed-base kernels on a GPU), and produce identical
//! parameters.

use crate::error::{Groth16Error, Result};
use crate::fixed_base::{CpuGeneratorMul, GeneratorMul};
use crate::params::Parameters;
use crate::vk::VerifyingKey;
use bellpepper_core::Circuit;
use cuzk_field::{batch_inverse, Fr, G1Affine, G1Projective, G2Projective};
use cuzk_synth::compiled::CompiledR1cs;
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

/// Generates test parameters for `circuit` (fixed-base multiplication on
/// the CPU): the circuit is recorded, then [`parameters_from_record`].
pub fn generate_parameters<C: Circuit<Fr>>(
    circuit: C,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
) -> Result<Parameters> {
    parameters_from_record(&CompiledR1cs::record(circuit)?, toxic, progress)
}

/// [`generate_parameters`] with the fixed-base multiplications on GPU
/// `device_ordinal`: the circuit is recorded, then
/// [`parameters_from_record_gpu`].
#[cfg(feature = "cuda")]
pub fn generate_parameters_gpu<C: Circuit<Fr>>(
    circuit: C,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
    device_ordinal: usize,
) -> Result<Parameters> {
    parameters_from_record_gpu(
        &CompiledR1cs::record(circuit)?,
        toxic,
        progress,
        device_ordinal,
    )
}

/// The GPU's fixed-base tables for a circuit of `shape`, sized for its
/// longest vector: H (m − 1 points) or the variables (IC + L, A, B).
#[cfg(feature = "cuda")]
fn gpu_mul(
    device_ordinal: usize,
    shape: cuzk_synth::Shape,
) -> Result<crate::fixed_base::GpuGeneratorMul> {
    let (_, m) = domain_of(shape.num_constraints)?;
    let longest = m.max(shape.num_inputs + shape.num_aux);
    crate::fixed_base::GpuGeneratorMul::new(device_ordinal, longest)
}

/// Evaluation domain size m = 2^log_m ≥ the constraint count `n`.
fn domain_of(n: usize) -> Result<(u32, usize)> {
    let log_m = n.max(1).next_power_of_two().trailing_zeros();
    if log_m > Fr::S {
        return Err(Groth16Error::Mismatch(format!(
            "{n} constraints exceed the field's 2-adicity"
        )));
    }
    Ok((log_m, 1usize << log_m))
}

/// Generates parameters from a recorded circuit (fixed-base
/// multiplication on the CPU), without synthesizing the circuit again.
pub fn parameters_from_record(
    record: &CompiledR1cs,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
) -> Result<Parameters> {
    let noop = |_: &'static str, _: usize, _: usize| {};
    let progress: Progress<'_> = progress.unwrap_or(&noop);
    let qap = QapAtTau::from_record(record, toxic.tau, progress)?;
    parameters_from_qap(qap, toxic, progress, &CpuGeneratorMul::new())
}

/// [`parameters_from_record`] with the fixed-base multiplications (the H,
/// IC, L, A and B points: nearly all of the setup's time at 2^26–2^27
/// constraints) on GPU `device_ordinal`. The field-side work is the same
/// code, and so are the parameters, bit for bit. The generators' tables are
/// built on the device before any field work, so a missing or unusable GPU
/// fails at once, as [`Groth16Error::Gpu`].
#[cfg(feature = "cuda")]
pub fn parameters_from_record_gpu(
    record: &CompiledR1cs,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
    device_ordinal: usize,
) -> Result<Parameters> {
    let noop = |_: &'static str, _: usize, _: usize| {};
    let progress: Progress<'_> = progress.unwrap_or(&noop);
    let mul = gpu_mul(device_ordinal, record.shape())?;
    let qap = QapAtTau::from_record(record, toxic.tau, progress)?;
    parameters_from_qap(qap, toxic, progress, &mul)
}

/// The Lagrange basis of the domain of size 2^log_m at τ:
/// `Lₖ(τ) = (τᵐ − 1)·ωᵏ / (m·(τ − ωᵏ))`, one batch inversion.
fn lagrange_at(log_m: u32, tau: Fr) -> Result<Vec<Fr>> {
    let m = 1usize << log_m;
    let mut omega = Fr::ROOT_OF_UNITY;
    for _ in log_m..Fr::S {
        omega = omega.square();
    }
    let z_tau = tau.pow_vartime([m as u64]) - Fr::ONE;
    let omegas: Vec<Fr> = powers(omega, m);
    let mut denom: Vec<Fr> = omegas.par_iter().map(|w| tau - w).collect();
    if denom.par_iter().any(|d| bool::from(d.is_zero())) || bool::from(z_tau.is_zero()) {
        return Err(Groth16Error::Mismatch(
            "tau lies in the evaluation domain; pick another seed".into(),
        ));
    }
    batch_inverse(&mut denom);
    let scale = z_tau * Fr::from(m as u64).invert().expect("m < r is invertible");
    Ok(omegas
        .par_iter()
        .zip(denom.par_iter())
        .map(|(w, d)| scale * w * d)
        .collect())
}

/// Every variable's A, B and C polynomials evaluated at τ (inputs first,
/// then aux), and the domain size: all the setup needs from the circuit.
#[derive(Debug)]
pub struct QapAtTau {
    /// Domain size m (a power of two ≥ the constraint count).
    pub m: usize,
    /// Public inputs, ONE included.
    pub num_inputs: usize,
    /// `Aⱼ(τ)` per variable.
    pub at: Vec<Fr>,
    /// `Bⱼ(τ)` per variable.
    pub bt: Vec<Fr>,
    /// `Cⱼ(τ)` per variable.
    pub ct: Vec<Fr>,
}

impl QapAtTau {
    /// The QAP at τ from a recorded circuit: `Mᵀ·L(τ)` for M = A, B, C
    /// ([`cuzk_synth::compiled::SparseMatrix::mul_transposed`], all cores;
    /// the record holds the input rows, as the prover's evaluation does).
    /// Reports stage "QAP" once, in constraints.
    pub fn from_record(record: &CompiledR1cs, tau: Fr, progress: Progress<'_>) -> Result<Self> {
        let shape = record.shape();
        let (log_m, m) = domain_of(shape.num_constraints)?;
        let lagrange = lagrange_at(log_m, tau)?;
        let [at, bt, ct] = record
            .matrices()
            .each_ref()
            .map(|mx| mx.mul_transposed(&lagrange, shape.num_inputs, shape.num_aux));
        progress("QAP", shape.num_constraints, shape.num_constraints);
        Ok(QapAtTau {
            m,
            num_inputs: shape.num_inputs,
            at,
            bt,
            ct,
        })
    }
}

/// The setup from the QAP at τ, with `mul` turning scalar vectors into
/// points.
fn parameters_from_qap(
    qap: QapAtTau,
    toxic: &ToxicWaste,
    progress: Progress<'_>,
    mul: &dyn GeneratorMul,
) -> Result<Parameters> {
    let m = qap.m;
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
    let QapAtTau {
        num_inputs: ni,
        at,
        bt,
        ct,
        ..
    } = qap;

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
    Ok(Parameters::new(vk, h, l, a, b_g1, b_g2))
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

#[cfg(test)]
mod tests {
    use super::*;
    use bellpepper_core::{ConstraintSystem, Index, SynthesisError, Variable};
    use cuzk_synth::circuits::{BenchCircuit, TinyCircuit};
    use cuzk_synth::Column;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// `Σ coeff·L_row(τ)` per column, inputs then aux: the QAP at τ read
    /// straight off the key generator's column-wise R1CS.
    fn columns_at(inputs: &[Column], aux: &[Column], lagrange: &[Fr]) -> Vec<Fr> {
        inputs
            .iter()
            .chain(aux)
            .map(|col| col.iter().map(|&(c, row)| c * lagrange[row]).sum())
            .collect()
    }

    /// The record's transposed SpMV gives the QAP at τ that the column-wise
    /// R1CS (`cuzk_synth::record_shape`, bellperson's key generator's
    /// layout) gives, and the progress reports the constraint count.
    fn qap_matches_columns<C: Circuit<Fr> + Clone>(name: &str, c: C, seed: u64) {
        let tau = ToxicWaste::from_seed(seed).tau;
        let rows = AtomicUsize::new(0);
        let progress = |stage: &'static str, done: usize, _: usize| {
            assert_eq!(stage, "QAP");
            rows.fetch_add(done, Ordering::Relaxed);
        };
        let rec = CompiledR1cs::record(c.clone()).unwrap();
        let qap = QapAtTau::from_record(&rec, tau, &progress).unwrap();
        let ka = cuzk_synth::record_shape(c).unwrap();
        assert_eq!(rec.shape(), ka.shape(), "{name}: shapes");
        assert_eq!(rows.load(Ordering::Relaxed), ka.num_constraints, "{name}");
        let (log_m, m) = domain_of(ka.num_constraints).unwrap();
        assert_eq!(qap.m, m, "{name}: domain");
        assert_eq!(qap.num_inputs, ka.num_inputs, "{name}");
        let l = lagrange_at(log_m, tau).unwrap();
        assert!(
            qap.at == columns_at(&ka.at_inputs, &ka.at_aux, &l),
            "{name}: A"
        );
        assert!(
            qap.bt == columns_at(&ka.bt_inputs, &ka.bt_aux, &l),
            "{name}: B"
        );
        assert!(
            qap.ct == columns_at(&ka.ct_inputs, &ka.ct_aux, &l),
            "{name}: C"
        );
    }

    /// Bench circuits just below, at and above a power of two (domain
    /// padding), and the tiny circuit (explicit zero coefficient, a
    /// coefficient 2, a variable only in C).
    #[test]
    fn record_qap_matches_columns() {
        let tiny = TinyCircuit {
            x: Fr::from(3u64),
            y: Fr::from(5u64),
            chain: 6,
        };
        qap_matches_columns("tiny", tiny, 11);
        for n in [1000usize, 1023, 1024, 1025, 1500] {
            qap_matches_columns(
                &format!("bench {n}"),
                BenchCircuit::with_constraints(n, 4).unwrap(),
                n as u64,
            );
        }
    }

    /// The Lagrange basis at τ sums to 1 (it interpolates the constant 1)
    /// and `Σ Lₖ(τ)·ωᵏ = τ` (it interpolates x): a check independent of
    /// the formula's derivation.
    #[test]
    fn lagrange_basis_interpolates() {
        let tau = ToxicWaste::from_seed(3).tau;
        for log_m in [0u32, 1, 5, 10] {
            let l = lagrange_at(log_m, tau).unwrap();
            let sum: Fr = l.iter().sum();
            assert_eq!(sum, Fr::ONE, "2^{log_m}: Σ Lₖ");
            let mut omega = Fr::ROOT_OF_UNITY;
            for _ in log_m..Fr::S {
                omega = omega.square();
            }
            let x: Fr = l
                .iter()
                .zip(powers(omega, l.len()))
                .map(|(lk, w)| *lk * w)
                .sum();
            if log_m > 0 {
                assert_eq!(x, tau, "2^{log_m}: Σ Lₖ·ωᵏ");
            }
        }
    }

    /// A constraint naming a variable that was never allocated is refused
    /// when the circuit is recorded, as a typed error.
    #[test]
    fn unallocated_variable_is_an_error() {
        struct Dangling;
        impl Circuit<Fr> for Dangling {
            fn synthesize<CS: ConstraintSystem<Fr>>(
                self,
                cs: &mut CS,
            ) -> std::result::Result<(), SynthesisError> {
                let x = cs.alloc(|| "x", || Ok(Fr::ONE))?;
                let ghost = Variable::new_unchecked(Index::Aux(7));
                cs.enforce(|| "x·x = x", |lc| lc + x, |lc| lc + x, |lc| lc + x);
                cs.enforce(|| "ghost", |lc| lc + ghost, |lc| lc + x, |lc| lc + x);
                Ok(())
            }
        }
        let err = generate_parameters(Dangling, &ToxicWaste::from_seed(1), None).unwrap_err();
        assert!(
            matches!(
                err,
                Groth16Error::Compiled(cuzk_synth::compiled::CompiledError::Unallocated(_))
            ),
            "unexpected error: {err}"
        );
    }
}

#[cfg(all(test, feature = "cuda"))]
mod gpu_tests {
    use super::*;
    use cuzk_synth::circuits::BenchCircuit;
    use std::collections::HashMap;
    use std::sync::Mutex;

    fn record(log: u32) -> CompiledR1cs {
        CompiledR1cs::record(BenchCircuit::new(log, 3).unwrap()).unwrap()
    }

    /// The GPU setup gives the CPU setup's parameters bit for bit, and its
    /// progress reports add up to each stage's total.
    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn gpu_setup_matches_cpu() {
        for log in [6, 12, 16] {
            let s = record(log);
            let toxic = ToxicWaste::from_seed(u64::from(log));
            let cpu = parameters_from_record(&s, &toxic, None).unwrap();
            let seen: Mutex<HashMap<&'static str, (usize, usize)>> = Mutex::default();
            let progress = |stage: &'static str, done: usize, total: usize| {
                let mut m = seen.lock().unwrap();
                let e = m.entry(stage).or_insert((0, total));
                e.0 += done;
            };
            let t = std::time::Instant::now();
            let gpu = parameters_from_record_gpu(&s, &toxic, Some(&progress), 0).unwrap();
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
        match parameters_from_record_gpu(&record(6), &ToxicWaste::from_seed(1), None, 0) {
            Err(Groth16Error::Gpu(e)) => assert!(e.is_unavailable(), "{e:?}"),
            other => panic!("expected a GPU error, got {other:?}"),
        }
    }
}
