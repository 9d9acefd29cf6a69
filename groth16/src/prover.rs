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

/// Proves one synthesized partition with given r, s (tests pin them; real
/// callers draw them from a CSPRNG through [`prove`]).
pub fn prove_assignment(
    params: &Parameters,
    pvk: Option<&PreparedVerifyingKey>,
    pa: ProvingAssignment,
    r: Fr,
    s: Fr,
    backend: &dyn Backend,
) -> Result<ProofOutput> {
    let mut timings = Timings::default();
    let inputs = pa.input_assignment[1..].to_vec();
    let parts = backend.evaluate(params, pa, &mut timings)?;
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
    Ok(out.pop().expect("one circuit in, one proof out"))
}

/// Proves a batch of circuits (e.g. the partitions of one PoRep) against one
/// parameter set: synthesis of all circuits in parallel, then each through
/// the backend in order. Proofs come back in input order.
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
        num_aux: params.l.len(),
        num_constraints: params.domain_size(),
    };
    let assignments = synth_t.time("synthesis", || {
        cuzk_synth::synthesize_many_with_hint(circuits, hint)
    })?;
    let pvk = opts.self_check.then(|| params.vk.prepare());
    let per = synth_t.stages()[0].1 / assignments.len().max(1) as u32;
    // r, s drawn in input order whatever the pipelining, so a seeded rng
    // gives the same proofs as a sequential run.
    let jobs: Vec<_> = assignments
        .into_iter()
        .map(|pa| (pa, Fr::random(&mut *rng), Fr::random(&mut *rng)))
        .collect();
    let one = |(pa, r, s): (ProvingAssignment, Fr, Fr)| -> Result<ProofOutput> {
        let mut out = prove_assignment(params, pvk.as_ref(), pa, r, s, backend)?;
        let mut t = Timings::default();
        t.add("synthesis", per);
        t.merge(&out.timings);
        out.timings = t;
        Ok(out)
    };
    let depth = backend.pipeline_depth(params).clamp(1, jobs.len().max(1));
    if depth == 1 {
        return jobs.into_iter().map(one).collect();
    }
    pipelined(jobs, depth, &one)
}

/// Runs `f` over `jobs` on `depth` threads, taking jobs in order, and
/// returns the results in input order; after a failure (an error or a
/// panic) no new job starts and the first error (in input order) is
/// returned.
fn pipelined<J: Send, T: Send>(
    jobs: Vec<J>,
    depth: usize,
    f: &(dyn Fn(J) -> Result<T> + Sync),
) -> Result<Vec<T>> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    let n = jobs.len();
    let queue: Vec<Mutex<Option<J>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let results: Vec<Mutex<Option<Result<T>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    std::thread::scope(|sc| {
        for _ in 0..depth {
            sc.spawn(|| loop {
                if failed.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = queue
                    .get(i)
                    .and_then(|q| q.lock().unwrap_or_else(|p| p.into_inner()).take())
                else {
                    break;
                };
                // A panicking partition becomes an error (and stops the
                // batch) instead of tearing down the scope after the other
                // worker has run through the rest.
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(job)))
                    .unwrap_or_else(|p| {
                        Err(Groth16Error::Backend {
                            backend: "pipeline".into(),
                            message: format!(
                                "partition {i} panicked: {}",
                                crate::panic_message(&*p)
                            ),
                        })
                    });
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
            });
        }
    });
    let mut out = Vec::with_capacity(n);
    let mut first_err = None;
    for r in results {
        match r.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(Ok(v)) => out.push(v),
            Some(Err(e)) => {
                first_err.get_or_insert(e);
            }
            // Not started: a failure stopped the batch.
            None => {}
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}
