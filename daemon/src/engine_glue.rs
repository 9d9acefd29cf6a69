//! Everything the daemon takes from the engine crates, in one module, so an
//! engine API change (several backends, the engine's own SRS cache, PoRep
//! sources in cuzk-filecoin) is absorbed here.
//!
//! [`EngineHost`] owns the [`Engine`] and the parameter sets the daemon
//! loaded for it, turns a validated request ([`ProofInput`]) into a
//! [`JobSpec`], and reads the engine's counters and timeline.

#[cfg(feature = "filecoin")]
mod filecoin;

use crate::error::DaemonError;
#[cfg(feature = "filecoin")]
use cuzk_filecoin::{
    compiled::{default_r1cs_dir, R1csCache},
    C1Output, PostInput, SnapInput,
};
use cuzk_groth16::{Backend, CheckMode, ToxicWaste};
use cuzk_scheduler::params::{ensure_test_params, test_params_path};
use cuzk_scheduler::{CircuitSource, Engine, EngineOptions, JobSpec, PartitionSource};
use cuzk_synth::circuits::BenchCircuit;
use parking_lot::Mutex;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use cuzk_scheduler::{EngineError, EngineStats, Event, EventKind, JobHandle, JobOutput};

/// A benchmark-circuit job: `partitions` partitions of a 2^`log_size`
/// domain, partition i with witness seed `seed + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchJob {
    /// log2 of the domain (10..=27, capped by `bench_max_log_size`).
    pub log_size: u32,
    /// Partitions (1..=64).
    #[serde(default = "one")]
    pub partitions: usize,
    /// Witness seed of partition 0.
    #[serde(default)]
    pub seed: u64,
}

fn one() -> usize {
    1
}

impl BenchJob {
    /// The public inputs of each partition (what a verifier needs).
    pub fn public_inputs(&self) -> Result<Vec<Vec<cuzk_field::Fr>>, DaemonError> {
        (0..self.partitions)
            .map(|i| {
                BenchCircuit::new(self.log_size, self.seed.wrapping_add(i as u64))
                    .map(|c| c.public_inputs())
                    .map_err(|e| DaemonError::InvalidArgument(e.to_string()))
            })
            .collect()
    }
}

/// What a validated request asks the engine to prove.
#[derive(Clone, Debug)]
pub enum ProofInput {
    /// cuzk's benchmark circuit.
    Bench(BenchJob),
    /// PoRep C2 of a C1 output.
    #[cfg(feature = "filecoin")]
    Porep {
        /// The parsed C1 output.
        c1: Arc<C1Output>,
        /// Its parameter file's standard name (the engine's circuit id).
        circuit_id: String,
    },
    /// WinningPoSt, or one WindowPoSt partition, from vanilla proofs.
    #[cfg(feature = "filecoin")]
    Post {
        /// The statement and vanilla proofs.
        input: Arc<PostInput>,
        /// Its parameter file's standard name (the engine's circuit id).
        circuit_id: String,
    },
    /// A SnapDeals update from its vanilla partition proofs.
    #[cfg(feature = "filecoin")]
    Snap {
        /// The statement and vanilla proofs.
        input: Arc<SnapInput>,
        /// Its parameter file's standard name (the engine's circuit id).
        circuit_id: String,
    },
    /// A SnarkPack aggregate of seal proofs: not an engine job, it runs
    /// beside the engine ([`EngineHost::aggregate`]).
    #[cfg(feature = "filecoin")]
    Aggregate(Arc<cuzk_filecoin::AggregateRequest>),
}

impl ProofInput {
    /// The id under which the input's parameters are registered.
    pub fn circuit_id(&self) -> String {
        match self {
            ProofInput::Bench(b) => bench_circuit_id(b.log_size),
            #[cfg(feature = "filecoin")]
            ProofInput::Porep { circuit_id, .. }
            | ProofInput::Post { circuit_id, .. }
            | ProofInput::Snap { circuit_id, .. } => circuit_id.clone(),
            #[cfg(feature = "filecoin")]
            ProofInput::Aggregate(_) => cuzk_filecoin::params::srs_file_name(),
        }
    }
}

fn bench_circuit_id(log_size: u32) -> String {
    format!("bench-k{log_size}")
}

/// What a circuit id names.
enum CircuitKey {
    Bench(u32),
    /// A Filecoin parameter file by its standard name (`v28-…params`).
    #[cfg(feature = "filecoin")]
    File(String),
}

fn parse_circuit_id(id: &str, bench_max: u32) -> Result<CircuitKey, DaemonError> {
    if let Some(k) = id.strip_prefix("bench-k") {
        let k: u32 = k
            .parse()
            .map_err(|_| DaemonError::InvalidArgument(format!("bad circuit id '{id}'")))?;
        if !(10..=bench_max).contains(&k) {
            return Err(DaemonError::InvalidArgument(format!(
                "circuit '{id}': the bench circuit's log size must be in 10..={bench_max}"
            )));
        }
        return Ok(CircuitKey::Bench(k));
    }
    #[cfg(feature = "filecoin")]
    if let Some(file) = filecoin::params_file(id) {
        return file.map(CircuitKey::File);
    }
    #[cfg(feature = "filecoin")]
    let others = filecoin::KNOWN_IDS;
    #[cfg(not(feature = "filecoin"))]
    let others = "; this daemon is built without the Filecoin proofs";
    Err(DaemonError::NotFound(format!(
        "circuit '{id}' (known: bench-k10 .. bench-k{bench_max}{others})"
    )))
}

/// One loaded parameter set, for status reports.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SrsInfo {
    /// The circuit id.
    pub circuit_id: String,
    /// Bytes it holds: host memory plus device memory where resident.
    pub bytes: u64,
    /// Host bytes (part of the memory budget).
    pub host_bytes: u64,
    /// Host bytes reserved for its partitions inside the MSMs (their
    /// zero/one/tail splits, one per pipeline slot; part of the budget).
    pub working_bytes: u64,
    /// Device bytes on each device where it is resident.
    pub device_bytes: u64,
    /// Resident on every device rather than proved from host memory.
    pub resident: bool,
    /// Per device, how it holds the set and why (resident, or streamed
    /// from page-locked host memory with its chunks and where a, b, c are
    /// computed): `GET /status` shows it; the proto has no field for it.
    pub placement: Vec<String>,
}

impl From<cuzk_scheduler::SrsInfo> for SrsInfo {
    fn from(i: cuzk_scheduler::SrsInfo) -> Self {
        let resident = !i.placements.is_empty()
            && i.placements
                .iter()
                .all(|p| *p == cuzk_groth16::Placement::Resident);
        Self {
            circuit_id: i.id,
            bytes: i.host_bytes + if resident { i.device_bytes } else { 0 },
            host_bytes: i.host_bytes,
            working_bytes: i.working_bytes,
            device_bytes: if resident { i.device_bytes } else { 0 },
            resident,
            placement: i.details,
        }
    }
}

/// A device as status reports show it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceInfo {
    /// Ordinal (CUDA, or the engine's virtual slot on the CPU backend).
    pub ordinal: u32,
    /// Name from the CUDA runtime, or "cpu backend".
    pub name: String,
    /// Device memory, bytes (0 on the CPU).
    pub total_bytes: u64,
    /// Free device memory now, bytes.
    pub free_bytes: u64,
}

/// A job the engine accepted.
#[derive(Debug)]
pub struct Submitted {
    /// The engine's handle.
    pub handle: JobHandle,
    /// The engine's job number (the timeline's `job`).
    pub engine_id: u64,
    /// Time spent loading parameters for this job (zero when cached).
    pub srs_load: Duration,
    /// Engine clock at submission.
    pub engine_t: f64,
}

/// The engine plus the parameter sets registered with it.
pub struct EngineHost {
    engine: Engine,
    test_params: PathBuf,
    #[cfg(feature = "filecoin")]
    filecoin_params: PathBuf,
    /// PoRep and SnapDeals circuits recorded once (`$CUZK_R1CS_CACHE`):
    /// partitions are synthesized witness-only plus an SpMV (same proofs as
    /// the classic synthesis); the first job of a proof type records it.
    #[cfg(feature = "filecoin")]
    r1cs: R1csCache,
    /// How each proof family's witness is made (`[synthesis.witness]`).
    #[cfg(feature = "filecoin")]
    witness: cuzk_scheduler::WitnessConfig,
    bench_max_log_size: u32,
    /// Held while a bench parameter file is generated, so concurrent first
    /// requests generate it once (the engine loads a file once itself).
    generating: Mutex<()>,
    /// Held while an aggregate is made: one at a time, as each uses every
    /// core (filecoin-proofs' rayon pool) beside the engine's syntheses.
    #[cfg(feature = "filecoin")]
    aggregating: Mutex<()>,
    srs_loads: AtomicU64,
    srs_evictions: AtomicU64,
}

impl std::fmt::Debug for EngineHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineHost")
            .field("engine", &self.engine)
            .field("test_params", &self.test_params)
            .finish()
    }
}

impl EngineHost {
    /// Starts an engine with one backend per device of `opts.devices`.
    /// The bench circuit's test parameters live in `test_params`, Filecoin's
    /// v28 files in `filecoin_params` (see `cuzk_scheduler::params`). The
    /// timeline is always on: the daemon reads it to know when a job starts
    /// running, and takes it regularly so it never grows.
    pub fn start(
        mut opts: EngineOptions,
        backends: Vec<Arc<dyn Backend>>,
        test_params: PathBuf,
        filecoin_params: PathBuf,
        bench_max_log_size: u32,
    ) -> Result<Self, DaemonError> {
        opts.timeline = true;
        let engine = Engine::new(opts, backends)?;
        #[cfg(not(feature = "filecoin"))]
        let _ = filecoin_params;
        Ok(Self {
            engine,
            test_params,
            #[cfg(feature = "filecoin")]
            filecoin_params,
            #[cfg(feature = "filecoin")]
            r1cs: R1csCache::new(default_r1cs_dir()),
            #[cfg(feature = "filecoin")]
            witness: Default::default(),
            bench_max_log_size,
            generating: Mutex::new(()),
            #[cfg(feature = "filecoin")]
            aggregating: Mutex::new(()),
            srs_loads: AtomicU64::new(0),
            srs_evictions: AtomicU64::new(0),
        })
    }

    /// Records PoRep and SnapDeals circuits into `dir` (the config's
    /// `[srs] r1cs_cache`) instead of `$CUZK_R1CS_CACHE` or the user's
    /// cache directory.
    #[cfg(feature = "filecoin")]
    pub fn with_r1cs_dir(mut self, dir: PathBuf) -> Self {
        self.r1cs = R1csCache::new(dir);
        self
    }

    /// Makes each proof family's witness as `witness` says (the config's
    /// `[synthesis.witness]`) instead of the defaults.
    #[cfg(feature = "filecoin")]
    pub fn with_witness(mut self, witness: cuzk_scheduler::WitnessConfig) -> Self {
        self.witness = witness;
        self
    }

    /// The engine's settings.
    pub fn options(&self) -> &EngineOptions {
        self.engine.options()
    }

    /// The backend's name.
    pub fn backend_name(&self) -> String {
        self.engine.backend_name()
    }

    /// Live counters.
    pub fn stats(&self) -> EngineStats {
        self.engine.stats()
    }

    /// Timeline events since the last call.
    pub fn take_events(&self) -> Vec<Event> {
        self.engine.take_timeline()
    }

    /// The engine's clock (seconds since it started).
    pub fn now(&self) -> f64 {
        self.engine.now()
    }

    /// Parameter sets loaded so far (`loads`) and evicted (`evictions`).
    pub fn srs_counters(&self) -> (u64, u64) {
        (
            self.srs_loads.load(Ordering::Relaxed),
            self.srs_evictions.load(Ordering::Relaxed),
        )
    }

    /// The parameter sets in memory.
    pub fn loaded(&self) -> Vec<SrsInfo> {
        self.engine
            .circuits()
            .into_iter()
            .map(SrsInfo::from)
            .collect()
    }

    /// Loads `circuit_id`'s parameters into the engine's cache (generating
    /// the bench circuit's test parameters on first use) and, for a
    /// Filecoin kind, makes its circuit record ready. Returns the load
    /// time, `None` when they were already loaded. Blocking.
    pub fn preload(&self, circuit_id: &str) -> Result<Option<Duration>, DaemonError> {
        #[cfg(feature = "filecoin")]
        let requested = circuit_id;
        let key = parse_circuit_id(circuit_id, self.bench_max_log_size)?;
        let (id, path) = match &key {
            CircuitKey::Bench(k) => {
                if self.engine.has_circuit(circuit_id) {
                    return Ok(None);
                }
                (circuit_id.to_string(), self.bench_params(circuit_id, *k)?)
            }
            #[cfg(feature = "filecoin")]
            CircuitKey::File(file) => {
                if self.engine.has_circuit(file) {
                    return Ok(None);
                }
                let path = self.filecoin_params_file(circuit_id, file)?;
                (file.clone(), path)
            }
        };
        let circuit_id = id.as_str();
        let t0 = Instant::now();
        let info = self
            .engine
            .load_circuit(circuit_id, &path, CheckMode::Trusted, &|_, _| {})
            .map_err(|e| DaemonError::Params {
                circuit: circuit_id.to_string(),
                message: e.to_string(),
            })?;
        self.srs_loads.fetch_add(1, Ordering::Relaxed);
        let took = t0.elapsed();
        tracing::info!(
            circuit_id,
            host_bytes = info.host_bytes,
            device_bytes = info.device_bytes,
            ms = took.as_millis() as u64,
            "parameters loaded"
        );
        #[cfg(feature = "filecoin")]
        if let CircuitKey::File(_) = key {
            self.warm_record(requested, circuit_id)?;
        }
        Ok(Some(took))
    }

    /// Evicts `circuit_id`'s parameters from the engine (host and device
    /// memory; a job still using them keeps its copy until it ends).
    /// Returns the bytes freed, `None` when the set was not loaded.
    pub fn evict(&self, circuit_id: &str) -> Result<Option<u64>, DaemonError> {
        let circuit_id = match parse_circuit_id(circuit_id, self.bench_max_log_size)? {
            CircuitKey::Bench(_) => circuit_id.to_string(),
            #[cfg(feature = "filecoin")]
            CircuitKey::File(file) => file,
        };
        let circuit_id = circuit_id.as_str();
        let Some(info) = self
            .engine
            .circuits()
            .into_iter()
            .find(|i| i.id == circuit_id)
        else {
            return Ok(None);
        };
        if !self.engine.evict_circuit(circuit_id)? {
            return Ok(None);
        }
        let bytes = SrsInfo::from(info).bytes;
        self.srs_evictions.fetch_add(1, Ordering::Relaxed);
        tracing::info!(circuit_id, bytes, "parameters evicted");
        Ok(Some(bytes))
    }

    /// The file of the bench circuit's test parameters at 2^k in the
    /// test-parameter directory, generated on first use (the file
    /// `cuzk bench` uses).
    fn bench_params(&self, id: &str, k: u32) -> Result<PathBuf, DaemonError> {
        let err = |message: String| DaemonError::Params {
            circuit: id.to_string(),
            message,
        };
        let c = BenchCircuit::new(k, 0).map_err(|e| err(e.to_string()))?;
        let path = test_params_path(&self.test_params, id, 0);
        let _one = self.generating.lock();
        ensure_test_params(&path, &c.expected_shape(), |unfit| {
            if let Some(why) = unfit {
                tracing::warn!(path = %path.display(), why, "cached parameters do not fit; regenerating");
            }
            tracing::warn!(path = %path.display(), "generating TEST parameters for the bench circuit (known seed: not for production)");
            cuzk_groth16::generate_parameters(c, &ToxicWaste::from_seed(0), None)
        })
        .map_err(|e| err(e.to_string()))?;
        Ok(path)
    }

    /// The bytes a request is answered with, from its partition proofs
    /// (concatenated, in partition order): those bytes, or a
    /// non-interactive PoRep's aggregate of them.
    pub fn finish_proof(
        &self,
        input: &ProofInput,
        partition_proofs: Vec<u8>,
    ) -> Result<Vec<u8>, DaemonError> {
        match input {
            #[cfg(feature = "filecoin")]
            ProofInput::Porep { c1, .. } => {
                cuzk_filecoin::finish_c2(c1, partition_proofs, &self.filecoin_params).map_err(|e| {
                    DaemonError::Internal(format!(
                        "POREP_SEAL_COMMIT: aggregating the partition proofs: {e}"
                    ))
                })
            }
            _ => Ok(partition_proofs),
        }
    }

    /// Loads the input's parameters if needed and submits the job.
    /// Blocking (loading can take long).
    pub fn submit(&self, input: &ProofInput, priority: i32) -> Result<Submitted, DaemonError> {
        let circuit_id = input.circuit_id();
        let mut srs_load = self.preload(&circuit_id)?.unwrap_or_default();
        let source: Arc<dyn PartitionSource> = match input {
            #[cfg(feature = "filecoin")]
            ProofInput::Porep { .. }
            | ProofInput::Post { .. }
            | ProofInput::Snap { .. }
            | ProofInput::Aggregate(_) => self.filecoin_source(input, &circuit_id)?,
            &ProofInput::Bench(b) => {
                let shape = BenchCircuit::new(b.log_size, 0)
                    .map_err(|e| DaemonError::InvalidArgument(e.to_string()))?
                    .expected_shape();
                Arc::new(CircuitSource::new(b.partitions, Some(shape), move |i| {
                    BenchCircuit::new(b.log_size, b.seed.wrapping_add(i as u64)).map_err(Into::into)
                }))
            }
        };
        let spec = JobSpec::new(circuit_id.clone(), source).with_priority(priority);
        let engine_t = self.engine.now();
        let handle = match self.engine.submit(spec.clone()) {
            // Evicted between the load and the submission: load it again.
            Err(EngineError::UnknownCircuit(_)) => {
                srs_load += self.preload(&circuit_id)?.unwrap_or_default();
                self.engine.submit(spec)?
            }
            r => r?,
        };
        Ok(Submitted {
            engine_id: handle.id().0,
            handle,
            srs_load,
            engine_t,
        })
    }

    /// The devices: CUDA's when this build has CUDA and a GPU, else the
    /// engine's virtual CPU slots.
    pub fn devices(&self) -> Vec<DeviceInfo> {
        if let Ok(all) = cuzk_gpu::Device::all() {
            let used = &self.engine.options().devices;
            return all
                .into_iter()
                .filter(|d| used.contains(&(d.ordinal() as u32)))
                .map(|d| {
                    let name = d.props().map(|p| p.name).unwrap_or_else(|e| e.to_string());
                    let (free, total) = d.mem_info().unwrap_or((0, 0));
                    DeviceInfo {
                        ordinal: d.ordinal() as u32,
                        name,
                        total_bytes: total,
                        free_bytes: free,
                    }
                })
                .collect();
        }
        self.engine
            .options()
            .devices
            .iter()
            .map(|&ordinal| DeviceInfo {
                ordinal,
                name: format!("{} backend (virtual device)", self.engine.backend_name()),
                total_bytes: 0,
                free_bytes: 0,
            })
            .collect()
    }
}
