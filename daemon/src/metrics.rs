//! Prometheus metrics (the `prometheus` crate renders the text).
//!
//! Counters and histograms move as jobs begin and end. Gauges, and the
//! counters whose source is the engine's own cumulative figures (busy
//! seconds, memory wait, parameter loads), are brought up to date at each
//! scrape, so `GetMetrics` and `GET /metrics` always show the present.
//!
//! Conventions (checked by daemon/tests/metrics.rs, and by `promtool check
//! metrics` in the Python suite): counters end in `_total`; one quantity
//! per name, with labels
//! only for the same quantity of different things (a proof kind, a
//! device); base units (seconds, bytes); proof kinds labelled `proof_kind`
//! with Curio's values ([`Kind::label`]). docs/DAEMON.md lists every name.

use crate::engine_glue::EngineHost;
use crate::jobs::{JobCounts, Kind, Outcome, Status};
use prometheus::{
    Counter, CounterVec, Encoder, Gauge, HistogramOpts, HistogramVec, IntCounter, IntCounterVec,
    IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Curio's per-kind proof counts, named as its daemon names them so its
/// dashboards read ours unchanged. Typed gauge, though they only grow:
/// a counter without `_total` fails `promtool check metrics`, and the
/// counters proper are `cuzk_jobs_finished_total{proof_kind,status}`.
pub const CURIO_COUNTS: [&str; 2] = ["cuzk_proofs_completed", "cuzk_proofs_failed"];

/// The daemon's metrics.
pub struct Metrics {
    registry: Registry,
    submitted: IntCounterVec,
    finished: IntCounterVec,
    completed: IntCounter,
    failed: IntCounter,
    completed_by_kind: IntGaugeVec,
    failed_by_kind: IntGaugeVec,
    duration: HistogramVec,
    queue_wait: HistogramVec,
    jobs: IntGaugeVec,
    queue_depth: IntGauge,
    running_jobs: IntGauge,
    waiting_clients: IntGauge,
    partitions_waiting: IntGauge,
    gpu_queue: IntGauge,
    synthesis_workers: IntGauge,
    synthesis_busy: IntGauge,
    gpu_workers: IntGauge,
    gpu_workers_busy: IntGauge,
    device_busy: CounterVec,
    device_memory_total: IntGaugeVec,
    device_memory_free: IntGaugeVec,
    memory_budget: IntGauge,
    memory_reserved: IntGauge,
    memory_reserved_peak: IntGauge,
    memory_held: IntGauge,
    memory_held_peak: IntGauge,
    memory_overcommit: IntGauge,
    memory_srs: IntGauge,
    memory_wait: Counter,
    srs_loads: IntCounter,
    srs_evictions: IntCounter,
    srs_bytes: IntGauge,
    srs_sets: IntGauge,
    build_info: IntGaugeVec,
    uptime: Gauge,
    /// One scrape at a time: the engine-sourced counters catch up by
    /// difference.
    render: parking_lot::Mutex<()>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// Registers metrics into one registry, each created from its name and help.
struct Reg(Registry);

impl Reg {
    fn add<M: prometheus::core::Collector + Clone + 'static>(
        &self,
        m: Result<M, prometheus::Error>,
    ) -> Result<M, prometheus::Error> {
        let m = m?;
        self.0.register(Box::new(m.clone()))?;
        Ok(m)
    }
    fn int(&self, name: &str, help: &str) -> Result<IntGauge, prometheus::Error> {
        self.add(IntGauge::new(name, help))
    }
    fn int_vec(
        &self,
        name: &str,
        help: &str,
        l: &[&str],
    ) -> Result<IntGaugeVec, prometheus::Error> {
        self.add(IntGaugeVec::new(Opts::new(name, help), l))
    }
    fn count(&self, name: &str, help: &str) -> Result<IntCounter, prometheus::Error> {
        self.add(IntCounter::new(name, help))
    }
    fn count_vec(
        &self,
        name: &str,
        help: &str,
        l: &[&str],
    ) -> Result<IntCounterVec, prometheus::Error> {
        self.add(IntCounterVec::new(Opts::new(name, help), l))
    }
    fn hist(&self, name: &str, help: &str, b: &[f64]) -> Result<HistogramVec, prometheus::Error> {
        self.add(HistogramVec::new(
            HistogramOpts::new(name, help).buckets(b.to_vec()),
            &["proof_kind"],
        ))
    }
}

/// Raises an integer counter to `to` (the engine's cumulative figure).
fn catch_up(c: &IntCounter, to: u64) {
    c.inc_by(to.saturating_sub(c.get()));
}

/// Raises a float counter to `to`.
fn catch_up_f(c: &Counter, to: f64) {
    let d = to - c.get();
    if d > 0.0 {
        c.inc_by(d);
    }
}

fn as_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Metrics {
    /// Creates and registers every metric, the process collector included
    /// (CPU seconds, resident memory, open files, threads).
    pub fn new(version: &str, backend: &str) -> Result<Self, prometheus::Error> {
        let r = Reg(Registry::new());
        #[cfg(target_os = "linux")]
        r.0.register(Box::new(
            prometheus::process_collector::ProcessCollector::for_self(),
        ))?;
        // Proof times span 10 ms (small bench circuits) to an hour (a
        // 32 GiB PoRep on a slow host).
        let buckets = prometheus::exponential_buckets(0.01, 2.0, 19)?;
        let kind = &["proof_kind"];
        let m = Self {
            submitted: r.count_vec("cuzk_jobs_submitted_total", "Jobs accepted", kind)?,
            finished: r.count_vec(
                "cuzk_jobs_finished_total",
                "Jobs ended, by status (completed, failed, cancelled)",
                &["proof_kind", "status"],
            )?,
            completed: r.count("cuzk_proofs_completed_total", "Proofs completed")?,
            failed: r.count("cuzk_proofs_failed_total", "Proofs failed")?,
            completed_by_kind: r.int_vec(
                CURIO_COUNTS[0],
                "Proofs completed since start, per proof kind (Curio's name)",
                kind,
            )?,
            failed_by_kind: r.int_vec(
                CURIO_COUNTS[1],
                "Proofs failed since start, per proof kind (Curio's name)",
                kind,
            )?,
            duration: r.hist(
                "cuzk_proof_duration_seconds",
                "Request received to proof ready, completed jobs",
                &buckets,
            )?,
            queue_wait: r.hist(
                "cuzk_queue_wait_seconds",
                "Accepted to first partition started, completed jobs",
                &buckets,
            )?,
            jobs: r.int_vec(
                "cuzk_jobs",
                "Unfinished jobs, by state (pending, running)",
                &["proof_kind", "state"],
            )?,
            queue_depth: r.int("cuzk_queue_depth", "Jobs accepted with no partition started")?,
            running_jobs: r.int("cuzk_running_jobs", "Jobs with a partition started")?,
            waiting_clients: r.int(
                "cuzk_waiting_clients",
                "Requests (Prove, AwaitProof) waiting for an unfinished job",
            )?,
            partitions_waiting: r.int(
                "cuzk_partitions_waiting",
                "Partitions of accepted jobs not yet started",
            )?,
            gpu_queue: r.int(
                "cuzk_gpu_queue_partitions",
                "Synthesized partitions waiting for a GPU worker",
            )?,
            synthesis_workers: r.int("cuzk_synthesis_workers", "Synthesis workers")?,
            synthesis_busy: r.int("cuzk_synthesis_workers_busy", "Synthesis workers busy")?,
            gpu_workers: r.int("cuzk_gpu_workers", "GPU workers, over all devices")?,
            gpu_workers_busy: r.int(
                "cuzk_gpu_workers_busy",
                "GPU workers holding a partition",
            )?,
            device_busy: r.add(CounterVec::new(
                Opts::new(
                    "cuzk_device_busy_seconds_total",
                    "Seconds a device spent proving (in its device region)",
                ),
                &["device"],
            ))?,
            device_memory_total: r.int_vec(
                "cuzk_device_memory_total_bytes",
                "A CUDA device's memory",
                &["device"],
            )?,
            device_memory_free: r.int_vec(
                "cuzk_device_memory_free_bytes",
                "A CUDA device's free memory, as CUDA reports it (all processes)",
                &["device"],
            )?,
            memory_budget: r.int("cuzk_memory_budget_bytes", "The host memory budget")?,
            memory_reserved: r.int(
                "cuzk_memory_reserved_bytes",
                "Reserved from the budget now (partitions and parameter sets)",
            )?,
            memory_reserved_peak: r.int(
                "cuzk_memory_reserved_peak_bytes",
                "Highest reservation since start",
            )?,
            memory_held: r.int(
                "cuzk_memory_held_bytes",
                "Bytes synthesized partitions really hold now",
            )?,
            memory_held_peak: r.int(
                "cuzk_memory_held_peak_bytes",
                "Highest held bytes since start",
            )?,
            memory_overcommit: r.int(
                "cuzk_memory_overcommit_bytes",
                "Bytes by which partitions exceeded their reservations (0 when every estimate held)",
            )?,
            memory_srs: r.int(
                "cuzk_memory_srs_bytes",
                "Budget reserved for parameter sets",
            )?,
            memory_wait: r.add(Counter::new(
                "cuzk_memory_wait_seconds_total",
                "Seconds synthesis workers waited for the memory budget",
            ))?,
            srs_loads: r.count("cuzk_srs_loads_total", "Parameter sets loaded")?,
            srs_evictions: r.count("cuzk_srs_evictions_total", "Parameter sets evicted")?,
            srs_bytes: r.int("cuzk_srs_loaded_bytes", "Bytes of the parameter sets in memory")?,
            srs_sets: r.int("cuzk_srs_loaded_sets", "Parameter sets in memory")?,
            build_info: r.int_vec(
                "cuzk_build_info",
                "Always 1; the labels say which build and backend serve",
                &["version", "backend"],
            )?,
            uptime: r.add(Gauge::new(
                "cuzk_uptime_seconds",
                "Seconds since the daemon started",
            ))?,
            render: parking_lot::Mutex::new(()),
            registry: r.0,
        };
        m.build_info.with_label_values(&[version, backend]).set(1);
        // Every kind present from the start, so `rate()` sees a series
        // before its first event.
        for k in Kind::ALL {
            m.submitted.with_label_values(&[k.label()]);
            m.completed_by_kind.with_label_values(&[k.label()]);
            m.failed_by_kind.with_label_values(&[k.label()]);
        }
        Ok(m)
    }

    /// A job was accepted.
    pub fn submitted(&self, kind: Kind) {
        self.submitted.with_label_values(&[kind.label()]).inc();
    }

    /// A job ended.
    pub fn finished(&self, kind: Kind, o: &Outcome) {
        let k = kind.label();
        let status = match o.status {
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        };
        self.finished.with_label_values(&[k, status]).inc();
        match o.status {
            Status::Completed => {
                self.completed.inc();
                self.completed_by_kind.with_label_values(&[k]).inc();
                self.duration
                    .with_label_values(&[k])
                    .observe(o.timings.total.as_secs_f64());
                self.queue_wait
                    .with_label_values(&[k])
                    .observe(o.timings.queue_wait.as_secs_f64());
            }
            Status::Failed => {
                self.failed.inc();
                self.failed_by_kind.with_label_values(&[k]).inc();
            }
            Status::Cancelled => {}
        }
    }

    /// Refreshes the gauges and renders the Prometheus text.
    pub fn render(&self, host: &EngineHost, counts: &JobCounts, uptime_s: f64) -> String {
        let _one = self.render.lock();
        let s = host.stats();
        let (mut pending, mut running) = (0i64, 0i64);
        for (k, q) in Kind::ALL.iter().zip(&counts.queues) {
            self.jobs
                .with_label_values(&[k.label(), "pending"])
                .set(q.pending.into());
            self.jobs
                .with_label_values(&[k.label(), "running"])
                .set(q.in_progress.into());
            pending += i64::from(q.pending);
            running += i64::from(q.in_progress);
        }
        self.queue_depth.set(pending);
        self.running_jobs.set(running);
        self.waiting_clients.set(counts.waiting_clients.into());
        let n = |v: usize| as_i64(v as u64);
        self.partitions_waiting.set(n(s.partitions_waiting));
        self.gpu_queue.set(n(s.gpu_queue));
        self.synthesis_workers.set(n(s.synthesis_workers));
        self.synthesis_busy.set(n(s.synthesis_busy));
        self.gpu_workers.set(n(s.gpu_workers));
        self.gpu_workers_busy.set(n(s.gpu_workers_busy));
        let devices = &host.options().devices;
        for (i, busy) in s.device_busy_s.iter().enumerate() {
            let d = devices.get(i).map_or(i.to_string(), u32::to_string);
            catch_up_f(&self.device_busy.with_label_values(&[&d]), *busy);
        }
        // Real CUDA devices only: the CPU backend's virtual ones have no
        // memory of their own.
        for d in host.devices().iter().filter(|d| d.total_bytes > 0) {
            let o = d.ordinal.to_string();
            self.device_memory_total
                .with_label_values(&[&o])
                .set(as_i64(d.total_bytes));
            self.device_memory_free
                .with_label_values(&[&o])
                .set(as_i64(d.free_bytes));
        }
        self.memory_budget.set(as_i64(s.memory_budget));
        self.memory_reserved.set(as_i64(s.memory_reserved));
        self.memory_reserved_peak.set(as_i64(s.memory_peak));
        self.memory_held.set(as_i64(s.memory_held));
        self.memory_held_peak.set(as_i64(s.memory_held_peak));
        self.memory_overcommit.set(as_i64(s.memory_overcommit));
        self.memory_srs.set(as_i64(s.memory_srs));
        catch_up_f(&self.memory_wait, s.budget_wait_s);
        let (loads, evictions) = host.srs_counters();
        catch_up(&self.srs_loads, loads);
        catch_up(&self.srs_evictions, evictions);
        let loaded = host.loaded();
        self.srs_bytes
            .set(as_i64(loaded.iter().map(|l| l.bytes).sum()));
        self.srs_sets.set(n(loaded.len()));
        self.uptime.set(uptime_s);
        let mut buf = Vec::new();
        if let Err(e) = TextEncoder::new().encode(&self.registry.gather(), &mut buf) {
            tracing::error!(error = %e, "cannot encode metrics");
        }
        String::from_utf8(buf).unwrap_or_default()
    }
}
