//! The engine on the CPU backend with tiny circuits: completeness and
//! order, priorities, the memory budget, cancellation, failures.

mod common;

use common::{
    engine, expected_input, job, params, quiesce, shape, source, srs, Inject, TestBackend,
};
use cuzk_groth16::verify_proof;
use cuzk_scheduler::{
    estimate_partition_bytes, Engine, EngineError, EngineOptions, Event, EventKind, JobSpec, Stage,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

const BIG: u64 = 1 << 40;

fn count(tl: &[Event], kind: EventKind, job: u64, part: usize) -> usize {
    tl.iter()
        .filter(|e| e.kind == kind && e.job == Some(job) && e.partition == Some(part))
        .count()
}

#[test]
fn every_partition_proved_once_in_order_and_verified() {
    let backend = Arc::new(TestBackend::default());
    let mut opts = EngineOptions::small(2, 2, BIG);
    opts.devices = vec![0, 1];
    let e = engine(opts, backend.clone());
    let (jobs, parts) = (4u64, 5usize);
    let handles: Vec<_> = (0..jobs)
        .map(|j| e.submit(job(j + 1, parts)).unwrap())
        .collect();
    let pvk = params().vk.prepare();
    let mut all = Vec::new();
    for (j, h) in handles.iter().enumerate() {
        let out = h.wait().expect("job succeeds");
        assert_eq!(out.job, h.id());
        assert_eq!(out.proofs.len(), parts);
        assert_eq!(out.partitions.len(), parts);
        assert_eq!(out.proof_bytes().len(), parts * 192);
        for i in 0..parts {
            // Partition order: slot i carries partition i's public input.
            assert_eq!(
                out.inputs[i],
                vec![expected_input(j as u64 + 1, i)],
                "job {j} slot {i}"
            );
            assert!(verify_proof(&pvk, &out.proofs[i], &out.inputs[i]).unwrap());
            assert!([0, 1].contains(&out.partitions[i].device));
        }
        // A proof must not verify against another partition's inputs.
        assert!(!verify_proof(&pvk, &out.proofs[0], &out.inputs[1]).unwrap());
        assert!(out.finished_at >= out.submitted_at);
        all.extend(out.proofs);
    }
    for i in 0..all.len() {
        for k in i + 1..all.len() {
            assert_ne!(all[i], all[k]);
        }
    }
    assert_eq!(backend.calls(), (jobs as usize) * parts);

    quiesce(&e);
    let s = e.stats();
    assert_eq!((s.partitions_done, s.jobs_done, s.jobs_failed), (20, 4, 0));
    assert_eq!((s.memory_reserved, s.memory_held), (srs(), 0));
    assert_eq!(s.memory_overcommit, 0);
    assert_eq!(s.device_busy_s.len(), 2);
    for b in &s.device_busy_s {
        assert!(*b > 0.0 && *b <= s.uptime_s, "{s:?}");
    }

    let tl = e.take_timeline();
    for j in 0..jobs {
        let done: Vec<&Event> = tl
            .iter()
            .filter(|x| x.kind == EventKind::JobDone && x.job == Some(j))
            .collect();
        assert_eq!(done.len(), 1);
        for i in 0..parts {
            for kind in [
                EventKind::SynthStart,
                EventKind::SynthEnd,
                EventKind::GpuQueued,
                EventKind::GpuStart,
                EventKind::GpuEnd,
                EventKind::Assembly,
                EventKind::Verify,
            ] {
                assert_eq!(
                    count(&tl, kind, j, i),
                    1,
                    "{kind:?} of job {j} partition {i}"
                );
            }
            let t = |k: EventKind| {
                tl.iter()
                    .find(|x| x.kind == k && x.job == Some(j) && x.partition == Some(i))
                    .unwrap()
                    .t
            };
            let seq = [
                t(EventKind::SynthStart),
                t(EventKind::SynthEnd),
                t(EventKind::GpuQueued),
                t(EventKind::GpuStart),
                t(EventKind::GpuEnd),
                t(EventKind::Assembly),
                t(EventKind::Verify),
                done[0].t,
            ];
            assert!(
                seq.windows(2).all(|w| w[0] <= w[1]),
                "job {j} partition {i}: {seq:?}"
            );
            let stages: Vec<&Event> = tl
                .iter()
                .filter(|x| {
                    x.kind == EventKind::Stage && x.job == Some(j) && x.partition == Some(i)
                })
                .collect();
            assert!(!stages.is_empty(), "backend stages are in the timeline");
            // Spans where they ran: inside the partition's device region.
            let (g0, g1) = (t(EventKind::GpuStart), t(EventKind::GpuEnd));
            for st in &stages {
                let end = st.t + st.dur.expect("a stage is a span");
                assert!(
                    st.t >= g0 && end <= g1 + 1e-6,
                    "job {j} partition {i}: {st:?} outside [{g0}, {g1}]"
                );
            }
        }
    }
    assert!(e.take_timeline().is_empty());
}

fn synth_order(tl: &[Event]) -> Vec<u64> {
    tl.iter()
        .filter(|e| e.kind == EventKind::SynthStart)
        .map(|e| e.job.unwrap())
        .collect()
}

#[test]
fn higher_priority_is_synthesized_first() {
    let backend = Arc::new(TestBackend::default());
    let mut opts = EngineOptions::small(1, 1, BIG);
    opts.aging = 1000;
    let e = engine(opts, backend);
    e.pause();
    let l1 = e.submit(job(1, 3)).unwrap();
    let l2 = e.submit(job(2, 3)).unwrap();
    let h = e.submit(job(3, 3).with_priority(5)).unwrap();
    let neg = e.submit(job(4, 2).with_priority(-1)).unwrap();
    e.resume();
    for x in [&l1, &l2, &h, &neg] {
        x.wait().unwrap();
    }
    // One synthesis worker: its order is the scheduler's choice, exactly.
    assert_eq!(
        synth_order(&e.timeline()),
        vec![2, 2, 2, 0, 0, 0, 1, 1, 1, 3, 3]
    );
}

/// The job ids of the synthesis starts in `tl`, in order.
fn starts(tl: &[Event]) -> Vec<u64> {
    tl.iter()
        .filter(|e| e.kind == EventKind::SynthStart)
        .filter_map(|e| e.job)
        .collect()
}

#[test]
fn urgent_job_behind_a_long_batch_starts_within_one_partition() {
    // WinningPoSt's priority in cuzk-filecoin, against PoRep's 0.
    const WINNING: i32 = 1_000_000;
    let mut opts = EngineOptions::small(1, 1, BIG);
    opts.aging = 1;
    let e = engine(opts, Arc::new(TestBackend::default()));
    let long = e.submit(job(1, 40)).unwrap();
    let t = Instant::now();
    while starts(&e.timeline()).len() < 3 {
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "the batch never started"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let before = starts(&e.timeline()).len();
    let urgent = e.submit(job(2, 1).with_priority(WINNING)).unwrap();
    let u = urgent.id().0;
    urgent.wait().unwrap();
    let long_left = e.stats().jobs_active;
    long.wait().unwrap();
    let order = starts(&e.timeline());
    let at = order
        .iter()
        .position(|&j| j == u)
        .expect("urgent synthesized");
    // Started already, or the one partition the worker was on: at most one
    // more batch partition starts before the urgent one, even with aging
    // at its most eager (one level per partition waited).
    assert!(
        at <= before + 1,
        "urgent job started after {} more batch partitions",
        at - before
    );
    assert_eq!(
        long_left, 1,
        "the batch was still running when the urgent job ended"
    );
}

#[test]
fn aging_keeps_low_priority_from_starving() {
    let run = |aging: u64| {
        let mut opts = EngineOptions::small(1, 1, BIG);
        opts.aging = aging;
        let e = engine(opts, Arc::new(TestBackend::default()));
        e.pause();
        let low = e.submit(job(1, 4)).unwrap();
        let high = e.submit(job(2, 8).with_priority(2)).unwrap();
        e.resume();
        low.wait().unwrap();
        high.wait().unwrap();
        synth_order(&e.timeline())
    };
    // No aging to speak of: strict priority.
    assert_eq!(run(1000), vec![1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]);
    // aging = 1: after two partitions of the high job, the low job has
    // caught up two levels and (earlier submission) goes next.
    assert_eq!(run(1), vec![1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0]);
}

#[test]
fn memory_budget_is_never_exceeded() {
    let per = estimate_partition_bytes(&shape(), false);
    let budget = 2 * per + per / 2 + srs();
    let backend = Arc::new(TestBackend::default());
    let mut opts = EngineOptions::small(4, 2, budget);
    opts.devices = vec![0, 1];
    let e = engine(opts, backend);
    let handles: Vec<_> = (0..3).map(|j| e.submit(job(j + 1, 4)).unwrap()).collect();
    for h in &handles {
        h.wait().expect("every job completes under a tight budget");
    }
    quiesce(&e);
    let s = e.stats();
    assert_eq!(s.memory_budget, budget);
    assert!(
        s.memory_peak <= budget,
        "peak {} > budget {budget}",
        s.memory_peak
    );
    assert!(s.memory_peak >= per);
    assert!(s.memory_held_peak <= budget);
    assert!(s.memory_held_peak > 0);
    assert_eq!(s.memory_overcommit, 0);
    assert_eq!(s.memory_reserved, srs());

    // From the timeline: never more than two partitions alive (from the
    // start of synthesis to the end of the device region) at once.
    let tl = e.timeline();
    let mut points: Vec<(f64, i32)> = Vec::new();
    for ev in &tl {
        match ev.kind {
            EventKind::SynthStart => points.push((ev.t, 1)),
            EventKind::GpuEnd => points.push((ev.t, -1)),
            _ => {}
        }
    }
    // At equal times the release (-1) happened first: it precedes the
    // reservation that lets the next synthesis start.
    points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut alive, mut max_alive) = (0, 0);
    for (_, d) in points {
        alive += d;
        max_alive = max_alive.max(alive);
    }
    assert_eq!(alive, 0);
    assert!(
        max_alive <= 2,
        "{max_alive} partitions alive with a budget for 2"
    );
    for ev in tl.iter().filter(|x| x.kind == EventKind::SynthStart) {
        assert_eq!(ev.bytes, Some(per));
    }
}

#[test]
fn a_partition_larger_than_the_budget_is_refused_not_hung() {
    let per = estimate_partition_bytes(&shape(), false);
    let e = engine(
        EngineOptions::small(1, 1, per - 1 + srs()),
        Arc::new(TestBackend::default()),
    );
    match e.submit(job(1, 2)) {
        Err(EngineError::BudgetTooSmall {
            index: 0,
            need,
            budget,
        }) => {
            assert_eq!((need, budget), (per, per - 1));
        }
        other => panic!("expected BudgetTooSmall, got {other:?}"),
    }
    // Exactly one partition's worth is enough (one at a time).
    let e = engine(
        EngineOptions::small(2, 1, per + srs()),
        Arc::new(TestBackend::default()),
    );
    e.submit(job(1, 3)).unwrap().wait().unwrap();
    assert!(e.stats().memory_peak <= per + srs());
}

#[test]
fn cancelling_a_queued_job() {
    let backend = Arc::new(TestBackend::default());
    let e = engine(EngineOptions::small(1, 1, BIG), backend.clone());
    e.pause();
    let a = e.submit(job(1, 2)).unwrap();
    let b = e.submit(job(2, 3)).unwrap();
    let c = e.submit(job(3, 2)).unwrap();
    assert!(!b.is_finished());
    assert!(b.cancel());
    assert!(b.is_finished());
    assert!(matches!(b.wait().unwrap_err(), EngineError::Cancelled));
    assert!(
        !b.cancel(),
        "a second cancel reports the job was already over"
    );
    e.resume();
    a.wait().unwrap();
    c.wait().unwrap();
    assert!(!a.cancel(), "a finished job cannot be cancelled");
    assert_eq!(a.try_result().unwrap().unwrap().proofs.len(), 2);
    assert_eq!(
        backend.calls(),
        4,
        "no partition of the cancelled job reached the backend"
    );
    let tl = e.timeline();
    let kinds: Vec<EventKind> = tl
        .iter()
        .filter(|x| x.job == Some(b.id().0))
        .map(|x| x.kind)
        .collect();
    assert_eq!(
        kinds,
        vec![EventKind::JobSubmitted, EventKind::JobCancelled]
    );
    quiesce(&e);
    let s = e.stats();
    assert_eq!((s.jobs_done, s.jobs_cancelled, s.jobs_failed), (2, 1, 0));
}

#[test]
fn cancelling_a_running_job_releases_its_memory() {
    let e = engine(
        EngineOptions::small(2, 1, BIG),
        Arc::new(TestBackend::default()),
    );
    let long = e.submit(job(1, 40)).unwrap();
    let other = e.submit(job(2, 2)).unwrap();
    // Cancel whenever it is: the outcome is Cancelled unless it already won.
    let cancelled = long.cancel();
    other.wait().unwrap();
    match long.wait() {
        Err(EngineError::Cancelled) => assert!(cancelled),
        Ok(out) => assert!(!cancelled && out.proofs.len() == 40),
        Err(e) => panic!("unexpected {e}"),
    }
    quiesce(&e);
    let s = e.stats();
    assert_eq!((s.memory_reserved, s.memory_held), (srs(), 0));
    // The engine still serves.
    e.submit(job(3, 2)).unwrap().wait().unwrap();
}

fn assert_partition_error(
    r: Result<cuzk_scheduler::JobOutput, EngineError>,
    index: usize,
    stage: Stage,
    text: &str,
) {
    match r {
        Err(EngineError::Partition {
            index: i,
            stage: s,
            source,
        }) => {
            let message = source.to_string();
            assert_eq!((i, s), (index, stage), "{message}");
            assert!(
                message.contains(text),
                "'{message}' does not mention '{text}'"
            );
        }
        other => panic!("expected a partition error, got {other:?}"),
    }
}

#[test]
fn a_failing_synthesis_fails_its_job_and_the_engine_keeps_serving() {
    let e = engine(
        EngineOptions::small(2, 2, BIG),
        Arc::new(TestBackend::default()),
    );
    let a = e.submit(job(1, 3)).unwrap();
    let b = e
        .submit(JobSpec::new("tiny", source(2, 4, Inject::Fail(1))))
        .unwrap();
    let p = e
        .submit(JobSpec::new("tiny", source(3, 3, Inject::Panic(2))))
        .unwrap();
    let c = e.submit(job(4, 3)).unwrap();
    assert_eq!(a.wait().unwrap().proofs.len(), 3);
    assert_partition_error(b.wait(), 1, Stage::Synthesis, "assignment");
    assert_partition_error(p.wait(), 2, Stage::Synthesis, "panicked");
    assert_eq!(c.wait().unwrap().proofs.len(), 3);
    let d = e.submit(job(5, 2)).unwrap();
    assert_eq!(d.wait().unwrap().inputs[1], vec![expected_input(5, 1)]);
    quiesce(&e);
    let s = e.stats();
    assert_eq!((s.jobs_done, s.jobs_failed), (3, 2));
    assert_eq!((s.memory_reserved, s.memory_held), (srs(), 0));
    let failed = e
        .timeline()
        .into_iter()
        .filter(|x| x.kind == EventKind::JobFailed)
        .count();
    assert_eq!(failed, 2);
}

#[test]
fn a_failing_backend_and_a_wrong_proof_fail_their_jobs_cleanly() {
    let backend = Arc::new(TestBackend {
        fail: vec![expected_input(2, 2)],
        corrupt: vec![expected_input(3, 0)],
        ..TestBackend::default()
    });
    let mut opts = EngineOptions::small(2, 2, BIG);
    opts.devices = vec![0, 1];
    let e = engine(opts, backend);
    let a = e.submit(job(1, 3)).unwrap();
    let b = e.submit(job(2, 3)).unwrap();
    let c = e.submit(job(3, 3)).unwrap();
    let d = e.submit(job(4, 3)).unwrap();
    a.wait().unwrap();
    assert_partition_error(b.wait(), 2, Stage::Gpu, "injected failure");
    assert_partition_error(c.wait(), 0, Stage::Verify, "self-check");
    d.wait().unwrap();
    e.submit(job(5, 1)).unwrap().wait().unwrap();
    quiesce(&e);
    assert_eq!(e.stats().memory_reserved, srs());
}

#[test]
fn bad_submissions_are_typed_errors() {
    let mut opts = EngineOptions::small(1, 1, BIG);
    opts.queue_capacity = 1;
    let e = engine(opts, Arc::new(TestBackend::default()));
    assert!(matches!(
        e.submit(JobSpec::new("nope", source(1, 1, Inject::None)))
            .unwrap_err(),
        EngineError::UnknownCircuit(id) if id == "nope"
    ));
    assert!(matches!(
        e.submit(job(1, 0)).unwrap_err(),
        EngineError::EmptyJob
    ));
    // A circuit of another size than the registered parameters.
    let big = cuzk_synth::circuits::TinyCircuit {
        chain: 40,
        ..common::tiny(1, 0)
    };
    let src = cuzk_scheduler::CircuitSource::new(2, None, move |_| Ok(big));
    match e.submit(JobSpec::new("tiny", Arc::new(src))) {
        Err(EngineError::ShapeMismatch {
            index: 0, detail, ..
        }) => {
            assert!(detail.contains("domain"), "{detail}")
        }
        other => panic!("expected a shape error, got {other:?}"),
    }
    e.pause();
    let first = e.submit(job(1, 1)).unwrap();
    assert!(matches!(
        e.submit(job(2, 1)).unwrap_err(),
        EngineError::QueueFull(1)
    ));
    e.resume();
    first.wait().unwrap();
    e.submit(job(2, 1)).unwrap().wait().unwrap();

    let zero = EngineOptions {
        concurrency: 0,
        ..EngineOptions::small(1, 1, BIG)
    };
    assert!(matches!(
        Engine::new(zero, vec![Arc::new(TestBackend::default())]),
        Err(EngineError::Options(_))
    ));
    let nodev = EngineOptions {
        devices: vec![],
        ..EngineOptions::small(1, 1, BIG)
    };
    assert!(matches!(
        Engine::new(nodev, vec![Arc::new(TestBackend::default())]),
        Err(EngineError::Options(_))
    ));
    let nomem = EngineOptions::small(1, 1, 0);
    assert!(matches!(
        Engine::new(nomem, vec![Arc::new(TestBackend::default())]),
        Err(EngineError::Options(_))
    ));
}

#[test]
fn submit_blocking_waits_for_room() {
    let mut opts = EngineOptions::small(1, 1, BIG);
    opts.queue_capacity = 1;
    let e = engine(opts, Arc::new(TestBackend::default()));
    let hs: Vec<_> = (0..4)
        .map(|j| e.submit_blocking(job(j + 1, 1)).unwrap())
        .collect();
    for (j, h) in hs.iter().enumerate() {
        assert_eq!(
            h.wait().unwrap().inputs[0],
            vec![expected_input(j as u64 + 1, 0)]
        );
    }
}

#[test]
fn shutdown_fails_unfinished_jobs() {
    let e = engine(
        EngineOptions::small(1, 1, BIG),
        Arc::new(TestBackend::default()),
    );
    e.pause();
    let a = e.submit(job(1, 2)).unwrap();
    let b = e.submit(job(2, 2)).unwrap();
    e.shutdown();
    assert!(matches!(a.wait().unwrap_err(), EngineError::ShutDown));
    assert!(matches!(
        b.wait_timeout(Duration::from_secs(60))
            .unwrap()
            .unwrap_err(),
        EngineError::ShutDown
    ));
    assert!(!a.cancel());
}

#[test]
fn per_job_cap_and_several_devices() {
    let mut opts = EngineOptions::small(3, 1, BIG);
    opts.partition_workers = 1;
    opts.devices = vec![0, 5, 7];
    let e = engine(opts, Arc::new(TestBackend::default()));
    let hs: Vec<_> = (0..3).map(|j| e.submit(job(j + 1, 4)).unwrap()).collect();
    let mut devices = HashMap::new();
    for h in &hs {
        for p in h.wait().unwrap().partitions {
            *devices.entry(p.device).or_insert(0) += 1;
        }
    }
    assert!(devices.keys().all(|d| [0, 5, 7].contains(d)), "{devices:?}");
    assert_eq!(devices.values().sum::<i32>(), 12);
    // partition_workers = 1: a job never has two partitions in synthesis.
    let tl = e.timeline();
    for j in 0..3u64 {
        let mut ev: Vec<(f64, i32)> = tl
            .iter()
            .filter(|x| x.job == Some(j))
            .filter_map(|x| match x.kind {
                EventKind::SynthStart => Some((x.t, 1)),
                EventKind::SynthEnd => Some((x.t, -1)),
                _ => None,
            })
            .collect();
        ev.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut n = 0;
        for (_, d) in ev {
            n += d;
            assert!(n <= 1, "job {j} had two partitions in synthesis");
        }
    }
}

#[test]
fn host_holds_count_against_the_budget_until_dropped() {
    let per = estimate_partition_bytes(&shape(), false);
    let e = engine(
        EngineOptions::small(1, 1, per + srs()),
        Arc::new(TestBackend::default()),
    );
    let before = e.stats().memory_srs;
    // A record held beside the jobs leaves less than one partition's room.
    let hold = e.hold_host(1);
    assert_eq!(e.stats().memory_srs, before + 1);
    match e.submit(job(1, 2)) {
        Err(EngineError::BudgetTooSmall { need, budget, .. }) => {
            assert_eq!((need, budget), (per, per - 1));
        }
        other => panic!("expected BudgetTooSmall, got {other:?}"),
    }
    drop(hold);
    assert_eq!(e.stats().memory_srs, before);
    e.submit(job(1, 3)).unwrap().wait().unwrap();
}
