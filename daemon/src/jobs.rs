//! The daemon's jobs: ids, request ids in flight, phases, results and the
//! callers waiting for them.
//!
//! A job is created by `begin` (phase `Preparing`: parameters may still be
//! loading), handed to the engine by `attach` (`Queued`), becomes `Running`
//! when the engine's timeline shows its first partition starting, and ends
//! in `finish` with an [`Outcome`] that every waiter receives through a
//! watch channel. Finished jobs are kept (`keep_results`, oldest dropped
//! first) so a late `AwaitProof` still gets the result; unfinished jobs are
//! never dropped.

use crate::engine_glue::{EngineError, EngineHost, Event, EventKind, JobHandle, JobOutput};
use crate::error::DaemonError;
use crate::metrics::Metrics;
use crate::settings::DisconnectMode;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Most early starts kept (a start of a job that ended in the same instant
/// is never claimed; the oldest go first).
const EARLY_STARTS: usize = 4096;

/// The proof kinds, as the daemon tracks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Kind {
    /// PoRep C2.
    PorepSealCommit,
    /// SnapDeals update proof.
    SnapDealsUpdate,
    /// One WindowPoSt partition.
    WindowPostPartition,
    /// WinningPoSt.
    WinningPost,
    /// cuzk's benchmark circuit.
    Bench,
    /// A SnarkPack aggregate of seal proofs (runs beside the engine).
    AggregateSeal,
}

impl Kind {
    /// Every kind, in a fixed order (status reports list all of them).
    pub const ALL: [Kind; 6] = [
        Kind::PorepSealCommit,
        Kind::SnapDealsUpdate,
        Kind::WindowPostPartition,
        Kind::WinningPost,
        Kind::Bench,
        Kind::AggregateSeal,
    ];

    /// The metrics' `proof_kind` label: Curio's values for its four kinds.
    pub fn label(self) -> &'static str {
        match self {
            Kind::PorepSealCommit => "porep_c2",
            Kind::SnapDealsUpdate => "snap_update",
            Kind::WindowPostPartition => "window_post",
            Kind::WinningPost => "winning_post",
            Kind::Bench => "bench_circuit",
            Kind::AggregateSeal => "aggregate_seal",
        }
    }

    /// The proto enum's name (`QueueStatus.proof_kind`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::PorepSealCommit => "POREP_SEAL_COMMIT",
            Kind::SnapDealsUpdate => "SNAP_DEALS_UPDATE",
            Kind::WindowPostPartition => "WINDOW_POST_PARTITION",
            Kind::WinningPost => "WINNING_POST",
            Kind::Bench => "CUZK_BENCH_CIRCUIT",
            Kind::AggregateSeal => "CUZK_AGGREGATE_SEAL",
        }
    }
}

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Status {
    /// Proved; `proof` holds the bytes.
    Completed,
    /// Failed; `error` says why.
    Failed,
    /// Cancelled (by a client, a disconnect, or shutdown).
    Cancelled,
}

/// Where a job's time went (all zero for a job that never ran).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobTimings {
    /// Accepted by the engine until its first partition started.
    pub queue_wait: Duration,
    /// Loading parameters for it.
    pub srs_load: Duration,
    /// Synthesis, summed over partitions.
    pub synthesis: Duration,
    /// Device regions, summed over partitions.
    pub gpu: Duration,
    /// Request received until the result.
    pub total: Duration,
}

/// A finished job's result.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How it ended.
    pub status: Status,
    /// Partition proofs concatenated (empty unless completed).
    pub proof: Vec<u8>,
    /// Why it failed or was cancelled.
    pub error: String,
    /// Where the time went.
    pub timings: JobTimings,
}

/// What identifies a request's contents, to tell a retry (same contents)
/// from a different request under the same request_id.
pub type Fingerprint = u64;

/// A new job's description.
#[derive(Clone, Debug)]
pub struct NewJob {
    /// The caller's idempotency key (may be empty).
    pub request_id: String,
    /// The kind.
    pub kind: Kind,
    /// Its parameters' id (empty for unsupported kinds).
    pub circuit_id: String,
    /// The engine priority.
    pub priority: i32,
    /// Hash of the request's contents.
    pub fingerprint: Fingerprint,
}

/// Whether `begin` made a job or found one in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Begin {
    /// A new job: the caller must `attach` it to the engine or `fail` it.
    New(String),
    /// The request_id is in flight: this is its job.
    Existing(String),
}

/// Who is asking (`Prove` waiters may cancel on disconnect).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// `SubmitProof`.
    Submit,
    /// `Prove`.
    Prove,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Preparing,
    Queued,
    Running,
    Finished,
}

struct Record {
    request_id: String,
    kind: Kind,
    circuit_id: String,
    priority: i32,
    fingerprint: Fingerprint,
    received: Instant,
    phase: Phase,
    handle: Option<Arc<JobHandle>>,
    engine_id: Option<u64>,
    engine_t: f64,
    srs_load: Duration,
    first_start: Option<f64>,
    /// A job beside the engine: received until it started.
    direct_wait: Duration,
    cancel_requested: bool,
    prove_waiters: u32,
    submitted: bool,
    outcome: watch::Sender<Option<Arc<Outcome>>>,
}

#[derive(Default)]
struct State {
    next: u64,
    closed: bool,
    shutdown_reason: Option<String>,
    jobs: HashMap<String, Record>,
    in_flight: HashMap<String, String>,
    by_engine: HashMap<u64, String>,
    retained: VecDeque<String>,
    /// Per device ordinal: the job whose partition is in its device region.
    on_device: HashMap<u32, String>,
    /// First synthesis start of engine jobs not attached yet: a poll of the
    /// timeline can come between the engine accepting a job and `attach`.
    /// Bounded by [`EARLY_STARTS`].
    early_starts: std::collections::BTreeMap<u64, f64>,
    unfinished: usize,
    completed: u64,
    failed: u64,
    cancelled: u64,
}

/// Per-kind job counts for status reports.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct QueueCounts {
    /// The kind's proto name.
    pub proof_kind: String,
    /// Accepted, no partition started (or still loading parameters).
    pub pending: u32,
    /// Some partition started.
    pub in_progress: u32,
}

/// Counts over all jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct JobCounts {
    /// Per kind, every kind listed.
    pub queues: Vec<QueueCounts>,
    /// Completed since start.
    pub completed: u64,
    /// Failed since start.
    pub failed: u64,
    /// Cancelled since start.
    pub cancelled: u64,
    /// Unfinished jobs per circuit id.
    pub by_circuit: HashMap<String, u32>,
    /// Requests (`Prove`, `AwaitProof`) waiting for an unfinished job.
    pub waiting_clients: u32,
}

/// The job table.
pub struct Registry {
    state: Mutex<State>,
    idle: tokio::sync::Notify,
    keep_results: usize,
    on_disconnect: DisconnectMode,
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("unfinished", &self.unfinished())
            .finish()
    }
}

impl Registry {
    /// An empty table.
    pub fn new(keep_results: usize, on_disconnect: DisconnectMode, metrics: Arc<Metrics>) -> Self {
        Self {
            state: Mutex::new(State::default()),
            idle: tokio::sync::Notify::new(),
            keep_results: keep_results.max(1),
            on_disconnect,
            metrics,
        }
    }

    /// Creates a job, or finds the one in flight under the same request_id.
    pub fn begin(&self, new: NewJob, via: Via) -> Result<Begin, DaemonError> {
        let mut st = self.state.lock();
        if st.closed {
            return Err(DaemonError::ShuttingDown);
        }
        if !new.request_id.is_empty() {
            if let Some(id) = st.in_flight.get(&new.request_id).cloned() {
                let r = st
                    .jobs
                    .get_mut(&id)
                    .expect("in-flight jobs are in the table");
                if r.fingerprint != new.fingerprint || r.kind != new.kind {
                    return Err(DaemonError::Conflict(new.request_id));
                }
                match via {
                    Via::Prove => r.prove_waiters += 1,
                    Via::Submit => r.submitted = true,
                }
                tracing::info!(job_id = %id, request_id = %new.request_id, "request already in flight: attached");
                return Ok(Begin::Existing(id));
            }
        }
        let id = format!("job-{}", st.next);
        st.next += 1;
        if !new.request_id.is_empty() {
            st.in_flight.insert(new.request_id.clone(), id.clone());
        }
        self.metrics.submitted(new.kind);
        st.unfinished += 1;
        st.jobs.insert(
            id.clone(),
            Record {
                request_id: new.request_id,
                kind: new.kind,
                circuit_id: new.circuit_id,
                priority: new.priority,
                fingerprint: new.fingerprint,
                received: Instant::now(),
                phase: Phase::Preparing,
                handle: None,
                engine_id: None,
                engine_t: 0.0,
                srs_load: Duration::ZERO,
                first_start: None,
                direct_wait: Duration::ZERO,
                cancel_requested: false,
                prove_waiters: u32::from(via == Via::Prove),
                submitted: via == Via::Submit,
                outcome: watch::channel(None).0,
            },
        );
        Ok(Begin::New(id))
    }

    /// Records that the engine accepted job `id`. Cancels it at once when
    /// a cancel arrived while its parameters were loading.
    pub fn attach(
        &self,
        id: &str,
        handle: Arc<JobHandle>,
        engine_id: u64,
        engine_t: f64,
        srs_load: Duration,
    ) {
        let mut st = self.state.lock();
        st.by_engine.insert(engine_id, id.to_string());
        let early = st.early_starts.remove(&engine_id);
        let Some(r) = st.jobs.get_mut(id) else {
            return;
        };
        r.handle = Some(handle.clone());
        r.engine_id = Some(engine_id);
        r.engine_t = engine_t;
        r.srs_load = srs_load;
        if r.phase == Phase::Preparing {
            r.phase = if early.is_some() {
                Phase::Running
            } else {
                Phase::Queued
            };
        }
        if let Some(t) = early {
            r.first_start = Some(r.first_start.map_or(t, |s| s.min(t)));
        }
        let cancel = r.cancel_requested || st.shutdown_reason.is_some();
        drop(st);
        if cancel {
            handle.cancel();
        }
    }

    /// Ends job `id` with a failure that happened before the engine had it
    /// (unsupported kind, parameters, a refused submission). `counted`:
    /// whether it counts as a failed proof.
    pub fn fail(&self, id: &str, message: String, counted: bool) {
        let outcome = ended(Err::<Vec<u8>, _>(message), JobTimings::default());
        self.finish(id, outcome, counted);
    }

    /// Ends job `id` with the engine's result, its partition proofs made
    /// into the answer's bytes by `finish` (an error fails the job).
    pub fn finish_from_engine(
        &self,
        id: &str,
        result: Result<JobOutput, EngineError>,
        host: &EngineHost,
        finish: impl FnOnce(Vec<u8>) -> Result<Vec<u8>, DaemonError>,
    ) {
        // Events not yet read may hold this job's first start.
        self.apply_events(&host.take_events());
        let (received, engine_t, srs_load, first_start, reason) = {
            let st = self.state.lock();
            let Some(r) = st.jobs.get(id) else {
                return;
            };
            (
                r.received,
                r.engine_t,
                r.srs_load,
                r.first_start,
                st.shutdown_reason.clone(),
            )
        };
        let mut timings = JobTimings {
            srs_load,
            total: received.elapsed(),
            ..JobTimings::default()
        };
        if let Some(s) = first_start {
            timings.queue_wait = Duration::from_secs_f64((s - engine_t).max(0.0));
        }
        let outcome = match result {
            Ok(out) => {
                for p in &out.partitions {
                    timings.synthesis += p.synthesis;
                    timings.gpu += p.gpu;
                }
                let finished = finish(out.proof_bytes());
                // The answer is ready only now (an aggregate takes seconds).
                timings.total = received.elapsed();
                ended(finished, timings)
            }
            Err(EngineError::Cancelled | EngineError::ShutDown) => cancelled(reason, timings),
            Err(e) => ended(Err::<Vec<u8>, _>(e), timings),
        };
        self.finish(id, outcome, true);
    }

    /// Starts job `id`, which runs beside the engine (an aggregation):
    /// `false` when a cancel or a shutdown came first (the job is then
    /// finished as cancelled and must not run).
    pub fn start_direct(&self, id: &str) -> bool {
        let mut st = self.state.lock();
        let reason = st.shutdown_reason.clone();
        let Some(r) = st.jobs.get_mut(id) else {
            return false;
        };
        if r.phase == Phase::Finished {
            return false;
        }
        if r.cancel_requested || reason.is_some() {
            drop(st);
            self.finish(id, cancelled(reason, JobTimings::default()), true);
            return false;
        }
        r.phase = Phase::Running;
        r.direct_wait = r.received.elapsed();
        true
    }

    /// Ends job `id`, started by [`Self::start_direct`], with its result:
    /// cancelled if a cancel arrived while it ran (its work is dropped).
    pub fn finish_direct(&self, id: &str, result: Result<Vec<u8>, DaemonError>) {
        let (received, waited, cancel, reason) = {
            let st = self.state.lock();
            let Some(r) = st.jobs.get(id) else {
                return;
            };
            (
                r.received,
                r.direct_wait,
                r.cancel_requested,
                st.shutdown_reason.clone(),
            )
        };
        let timings = JobTimings {
            queue_wait: waited,
            total: received.elapsed(),
            ..JobTimings::default()
        };
        let outcome = match cancel {
            true => cancelled(reason, timings),
            false => ended(result, timings),
        };
        self.finish(id, outcome, true);
    }

    fn finish(&self, id: &str, outcome: Outcome, counted: bool) {
        let mut st = self.state.lock();
        let Some(r) = st.jobs.get_mut(id) else {
            return;
        };
        if r.phase == Phase::Finished {
            return;
        }
        r.phase = Phase::Finished;
        r.handle = None;
        let (kind, request_id, engine_id) = (r.kind, r.request_id.clone(), r.engine_id);
        match outcome.status {
            Status::Completed => tracing::info!(
                job_id = id,
                request_id,
                total_ms = outcome.timings.total.as_millis() as u64,
                "job completed"
            ),
            Status::Failed => {
                tracing::warn!(job_id = id, request_id, error = %outcome.error, "job failed")
            }
            Status::Cancelled => {
                tracing::warn!(job_id = id, request_id, reason = %outcome.error, "job cancelled")
            }
        }
        if counted {
            self.metrics.finished(kind, &outcome);
        }
        r.outcome.send_replace(Some(Arc::new(outcome.clone())));
        if st.in_flight.get(&request_id).map(String::as_str) == Some(id) {
            st.in_flight.remove(&request_id);
        }
        if let Some(e) = engine_id {
            st.by_engine.remove(&e);
        }
        st.on_device.retain(|_, j| j != id);
        match (outcome.status, counted) {
            (Status::Completed, _) => st.completed += 1,
            (Status::Failed, true) => st.failed += 1,
            (Status::Cancelled, _) => st.cancelled += 1,
            (Status::Failed, false) => {}
        }
        st.unfinished -= 1;
        st.retained.push_back(id.to_string());
        while st.retained.len() > self.keep_results {
            if let Some(old) = st.retained.pop_front() {
                st.jobs.remove(&old);
            }
        }
        if st.unfinished == 0 {
            self.idle.notify_waiters();
        }
    }

    /// Applies timeline events: a job whose partition started is running;
    /// a device's region holds the job of its last `gpu_start` until the
    /// matching `gpu_end`.
    pub fn apply_events(&self, events: &[Event]) {
        if events.is_empty() {
            return;
        }
        let mut st = self.state.lock();
        for e in events {
            let Some(j) = e.job else {
                continue;
            };
            let Some(id) = st.by_engine.get(&j).cloned() else {
                if e.kind == EventKind::SynthStart {
                    let t = st.early_starts.entry(j).or_insert(e.t);
                    *t = t.min(e.t);
                    while st.early_starts.len() > EARLY_STARTS {
                        st.early_starts.pop_first();
                    }
                }
                continue;
            };
            match (e.kind, e.device) {
                (EventKind::SynthStart, _) => {
                    if let Some(r) = st.jobs.get_mut(&id) {
                        r.first_start = Some(r.first_start.map_or(e.t, |s| s.min(e.t)));
                        if r.phase == Phase::Queued {
                            r.phase = Phase::Running;
                        }
                    }
                }
                (EventKind::GpuStart, Some(d)) => {
                    st.on_device.insert(d, id);
                }
                (EventKind::GpuEnd, Some(d)) if st.on_device.get(&d) == Some(&id) => {
                    st.on_device.remove(&d);
                }
                _ => {}
            }
        }
    }

    /// Per device ordinal: (job id, proof kind name) of the partition in
    /// its device region now.
    pub fn on_device(&self) -> HashMap<u32, (String, &'static str)> {
        let st = self.state.lock();
        st.on_device
            .iter()
            .filter_map(|(d, id)| {
                let r = st.jobs.get(id)?;
                (r.phase != Phase::Finished).then(|| (*d, (id.clone(), r.kind.name())))
            })
            .collect()
    }

    /// Unfinished jobs that run before job `id` (same or higher priority,
    /// accepted earlier).
    pub fn queue_position(&self, id: &str) -> u32 {
        let st = self.state.lock();
        let Some(me) = st.jobs.get(id) else {
            return 0;
        };
        if me.phase == Phase::Finished {
            return 0;
        }
        st.jobs
            .iter()
            .filter(|(oid, r)| {
                oid.as_str() != id
                    && r.phase != Phase::Finished
                    && r.priority >= me.priority
                    && r.received <= me.received
            })
            .count() as u32
    }

    /// A receiver of job `id`'s outcome.
    pub fn subscribe(
        &self,
        id: &str,
    ) -> Result<watch::Receiver<Option<Arc<Outcome>>>, DaemonError> {
        self.state
            .lock()
            .jobs
            .get(id)
            .map(|r| r.outcome.subscribe())
            .ok_or_else(|| {
                DaemonError::NotFound(format!(
                    "job '{id}' (unknown, or its result is no longer kept)"
                ))
            })
    }

    /// Cancels job `id`; true when a partition of it had started. A
    /// finished job is left as it is (false).
    pub fn cancel(&self, id: &str, host: &EngineHost) -> Result<bool, DaemonError> {
        self.apply_events(&host.take_events());
        let mut st = self.state.lock();
        let r = st
            .jobs
            .get_mut(id)
            .ok_or_else(|| DaemonError::NotFound(format!("job '{id}'")))?;
        let was_running = r.phase == Phase::Running;
        let handle = match r.phase {
            Phase::Finished => return Ok(false),
            Phase::Preparing => {
                r.cancel_requested = true;
                None
            }
            // A job beside the engine (no handle) reads the flag when
            // it ends.
            Phase::Queued | Phase::Running => {
                r.cancel_requested = true;
                r.handle.clone()
            }
        };
        drop(st);
        tracing::info!(job_id = id, was_running, "cancel");
        if let Some(h) = handle {
            h.cancel();
        }
        Ok(was_running)
    }

    /// A `Prove` caller of job `id` went away before its answer. With
    /// `on_disconnect = cancel`, the job is cancelled when nobody else waits
    /// for it and it was never submitted with `SubmitProof`.
    pub fn prove_abandoned(&self, id: &str) {
        let mut st = self.state.lock();
        let Some(r) = st.jobs.get_mut(id) else {
            return;
        };
        r.prove_waiters = r.prove_waiters.saturating_sub(1);
        let cancel = self.on_disconnect == DisconnectMode::Cancel
            && r.prove_waiters == 0
            && !r.submitted
            && r.phase != Phase::Finished;
        tracing::info!(job_id = id, cancel, "Prove caller disconnected");
        if !cancel {
            return;
        }
        let handle = r.handle.clone();
        r.cancel_requested = true;
        drop(st);
        if let Some(h) = handle {
            h.cancel();
        }
    }

    /// Refuses new jobs from now on.
    pub fn close(&self) {
        self.state.lock().closed = true;
    }

    /// Cancels every unfinished job; their waiters get CANCELLED with
    /// `reason`. Logs each one, so none ends silently.
    pub fn cancel_all(&self, reason: &str) {
        let handles: Vec<(String, String, Option<Arc<JobHandle>>)> = {
            let mut st = self.state.lock();
            st.shutdown_reason = Some(reason.to_string());
            st.jobs
                .iter_mut()
                .filter(|(_, r)| r.phase != Phase::Finished)
                .map(|(id, r)| {
                    r.cancel_requested = true;
                    (id.clone(), r.request_id.clone(), r.handle.clone())
                })
                .collect()
        };
        for (id, request_id, h) in handles {
            tracing::warn!(job_id = %id, request_id, reason, "cancelling unfinished job");
            if let Some(h) = h {
                h.cancel();
            }
        }
    }

    /// Unfinished jobs.
    pub fn unfinished(&self) -> usize {
        self.state.lock().unfinished
    }

    /// Waits until no job is unfinished, at most `limit`; true if reached.
    pub async fn wait_idle(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let notified = self.idle.notified();
            if self.unfinished() == 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.unfinished() == 0;
            }
        }
    }

    /// Counts for status reports.
    pub fn counts(&self) -> JobCounts {
        let st = self.state.lock();
        let mut queues: Vec<QueueCounts> = Kind::ALL
            .iter()
            .map(|k| QueueCounts {
                proof_kind: k.name().to_string(),
                ..QueueCounts::default()
            })
            .collect();
        let mut by_circuit: HashMap<String, u32> = HashMap::new();
        let mut waiting_clients = 0u32;
        for r in st.jobs.values() {
            let q = &mut queues[Kind::ALL.iter().position(|k| *k == r.kind).expect("listed")];
            match r.phase {
                Phase::Preparing | Phase::Queued => q.pending += 1,
                Phase::Running => q.in_progress += 1,
                Phase::Finished => continue,
            }
            if !r.circuit_id.is_empty() {
                *by_circuit.entry(r.circuit_id.clone()).or_default() += 1;
            }
            // Each waiting request holds one receiver (`subscribe`).
            waiting_clients += r.outcome.receiver_count() as u32;
        }
        JobCounts {
            queues,
            completed: st.completed,
            failed: st.failed,
            cancelled: st.cancelled,
            by_circuit,
            waiting_clients,
        }
    }
}

/// The outcome of a job cancelled by a caller (or by a shutdown: `reason`).
/// A job's answer, or why it failed.
fn ended<E: std::fmt::Display>(result: Result<Vec<u8>, E>, timings: JobTimings) -> Outcome {
    match result {
        Ok(proof) => Outcome {
            status: Status::Completed,
            proof,
            error: String::new(),
            timings,
        },
        Err(e) => Outcome {
            status: Status::Failed,
            proof: Vec::new(),
            error: e.to_string(),
            timings,
        },
    }
}

fn cancelled(reason: Option<String>, timings: JobTimings) -> Outcome {
    Outcome {
        status: Status::Cancelled,
        proof: Vec::new(),
        error: reason.unwrap_or_else(|| "cancelled".into()),
        timings,
    }
}
