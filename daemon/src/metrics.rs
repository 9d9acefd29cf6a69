//! Prometheus metrics (the `prometheus` crate renders the text).
//!
//! Counters and histograms are updated as jobs begin and end; gauges are
//! refreshed from the engine's and the job table's counters at each scrape,
//! so `GetMetrics` and `GET /metrics` always show the present.

use crate::engine_glue::EngineHost;
use crate::jobs::{JobCounts, Kind, Outcome, Status};
use prometheus::{
    Encoder, Gauge, GaugeVec, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// The daemon's metrics.
pub struct Metrics {
    registry: Registry,
    submitted: IntCounterVec,
    finished: IntCounterVec,
    completed: IntCounter,
    failed: IntCounter,
    duration: HistogramVec,
    queue_wait: HistogramVec,
    jobs: IntGaugeVec,
    engine: IntGaugeVec,
    device_busy: GaugeVec,
    memory: IntGaugeVec,
    budget_wait: Gauge,
    srs_loads: IntCounter,
    srs_evictions: IntCounter,
    srs_bytes: IntGauge,
    srs_sets: IntGauge,
    uptime: Gauge,
    /// One scrape at a time: the SRS counters catch up by difference.
    render: parking_lot::Mutex<()>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

fn opts(name: &str, help: &str) -> Opts {
    Opts::new(name, help)
}

impl Metrics {
    /// Creates and registers every metric.
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new();
        // Proof times span 10 ms (small bench circuits) to an hour (a
        // 32 GiB PoRep on a slow host).
        let buckets = prometheus::exponential_buckets(0.01, 2.0, 19)?;
        let m = Self {
            submitted: IntCounterVec::new(
                opts("cuzk_jobs_submitted_total", "Jobs accepted, by proof kind"),
                &["kind"],
            )?,
            finished: IntCounterVec::new(
                opts("cuzk_jobs_finished_total", "Jobs ended, by proof kind and status (completed, failed, cancelled)"),
                &["kind", "status"],
            )?,
            completed: IntCounter::new("cuzk_proofs_completed_total", "Proofs completed")?,
            failed: IntCounter::new("cuzk_proofs_failed_total", "Proofs failed")?,
            duration: HistogramVec::new(
                HistogramOpts::new("cuzk_proof_duration_seconds", "Request received to proof ready, completed jobs, by proof kind")
                    .buckets(buckets.clone()),
                &["kind"],
            )?,
            queue_wait: HistogramVec::new(
                HistogramOpts::new("cuzk_queue_wait_seconds", "Accepted to first partition started, completed jobs, by proof kind")
                    .buckets(buckets),
                &["kind"],
            )?,
            jobs: IntGaugeVec::new(
                opts("cuzk_jobs", "Unfinished jobs by proof kind and state (pending, running)"),
                &["kind", "state"],
            )?,
            engine: IntGaugeVec::new(
                opts("cuzk_engine", "Engine counters: partitions_waiting, gpu_queue, synthesis_busy, synthesis_workers, gpu_workers_busy, gpu_workers, jobs_active"),
                &["counter"],
            )?,
            device_busy: GaugeVec::new(
                opts("cuzk_device_busy_fraction", "Fraction of the uptime each device spent in its device region"),
                &["device"],
            )?,
            memory: IntGaugeVec::new(
                opts("cuzk_memory_bytes", "Host memory budget: budget, reserved (partitions and parameter sets), reserved_peak, held (synthesized partitions), held_peak, overcommit, srs (parameter sets)"),
                &["what"],
            )?,
            budget_wait: Gauge::new("cuzk_memory_wait_seconds", "Seconds synthesis workers waited for the memory budget")?,
            srs_loads: IntCounter::new("cuzk_srs_loads_total", "Parameter sets loaded since start")?,
            srs_evictions: IntCounter::new("cuzk_srs_evictions_total", "Parameter sets evicted since start")?,
            srs_bytes: IntGauge::new("cuzk_srs_loaded_bytes", "Bytes of the parameter sets in memory")?,
            srs_sets: IntGauge::new("cuzk_srs_loaded_sets", "Parameter sets in memory")?,
            uptime: Gauge::new("cuzk_uptime_seconds", "Seconds since the daemon started")?,
            render: parking_lot::Mutex::new(()),
            registry,
        };
        let r = &m.registry;
        r.register(Box::new(m.submitted.clone()))?;
        r.register(Box::new(m.finished.clone()))?;
        r.register(Box::new(m.completed.clone()))?;
        r.register(Box::new(m.failed.clone()))?;
        r.register(Box::new(m.duration.clone()))?;
        r.register(Box::new(m.queue_wait.clone()))?;
        r.register(Box::new(m.jobs.clone()))?;
        r.register(Box::new(m.engine.clone()))?;
        r.register(Box::new(m.device_busy.clone()))?;
        r.register(Box::new(m.memory.clone()))?;
        r.register(Box::new(m.budget_wait.clone()))?;
        r.register(Box::new(m.srs_loads.clone()))?;
        r.register(Box::new(m.srs_evictions.clone()))?;
        r.register(Box::new(m.srs_bytes.clone()))?;
        r.register(Box::new(m.srs_sets.clone()))?;
        r.register(Box::new(m.uptime.clone()))?;
        Ok(m)
    }

    /// A job was accepted.
    pub fn submitted(&self, kind: Kind) {
        self.submitted.with_label_values(&[kind.name()]).inc();
    }

    /// A job ended.
    pub fn finished(&self, kind: Kind, o: &Outcome) {
        let status = match o.status {
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        };
        self.finished
            .with_label_values(&[kind.name(), status])
            .inc();
        match o.status {
            Status::Completed => {
                self.completed.inc();
                self.duration
                    .with_label_values(&[kind.name()])
                    .observe(o.timings.total.as_secs_f64());
                self.queue_wait
                    .with_label_values(&[kind.name()])
                    .observe(o.timings.queue_wait.as_secs_f64());
            }
            Status::Failed => self.failed.inc(),
            Status::Cancelled => {}
        }
    }

    /// Refreshes the gauges and renders the Prometheus text.
    pub fn render(&self, host: &EngineHost, counts: &JobCounts, uptime_s: f64) -> String {
        let _one = self.render.lock();
        let s = host.stats();
        for q in &counts.queues {
            self.jobs
                .with_label_values(&[&q.proof_kind, "pending"])
                .set(q.pending.into());
            self.jobs
                .with_label_values(&[&q.proof_kind, "running"])
                .set(q.in_progress.into());
        }
        let as_i64 = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        for (name, v) in [
            ("partitions_waiting", s.partitions_waiting),
            ("gpu_queue", s.gpu_queue),
            ("synthesis_busy", s.synthesis_busy),
            ("synthesis_workers", s.synthesis_workers),
            ("gpu_workers_busy", s.gpu_workers_busy),
            ("gpu_workers", s.gpu_workers),
            ("jobs_active", s.jobs_active),
        ] {
            self.engine.with_label_values(&[name]).set(as_i64(v as u64));
        }
        let devices = &host.options().devices;
        for (i, f) in s.device_busy_fraction.iter().enumerate() {
            let d = devices.get(i).map_or(i.to_string(), u32::to_string);
            self.device_busy.with_label_values(&[&d]).set(*f);
        }
        for (name, v) in [
            ("budget", s.memory_budget),
            ("reserved", s.memory_reserved),
            ("reserved_peak", s.memory_peak),
            ("held", s.memory_held),
            ("held_peak", s.memory_held_peak),
            ("overcommit", s.memory_overcommit),
            ("srs", s.memory_srs),
        ] {
            self.memory.with_label_values(&[name]).set(as_i64(v));
        }
        self.budget_wait.set(s.budget_wait_s);
        // The host counts; the counters catch up at each scrape.
        let (loads, evictions) = host.srs_counters();
        self.srs_loads
            .inc_by(loads.saturating_sub(self.srs_loads.get()));
        self.srs_evictions
            .inc_by(evictions.saturating_sub(self.srs_evictions.get()));
        let loaded = host.loaded();
        self.srs_bytes
            .set(as_i64(loaded.iter().map(|l| l.bytes).sum()));
        self.srs_sets.set(loaded.len() as i64);
        self.uptime.set(uptime_s);
        let mut buf = Vec::new();
        if let Err(e) = TextEncoder::new().encode(&self.registry.gather(), &mut buf) {
            tracing::error!(error = %e, "cannot encode metrics");
        }
        String::from_utf8(buf).unwrap_or_default()
    }
}
