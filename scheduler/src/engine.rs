//! The engine: jobs → partitions → synthesis workers → GPU workers →
//! assembly → self-check → result.
//!
//! All scheduling state lives behind one mutex (`State`); workers are
//! plain threads that sleep on condition variables. Every decision (which
//! partition to synthesize next, whether it fits the memory budget, which
//! GPU worker takes which synthesized partition) is made under that lock,
//! so reserving memory and admitting work are one atomic step. The heavy
//! work (synthesis, the backend, assembly, verification) runs outside it.

use crate::config::EngineOptions;
use crate::error::{EngineError, Stage};
use crate::source::{estimate_partition_bytes, PartitionSource};
use crate::srs::{place_all, CircuitEntry, SrsInfo};
use crate::timeline::{EngineStats, Event, EventKind};
use cuzk_field::{Field, Fr};
use cuzk_groth16::{
    prove_assignment, Backend, CheckMode, Groth16Error, Parameters, Proof, Timings,
};
use cuzk_synth::ProvingAssignment;
use parking_lot::{Condvar, Mutex, RwLock};
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A job's identity: its submission number (starting at 0).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct JobId(pub u64);

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "job {}", self.0)
    }
}

/// What to prove: the partitions of one proof, against a registered circuit.
#[derive(Clone)]
pub struct JobSpec {
    /// Id under which the parameters were registered
    /// ([`Engine::register_circuit`]).
    pub circuit_id: String,
    /// Higher runs first; equal priorities run in submission order. A
    /// waiting job gains a level every `aging` partitions started ahead of
    /// it, so low priorities are delayed, never starved.
    pub priority: i32,
    /// The partitions.
    pub source: Arc<dyn PartitionSource>,
    /// Draw each partition's r, s from a ChaCha20 generator seeded with
    /// this, in partition order, instead of the OS generator: for tests
    /// and reproducible benchmarks only (proofs made this way are as
    /// predictable as the seed). The same seed gives the same proof bytes
    /// as `cuzk_groth16::prove_batch` with `ChaCha20Rng::seed_from_u64`.
    pub seed: Option<u64>,
    /// Verify every proof before it is returned (default). Off only for
    /// benchmarks on inputs that cannot verify (random C1 outputs); such
    /// proofs must never be handed out as valid.
    pub self_check: bool,
}

impl std::fmt::Debug for JobSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobSpec")
            .field("circuit_id", &self.circuit_id)
            .field("priority", &self.priority)
            .field("partitions", &self.source.num_partitions())
            .field("seeded", &self.seed.is_some())
            .finish()
    }
}

impl JobSpec {
    /// A job of priority 0.
    pub fn new(circuit_id: impl Into<String>, source: Arc<dyn PartitionSource>) -> Self {
        Self {
            circuit_id: circuit_id.into(),
            priority: 0,
            source,
            seed: None,
            self_check: true,
        }
    }

    /// Turns the self-check off (see [`JobSpec::self_check`]).
    pub fn without_self_check(mut self) -> Self {
        self.self_check = false;
        self
    }

    /// Seeds r, s (see [`JobSpec::seed`]).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Sets the priority.
    pub fn with_priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }
}

/// Where one partition's time went.
#[derive(Clone, Debug)]
pub struct PartitionTimes {
    /// Synthesis.
    pub synthesis: Duration,
    /// From joining the GPU queue to entering the device region.
    pub gpu_wait: Duration,
    /// The device region (the backend's `evaluate`).
    pub gpu: Duration,
    /// The backend's own stages.
    pub stages: Timings,
    /// Randomisation and compression.
    pub assembly: Duration,
    /// The self-check.
    pub verify: Duration,
    /// The device it ran on.
    pub device: u32,
}

/// A finished job: one proof per partition, in partition order, each
/// verified against the registered verifying key.
#[derive(Clone, Debug)]
pub struct JobOutput {
    /// The job.
    pub job: JobId,
    /// Proofs in partition order.
    pub proofs: Vec<Proof>,
    /// Public inputs of each partition (without the leading ONE).
    pub inputs: Vec<Vec<Fr>>,
    /// Per-partition times.
    pub partitions: Vec<PartitionTimes>,
    /// Seconds since the engine started, at submission.
    pub submitted_at: f64,
    /// Seconds since the engine started, at completion.
    pub finished_at: f64,
}

impl JobOutput {
    /// The proofs concatenated (192 bytes each), as a multi-partition
    /// Filecoin proof is stored.
    pub fn proof_bytes(&self) -> Vec<u8> {
        Proof::many_to_bytes(&self.proofs)
    }
}

type JobResult = Result<JobOutput, EngineError>;

#[derive(Default)]
struct JobShared {
    result: Mutex<Option<JobResult>>,
    cv: Condvar,
}

impl JobShared {
    fn set(&self, r: JobResult) {
        let mut g = self.result.lock();
        if g.is_none() {
            *g = Some(r);
        }
        self.cv.notify_all();
    }
}

/// The caller's end of a job: wait for its result, or cancel it.
pub struct JobHandle {
    id: JobId,
    shared: Arc<JobShared>,
    inner: Arc<Inner>,
}

impl std::fmt::Debug for JobHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobHandle")
            .field("id", &self.id)
            .field("finished", &self.is_finished())
            .finish()
    }
}

impl JobHandle {
    /// The job's id.
    pub fn id(&self) -> JobId {
        self.id
    }

    /// Blocks until the job has finished, failed or was cancelled.
    pub fn wait(&self) -> JobResult {
        let mut g = self.shared.result.lock();
        while g.is_none() {
            self.shared.cv.wait(&mut g);
        }
        g.clone().expect("checked above")
    }

    /// [`JobHandle::wait`] with a limit; `None` when the time ran out.
    pub fn wait_timeout(&self, limit: Duration) -> Option<JobResult> {
        let deadline = Instant::now() + limit;
        let mut g = self.shared.result.lock();
        while g.is_none() {
            if self.shared.cv.wait_until(&mut g, deadline).timed_out() {
                break;
            }
        }
        g.clone()
    }

    /// The result if the job is over.
    pub fn try_result(&self) -> Option<JobResult> {
        self.shared.result.lock().clone()
    }

    /// Whether the job is over (in any way).
    pub fn is_finished(&self) -> bool {
        self.shared.result.lock().is_some()
    }

    /// Cancels the job: partitions not yet started never will be, queued
    /// synthesized partitions are dropped (their memory returns to the
    /// budget), partitions in flight finish and are discarded. Returns
    /// false if the job was already over.
    pub fn cancel(&self) -> bool {
        self.inner.cancel(self.id.0)
    }
}

struct Done {
    proof: Proof,
    inputs: Vec<Fr>,
    times: PartitionTimes,
}

struct Job {
    priority: i32,
    /// Partitions of other jobs started while this one was eligible, since
    /// it last started one.
    skipped: u64,
    circuit: Arc<CircuitEntry>,
    source: Arc<dyn PartitionSource>,
    /// Reservation per partition (whole lifetime).
    bytes: Vec<u64>,
    /// Synthesized size per partition as the shape predicts.
    proving_bytes: Vec<u64>,
    next: usize,
    in_synth: usize,
    done: Vec<Option<Done>>,
    /// Seeded r, s per partition ([`JobSpec::seed`]).
    randomness: Option<Vec<(Fr, Fr)>>,
    self_check: bool,
    remaining: usize,
    shared: Arc<JobShared>,
    submitted_at: f64,
}

impl Job {
    fn effective_priority(&self, aging: u64) -> i64 {
        self.priority as i64 + (self.skipped / aging) as i64
    }
}

/// A synthesized partition waiting for a GPU worker.
struct Ready {
    job: u64,
    index: usize,
    pa: ProvingAssignment,
    reserved: u64,
    held: u64,
    queued: Instant,
    synthesis: Duration,
    circuit: Arc<CircuitEntry>,
    /// Seeded r, s, else drawn from the OS at proving time.
    rs: Option<(Fr, Fr)>,
    self_check: bool,
}

struct SynthTask {
    job: u64,
    index: usize,
    bytes: u64,
    proving_bytes: u64,
    source: Arc<dyn PartitionSource>,
}

enum Pick {
    Go(SynthTask),
    Budget,
    Idle,
}

#[derive(Default)]
struct State {
    shutdown: bool,
    paused: bool,
    next_id: u64,
    jobs: BTreeMap<u64, Job>,
    ready: Vec<Ready>,
    reserved: u64,
    peak: u64,
    held: u64,
    held_peak: u64,
    overcommit: u64,
    budget_blocked_since: Option<Instant>,
    budget_wait: Duration,
    synth_busy: usize,
    gpu_busy: usize,
    device_load: Vec<usize>,
    /// Time each device had at least one partition inside `evaluate`
    /// (the union: with pipeline depth 2 two partitions overlap there).
    device_busy: Vec<Duration>,
    device_busy_since: Vec<Option<Instant>>,
    /// Host bytes held by parameter sets (part of `reserved`).
    srs_bytes: u64,
    partitions_done: u64,
    jobs_done: u64,
    jobs_failed: u64,
    jobs_cancelled: u64,
}

impl State {
    fn reserve(&mut self, b: u64) {
        self.reserved += b;
        self.peak = self.peak.max(self.reserved);
    }
    fn release(&mut self, b: u64) {
        debug_assert!(self.reserved >= b, "released more than reserved");
        self.reserved = self.reserved.saturating_sub(b);
    }
    fn hold(&mut self, b: u64) {
        self.held += b;
        self.held_peak = self.held_peak.max(self.held);
    }
    fn unhold(&mut self, b: u64) {
        self.held = self.held.saturating_sub(b);
    }
}

struct Inner {
    opts: EngineOptions,
    /// One backend per device, in `opts.devices` order.
    backends: Vec<Arc<dyn Backend>>,
    state: Mutex<State>,
    synth_cv: Condvar,
    gpu_cv: Condvar,
    room_cv: Condvar,
    /// The SRS cache: registered parameter sets by circuit id.
    circuits: RwLock<HashMap<String, Arc<CircuitEntry>>>,
    /// Held while a set is loaded or placed: one load at a time, so two
    /// jobs on one file never load it twice and placements do not race.
    loading: Mutex<()>,
    epoch: Instant,
    events: Option<Mutex<Vec<Event>>>,
}

/// The proving engine. Dropping it shuts it down (see [`Engine::shutdown`]).
pub struct Engine {
    inner: Arc<Inner>,
    threads: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("options", &self.inner.opts)
            .field("backends", &self.backend_name())
            .finish()
    }
}

/// The stage a failed [`prove_assignment`] failed in.
fn stage_of(e: &Groth16Error) -> Stage {
    match e {
        Groth16Error::SelfCheck { .. } => Stage::Verify,
        _ => Stage::Gpu,
    }
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    format!("panicked: {}", cuzk_groth16::panic_message(&*p))
}

impl Engine {
    /// Starts the workers: `concurrency` synthesis threads and
    /// `gpu_workers_per_device` threads per device. `backends` has one
    /// backend per device of `opts.devices`, in that order (each GPU its
    /// own `GpuBackend`; CPU backends stand in for devices in tests).
    pub fn new(opts: EngineOptions, backends: Vec<Arc<dyn Backend>>) -> Result<Self, EngineError> {
        let bad = |m: &str| Err(EngineError::Options(m.to_string()));
        if opts.concurrency == 0 {
            return bad("concurrency must be at least 1");
        }
        if opts.partition_workers == 0 {
            return bad("partition_workers must be at least 1");
        }
        if opts.devices.is_empty() {
            return bad("at least one device is needed");
        }
        if backends.len() != opts.devices.len() {
            return Err(EngineError::Options(format!(
                "{} devices listed but {} backends given (one per device)",
                opts.devices.len(),
                backends.len()
            )));
        }
        if opts.gpu_workers_per_device == 0 {
            return bad("gpu_workers_per_device must be at least 1");
        }
        if opts.memory_budget == 0 {
            return bad("the memory budget must be more than 0 bytes");
        }
        if opts.queue_capacity == 0 {
            return bad("queue_capacity must be at least 1");
        }
        if opts.aging == 0 {
            return bad("aging must be at least 1");
        }
        let nd = opts.devices.len();
        let state = State {
            device_load: vec![0; nd],
            device_busy: vec![Duration::ZERO; nd],
            device_busy_since: vec![None; nd],
            ..State::default()
        };
        let inner = Arc::new(Inner {
            events: opts.timeline.then(|| Mutex::new(Vec::new())),
            opts,
            backends,
            loading: Mutex::new(()),
            state: Mutex::new(state),
            synth_cv: Condvar::new(),
            gpu_cv: Condvar::new(),
            room_cv: Condvar::new(),
            circuits: RwLock::new(HashMap::new()),
            epoch: Instant::now(),
        });
        let mut threads = Vec::new();
        let spawn = |name: String, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name)
                .spawn(f)
                .map_err(|e| EngineError::Options(format!("cannot start a worker thread: {e}")))
        };
        for w in 0..inner.opts.concurrency {
            let i = inner.clone();
            threads.push(spawn(
                format!("cuzk-synth-{w}"),
                Box::new(move || i.synth_worker(w)),
            )?);
        }
        for d in 0..nd {
            for w in 0..inner.opts.gpu_workers_per_device {
                let i = inner.clone();
                let name = format!("cuzk-gpu{}-{w}", inner.opts.devices[d]);
                threads.push(spawn(name, Box::new(move || i.gpu_worker(d, w)))?);
            }
        }
        Ok(Self { inner, threads })
    }

    /// An engine with the default configuration on one CPU backend (for
    /// library users and tests without a GPU).
    pub fn cpu() -> Result<Self, EngineError> {
        let mut opts = crate::config::Config::default().engine_options()?;
        opts.devices = vec![0];
        Self::new(opts, vec![Arc::new(cuzk_groth16::CpuBackend)])
    }

    /// The settings the engine runs with.
    pub fn options(&self) -> &EngineOptions {
        &self.inner.opts
    }

    /// The backends' names, comma-separated ("cpu", "cuda:0,cuda:1").
    pub fn backend_name(&self) -> String {
        let names: Vec<String> = self.inner.backends.iter().map(|b| b.name()).collect();
        names.join(",")
    }

    /// Makes parameters available to jobs under `id`, placed on every
    /// device (replacing any earlier set of that id; jobs already
    /// submitted keep theirs).
    pub fn register_circuit(
        &self,
        id: impl Into<String>,
        params: Arc<Parameters>,
    ) -> Result<SrsInfo, EngineError> {
        let _one = self.inner.loading.lock();
        self.inner.install(id.into(), None, params, Duration::ZERO)
    }

    /// Loads the `.params` file at `path` under `id`, once: if `id` is
    /// already registered from the same file this returns at once, and a
    /// concurrent call for it waits for the first. `progress(done, total)`
    /// reports decoded bytes. The set is then placed on every device.
    pub fn load_circuit(
        &self,
        id: &str,
        path: &std::path::Path,
        mode: CheckMode,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<SrsInfo, EngineError> {
        let _one = self.inner.loading.lock();
        if let Some(e) = self.inner.circuits.read().get(id) {
            if e.path.as_deref() == Some(path) {
                *e.last_used.lock() = self.now();
                return Ok(e.info(Arc::strong_count(e) > 1));
            }
        }
        // Replacing a set a job uses is refused by `install`: say so before
        // reading the file, not after.
        self.inner.check_unused(id)?;
        let t = Instant::now();
        // The decoded set is in host memory until it is placed: reserve it
        // (without waiting: loading is rare and bounded by the file).
        let info = Parameters::inspect(path).map_err(|e| EngineError::Srs(e.to_string()))?;
        let transient = info.bytes as u64;
        self.inner.state.lock().reserve(transient);
        let loaded = Parameters::load_with_progress(path, mode, progress);
        self.inner.state.lock().release(transient);
        let params = loaded.map_err(|e| EngineError::Srs(e.to_string()))?;
        self.inner.install(
            id.to_string(),
            Some(path.to_path_buf()),
            Arc::new(params),
            t.elapsed(),
        )
    }

    /// Forgets the set registered under `id`: its device memory is freed
    /// and its host bytes leave the budget. `Ok(false)` when no such set
    /// is registered; [`EngineError::InUse`] while a job uses it (evicting
    /// it then would fail that job).
    pub fn evict_circuit(&self, id: &str) -> Result<bool, EngineError> {
        let _one = self.inner.loading.lock();
        self.inner.check_unused(id)?;
        Ok(self.inner.evict(id))
    }

    /// Whether parameters are registered under `id`.
    pub fn has_circuit(&self, id: &str) -> bool {
        self.inner.circuits.read().contains_key(id)
    }

    /// The registered parameter sets.
    pub fn circuits(&self) -> Vec<SrsInfo> {
        let mut v: Vec<SrsInfo> = self
            .inner
            .circuits
            .read()
            .values()
            .map(|e| e.info(Arc::strong_count(e) > 1))
            .collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }

    /// Submits a job; fails at once with [`EngineError::QueueFull`] when
    /// `queue_capacity` jobs are unfinished.
    pub fn submit(&self, job: JobSpec) -> Result<JobHandle, EngineError> {
        self.inner.submit(job, false)
    }

    /// Submits a job, waiting for room in the queue if it is full.
    pub fn submit_blocking(&self, job: JobSpec) -> Result<JobHandle, EngineError> {
        self.inner.submit(job, true)
    }

    /// Stops starting new syntheses (work already started goes on).
    pub fn pause(&self) {
        self.inner.state.lock().paused = true;
    }

    /// Undoes [`Engine::pause`].
    pub fn resume(&self) {
        self.inner.state.lock().paused = false;
        self.inner.synth_cv.notify_all();
    }

    /// Live counters.
    pub fn stats(&self) -> EngineStats {
        self.inner.stats()
    }

    /// A copy of the timeline so far (empty unless `timeline` is on).
    pub fn timeline(&self) -> Vec<Event> {
        self.inner
            .events
            .as_ref()
            .map(|e| e.lock().clone())
            .unwrap_or_default()
    }

    /// Takes the timeline so far, leaving it empty.
    pub fn take_timeline(&self) -> Vec<Event> {
        self.inner
            .events
            .as_ref()
            .map(|e| std::mem::take(&mut *e.lock()))
            .unwrap_or_default()
    }

    /// Seconds since the engine started (the timeline's clock).
    pub fn now(&self) -> f64 {
        self.inner.secs(Instant::now())
    }

    /// Fails every unfinished job with [`EngineError::ShutDown`], lets
    /// workers finish what they hold, and joins them.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let garbage = {
            let mut st = self.inner.state.lock();
            st.shutdown = true;
            for (_, j) in std::mem::take(&mut st.jobs) {
                j.shared.set(Err(EngineError::ShutDown));
            }
            let ready = std::mem::take(&mut st.ready);
            for r in &ready {
                st.release(r.reserved);
                st.unhold(r.held);
            }
            ready
        };
        drop(garbage);
        self.inner.synth_cv.notify_all();
        self.inner.gpu_cv.notify_all();
        self.inner.room_cv.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Inner {
    /// Places `params` on every device and registers it under `id`
    /// (called with `loading` held).
    fn install(
        &self,
        id: String,
        path: Option<std::path::PathBuf>,
        params: Arc<Parameters>,
        load: Duration,
    ) -> Result<SrsInfo, EngineError> {
        // A set of the same id is replaced: forget it first, so its device
        // memory is free for the new one; not while a job uses it.
        self.check_unused(&id)?;
        self.evict(&id);
        let (keys, placements, depths) = place_all(
            &self.backends,
            &params,
            |d| {
                let map = self.circuits.read();
                map.values()
                    .filter(|e| e.placements[d] == cuzk_groth16::Placement::Resident)
                    .min_by(|a, b| a.last_used.lock().total_cmp(&b.last_used.lock()))
                    .map(|e| (e.id.clone(), Arc::strong_count(e) == 1))
            },
            |old| {
                self.evict(old);
            },
        )?;
        let host_bytes = if keys.iter().any(|k| k.has_queries()) {
            params.host_bytes()
        } else {
            0
        };
        let device_bytes = {
            let c = params.counts();
            let g1 = std::mem::size_of::<cuzk_field::G1Affine>() as u64;
            let g2 = std::mem::size_of::<cuzk_field::G2Affine>() as u64;
            (c.h + c.l + c.a + c.b) as u64 * g1 + c.b as u64 * g2
        };
        let entry = Arc::new(CircuitEntry {
            id: id.clone(),
            path,
            pvk: params.vk.prepare(),
            keys,
            placements,
            depths,
            host_bytes,
            device_bytes,
            load,
            last_used: parking_lot::Mutex::new(self.secs(Instant::now())),
        });
        drop(params);
        {
            let mut st = self.state.lock();
            st.srs_bytes += host_bytes;
            st.reserve(host_bytes);
        }
        let info = entry.info(false);
        self.circuits.write().insert(id, entry);
        self.synth_cv.notify_all();
        Ok(info)
    }

    /// [`EngineError::InUse`] if a job holds the set registered as `id`.
    fn check_unused(&self, id: &str) -> Result<(), EngineError> {
        match self.circuits.read().get(id) {
            Some(e) if Arc::strong_count(e) > 1 => Err(EngineError::InUse(id.to_string())),
            _ => Ok(()),
        }
    }

    /// Removes `id` from the cache and frees what it holds on each device
    /// and in the budget (called with `loading` held).
    fn evict(&self, id: &str) -> bool {
        let Some(e) = self.circuits.write().remove(id) else {
            return false;
        };
        for (be, key) in self.backends.iter().zip(&e.keys) {
            be.evict(key);
        }
        {
            let mut st = self.state.lock();
            st.srs_bytes = st.srs_bytes.saturating_sub(e.host_bytes);
            st.release(e.host_bytes);
        }
        self.synth_cv.notify_all();
        true
    }

    fn secs(&self, t: Instant) -> f64 {
        t.saturating_duration_since(self.epoch).as_secs_f64()
    }

    fn event(&self, e: Event) {
        if let Some(ev) = &self.events {
            ev.lock().push(e);
        }
    }

    fn submit(self: &Arc<Self>, spec: JobSpec, block: bool) -> Result<JobHandle, EngineError> {
        let circuit = self
            .circuits
            .read()
            .get(&spec.circuit_id)
            .cloned()
            .ok_or(EngineError::UnknownCircuit(spec.circuit_id.clone()))?;
        let n = spec.source.num_partitions();
        if n == 0 {
            return Err(EngineError::EmptyJob);
        }
        *circuit.last_used.lock() = self.secs(Instant::now());
        let (domain, inputs) = (circuit.params().domain_size(), circuit.params().vk.ic.len());
        let mut bytes = Vec::with_capacity(n);
        let mut proving = Vec::with_capacity(n);
        for index in 0..n {
            let shape = spec.source.shape(index).map_err(|e| EngineError::Shape {
                index,
                message: e.to_string(),
            })?;
            // Catch a circuit/parameter mismatch before spending synthesis on it.
            if shape.domain_size() != domain || shape.num_inputs != inputs {
                return Err(EngineError::ShapeMismatch {
                    index,
                    circuit: spec.circuit_id.clone(),
                    detail: format!(
                        "the circuit has domain {} with {} inputs, the parameters domain {domain} with {inputs}",
                        shape.domain_size(),
                        shape.num_inputs,
                    ),
                });
            }
            let need = estimate_partition_bytes(&shape);
            // Parameter sets held in host memory are part of the budget.
            let room = self
                .opts
                .memory_budget
                .saturating_sub(self.state.lock().srs_bytes);
            if need > room {
                return Err(EngineError::BudgetTooSmall {
                    index,
                    need,
                    budget: room,
                });
            }
            bytes.push(need);
            proving.push(shape.proving_bytes() as u64);
        }
        let shared = Arc::new(JobShared::default());
        let mut st = self.state.lock();
        loop {
            if st.shutdown {
                return Err(EngineError::ShutDown);
            }
            if st.jobs.len() < self.opts.queue_capacity {
                break;
            }
            if !block {
                return Err(EngineError::QueueFull(self.opts.queue_capacity));
            }
            self.room_cv.wait(&mut st);
        }
        let id = st.next_id;
        st.next_id += 1;
        let now = self.secs(Instant::now());
        st.jobs.insert(
            id,
            Job {
                priority: spec.priority,
                skipped: 0,
                circuit,
                source: spec.source,
                bytes,
                proving_bytes: proving,
                next: 0,
                in_synth: 0,
                done: (0..n).map(|_| None).collect(),
                randomness: spec.seed.map(|seed| {
                    use rand::SeedableRng;
                    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
                    (0..n)
                        .map(|_| (Fr::random(&mut rng), Fr::random(&mut rng)))
                        .collect()
                }),
                remaining: n,
                self_check: spec.self_check,
                shared: shared.clone(),
                submitted_at: now,
            },
        );
        self.event(
            Event::new(now, EventKind::JobSubmitted)
                .job(id)
                .detail(spec.circuit_id),
        );
        drop(st);
        self.synth_cv.notify_all();
        Ok(JobHandle {
            id: JobId(id),
            shared,
            inner: self.clone(),
        })
    }

    /// Chooses the next partition to synthesize and reserves its memory.
    fn pick(&self, st: &mut State) -> Pick {
        let cap = self.opts.partition_workers;
        let aging = self.opts.aging;
        let eligible = |j: &Job| j.next < j.bytes.len() && j.in_synth < cap;
        let best = st
            .jobs
            .iter()
            .filter(|(_, j)| eligible(j))
            .max_by_key(|(id, j)| (j.effective_priority(aging), Reverse(**id)))
            .map(|(id, j)| (*id, j.bytes[j.next]));
        let Some((id, need)) = best else {
            return Pick::Idle;
        };
        // Strict order: the best candidate waits for memory rather than
        // being overtaken by smaller ones, which would starve big circuits.
        if st.reserved + need > self.opts.memory_budget {
            return Pick::Budget;
        }
        for (oid, o) in st.jobs.iter_mut() {
            if *oid != id && eligible(o) {
                o.skipped += 1;
            }
        }
        let j = st.jobs.get_mut(&id).expect("picked from the map");
        j.skipped = 0;
        let index = j.next;
        j.next += 1;
        j.in_synth += 1;
        let task = SynthTask {
            job: id,
            index,
            bytes: need,
            proving_bytes: j.proving_bytes[index],
            source: j.source.clone(),
        };
        st.reserve(need);
        st.synth_busy += 1;
        Pick::Go(task)
    }

    fn end_budget_wait(&self, st: &mut State) {
        if let Some(since) = st.budget_blocked_since.take() {
            let d = since.elapsed();
            st.budget_wait += d;
            self.event(Event::new(self.secs(since), EventKind::BudgetWait).dur(d.as_secs_f64()));
        }
    }

    fn synth_worker(&self, w: usize) {
        loop {
            let task = {
                let mut st = self.state.lock();
                loop {
                    if st.shutdown {
                        return;
                    }
                    if !st.paused {
                        match self.pick(&mut st) {
                            Pick::Go(t) => {
                                self.end_budget_wait(&mut st);
                                break t;
                            }
                            Pick::Budget => {
                                st.budget_blocked_since.get_or_insert_with(Instant::now);
                            }
                            Pick::Idle => self.end_budget_wait(&mut st),
                        }
                    }
                    self.synth_cv.wait(&mut st);
                }
            };
            let t0 = Instant::now();
            self.event(
                Event::new(self.secs(t0), EventKind::SynthStart)
                    .part(task.job, task.index)
                    .worker(w)
                    .bytes(task.bytes),
            );
            let res = match catch_unwind(AssertUnwindSafe(|| task.source.synthesize(task.index))) {
                Ok(Ok(pa)) => Ok(pa),
                Ok(Err(e)) => Err(e.to_string()),
                Err(p) => Err(panic_message(p)),
            };
            let t1 = Instant::now();
            let mut end = Event::new(self.secs(t1), EventKind::SynthEnd)
                .part(task.job, task.index)
                .worker(w);
            if let Ok(pa) = &res {
                end = end.bytes(pa.memory_bytes() as u64);
            }
            self.event(end);

            let mut garbage: Vec<ProvingAssignment> = Vec::new();
            let mut st = self.state.lock();
            st.synth_busy -= 1;
            let alive = match st.jobs.get_mut(&task.job) {
                Some(j) => {
                    j.in_synth -= 1;
                    let rs = j.randomness.as_ref().map(|v| v[task.index]);
                    Some((j.circuit.clone(), rs, j.self_check))
                }
                None => None,
            };
            match (res, alive) {
                (Ok(pa), Some((circuit, rs, self_check))) => {
                    let held = pa.memory_bytes() as u64;
                    let mut reserved = task.bytes;
                    if held > task.proving_bytes {
                        // The shape under-predicted the allocation: account
                        // for the truth (and record it) rather than pretend.
                        let extra = held - task.proving_bytes;
                        st.overcommit += extra;
                        st.reserve(extra);
                        reserved += extra;
                    }
                    st.hold(held);
                    st.ready.push(Ready {
                        job: task.job,
                        index: task.index,
                        pa,
                        reserved,
                        held,
                        queued: t1,
                        synthesis: t1 - t0,
                        circuit,
                        rs,
                        self_check,
                    });
                    self.event(
                        Event::new(self.secs(t1), EventKind::GpuQueued).part(task.job, task.index),
                    );
                    self.gpu_cv.notify_all();
                }
                (Ok(pa), None) => {
                    st.release(task.bytes);
                    garbage.push(pa);
                }
                (Err(message), alive) => {
                    st.release(task.bytes);
                    if alive.is_some() {
                        let err = EngineError::Partition {
                            index: task.index,
                            stage: Stage::Synthesis,
                            message,
                        };
                        garbage.extend(self.finish_job(&mut st, task.job, Err(err)));
                    }
                }
            }
            drop(st);
            self.synth_cv.notify_all();
            drop(garbage);
        }
    }

    /// The synthesized partition device `d`'s worker should take, if any.
    /// A worker only takes work while its device is among the least loaded,
    /// so with several devices an idle one is fed before a busy one queues
    /// a second partition. (Some device with the minimum load always has a
    /// free worker, so this never stalls.)
    fn pick_ready(&self, st: &mut State, d: usize) -> Option<Ready> {
        if st.ready.is_empty() {
            return None;
        }
        let min = st.device_load.iter().copied().min().unwrap_or(0);
        if st.device_load[d] > min {
            return None;
        }
        let aging = self.opts.aging;
        let jobs = &st.jobs;
        let load = st.device_load[d];
        // A device takes another partition only while its backend has room
        // for one more working set of that parameter set.
        let (i, _) = st
            .ready
            .iter()
            .enumerate()
            .filter(|(_, r)| load < r.circuit.depths[d])
            .max_by_key(|(_, r)| {
                let p = jobs
                    .get(&r.job)
                    .map(|j| j.effective_priority(aging))
                    .unwrap_or(i64::MIN);
                (p, Reverse(r.job), Reverse(r.index))
            })?;
        Some(st.ready.swap_remove(i))
    }

    fn gpu_worker(&self, d: usize, w: usize) {
        let device = self.opts.devices[d];
        loop {
            let item = {
                let mut st = self.state.lock();
                loop {
                    if st.shutdown {
                        return;
                    }
                    if let Some(r) = self.pick_ready(&mut st, d) {
                        st.gpu_busy += 1;
                        if st.device_load[d] == 0 {
                            st.device_busy_since[d] = Some(Instant::now());
                        }
                        st.device_load[d] += 1;
                        if !st.ready.is_empty() {
                            // The loads changed: a worker of another device
                            // may now be among the least loaded.
                            self.gpu_cv.notify_all();
                        }
                        break r;
                    }
                    self.gpu_cv.wait(&mut st);
                }
            };
            let Ready {
                job,
                index,
                pa,
                reserved,
                held,
                queued,
                synthesis,
                circuit,
                rs,
                self_check,
            } = item;
            // The one way a partition is proved (evaluate → assemble →
            // self-check), with fresh r, s. No engine lock around it: the
            // backend serialises what must be serialised on its device,
            // and `depths` bounds how many partitions are inside at once.
            let backend = &self.backends[d];
            let key = &circuit.keys[d];
            let g0 = Instant::now();
            self.event(
                Event::new(self.secs(g0), EventKind::GpuStart)
                    .part(job, index)
                    .device(device, w),
            );
            let res = catch_unwind(AssertUnwindSafe(|| {
                let (r, s) = rs.unwrap_or_else(|| {
                    (Fr::random(rand::rngs::OsRng), Fr::random(rand::rngs::OsRng))
                });
                let pvk = self_check.then_some(&circuit.pvk);
                prove_assignment(key, pvk, pa, r, s, backend.as_ref())
            }));
            let res = match res {
                Ok(Ok(out)) => Ok(out),
                Ok(Err(e)) => Err((stage_of(&e), e.to_string())),
                Err(p) => Err((Stage::Gpu, panic_message(p))),
            };
            let g1 = res
                .as_ref()
                .map_or_else(|_| Instant::now(), |out| g0 + out.evaluate);
            self.event(
                Event::new(self.secs(g1), EventKind::GpuEnd)
                    .part(job, index)
                    .device(device, w),
            );
            {
                let mut st = self.state.lock();
                st.release(reserved);
                st.unhold(held);
                st.device_load[d] -= 1;
                if st.device_load[d] == 0 {
                    if let Some(since) = st.device_busy_since[d].take() {
                        st.device_busy[d] += since.elapsed();
                    }
                }
                st.gpu_busy -= 1;
            }
            self.synth_cv.notify_all();
            self.gpu_cv.notify_all();

            let res = res.map(|out| {
                let mut stages = Timings::default();
                let (mut assembly, mut verify) = (Duration::ZERO, Duration::ZERO);
                for (name, dur) in out.timings.stages() {
                    match *name {
                        "epilogue" => assembly += *dur,
                        "verify" => verify += *dur,
                        _ => stages.add(name, *dur),
                    }
                }
                let mut at = self.secs(g0);
                for (name, dur) in stages.stages() {
                    let s = dur.as_secs_f64();
                    self.event(
                        Event::new(at, EventKind::Stage)
                            .part(job, index)
                            .device(device, w)
                            .name(*name)
                            .dur(s),
                    );
                    at += s;
                }
                let a0 = self.secs(g1);
                self.event(
                    Event::new(a0, EventKind::Assembly)
                        .part(job, index)
                        .device(device, w)
                        .dur(assembly.as_secs_f64()),
                );
                self.event(
                    Event::new(a0 + assembly.as_secs_f64(), EventKind::Verify)
                        .part(job, index)
                        .device(device, w)
                        .dur(verify.as_secs_f64()),
                );
                Done {
                    proof: out.proof,
                    inputs: out.inputs,
                    times: PartitionTimes {
                        synthesis,
                        gpu_wait: g0 - queued,
                        gpu: g1 - g0,
                        stages,
                        assembly,
                        verify,
                        device,
                    },
                }
            });

            // The job's set is no longer used by this partition: release it
            // before the job can be reported finished (a caller may evict
            // the set as soon as its job is over).
            drop(circuit);
            let mut st = self.state.lock();
            let garbage = match res {
                Ok(done) => {
                    self.complete_partition(&mut st, job, index, done);
                    Vec::new()
                }
                Err((stage, message)) => {
                    if st.jobs.contains_key(&job) {
                        self.finish_job(
                            &mut st,
                            job,
                            Err(EngineError::Partition {
                                index,
                                stage,
                                message,
                            }),
                        )
                    } else {
                        Vec::new()
                    }
                }
            };
            drop(st);
            drop(garbage);
        }
    }

    fn complete_partition(&self, st: &mut State, job: u64, index: usize, done: Done) {
        let Some(j) = st.jobs.get_mut(&job) else {
            return;
        };
        if j.done[index].is_none() {
            j.done[index] = Some(done);
            j.remaining -= 1;
        }
        st.partitions_done += 1;
        if j.remaining > 0 {
            return;
        }
        // Assemble in partition order: slot i holds partition i's proof.
        let j = st.jobs.remove(&job).expect("present");
        let mut out = JobOutput {
            job: JobId(job),
            proofs: Vec::with_capacity(j.done.len()),
            inputs: Vec::with_capacity(j.done.len()),
            partitions: Vec::with_capacity(j.done.len()),
            submitted_at: j.submitted_at,
            finished_at: 0.0,
        };
        for d in j.done.into_iter().flatten() {
            out.proofs.push(d.proof);
            out.inputs.push(d.inputs);
            out.partitions.push(d.times);
        }
        let now = self.secs(Instant::now());
        out.finished_at = now;
        st.jobs_done += 1;
        self.event(Event::new(now, EventKind::JobDone).job(job));
        // The set is released before the job is reported finished.
        drop(j.circuit);
        j.shared.set(Ok(out));
        self.room_cv.notify_all();
    }

    /// Ends a job with an error (or cancellation): drops its queued
    /// partitions, returns them for dropping outside the lock.
    fn finish_job(&self, st: &mut State, job: u64, result: JobResult) -> Vec<ProvingAssignment> {
        let Some(j) = st.jobs.remove(&job) else {
            return Vec::new();
        };
        let mut garbage = Vec::new();
        let mut i = 0;
        while i < st.ready.len() {
            if st.ready[i].job == job {
                let r = st.ready.swap_remove(i);
                st.release(r.reserved);
                st.unhold(r.held);
                garbage.push(r.pa);
            } else {
                i += 1;
            }
        }
        let now = self.secs(Instant::now());
        match &result {
            Err(EngineError::Cancelled) => {
                st.jobs_cancelled += 1;
                self.event(Event::new(now, EventKind::JobCancelled).job(job));
            }
            Err(e) => {
                st.jobs_failed += 1;
                self.event(
                    Event::new(now, EventKind::JobFailed)
                        .job(job)
                        .detail(e.to_string()),
                );
            }
            Ok(_) => {}
        }
        drop(j.circuit);
        j.shared.set(result);
        self.room_cv.notify_all();
        self.synth_cv.notify_all();
        garbage
    }

    fn cancel(&self, job: u64) -> bool {
        let mut st = self.state.lock();
        if !st.jobs.contains_key(&job) {
            return false;
        }
        let garbage = self.finish_job(&mut st, job, Err(EngineError::Cancelled));
        drop(st);
        drop(garbage);
        true
    }

    fn stats(&self) -> EngineStats {
        let st = self.state.lock();
        let uptime = self.epoch.elapsed();
        let up = uptime.as_secs_f64().max(1e-9);
        EngineStats {
            uptime_s: uptime.as_secs_f64(),
            jobs_active: st.jobs.len(),
            partitions_waiting: st.jobs.values().map(|j| j.bytes.len() - j.next).sum(),
            synthesis_busy: st.synth_busy,
            synthesis_workers: self.opts.concurrency,
            gpu_queue: st.ready.len(),
            gpu_workers_busy: st.gpu_busy,
            gpu_workers: self.opts.devices.len() * self.opts.gpu_workers_per_device,
            device_busy_fraction: st
                .device_busy
                .iter()
                .zip(&st.device_busy_since)
                .map(|(d, since)| {
                    let open = since.map_or(Duration::ZERO, |s| s.elapsed());
                    ((*d + open).as_secs_f64() / up).min(1.0)
                })
                .collect(),
            memory_reserved: st.reserved,
            memory_peak: st.peak,
            memory_budget: self.opts.memory_budget,
            memory_held: st.held,
            memory_held_peak: st.held_peak,
            memory_overcommit: st.overcommit,
            memory_srs: st.srs_bytes,
            budget_wait_s: (st.budget_wait
                + st.budget_blocked_since
                    .map(|s| s.elapsed())
                    .unwrap_or(Duration::ZERO))
            .as_secs_f64(),
            partitions_done: st.partitions_done,
            jobs_done: st.jobs_done,
            jobs_failed: st.jobs_failed,
            jobs_cancelled: st.jobs_cancelled,
        }
    }
}
