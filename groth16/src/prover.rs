//! The prover: synthesis → backend (H step + MSMs) → randomised epilogue →
//! self-check.

use crate::backend::{Backend, ProofParts};
use crate::error::{Groth16Error, Result};
use crate::params::Parameters;
use crate::proof::Proof;
use crate::timings::Timings;
use crate::verifier::verify_proof;
use crate::vk::PreparedVerifyingKey;
use bellpepper_core::Circuit;
use cuzk_field::{Fr, G1Projective, G2Projective};
use cuzk_synth::ProvingAssignment;
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve};
use rand_core::RngCore;

/// A proof with its public inputs (without the leading ONE) and stage timings.
#[derive(Clone, Debug)]
pub struct ProofOutput {
    /// The proof.
    pub proof: Proof,
    /// Public inputs as the circuit allocated them.
    pub inputs: Vec<Fr>,
    /// Where the time went.
    pub timings: Timings,
    /// When the backend's evaluation (the device region) began: every
    /// stage span lies in `[evaluate_start, evaluate_start + evaluate]`.
    pub evaluate_start: std::time::Instant,
    /// Wall time of the backend's evaluation.
    pub evaluate: std::time::Duration,
}

/// Knobs of one proving call.
#[derive(Clone, Copy, Debug)]
pub struct ProveOptions {
    /// Verify every proof before returning it (3 pairings, ~2 ms). On by
    /// default: a wrong proof is never handed out silently.
    pub self_check: bool,
}

impl Default for ProveOptions {
    fn default() -> Self {
        Self { self_check: true }
    }
}

/// Assembles the proof from the backend's MSM results and the randomness
/// (r, s), exactly as bellperson does:
/// A = α + Σa + r·δ, B = β + Σb + s·δ,
/// C = Σl + Σh + s·A + r·B₁ − r·s·δ (expanded: rs·δ + s·α + r·β + s·Σa + r·Σb₁ + Σh + Σl).
pub fn assemble(params: &Parameters, parts: &ProofParts, r: Fr, s: Fr) -> Result<Proof> {
    let vk = &params.vk;
    if bool::from(vk.delta_g1.is_identity()) || bool::from(vk.delta_g2.is_identity()) {
        return Err(Groth16Error::Mismatch(
            "delta is the point at infinity".into(),
        ));
    }
    let delta_g1 = G1Projective::from(vk.delta_g1);
    let g_a = delta_g1 * r + vk.alpha_g1 + parts.a;
    let g_b = G2Projective::from(vk.delta_g2) * s + vk.beta_g2 + parts.b_g2;
    let g_c = delta_g1 * (r * s)
        + vk.alpha_g1 * s
        + vk.beta_g1 * r
        + parts.a * s
        + parts.b_g1 * r
        + parts.h
        + parts.l;
    Ok(Proof {
        a: g_a.to_affine(),
        b: g_b.to_affine(),
        c: g_c.to_affine(),
    })
}

/// Proves one synthesized partition with given r, s: the one way a
/// partition becomes a proof (backend evaluation → [`assemble`] → self-check
/// against `pvk` when given). The engine calls it for every partition;
/// [`prove`] and [`prove_batch`] are conveniences over it. Tests pin r, s;
/// real callers draw them from a CSPRNG.
pub fn prove_assignment(
    params: &Parameters,
    pvk: Option<&PreparedVerifyingKey>,
    pa: ProvingAssignment,
    r: Fr,
    s: Fr,
    backend: &dyn Backend,
) -> Result<ProofOutput> {
    let mut timings = Timings::default();
    let inputs = pa.input_assignment.get(1..).unwrap_or(&[]).to_vec();
    let t = std::time::Instant::now();
    let parts = backend.evaluate(params, pa, &mut timings)?;
    let evaluate = t.elapsed();
    let proof = timings.time("epilogue", || assemble(params, &parts, r, s))?;
    if let Some(pvk) = pvk {
        let ok = timings.time("verify", || verify_proof(pvk, &proof, &inputs))?;
        if !ok {
            return Err(Groth16Error::SelfCheck {
                backend: backend.name(),
            });
        }
    }
    Ok(ProofOutput {
        proof,
        inputs,
        timings,
        evaluate_start: t,
        evaluate,
    })
}

/// Synthesizes and proves one circuit. r and s come from `rng`, which must be
/// a CSPRNG outside tests (e.g. `rand::rngs::OsRng`).
pub fn prove<C: Circuit<Fr> + Send>(
    params: &Parameters,
    circuit: C,
    backend: &dyn Backend,
    rng: &mut impl RngCore,
    opts: ProveOptions,
) -> Result<ProofOutput> {
    let mut out = prove_batch(params, vec![circuit], backend, rng, opts)?;
    out.pop()
        .ok_or_else(|| Groth16Error::Mismatch("no proof for one circuit".into()))
}

/// Proves a few circuits against one parameter set, for library users:
/// synthesis of all circuits in parallel, then [`prove_assignment`] on each
/// in order, r and s drawn from `rng` in input order. Nothing is pipelined
/// here: batches of real size (partitions of many proofs, memory admission,
/// several devices) go through the engine, `cuzk-scheduler`.
pub fn prove_batch<C: Circuit<Fr> + Send>(
    params: &Parameters,
    circuits: Vec<C>,
    backend: &dyn Backend,
    rng: &mut impl RngCore,
    opts: ProveOptions,
) -> Result<Vec<ProofOutput>> {
    let mut synth_t = Timings::default();
    // The parameters bound the sizes, so the vectors are reserved once rather
    // than grown (growth and page faults cost 10–20% of synthesis at 2^18).
    let hint = cuzk_synth::Shape {
        num_inputs: params.vk.ic.len(),
        num_aux: params.counts().l,
        num_constraints: params.domain_size(),
    };
    let assignments = synth_t.time("synthesis", || {
        cuzk_synth::synthesize_many_with_hint(circuits, hint)
    })?;
    let pvk = opts.self_check.then(|| params.vk.prepare());
    let per = synth_t.total() / assignments.len().max(1) as u32;
    assignments
        .into_iter()
        .map(|pa| {
            let (r, s) = (Fr::random(&mut *rng), Fr::random(&mut *rng));
            let mut out = prove_assignment(params, pvk.as_ref(), pa, r, s, backend)?;
            let mut t = Timings::default();
            t.add("synthesis", per);
            t.merge(&out.timings);
            out.timings = t;
            Ok(out)
        })
        .collect()
}
