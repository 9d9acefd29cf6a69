//! `bench` end to end on tiny circuits (no timing assertions).

use super::{bench, BenchReport, BenchSpec, Bound};
use cuzk_field::Fr;
use cuzk_groth16::{Backend, CpuBackend, Parameters, ToxicWaste};
use cuzk_scheduler::{
    write_json_lines, CircuitSource, EngineOptions, Event, EventKind, PartitionSource,
};
use cuzk_synth::circuits::TinyCircuit;
use std::sync::{Arc, OnceLock};

fn tiny(job: u64, i: usize) -> TinyCircuit {
    TinyCircuit {
        x: Fr::from(job * 1000 + i as u64 + 2),
        y: Fr::from(7u64),
        chain: 6,
    }
}

fn params() -> Arc<Parameters> {
    static P: OnceLock<Arc<Parameters>> = OnceLock::new();
    P.get_or_init(|| {
        Arc::new(
            cuzk_groth16::generate_parameters(tiny(0, 0), &ToxicWaste::from_seed(7), None)
                .expect("setup"),
        )
    })
    .clone()
}

/// Partitions of job `job`; partition `fail` (if any) fails to synthesize.
fn source(job: u64, n: usize, fail: Option<usize>) -> Arc<dyn PartitionSource> {
    Arc::new(CircuitSource::new(n, None, move |i| {
        if Some(i) == fail {
            return Err("injected failure".into());
        }
        Ok(tiny(job, i))
    }))
}

/// `bench` on a fresh engine with one CPU backend per device.
fn run_bench(
    opts: &EngineOptions,
    spec: &BenchSpec,
    make: &dyn Fn(usize) -> Arc<dyn PartitionSource>,
) -> Result<super::BenchRun, cuzk_scheduler::EngineError> {
    run_bench_streamed(opts, spec, make, &mut |_| {})
}

fn run_bench_streamed(
    opts: &EngineOptions,
    spec: &BenchSpec,
    make: &dyn Fn(usize) -> Arc<dyn PartitionSource>,
    on_events: &mut dyn FnMut(&[Event]),
) -> Result<super::BenchRun, cuzk_scheduler::EngineError> {
    let be: Arc<dyn Backend> = Arc::new(CpuBackend);
    let e = cuzk_scheduler::Engine::new(opts.clone(), vec![be; opts.devices.len()])?;
    e.register_circuit("bench", params())?;
    bench(&e, "bench", spec, make, on_events)
}

/// The events handed out during the run are the run's timeline, each once
/// and in order (what `--timeline` writes as it goes).
#[test]
fn bench_streams_every_event_once() {
    let opts = EngineOptions::small(2, 2, 1 << 40);
    let spec = BenchSpec {
        label: "tiny".into(),
        jobs: 4,
        partitions: 3,
        self_check: true,
        device_sample: None,
    };
    let mut streamed = Vec::new();
    let mut calls = 0;
    let run = run_bench_streamed(
        &opts,
        &spec,
        &|j| source(j as u64 + 1, 3, None),
        &mut |ev| {
            calls += 1;
            streamed.extend_from_slice(ev);
        },
    )
    .unwrap();
    assert!(calls >= 1);
    assert_eq!(streamed, run.timeline);
    let ends = |k| streamed.iter().filter(|e: &&Event| e.kind == k).count();
    assert_eq!(ends(EventKind::GpuEnd), 12);
    assert_eq!(ends(EventKind::JobDone), 4);
}

#[test]
fn bench_reports_every_field() {
    let opts = EngineOptions::small(2, 2, 1 << 40);
    let spec = BenchSpec {
        label: "tiny".into(),
        jobs: 3,
        partitions: 2,
        self_check: true,
        device_sample: None,
    };
    let run = run_bench(&opts, &spec, &|j| source(j as u64 + 1, 2, None)).unwrap();
    let r = &run.report;
    assert_eq!(
        (r.jobs, r.partitions, r.completed_jobs, r.failed_jobs),
        (3, 2, 3, 0)
    );
    assert_eq!(
        (r.concurrency, r.gpu_workers_per_device, r.devices),
        (2, 2, 1)
    );
    assert_eq!(r.backend, "cpu");
    assert!(r.errors.is_empty());
    assert!(r.steady_s_per_proof.is_some() && r.proofs_per_hour.is_some());
    assert!(r.warmup_s.is_some() && r.window_s.is_some());
    let g = r.gpu_busy_pct.unwrap();
    assert!((0.0..=100.0).contains(&g));
    assert_eq!(r.device_busy_pct.len(), 1);
    assert_ne!(r.bounded_by, Bound::Unknown);
    for pct in [r.synthesis_busy_pct, r.memory_wait_pct, r.gpu_busy_pct] {
        // No "-0.0%" in reports.
        assert!(pct.unwrap().is_sign_positive(), "{pct:?}");
    }
    assert!(r.peak_reserved_bytes > 0 && r.peak_reserved_bytes <= r.memory_budget_bytes);
    assert_eq!(r.memory_overcommit_bytes, 0);
    // The CPU backend has no witness pool.
    assert_eq!(r.witness_buffers, None);
    if cfg!(target_os = "linux") {
        assert!(r.peak_rss_bytes.unwrap() > 0);
    }
    let names: Vec<&str> = r.stages.iter().map(|s| s.name.as_str()).collect();
    for n in ["synthesis", "gpu_wait", "gpu", "assembly", "verify"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    assert!(
        names.iter().any(|n| n.starts_with("gpu.")),
        "backend stages missing: {names:?}"
    );
    for s in &r.stages {
        assert_eq!(s.count, 6, "{}", s.name);
        assert!(s.median_s <= s.p95_s && s.p95_s <= s.max_s, "{s:?}");
    }
    let text = r.summary();
    assert!(
        text.contains("bounded by") && text.contains("steady state"),
        "{text}"
    );

    // JSON: what `cuzk bench --json` prints and `xtask sweep` reads back.
    let json = serde_json::to_string(r).unwrap();
    let back: BenchReport = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (back.completed_jobs, back.bounded_by, back.stages.len()),
        (3, r.bounded_by, r.stages.len())
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for key in [
        "steady_s_per_proof",
        "proofs_per_hour",
        "gpu_busy_pct",
        "idle_gaps",
        "peak_rss_bytes",
        "bounded_by",
    ] {
        assert!(v.get(key).is_some(), "{key} missing from the JSON report");
    }

    // Timeline as JSON lines, one event per line, time-ordered.
    let mut buf = Vec::new();
    write_json_lines(&run.timeline, &mut buf).unwrap();
    let lines: Vec<Event> = String::from_utf8(buf)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), run.timeline.len());
    assert!(lines.windows(2).all(|w| w[0].t <= w[1].t));
    assert_eq!(
        lines
            .iter()
            .filter(|e| e.kind == EventKind::JobDone)
            .count(),
        3
    );
    assert_eq!(
        lines
            .iter()
            .filter(|e| e.kind == EventKind::GpuStart)
            .count(),
        6
    );
}

#[test]
fn bench_counts_failed_proofs() {
    let opts = EngineOptions::small(1, 1, 1 << 40);
    let spec = BenchSpec {
        label: "tiny".into(),
        jobs: 3,
        partitions: 2,
        self_check: true,
        device_sample: None,
    };
    let run = run_bench(&opts, &spec, &|j| {
        source(j as u64 + 1, 2, if j == 1 { Some(0) } else { None })
    })
    .unwrap();
    assert_eq!((run.report.completed_jobs, run.report.failed_jobs), (2, 1));
    assert_eq!(run.report.errors.len(), 1);
    assert!(
        run.report.errors[0].contains("partition 0"),
        "{:?}",
        run.report.errors
    );
    assert!(run_bench(&opts, &BenchSpec { jobs: 0, ..spec }, &|_| {
        source(1, 1, None)
    })
    .is_err());
}
