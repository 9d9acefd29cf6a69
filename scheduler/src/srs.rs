//! The parameter-set (SRS) cache: every parameter set a process proves
//! with, loaded once and placed once on every device.
//!
//! A set is registered under a circuit id, either from memory
//! ([`crate::Engine::register_circuit`]) or from a `.params` file
//! ([`crate::Engine::load_circuit`]; concurrent loads of one id wait for the
//! first, so a file is never read twice). It is then offered to each
//! device's backend ([`Backend::place`]). Where every backend keeps the
//! bases resident, the host keeps only the verifying key and the query
//! lengths ([`Parameters::without_queries`]): a 32 GiB PoRep set is ~47 GB
//! a 128 GiB host cannot hold beside its syntheses. The host bytes a set
//! does keep are reserved from the engine's memory budget.
//!
//! A GPU holds one resident set. Placing a new one evicts the set that
//! device held, least recently used first, but only when no job is using
//! it; otherwise the new set is proved from page-locked host memory on
//! that device.

use crate::error::EngineError;
use cuzk_groth16::{Backend, Parameters, Placement, PreparedVerifyingKey};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// One registered parameter set, as the engine proves with it.
pub(crate) struct CircuitEntry {
    pub(crate) id: String,
    pub(crate) path: Option<PathBuf>,
    /// Per device: the `Arc` partitions are proved against there (the
    /// hollow set where it is resident, else the full one).
    pub(crate) keys: Vec<Arc<Parameters>>,
    pub(crate) placements: Vec<Placement>,
    /// Per device: [`Backend::pipeline_depth`] for this set, read once at
    /// placement (the engine must not call into a backend under its lock).
    pub(crate) depths: Vec<usize>,
    pub(crate) pvk: PreparedVerifyingKey,
    /// Host bytes the set keeps (reserved from the budget).
    pub(crate) host_bytes: u64,
    /// Host bytes its partitions' evaluations may hold at once, beside
    /// their assignments: Σ over devices of the pipeline depth ×
    /// [`Backend::evaluate_host_bytes`] (reserved from the budget).
    pub(crate) working_bytes: u64,
    pub(crate) device_bytes: u64,
    pub(crate) load: Duration,
    /// Engine clock (seconds) of the last job submitted against it.
    pub(crate) last_used: parking_lot::Mutex<f64>,
}

impl CircuitEntry {
    /// The parameters for domain and input checks (any key will do).
    pub(crate) fn params(&self) -> &Parameters {
        &self.keys[0]
    }

    /// Its report; `backends` (the engine's, one per device) describe
    /// how each holds it.
    pub(crate) fn info(&self, in_use: bool, backends: &[Arc<dyn Backend>]) -> SrsInfo {
        SrsInfo {
            details: backends
                .iter()
                .zip(&self.keys)
                .map(|(be, key)| be.describe(key))
                .collect(),
            id: self.id.clone(),
            path: self.path.clone(),
            domain_size: self.params().domain_size(),
            host_bytes: self.host_bytes,
            working_bytes: self.working_bytes,
            device_bytes: self.device_bytes,
            placements: self.placements.clone(),
            load_s: self.load.as_secs_f64(),
            last_used_s: *self.last_used.lock(),
            in_use,
        }
    }
}

/// What the engine holds of one parameter set.
#[derive(Clone, Debug, PartialEq)]
pub struct SrsInfo {
    /// The circuit id.
    pub id: String,
    /// The file it was loaded from (none when registered from memory).
    pub path: Option<PathBuf>,
    /// Its domain size.
    pub domain_size: usize,
    /// Host bytes it keeps (0 when it is resident on every device).
    pub host_bytes: u64,
    /// Host bytes reserved for its partitions' working sets inside the
    /// backends' evaluation (the GPU backend's zero/one/tail splits, one
    /// per pipeline slot), beside their assignments.
    pub working_bytes: u64,
    /// Device bytes of its bases on each device where it is resident.
    pub device_bytes: u64,
    /// Where each device proves it from.
    pub placements: Vec<Placement>,
    /// Per device, how it holds the set and why ([`Backend::describe`]:
    /// resident, or streamed with its chunks and where a, b, c are
    /// computed), as it stands when the report is made.
    pub details: Vec<String>,
    /// Seconds it took to load and place.
    pub load_s: f64,
    /// Engine clock of its last use.
    pub last_used_s: f64,
    /// Whether a job is using it now.
    pub in_use: bool,
}

/// Per device: the key partitions are proved against, where the set was
/// placed, and the backend's pipeline depth for it; then the host bytes
/// the partitions' evaluations hold at once on all devices.
pub(crate) type Placed = (Vec<Arc<Parameters>>, Vec<Placement>, Vec<usize>, u64);

/// Places `full` on every backend. `occupant(d)` names the set device `d`
/// holds resident and whether it may be evicted (no job uses it); `evict`
/// is called for each such set before its device takes the new one.
pub(crate) fn place_all(
    backends: &[Arc<dyn Backend>],
    full: &Arc<Parameters>,
    mut occupant: impl FnMut(usize) -> Option<(String, bool)>,
    mut evict: impl FnMut(&str),
) -> Result<Placed, EngineError> {
    let hollow = Arc::new(full.without_queries());
    let mut keys = Vec::with_capacity(backends.len());
    let mut placements = Vec::with_capacity(backends.len());
    let mut depths = Vec::with_capacity(backends.len());
    let mut working = 0u64;
    for (d, be) in backends.iter().enumerate() {
        let may_evict = match occupant(d) {
            Some((id, true)) => {
                evict(&id);
                true
            }
            Some((_, false)) => false,
            None => true,
        };
        let placement = be
            .place(full, &hollow, may_evict)
            .map_err(|e| EngineError::Place {
                backend: be.name(),
                source: Arc::new(e),
            })?;
        let key = match placement {
            Placement::Resident => Arc::clone(&hollow),
            Placement::Host => Arc::clone(full),
        };
        let depth = be.pipeline_depth(&key).max(1);
        working = working.saturating_add(be.evaluate_host_bytes(&key).saturating_mul(depth as u64));
        depths.push(depth);
        keys.push(key);
        placements.push(placement);
    }
    Ok((keys, placements, depths, working))
}
