//! `bench`: j proofs of p partitions through a fresh engine, and a report
//! on where the time went.
//!
//! Steady state excludes warm-up: the clock starts when the first proof
//! completes (the pipeline is full by then) and stops at the last, so
//! `steady_s_per_proof = (t_last − t_first) / (j − 1)`. With j = 1 there is
//! no steady state and the figure is the single proof's latency. GPU busy,
//! idle gaps, synthesis busy, memory-budget waits and CPU use are measured
//! over the same window; per-stage medians and p95 use every partition.

use cuzk_scheduler::sysinfo;
use cuzk_scheduler::{
    format_bytes, Engine, EngineError, EngineOptions, Event, EventKind, JobOutput, JobSpec,
    PartitionSource,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Gaps on a device shorter than this are lock hand-overs between two GPU
/// workers, not idleness worth counting.
pub const GAP_THRESHOLD_MS: f64 = 1.0;

/// Utilisation at or above which a resource is called the bound.
const SATURATED: f64 = 0.85;

/// Share of the window synthesis may spend blocked on the memory budget
/// before the budget is called the bound.
const BUDGET_BOUND: f64 = 0.25;

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchSpec {
    /// A name for the workload in the report (e.g. `bench-k16`).
    pub label: String,
    /// Proofs (jobs).
    pub jobs: usize,
    /// Partitions per proof (what the sources return; recorded in the report).
    pub partitions: usize,
    /// Verify every proof (off only for inputs that cannot verify, e.g.
    /// random C1 outputs; the report records it).
    pub self_check: bool,
    /// Read the devices' hardware counters this often (`None`: not at
    /// all); the samples join the timeline and the report.
    pub device_sample: Option<Duration>,
}

/// The resource that limited throughput.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The device region was busy nearly all the time: add devices or make
    /// the GPU stage faster.
    Gpu,
    /// Synthesis workers were busy nearly all the time while the device
    /// waited: raise `concurrency`.
    Synthesis,
    /// Every core was busy (synthesis and the backend's CPU work compete
    /// for cores and memory bandwidth): more concurrency will not help.
    Cpu,
    /// Synthesis workers sat idle waiting for the memory budget: raise the
    /// budget (or lower `concurrency` to the same effect).
    MemoryBudget,
    /// Nothing was saturated: too few jobs or partitions to fill the pipeline.
    Underfed,
    /// No proof completed.
    Unknown,
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Bound::Gpu => "gpu",
            Bound::Synthesis => "synthesis",
            Bound::Cpu => "cpu",
            Bound::MemoryBudget => "memory budget",
            Bound::Underfed => "underfed",
            Bound::Unknown => "unknown",
        })
    }
}

/// Median and tail of one stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageStats {
    /// Stage name (`synthesis`, `gpu_wait`, `gpu`, the backend's stages,
    /// `assembly`, `verify`).
    pub name: String,
    /// Samples (partitions).
    pub count: usize,
    /// Median, seconds.
    pub median_s: f64,
    /// 95th percentile (nearest rank), seconds.
    pub p95_s: f64,
    /// Mean, seconds.
    pub mean_s: f64,
    /// Maximum, seconds.
    pub max_s: f64,
}

/// Idle gaps between consecutive device regions on a device.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GapStats {
    /// Gaps at least [`GAP_THRESHOLD_MS`] long inside the window.
    pub count: usize,
    /// Median gap, ms.
    pub median_ms: f64,
    /// 95th percentile gap, ms.
    pub p95_ms: f64,
    /// Sum of the gaps, seconds.
    pub total_s: f64,
    /// The threshold used, ms.
    pub threshold_ms: f64,
}

/// What `cuzk bench` prints and `xtask sweep` collects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// The workload's name.
    pub label: String,
    /// The backend.
    pub backend: String,
    /// Proofs submitted.
    pub jobs: usize,
    /// Partitions per proof.
    pub partitions: usize,
    /// Whether every proof was verified (false: inputs that cannot verify).
    #[serde(default = "yes")]
    pub self_check: bool,
    /// Synthesis concurrency (c).
    pub concurrency: usize,
    /// Per-job synthesis cap.
    pub partition_workers: usize,
    /// Devices.
    pub devices: usize,
    /// GPU workers per device (gw).
    pub gpu_workers_per_device: usize,
    /// The memory budget, bytes.
    pub memory_budget_bytes: u64,
    /// Proofs that completed (and verified).
    pub completed_jobs: usize,
    /// Proofs that failed.
    pub failed_jobs: usize,
    /// Why they failed (one line each).
    pub errors: Vec<String>,
    /// From the first submission to the last completion, seconds.
    pub wall_s: f64,
    /// Time to the first completed proof (latency with an empty pipeline).
    pub warmup_s: Option<f64>,
    /// Length of the steady-state window, seconds.
    pub window_s: Option<f64>,
    /// Steady-state seconds per proof.
    pub steady_s_per_proof: Option<f64>,
    /// 3600 / `steady_s_per_proof`.
    pub proofs_per_hour: Option<f64>,
    /// Device-region busy time over the window, averaged over devices, %.
    pub gpu_busy_pct: Option<f64>,
    /// The same per device, %.
    pub device_busy_pct: Vec<f64>,
    /// Idle gaps on the devices within the window.
    pub idle_gaps: GapStats,
    /// Synthesis workers' busy share of the window, %.
    pub synthesis_busy_pct: Option<f64>,
    /// Share of the window synthesis waited on the memory budget, %.
    pub memory_wait_pct: Option<f64>,
    /// Process CPU use over the window as a share of all cores, %.
    pub cpu_util_pct: Option<f64>,
    /// Per-stage statistics, in pipeline order.
    pub stages: Vec<StageStats>,
    /// Highest memory reservation, bytes.
    pub peak_reserved_bytes: u64,
    /// Highest real size of live synthesized partitions, bytes.
    pub peak_held_bytes: u64,
    /// Bytes that exceeded their reservation (0 when estimates held).
    pub memory_overcommit_bytes: u64,
    /// Peak resident set size of the process (VmHWM), bytes.
    pub peak_rss_bytes: Option<u64>,
    /// Bases streamed host → device per partition (median; `None` when
    /// every set was resident).
    #[serde(default)]
    pub stream_bytes_per_partition: Option<u64>,
    /// Those bytes over the time of the streamed MSM stages, GB/s.
    #[serde(default)]
    pub stream_gb_per_s: Option<f64>,
    /// Those bytes over the device time of their copies: the rate the
    /// host → device link gave (its ceiling: docs/PERFORMANCE.md), GB/s.
    #[serde(default)]
    pub stream_link_gb_per_s: Option<f64>,
    /// Per device, how it held the parameter set at the end of the run and
    /// why (resident, or streamed: chunks, where a, b, c were computed).
    #[serde(default)]
    pub placement: Vec<String>,
    /// Page-locked witness buffers made (each registered once: ≈ 0.3 s per
    /// 4.2 GB) and reused, when the backend has a pool. A steady state
    /// makes about as many as partitions in flight and reuses the rest.
    #[serde(default)]
    pub witness_buffers: Option<WitnessBuffers>,
    /// Per device, its hardware counters over the window (SMs busy, and
    /// the device compute per partition that implies).
    #[serde(default)]
    pub device_counters: Vec<DeviceCounters>,
    /// Why there are no counters, or readings that failed.
    #[serde(default)]
    pub device_counters_note: Option<String>,
    /// The resource that bounded throughput.
    pub bounded_by: Bound,
    /// The numbers behind `bounded_by`, in words.
    pub bound_reason: String,
}

/// The witness pool's counters over a run ([`BenchReport::witness_buffers`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessBuffers {
    /// Buffers made.
    pub made: u64,
    /// Requests served by an idle buffer.
    pub reused: u64,
    /// Idle buffers freed.
    pub freed: u64,
}

/// A report and the raw timeline it was computed from.
#[derive(Clone, Debug)]
pub struct BenchRun {
    /// The report.
    pub report: BenchReport,
    /// Every event of the run (seconds since the engine started).
    pub timeline: Vec<Event>,
}

/// How often [`bench`] hands new timeline events to its caller while the
/// proofs run: a run cut off by a time limit (a device call) still leaves
/// every partition finished up to then in the caller's file.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Runs `spec.jobs` proofs of the registered circuit `circuit_id` through
/// `engine` (a fresh one, timeline on, so its counters and peaks are the
/// run's) and reports. `make_source(j)` returns the partitions of proof j.
/// `on_events` gets the timeline's new events as the run goes (every
/// [`PROGRESS_EVERY`] and at each proof's end), each event once, in order.
/// Failed proofs are counted in the report, not returned as an error; an
/// error means the engine could not run at all.
pub fn bench(
    engine: &Engine,
    circuit_id: &str,
    spec: &BenchSpec,
    make_source: &dyn Fn(usize) -> Arc<dyn PartitionSource>,
    on_events: &mut dyn FnMut(&[Event]),
) -> Result<BenchRun, EngineError> {
    if spec.jobs == 0 {
        return Err(EngineError::Options("bench needs at least one job".into()));
    }
    if !engine.options().timeline {
        return Err(EngineError::Options(
            "bench needs an engine with the timeline on".into(),
        ));
    }
    let opts = engine.options().clone();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let backend_name = engine.backend_name();
    engine.take_timeline();
    // A CPU backend has no counters to read and nothing to say about it.
    let gpu = backend_name.contains("cuda");
    let (mut sampler, mut counters_note) = match spec.device_sample.filter(|_| gpu) {
        None => (None, None),
        Some(p) => match device::start(engine, p) {
            Ok(s) => (Some(s), None),
            Err(why) => (None, Some(format!("no device counters: {why}"))),
        },
    };
    let mut device_events: Vec<Event> = Vec::new();

    let mut cpu_samples = vec![(engine.now(), sysinfo::process_cpu_time())];
    let mut handles = Vec::with_capacity(spec.jobs);
    let mut results: Vec<Result<JobOutput, EngineError>> = Vec::with_capacity(spec.jobs);
    for j in 0..spec.jobs {
        let mut job = JobSpec::new(circuit_id, make_source(j));
        if !spec.self_check {
            job = job.without_self_check();
        }
        match engine.submit_blocking(job) {
            Ok(h) => handles.push(h),
            Err(e) => results.push(Err(e)),
        }
    }
    let mut seen = 0;
    let mut emit = |on_events: &mut dyn FnMut(&[Event])| {
        let all = engine.timeline();
        if all.len() > seen {
            on_events(&all[seen..]);
            seen = all.len();
        }
        if let Some(s) = &sampler {
            let ev = s.events();
            on_events(&ev);
            device_events.extend(ev);
        }
    };
    for h in &handles {
        let r = loop {
            if let Some(r) = h.wait_timeout(PROGRESS_EVERY) {
                break r;
            }
            emit(on_events);
        };
        results.push(r);
        cpu_samples.push((engine.now(), sysinfo::process_cpu_time()));
        emit(on_events);
    }
    let stats = engine.stats();
    let mut timeline = engine.take_timeline();
    if timeline.len() > seen {
        on_events(&timeline[seen..]);
    }
    if let Some(s) = sampler.take() {
        let (ev, note) = s.stop();
        on_events(&ev);
        device_events.extend(ev);
        counters_note = note;
    }
    timeline.extend(device_events);
    let placement = engine
        .circuits()
        .into_iter()
        .find(|c| c.id == circuit_id)
        .map(|c| c.details)
        .unwrap_or_default();

    let mut report = analyze(&opts, &timeline, cores, &cpu_samples);
    report.device_counters_note = counters_note;
    report.label = spec.label.clone();
    report.backend = backend_name;
    report.jobs = spec.jobs;
    report.partitions = spec.partitions;
    report.self_check = spec.self_check;
    report.peak_reserved_bytes = stats.memory_peak;
    report.peak_held_bytes = stats.memory_held_peak;
    report.memory_overcommit_bytes = stats.memory_overcommit;
    report.peak_rss_bytes = sysinfo::peak_rss();
    report.placement = placement;
    report.witness_buffers = (stats.witness_buffers_made + stats.witness_buffers_reused > 0)
        .then_some(WitnessBuffers {
            made: stats.witness_buffers_made,
            reused: stats.witness_buffers_reused,
            freed: stats.witness_buffers_freed,
        });
    let ok: Vec<&JobOutput> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    report.completed_jobs = ok.len();
    report.failed_jobs = results.len() - ok.len();
    report.errors = results
        .iter()
        .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
        .collect();
    report.stages = stage_stats(&ok);
    let st = stream_stats(&ok);
    report.stream_bytes_per_partition = st.bytes_per_partition;
    report.stream_gb_per_s = st.gb_per_s;
    report.stream_link_gb_per_s = st.link_gb_per_s;
    Ok(BenchRun { report, timeline })
}

fn yes() -> bool {
    true
}

/// Nearest-rank percentile of sorted samples.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// A sum that starts from +0.0 (`Iterator::sum` of nothing is −0.0,
/// which prints as "-0.0%").
fn total(it: impl Iterator<Item = f64>) -> f64 {
    it.fold(0.0, |a, b| a + b)
}

/// Length of the intersection of two intervals (0 when disjoint).
pub(crate) fn overlap(a: (f64, f64), w: (f64, f64)) -> f64 {
    (a.1.min(w.1) - a.0.max(w.0)).max(0.0)
}

/// (job, partition) of an event.
type PartKey = (Option<u64>, Option<usize>);

/// Pairs `start`/`end` events per (job, partition) into intervals, with the
/// device of the start event.
/// Merges sorted, possibly overlapping spans into disjoint ones.
pub(crate) fn union(sorted: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(sorted.len());
    for (a, b) in sorted {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

fn intervals(timeline: &[Event], start: EventKind, end: EventKind) -> Vec<(Option<u32>, f64, f64)> {
    let mut open: HashMap<PartKey, (Option<u32>, f64)> = HashMap::new();
    let mut out = Vec::new();
    let mut evs: Vec<&Event> = timeline
        .iter()
        .filter(|e| e.kind == start || e.kind == end)
        .collect();
    evs.sort_by(|a, b| {
        a.t.total_cmp(&b.t)
            .then((a.kind == start).cmp(&(b.kind == start)))
    });
    for e in evs {
        let key = (e.job, e.partition);
        if e.kind == start {
            open.insert(key, (e.device, e.t));
        } else if let Some((d, t0)) = open.remove(&key) {
            out.push((d, t0, e.t));
        }
    }
    out
}

/// Computes the timing part of a report from a timeline. Job counts,
/// stage statistics and memory figures are filled in by the caller.
fn analyze(
    opts: &EngineOptions,
    timeline: &[Event],
    cores: usize,
    cpu_samples: &[(f64, Option<Duration>)],
) -> BenchReport {
    let mut done: Vec<f64> = timeline
        .iter()
        .filter(|e| e.kind == EventKind::JobDone)
        .map(|e| e.t)
        .collect();
    done.sort_by(f64::total_cmp);
    let first_submit = timeline
        .iter()
        .filter(|e| e.kind == EventKind::JobSubmitted)
        .map(|e| e.t)
        .min_by(f64::total_cmp)
        .unwrap_or(0.0);
    let last = timeline
        .iter()
        .map(|e| e.t + e.dur.unwrap_or(0.0))
        .fold(first_submit, f64::max);
    let wall = last - first_submit;

    let (window, s_per_proof, warmup) = match done.len() {
        0 => (None, None, None),
        1 => (
            Some((first_submit, done[0])),
            Some(done[0] - first_submit),
            Some(done[0] - first_submit),
        ),
        k => (
            Some((done[0], done[k - 1])),
            Some((done[k - 1] - done[0]) / (k - 1) as f64),
            Some(done[0] - first_submit),
        ),
    };
    let window = window.filter(|w| w.1 > w.0);

    let nd = opts.devices.len();
    let gpu = intervals(timeline, EventKind::GpuStart, EventKind::GpuEnd);
    let synth = intervals(timeline, EventKind::SynthStart, EventKind::SynthEnd);
    let mut device_busy_pct = Vec::new();
    let mut gaps: Vec<f64> = Vec::new();
    let (mut gpu_busy_pct, mut synthesis_busy_pct, mut memory_wait_pct, mut cpu_util_pct) =
        (None, None, None, None);
    if let Some(w) = window {
        let len = w.1 - w.0;
        for &dev in &opts.devices {
            let mut iv: Vec<(f64, f64)> = gpu
                .iter()
                .filter(|(d, _, _)| *d == Some(dev))
                .map(|&(_, a, b)| (a, b))
                .collect();
            iv.sort_by(|a, b| a.0.total_cmp(&b.0));
            // Two partitions may be inside `evaluate` on one device at once
            // (pipeline depth 2): busy time is the union of the spans.
            let iv = union(iv);
            let busy = total(iv.iter().map(|&i| overlap(i, w)));
            device_busy_pct.push(100.0 * busy / len);
            for pair in iv.windows(2) {
                let (end, next) = (pair[0].1, pair[1].0);
                let g = next - end;
                if end >= w.0 && next <= w.1 && g * 1e3 >= GAP_THRESHOLD_MS {
                    gaps.push(g);
                }
            }
        }
        gpu_busy_pct = Some(total(device_busy_pct.iter().copied()) / nd.max(1) as f64);
        let sbusy = total(synth.iter().map(|&(_, a, b)| overlap((a, b), w)));
        synthesis_busy_pct = Some(100.0 * sbusy / (len * opts.concurrency as f64));
        let bwait = total(
            timeline
                .iter()
                .filter(|e| e.kind == EventKind::BudgetWait)
                .map(|e| overlap((e.t, e.t + e.dur.unwrap_or(0.0)), w)),
        );
        memory_wait_pct = Some(100.0 * bwait / len);
        cpu_util_pct = cpu_util(cpu_samples, w, cores);
    }
    gaps.sort_by(f64::total_cmp);
    let idle_gaps = GapStats {
        count: gaps.len(),
        median_ms: median(&gaps) * 1e3,
        p95_ms: percentile(&gaps, 95.0) * 1e3,
        total_s: total(gaps.iter().copied()),
        threshold_ms: GAP_THRESHOLD_MS,
    };
    let (bounded_by, bound_reason) = classify(
        gpu_busy_pct,
        synthesis_busy_pct,
        memory_wait_pct,
        cpu_util_pct,
    );
    BenchReport {
        label: String::new(),
        backend: String::new(),
        jobs: 0,
        partitions: 0,
        self_check: true,
        concurrency: opts.concurrency,
        partition_workers: opts.partition_workers,
        devices: nd,
        gpu_workers_per_device: opts.gpu_workers_per_device,
        memory_budget_bytes: opts.memory_budget,
        completed_jobs: done.len(),
        failed_jobs: 0,
        errors: Vec::new(),
        wall_s: wall,
        warmup_s: warmup,
        window_s: window.map(|w| w.1 - w.0),
        steady_s_per_proof: s_per_proof,
        proofs_per_hour: s_per_proof.filter(|s| *s > 0.0).map(|s| 3600.0 / s),
        gpu_busy_pct,
        device_busy_pct,
        idle_gaps,
        synthesis_busy_pct,
        memory_wait_pct,
        cpu_util_pct,
        stages: Vec::new(),
        peak_reserved_bytes: 0,
        peak_held_bytes: 0,
        memory_overcommit_bytes: 0,
        peak_rss_bytes: None,
        stream_bytes_per_partition: None,
        placement: Vec::new(),
        witness_buffers: None,
        stream_gb_per_s: None,
        stream_link_gb_per_s: None,
        device_counters: window.map_or_else(Vec::new, |w| device::counters(timeline, w)),
        device_counters_note: None,
        bounded_by,
        bound_reason,
    }
}

/// CPU use between the samples nearest the window's ends (samples are taken
/// as each proof completes, so they bracket the window closely).
fn cpu_util(samples: &[(f64, Option<Duration>)], w: (f64, f64), cores: usize) -> Option<f64> {
    let s: Vec<(f64, Duration)> = samples
        .iter()
        .filter_map(|&(t, c)| c.map(|c| (t, c)))
        .collect();
    let near = |x: f64| {
        s.iter()
            .min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs()))
            .copied()
    };
    let (a, b) = (near(w.0)?, near(w.1)?);
    let dt = b.0 - a.0;
    if dt <= 0.0 {
        return None;
    }
    // /proc counts in 10 ms ticks: below ~1 s of window the figure is noise.
    Some((100.0 * (b.1.as_secs_f64() - a.1.as_secs_f64()) / (dt * cores as f64)).clamp(0.0, 100.0))
}

fn classify(
    gpu: Option<f64>,
    synth: Option<f64>,
    mem: Option<f64>,
    cpu: Option<f64>,
) -> (Bound, String) {
    let Some(g) = gpu else {
        return (Bound::Unknown, "no proof completed".into());
    };
    let pct = |x: Option<f64>| {
        x.map(|v| format!("{v:.0}%"))
            .unwrap_or_else(|| "n/a".into())
    };
    let facts = format!(
        "GPU busy {}, synthesis busy {}, waiting on memory {}, CPU {}",
        pct(Some(g)),
        pct(synth),
        pct(mem),
        pct(cpu)
    );
    let sat = SATURATED * 100.0;
    let bound = if g >= sat {
        Bound::Gpu
    } else if mem.unwrap_or(0.0) >= BUDGET_BOUND * 100.0 {
        Bound::MemoryBudget
    } else if cpu.unwrap_or(0.0) >= sat {
        Bound::Cpu
    } else if synth.unwrap_or(0.0) >= sat {
        Bound::Synthesis
    } else {
        Bound::Underfed
    };
    (bound, facts)
}

impl BenchReport {
    /// A human summary, a few aligned lines.
    pub fn summary(&self) -> String {
        let check = if self.self_check {
            ""
        } else {
            "self-check OFF (inputs cannot verify); "
        };
        let f = |x: Option<f64>, unit: &str| {
            x.map(|v| format!("{v:.3}{unit}"))
                .unwrap_or_else(|| "n/a".into())
        };
        let p = |x: Option<f64>| {
            x.map(|v| format!("{v:.1}%"))
                .unwrap_or_else(|| "n/a".into())
        };
        let mut s = format!(
            "{check}{} on {}: {} proofs x {} partitions, c={} (per job {}), {} device(s) x gw={}, budget {}\n",
            self.label,
            self.backend,
            self.jobs,
            self.partitions,
            self.concurrency,
            self.partition_workers,
            self.devices,
            self.gpu_workers_per_device,
            format_bytes(self.memory_budget_bytes)
        );
        s += &format!(
            "  completed {}  failed {}  wall {:.3} s  warm-up {}\n",
            self.completed_jobs,
            self.failed_jobs,
            self.wall_s,
            f(self.warmup_s, " s")
        );
        s += &format!(
            "  steady state: {} per proof, {} proofs/hour (window {})\n",
            f(self.steady_s_per_proof, " s"),
            self.proofs_per_hour
                .map(|v| format!("{v:.1}"))
                .unwrap_or_else(|| "n/a".into()),
            f(self.window_s, " s")
        );
        s += &format!(
            "  GPU busy {}  synthesis busy {}  memory wait {}  CPU {}\n",
            p(self.gpu_busy_pct),
            p(self.synthesis_busy_pct),
            p(self.memory_wait_pct),
            p(self.cpu_util_pct)
        );
        s += &format!(
            "  idle gaps (>= {} ms): {}  median {:.1} ms  p95 {:.1} ms  total {:.3} s\n",
            self.idle_gaps.threshold_ms,
            self.idle_gaps.count,
            self.idle_gaps.median_ms,
            self.idle_gaps.p95_ms,
            self.idle_gaps.total_s
        );
        s += &format!(
            "  memory: peak reserved {}  peak held {}  peak RSS {}\n",
            format_bytes(self.peak_reserved_bytes),
            format_bytes(self.peak_held_bytes),
            self.peak_rss_bytes
                .map(format_bytes)
                .unwrap_or_else(|| "n/a".into())
        );
        for (d, p) in self.placement.iter().enumerate() {
            s += &format!("  placement, device {d}: {p}\n");
        }
        if let Some(w) = self.witness_buffers {
            s += &format!(
                "  witness buffers (page-locked): made {}, reused {}, freed {}\n",
                w.made, w.reused, w.freed
            );
        }
        if let Some(b) = self.stream_bytes_per_partition {
            let gbs = |r: Option<f64>| r.map_or_else(|| "n/a".into(), |r| format!("{r:.1}"));
            s += &format!(
                "  streamed bases: {} per partition, {} GB/s over the passes (with their kernels), {} GB/s on the link (the copies' device time)\n",
                format_bytes(b),
                gbs(self.stream_gb_per_s),
                gbs(self.stream_link_gb_per_s)
            );
        }
        for c in &self.device_counters {
            s += &device::summary(c);
        }
        if let Some(n) = &self.device_counters_note {
            s += &format!("  {n}\n");
        }
        s += "  stage               n    median s     p95 s\n";
        for st in &self.stages {
            s += &format!(
                "  {:<16} {:>4} {:>11.4} {:>9.4}\n",
                st.name, st.count, st.median_s, st.p95_s
            );
        }
        s += &format!("  bounded by: {} ({})", self.bounded_by, self.bound_reason);
        for e in &self.errors {
            s += &format!("\n  error: {e}");
        }
        s
    }
}

#[path = "report_device.rs"]
pub(crate) mod device;
pub use device::DeviceCounters;

#[path = "report_stages.rs"]
mod stages;
#[cfg(test)]
use stages::summarize;
use stages::{stage_stats, stream_stats};

#[cfg(test)]
#[path = "report_analyze_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "report_tests.rs"]
mod engine_tests;
