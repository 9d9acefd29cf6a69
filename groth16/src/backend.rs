//! The boundary between the protocol and the arithmetic engines.
//!
//! The prover hands a synthesized partition and the parameters to a
//! [`Backend`], which returns the five group elements the proof is built
//! from. The CPU backend composes `cuzk-ntt` and `cuzk-msm`; a GPU backend
//! implements the same trait (keeping H on the device between the NTT and
//! its MSM, bases resident), so callers never change.

use crate::error::{Groth16Error, Result};
use crate::params::Parameters;
use crate::timings::Timings;
use cuzk_field::{G1Projective, G2Projective};
use cuzk_synth::ProvingAssignment;
use std::sync::Arc;

/// The MSM results a proof is assembled from (before randomisation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofParts {
    /// Σ hᵢ·Hᵢ (quotient polynomial against the H query).
    pub h: G1Projective,
    /// Σ auxᵢ·Lᵢ.
    pub l: G1Projective,
    /// Σ zᵢ·Aᵢ over inputs and dense aux.
    pub a: G1Projective,
    /// Σ zᵢ·Bᵢ in G1.
    pub b_g1: G1Projective,
    /// Σ zᵢ·Bᵢ in G2.
    pub b_g2: G2Projective,
}

/// An engine that turns a synthesized partition into [`ProofParts`].
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// Short name for logs and errors ("cpu", "cuda:0").
    fn name(&self) -> String;

    /// Computes the MSM results for one partition. Consumes the assignment so
    /// its large vectors can be reused in place (the H step overwrites a).
    fn evaluate(
        &self,
        params: &Parameters,
        pa: ProvingAssignment,
        timings: &mut Timings,
    ) -> Result<ProofParts>;

    /// How many partitions against `params` may be inside
    /// [`Backend::evaluate`] on this backend at once: the engine's per-device
    /// limit, which is how device memory enters its budget. 1 (the default)
    /// proves them one after another; the GPU backend says 2 when `params`
    /// is resident and two working sets fit beside it, so one partition's
    /// H step (staging of a, b, c and the transforms) overlaps the previous
    /// partition's MSMs, and 2 when `params` streams, so one partition's
    /// CPU classification overlaps the previous partition's device work.
    fn pipeline_depth(&self, params: &Parameters) -> usize {
        let _ = params;
        1
    }

    /// Host bytes one partition against `key` (placed by
    /// [`Backend::place`]) holds inside [`Backend::evaluate`] beyond its
    /// assignment, at worst. The engine reserves this once per pipeline
    /// slot ([`Backend::pipeline_depth`]) for as long as the set is
    /// placed, so a partition inside `evaluate` never allocates outside
    /// the budget. 0 by default.
    fn evaluate_host_bytes(&self, key: &Parameters) -> u64 {
        let _ = key;
        0
    }

    /// Places a parameter set for proving on this backend, once per set:
    /// a GPU backend uploads the bases when they fit (evicting the set it
    /// held before only if `may_evict`), a CPU backend proves from host
    /// memory. `set` holds the queries; `hollow` is the same set without
    /// them ([`Parameters::without_queries`]). [`Placement::Resident`] means
    /// later partitions are proved against `hollow` and the host copy is
    /// not needed by this backend; [`Placement::Host`] means they are
    /// proved against `set`, which must stay in host memory.
    fn place(
        &self,
        set: &Arc<Parameters>,
        hollow: &Arc<Parameters>,
        may_evict: bool,
    ) -> Result<Placement> {
        let _ = (set, hollow, may_evict);
        Ok(Placement::Host)
    }

    /// Forgets a set placed with [`Backend::place`] (frees its device
    /// memory). `key` is whichever of the two `Arc`s partitions are proved
    /// against. Sets this backend does not hold are ignored.
    fn evict(&self, key: &Parameters) {
        let _ = key;
    }

    /// Free and total device memory in bytes (`None` for the CPU).
    fn memory_info(&self) -> Option<(u64, u64)> {
        None
    }

    /// One line for reports (`cuzk info`, the bench report, the daemon's
    /// status): how this backend holds `key` (placed by
    /// [`Backend::place`]) and why, with the sizes that decided it.
    /// Never blocks on a placement or a partition in progress.
    fn describe(&self, key: &Parameters) -> String {
        let _ = key;
        "host memory".into()
    }

    /// True when [`Backend::evaluate`] will compute the a, b, c of
    /// deferred assignments of `record`
    /// ([`cuzk_synth::compiled::CompiledR1cs::defer`]) in device memory,
    /// so they never take host memory: a promise for every partition of
    /// that circuit proved against the set placed now (the GPU backend
    /// reserves the device memory this takes when it first says so). The
    /// CPU backend computes them in host memory inside `evaluate`.
    fn abc_on_device(&self, record: &std::sync::Arc<cuzk_synth::compiled::CompiledR1cs>) -> bool {
        let _ = record;
        false
    }

    /// Where witness synthesis should put a partition's aux assignment for
    /// this backend: the GPU backend's page-locked pool (read by DMA, no
    /// CPU copy); `None` for ordinary heap vectors.
    fn witness_alloc(&self) -> Option<std::sync::Arc<dyn cuzk_field::FrAlloc>> {
        None
    }
}

/// Where [`Backend::place`] put a parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Proved from the host copy (CPU backend, or a GPU backend streaming
    /// the bases from page-locked host memory through the device per MSM).
    Host,
    /// The bases live on the device; the host copy is not needed.
    Resident,
}

/// Checks that a synthesized partition fits the parameters; every size the
/// MSMs rely on is compared, so a circuit that does not match its parameters
/// is a clear error rather than a wrong proof.
pub fn check_shape(params: &Parameters, pa: &ProvingAssignment) -> Result<()> {
    let m = params.domain_size();
    let counts = params.counts();
    let n = pa.num_constraints();
    let err = |s: String| Err(Groth16Error::Mismatch(s));
    if n.max(1).next_power_of_two() != m {
        return err(format!(
            "circuit has {n} constraints (domain {}), parameters are for domain {m}",
            n.max(1).next_power_of_two()
        ));
    }
    if pa.input_assignment.len() != params.vk.ic.len() {
        return err(format!(
            "circuit has {} public inputs, parameters expect {}",
            pa.input_assignment.len().saturating_sub(1),
            params.vk.ic.len().saturating_sub(1)
        ));
    }
    if pa.aux_assignment.len() != counts.l {
        return err(format!(
            "circuit has {} aux variables, parameters have {} L points",
            pa.aux_assignment.len(),
            counts.l
        ));
    }
    let a_needed = pa.input_assignment.len() + pa.a_aux_density.count_ones();
    if a_needed != counts.a {
        return err(format!(
            "A query: circuit needs {a_needed} points, parameters have {}",
            counts.a
        ));
    }
    let b_needed = pa.b_input_density.count_ones() + pa.b_aux_density.count_ones();
    if b_needed != counts.b {
        return err(format!(
            "B query: circuit needs {b_needed} points, parameters have {}",
            counts.b
        ));
    }
    Ok(())
}

/// The error for a backend asked to prove from a set whose queries were
/// released from host memory and that it does not hold itself.
pub fn released_error(backend: String) -> Groth16Error {
    Groth16Error::Backend {
        backend,
        message: "the parameters' queries were released from host memory (they are resident on \
                  another device); load the set again for this backend"
            .into(),
    }
}

/// The CPU backend: rayon NTTs and blst-based MSMs with the zero/one/tail split.
#[derive(Debug, Default, Clone, Copy)]
pub struct CpuBackend;

impl Backend for CpuBackend {
    fn name(&self) -> String {
        "cpu".into()
    }

    /// `msm_density` splits one set's scalars at a time.
    fn evaluate_host_bytes(&self, key: &Parameters) -> u64 {
        let c = key.counts();
        let (ic, aux) = (key.vk.ic.len(), c.l);
        cuzk_msm::classified_bytes_bound(ic + aux, aux.max(c.a).max(c.b))
    }

    fn evaluate(
        &self,
        params: &Parameters,
        pa: ProvingAssignment,
        timings: &mut Timings,
    ) -> Result<ProofParts> {
        use cuzk_msm as msm;
        check_shape(params, &pa)?;
        if !params.has_queries() {
            return Err(released_error(self.name()));
        }
        let mut pa = pa;
        if pa.deferred.is_some() {
            timings.time("spmv", || pa.evaluate_deferred())?;
        }
        let ProvingAssignment {
            a,
            b,
            c,
            input_assignment: inputs,
            aux_assignment: aux,
            a_aux_density,
            b_input_density,
            b_aux_density,
            ..
        } = pa;
        let domain = cached_domain(a.len())?;
        let h_coeffs = timings.time("ntt_h", || domain.h_step(a, b, c))?;
        let h = timings.time("msm_h", || msm::msm(&params.h, &h_coeffs))?;
        drop(h_coeffs);

        let l = timings.time("msm_l", || msm::msm_density(&params.l, &aux, None))?;

        let ni = inputs.len();
        let a_sum = timings.time("msm_a", || -> std::result::Result<_, msm::MsmError> {
            Ok(msm::msm(&params.a[..ni], &inputs)?
                + msm::msm_density(&params.a[ni..], &aux, Some(&a_aux_density))?)
        })?;

        let nbi = b_input_density.count_ones();
        let b_g1 = timings.time("msm_b_g1", || -> std::result::Result<_, msm::MsmError> {
            Ok(
                msm::msm_density(&params.b_g1[..nbi], &inputs, Some(&b_input_density))?
                    + msm::msm_density(&params.b_g1[nbi..], &aux, Some(&b_aux_density))?,
            )
        })?;
        let b_g2 = timings.time("msm_b_g2", || -> std::result::Result<_, msm::MsmError> {
            Ok(
                msm::msm_density(&params.b_g2[..nbi], &inputs, Some(&b_input_density))?
                    + msm::msm_density(&params.b_g2[nbi..], &aux, Some(&b_aux_density))?,
            )
        })?;
        Ok(ProofParts {
            h,
            l,
            a: a_sum,
            b_g1,
            b_g2,
        })
    }
}

/// Twiddle tables per domain size, built once per process: building one costs
/// ~25 ms at 2^20 (more than 1% of a proof there), and every partition of a
/// proof uses the same size.
fn cached_domain(len: usize) -> std::result::Result<cuzk_ntt::Domain, cuzk_ntt::NttError> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<usize, cuzk_ntt::Domain>>> = OnceLock::new();
    let m = len.max(1).next_power_of_two();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(d) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&m) {
        return Ok(d.clone());
    }
    let d = cuzk_ntt::Domain::for_len(len)?;
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(m, d.clone());
    Ok(d)
}
