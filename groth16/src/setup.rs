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
//! Two ways in give the same [`QapAtTau`]: a synthesis that evaluates as
//! constraints arrive ([`generate_parameters`]: nothing stored, one core),
//! or a recorded circuit ([`parameters_from_record`]: a transposed SpMV on
//! all cores, and the record serves the prover afterwards).
//!
//! [`parameters_from_record`] and, with feature `cuda`,
//! `parameters_from_record_gpu` share every field-side step; they differ
//! only in who turns the scalar vectors into points (`fixed_base`'s
//! `GeneratorMul`: byte tables on the CPU, or cuzk-msm's fixed-base kernels
//! on a GPU), and produce identical parameters.

use crate::error::{Groth16Error, Result};
use crate::fixed_base::{CpuGeneratorMul, GeneratorMul};
use crate::params::Parameters;
use crate::vk::VerifyingKey;
use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
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
/// the CPU). The circuit is synthesized twice: once to count constraints
/// (the domain), once evaluating the QAP at τ on the fly ([`QapAtTau`]);
/// the same parameters as [`parameters_from_record`] of its record,
/// without holding the matrices.
pub fn generate_parameters<C: Circuit<Fr> + Clone>(
    circuit: C,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
) -> Result<Parameters> {
    let noop = |_: &'static str, _: usize, _: usize| {};
    let progress: Progress<'_> = progress.unwrap_or(&noop);
    let qap = QapAtTau::of_circuit(circuit, toxic.tau, progress)?;
    parameters_from_qap(qap, toxic, progress, &CpuGeneratorMul::new())
}

/// [`generate_parameters`] with the fixed-base multiplications on GPU
/// `device_ordinal` (see [`parameters_from_record_gpu`]). The GPU's tables
/// are built before the circuit is synthesized, so a missing GPU fails at
/// once.
#[cfg(feature = "cuda")]
pub fn generate_parameters_gpu<C: Circuit<Fr> + Clone>(
    circuit: C,
    toxic: &ToxicWaste,
    progress: Option<Progress<'_>>,
    device_ordinal: usize,
) -> Result<Parameters> {
    let noop = |_: &'static str, _: usize, _: usize| {};
    let progress: Progress<'_> = progress.unwrap_or(&noop);
    let shape = cuzk_synth::count_shape(circuit.clone())?;
    let mul = gpu_mul(device_ordinal, shape)?;
    let qap = QapAtTau::with_shape(circuit, shape, toxic.tau, progress)?;
    parameters_from_qap(qap, toxic, progress, &mul)
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
/// multiplication on the CPU): [`generate_parameters`]' parameters, bit for
/// bit, without synthesizing the circuit again.
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
    /// Synthesizes `circuit` twice: a count (no linear combinations built)
    /// fixes the domain, then [`QapEvaluator`] adds `coeff·Lₖ(τ)` into each
    /// variable's sums as constraints arrive. Reports progress as stage
    /// "QAP" in constraints. Errors if the second synthesis does not have
    /// the counted shape (a circuit whose shape depends on its witness).
    pub fn of_circuit<C: Circuit<Fr> + Clone>(
        circuit: C,
        tau: Fr,
        progress: Progress<'_>,
    ) -> Result<Self> {
        let shape = cuzk_synth::count_shape(circuit.clone())?;
        Self::with_shape(circuit, shape, tau, progress)
    }

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

    /// [`QapAtTau::of_circuit`] for a caller that has counted the circuit
    /// already (`cuzk_synth::count_shape`): one synthesis, not two. The
    /// shape is checked against the synthesis all the same.
    pub fn with_shape<C: Circuit<Fr>>(
        circuit: C,
        shape: cuzk_synth::Shape,
        tau: Fr,
        progress: Progress<'_>,
    ) -> Result<Self> {
        let (log_m, _) = domain_of(shape.num_constraints)?;
        let lagrange = lagrange_at(log_m, tau)?;
        let mut ev = QapEvaluator::new(&lagrange, shape, progress);
        ev.alloc_input(|| "", || Ok(Fr::ONE))?;
        circuit.synthesize(&mut ev)?;
        for i in 0..ev.num_inputs {
            ev.enforce(
                || "",
                |lc| lc + Variable::new_unchecked(Index::Input(i)),
                |lc| lc,
                |lc| lc,
            );
        }
        ev.finish()
    }
}

/// A constraint system that evaluates the QAP at τ while the circuit is
/// synthesized: `Aⱼ(τ) += coeff·L_row(τ)` per non-zero term, and likewise
/// for B and C, so no matrix is ever stored (the recorded shape takes
/// ~40 B per non-zero plus a vector per column: ≈ 37 GB at 2^26
/// constraints, and an allocation per column). Unit coefficients (most
/// terms of boolean circuits) skip the product.
struct QapEvaluator<'a> {
    lagrange: &'a [Fr],
    expected: cuzk_synth::Shape,
    progress: Progress<'a>,
    num_inputs: usize,
    num_aux: usize,
    row: usize,
    reported: usize,
    /// The first term naming a variable that was never allocated.
    unallocated: Option<(usize, Index)>,
    /// (A, B, C) sums per input and per aux variable.
    inputs: [Vec<Fr>; 3],
    aux: [Vec<Fr>; 3],
}

/// Rows between progress reports.
const QAP_PROGRESS_ROWS: usize = 1 << 16;

impl<'a> QapEvaluator<'a> {
    fn new(lagrange: &'a [Fr], expected: cuzk_synth::Shape, progress: Progress<'a>) -> Self {
        let cap = |n: usize| Vec::with_capacity(n);
        Self {
            lagrange,
            expected,
            progress,
            num_inputs: 0,
            num_aux: 0,
            row: 0,
            reported: 0,
            unallocated: None,
            inputs: [
                cap(expected.num_inputs),
                cap(expected.num_inputs),
                cap(expected.num_inputs),
            ],
            aux: [
                cap(expected.num_aux),
                cap(expected.num_aux),
                cap(expected.num_aux),
            ],
        }
    }

    fn add_lc(&mut self, matrix: usize, lc: &LinearCombination<Fr>) {
        // Rows past the domain are reported by finish() (shape changed).
        let Some(&l) = self.lagrange.get(self.row) else {
            return;
        };
        let term = |coeff: &Fr| {
            if *coeff == Fr::ONE {
                l
            } else {
                *coeff * l
            }
        };
        let terms = lc
            .iter_inputs()
            .map(|(&i, c)| (Index::Input(i), c))
            .chain(lc.iter_aux().map(|(&i, c)| (Index::Aux(i), c)));
        for (var, coeff) in terms {
            if bool::from(coeff.is_zero()) {
                continue;
            }
            let slot = match var {
                Index::Input(i) => self.inputs[matrix].get_mut(i),
                Index::Aux(i) => self.aux[matrix].get_mut(i),
            };
            match slot {
                Some(acc) => *acc += term(coeff),
                // A malformed circuit: an error from finish(), not a panic.
                None => {
                    self.unallocated.get_or_insert((self.row, var));
                }
            }
        }
    }

    fn finish(self) -> Result<QapAtTau> {
        if let Some((row, var)) = self.unallocated {
            return Err(Groth16Error::Mismatch(format!(
                "constraint {row} uses {var:?}, which the circuit never allocated"
            )));
        }
        let got = cuzk_synth::Shape {
            num_inputs: self.num_inputs,
            num_aux: self.num_aux,
            num_constraints: self.row,
        };
        if got != self.expected {
            return Err(Groth16Error::Mismatch(format!(
                "the circuit's shape changed between two syntheses ({:?}, then {:?}): it must not depend on the witness",
                self.expected, got
            )));
        }
        (self.progress)(
            "QAP",
            self.row - self.reported,
            self.expected.num_constraints,
        );
        let [ai, bi, ci] = self.inputs;
        let [aa, ba, ca] = self.aux;
        Ok(QapAtTau {
            m: self.lagrange.len(),
            num_inputs: self.num_inputs,
            at: [ai, aa].concat(),
            bt: [bi, ba].concat(),
            ct: [ci, ca].concat(),
        })
    }
}

impl ConstraintSystem<Fr> for QapEvaluator<'_> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> std::result::Result<Variable, SynthesisError>
    where
        F: FnOnce() -> std::result::Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        for v in &mut self.aux {
            v.push(Fr::ZERO);
        }
        self.num_aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> std::result::Result<Variable, SynthesisError>
    where
        F: FnOnce() -> std::result::Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        for v in &mut self.inputs {
            v.push(Fr::ZERO);
        }
        self.num_inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.num_inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        self.add_lc(0, &a(LinearCombination::zero()));
        self.add_lc(1, &b(LinearCombination::zero()));
        self.add_lc(2, &c(LinearCombination::zero()));
        self.row += 1;
        if self.row - self.reported >= QAP_PROGRESS_ROWS {
            (self.progress)(
                "QAP",
                self.row - self.reported,
                self.expected.num_constraints,
            );
            self.reported = self.row;
        }
    }

    cuzk_synth::flat_namespaces!();
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
    use cuzk_synth::circuits::{BenchCircuit, TinyCircuit};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The direct path (QAP evaluated while synthesizing) and the recorded
    /// circuit give the same parameters, bit for bit.
    fn same_both_ways<C: Circuit<Fr> + Clone>(name: &str, c: C, seed: u64) {
        let toxic = ToxicWaste::from_seed(seed);
        let recorded =
            parameters_from_record(&CompiledR1cs::record(c.clone()).unwrap(), &toxic, None)
                .unwrap();
        let direct = generate_parameters(c, &toxic, None).unwrap();
        assert!(!recorded.h.is_empty() && !recorded.l.is_empty(), "{name}");
        assert!(recorded == direct, "{name}: parameters differ");
    }

    /// Bench circuits just below, at and above a power of two (domain
    /// padding), and the tiny circuit (explicit zero coefficient, a
    /// coefficient 2, a variable only in C). The QAP progress adds up to
    /// the constraint count.
    #[test]
    fn direct_qap_matches_record() {
        let tiny = TinyCircuit {
            x: Fr::from(3u64),
            y: Fr::from(5u64),
            chain: 6,
        };
        same_both_ways("tiny", tiny, 11);
        for n in [1000usize, 1023, 1024, 1025, 1500] {
            same_both_ways(
                &format!("bench {n}"),
                BenchCircuit::with_constraints(n, 4).unwrap(),
                n as u64,
            );
        }
        let qap_rows = AtomicUsize::new(0);
        let progress = |stage: &'static str, done: usize, total: usize| {
            if stage == "QAP" {
                qap_rows.fetch_add(done, Ordering::Relaxed);
                assert_eq!(total, 70_001, "QAP stage total");
            }
        };
        // One progress report per 2^16 rows plus the rest.
        let c = BenchCircuit::with_constraints(70_001, 1).unwrap();
        assert_eq!(c.expected_constraints(), 70_001);
        QapAtTau::of_circuit(c, ToxicWaste::from_seed(2).tau, &progress).unwrap();
        assert_eq!(qap_rows.load(Ordering::Relaxed), 70_001);
        // A caller's shape that does not match the synthesis is refused.
        let mut wrong = cuzk_synth::count_shape(c).unwrap();
        wrong.num_aux += 1;
        let err = QapAtTau::with_shape(c, wrong, ToxicWaste::from_seed(2).tau, &|_, _, _| {})
            .unwrap_err();
        assert!(err.to_string().contains("shape changed"), "{err}");
    }

    /// A constraint naming a variable that was never allocated is an error
    /// (a record refuses such a circuit when recording).
    #[test]
    fn unallocated_variable_is_an_error() {
        #[derive(Clone)]
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
        let msg = err.to_string();
        assert!(
            msg.contains("constraint 1") && msg.contains("never allocated"),
            "unexpected error: {msg}"
        );
    }

    /// A circuit whose shape depends on its witness (here: on a counter
    /// bumped by each synthesis) is refused, not turned into parameters.
    #[test]
    fn shape_changing_circuit_is_an_error() {
        #[derive(Clone)]
        struct Drifting(std::sync::Arc<AtomicUsize>);
        impl Circuit<Fr> for Drifting {
            fn synthesize<CS: ConstraintSystem<Fr>>(
                self,
                cs: &mut CS,
            ) -> std::result::Result<(), SynthesisError> {
                let runs = self.0.fetch_add(1, Ordering::Relaxed);
                let x = cs.alloc(|| "x", || Ok(Fr::ONE))?;
                for _ in 0..(3 + runs) {
                    cs.enforce(|| "x·x = x", |lc| lc + x, |lc| lc + x, |lc| lc + x);
                }
                Ok(())
            }
        }
        let err = generate_parameters(
            Drifting(Default::default()),
            &ToxicWaste::from_seed(1),
            None,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("shape changed"),
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
