//! Unit tests of the report's analysis: intervals, unions, the
//! steady-state window and the bound classification, on hand-made
//! timelines.

use super::*;

fn ev(t: f64, kind: EventKind, job: u64, part: usize) -> Event {
    let mut e = Event::new(t, kind);
    e.job = Some(job);
    e.partition = Some(part);
    e.device = Some(0);
    e
}

#[test]
fn percentiles() {
    assert_eq!(percentile(&[], 95.0), 0.0);
    assert_eq!(percentile(&[3.0], 95.0), 3.0);
    let v: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(percentile(&v, 95.0), 95.0);
    assert_eq!(percentile(&v, 50.0), 50.0);
    assert_eq!(percentile(&v, 100.0), 100.0);
    assert_eq!(median(&[1.0, 2.0]), 1.5);
    assert_eq!(median(&[1.0, 2.0, 10.0]), 2.0);
    let s = summarize("x", vec![4.0, 1.0, 3.0, 2.0]);
    assert_eq!(
        (s.count, s.median_s, s.p95_s, s.mean_s, s.max_s),
        (4, 2.5, 4.0, 2.5, 4.0)
    );
}

#[test]
fn synthetic_timeline() {
    // Three jobs done at t = 2, 4, 6: steady state 2 s/proof over [2, 6].
    // Device regions [1,2], [2.1,4], [4.1,6] (busy 3.8 of 4 s in the
    // window: 95%), gaps of 0.1 s at 2..2.1 and 4..4.1.
    let mut tl = vec![Event::new(0.0, EventKind::JobSubmitted)];
    for (j, (a, b, done)) in [(1.0, 2.0, 2.0), (2.1, 4.0, 4.0), (4.1, 6.0, 6.0)]
        .into_iter()
        .enumerate()
    {
        tl.push(ev(a - 1.0, EventKind::SynthStart, j as u64, 0));
        tl.push(ev(a - 0.5, EventKind::SynthEnd, j as u64, 0));
        tl.push(ev(a, EventKind::GpuStart, j as u64, 0));
        tl.push(ev(b, EventKind::GpuEnd, j as u64, 0));
        let mut d = Event::new(done, EventKind::JobDone);
        d.job = Some(j as u64);
        tl.push(d);
    }
    let mut bw = Event::new(3.0, EventKind::BudgetWait);
    bw.dur = Some(0.2);
    tl.push(bw);
    let opts = EngineOptions::small(1, 1, 1 << 30);
    let cpu = [
        (2.0, Some(Duration::from_secs(2))),
        (6.0, Some(Duration::from_secs(4))),
    ];
    let r = analyze(&opts, &tl, 1, &cpu);
    assert_eq!(r.completed_jobs, 3);
    assert!((r.steady_s_per_proof.unwrap() - 2.0).abs() < 1e-9);
    assert!((r.proofs_per_hour.unwrap() - 1800.0).abs() < 1e-6);
    assert!((r.warmup_s.unwrap() - 2.0).abs() < 1e-9);
    assert!((r.gpu_busy_pct.unwrap() - 95.0).abs() < 1e-9);
    assert_eq!(r.device_busy_pct.len(), 1);
    assert_eq!(r.idle_gaps.count, 2);
    assert!((r.idle_gaps.median_ms - 100.0).abs() < 1e-6);
    assert!((r.idle_gaps.total_s - 0.2).abs() < 1e-9);
    // synthesis spans [0,0.5], [1.1,1.6], [3.1,3.6]: 0.5 s inside [2, 6].
    assert!((r.synthesis_busy_pct.unwrap() - 12.5).abs() < 1e-9);
    assert!((r.memory_wait_pct.unwrap() - 5.0).abs() < 1e-9);
    assert!((r.cpu_util_pct.unwrap() - 50.0).abs() < 1e-9);
    assert_eq!(r.bounded_by, Bound::Gpu);
}

#[test]
fn no_completion_is_unknown() {
    let opts = EngineOptions::small(1, 1, 1 << 30);
    let r = analyze(&opts, &[Event::new(0.0, EventKind::JobSubmitted)], 1, &[]);
    assert_eq!(r.bounded_by, Bound::Unknown);
    assert_eq!(r.steady_s_per_proof, None);
    assert_eq!(r.proofs_per_hour, None);
}

#[test]
fn classification_order() {
    assert_eq!(
        classify(Some(90.0), Some(99.0), Some(50.0), Some(99.0)).0,
        Bound::Gpu
    );
    assert_eq!(
        classify(Some(50.0), Some(99.0), Some(30.0), Some(99.0)).0,
        Bound::MemoryBudget
    );
    assert_eq!(
        classify(Some(50.0), Some(99.0), Some(0.0), Some(95.0)).0,
        Bound::Cpu
    );
    assert_eq!(
        classify(Some(50.0), Some(99.0), Some(0.0), Some(40.0)).0,
        Bound::Synthesis
    );
    assert_eq!(
        classify(Some(50.0), Some(20.0), Some(0.0), None).0,
        Bound::Underfed
    );
    assert_eq!(classify(None, None, None, None).0, Bound::Unknown);
}
