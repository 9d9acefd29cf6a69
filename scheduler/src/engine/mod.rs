//! The engine: jobs → partitions → synthesis workers → GPU workers →
//! assembly → self-check → result.
//!
//! All scheduling state lives behind one mutex (`State`); workers are
//! plain threads that sleep on condition variables. Every decision (which
//! partition to synthesize next, whether it fits the memory budget, which
//! GPU worker takes which synthesized partition) is made under that lock,
//! so reserving memory and admitting work are one atomic step. The heavy
//! work (synthesis, the backend, assembly, verification) runs outside it.

//!
//! `job`: the public job types; `workers`: admission, the synthesis and
//! GPU workers, completion and stats (everything that runs under or
//! around the scheduling lock).

mod job;
mod workers;

pub use job::{JobId, JobOutput, JobSpec, PartitionTimes};

use crate::config::EngineOptions;
use crate::error::{EngineError, PartitionError, Stage};
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
    /// The part of `bytes` released when synthesis ends
    /// ([`PartitionSource::synthesis_scratch_bytes`]).
    scratch_bytes: Vec<u64>,
    /// Per partition, the length of the witness buffer its synthesis
    /// takes from the backend's pool (part of `bytes`): the aux count of a
    /// source with a record (witness-only synthesis), None for others,
    /// which take none.
    witness_len: Vec<Option<usize>>,
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
    scratch_bytes: u64,
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
    /// Host bytes held beside the jobs (part of `reserved`): parameter
    /// sets, their evaluation working sets, [`Engine::hold_host`] holds.
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
    /// Where synthesis puts witnesses: the backends' page-locked pool
    /// when one offers it (its idle bytes count against the budget).
    witness_alloc: Option<Arc<dyn cuzk_field::FrAlloc>>,
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

fn panic_error(p: Box<dyn std::any::Any + Send>) -> PartitionError {
    PartitionError::Panic(cuzk_groth16::panic_message(&*p))
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
        let witness_alloc = backends.iter().find_map(|b| b.witness_alloc());
        let inner = Arc::new(Inner {
            events: opts.timeline.then(|| Mutex::new(Vec::new())),
            opts,
            backends,
            witness_alloc,
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
                return Ok(e.info(Arc::strong_count(e) > 1, &self.inner.backends));
            }
        }
        // Replacing a set a job uses is refused by `install`: say so before
        // reading the file, not after.
        self.inner.check_unused(id)?;
        let t = Instant::now();
        // The decoded set is in host memory until it is placed: reserve it
        // (without waiting: loading is rare and bounded by the file).
        let info = Parameters::inspect(path).map_err(|e| EngineError::Srs(Arc::new(e)))?;
        let transient = info.bytes as u64;
        self.inner.state.lock().reserve(transient);
        let loaded = Parameters::load_with_progress(path, mode, progress);
        self.inner.state.lock().release(transient);
        let params = loaded.map_err(|e| EngineError::Srs(Arc::new(e)))?;
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
            .map(|e| e.info(Arc::strong_count(e) > 1, &self.inner.backends))
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

/// Long-lived host memory counted against the engine's budget (see
/// [`Engine::hold_host`]); released when dropped.
pub struct HostHold {
    inner: Arc<Inner>,
    bytes: u64,
}

impl std::fmt::Debug for HostHold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHold")
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl Engine {
    /// Counts `bytes` of host memory that live beside the jobs (a
    /// recorded circuit, say) against the memory budget, as a host-kept
    /// parameter set is counted, until the returned guard is dropped. So
    /// one budget covers everything the process holds.
    pub fn hold_host(&self, bytes: u64) -> HostHold {
        let mut st = self.inner.state.lock();
        st.srs_bytes += bytes;
        st.reserve(bytes);
        HostHold {
            inner: Arc::clone(&self.inner),
            bytes,
        }
    }
}

impl Drop for HostHold {
    fn drop(&mut self) {
        {
            let mut st = self.inner.state.lock();
            st.srs_bytes = st.srs_bytes.saturating_sub(self.bytes);
            st.release(self.bytes);
        }
        self.inner.synth_cv.notify_all();
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
        let (keys, placements, depths, working_bytes) = place_all(
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
        let device_bytes = params.counts().point_bytes();
        let entry = Arc::new(CircuitEntry {
            id: id.clone(),
            path,
            pvk: params.vk.prepare(),
            keys,
            placements,
            depths,
            host_bytes,
            working_bytes,
            device_bytes,
            load,
            last_used: parking_lot::Mutex::new(self.secs(Instant::now())),
        });
        drop(params);
        {
            let held = host_bytes + working_bytes;
            let mut st = self.state.lock();
            st.srs_bytes += held;
            st.reserve(held);
        }
        let info = entry.info(false, &self.backends);
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
            let held = e.host_bytes + e.working_bytes;
            st.srs_bytes = st.srs_bytes.saturating_sub(held);
            st.release(held);
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
}
