//! `cuzk timeline FILE`: a timeline written by `cuzk bench --timeline` (or
//! the anchor's `--timeline`) as a text Gantt chart of the device stages,
//! one row per (device, GPU worker), with what overlapped.
//!
//! The question it answers: with two GPU workers, does one partition's H
//! step run beside another's MSMs, and how much device time per partition
//! does that save? A stage is drawn where it ran (the backend's spans);
//! work beside the stages (the GPU backend's CPU classification) gets its
//! own row per device.

use crate::output::Ctx;
use anyhow::{bail, Context, Result};
use cuzk_scheduler::timeline::{Event, EventKind};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Largest timeline read: ~150 bytes an event, several million events.
const TIMELINE_FILE_LIMIT: u64 = 1 << 30;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The timeline: one JSON event per line.
    pub file: PathBuf,
    /// Columns of the chart.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(10..=1000))]
    pub width: u16,
    /// Only from this time (seconds since the engine started).
    #[arg(long)]
    pub from: Option<f64>,
    /// Only up to this time.
    #[arg(long)]
    pub to: Option<f64>,
}

/// A span on one chart row.
#[derive(Clone, Debug, PartialEq)]
struct Span {
    t0: f64,
    t1: f64,
    stage: String,
    part: (Option<u64>, Option<usize>),
}

/// Rows keyed by (device, worker); `None` worker: the device's "beside" row.
type Rows = BTreeMap<(u32, Option<usize>), Vec<Span>>;

fn parse(text: &[u8]) -> Result<Vec<Event>> {
    let text = std::str::from_utf8(text).context("the timeline is not UTF-8")?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str::<Event>(l)
                .with_context(|| format!("line {}: not a timeline event", i + 1))
        })
        .collect()
}

/// The stage spans of the timeline within [from, to], by row.
fn rows(events: &[Event], from: f64, to: f64) -> Rows {
    let mut rows = Rows::new();
    for e in events.iter().filter(|e| e.kind == EventKind::Stage) {
        let (Some(dur), Some(name)) = (e.dur, e.name.as_ref()) else {
            continue;
        };
        let (t0, t1) = (e.t.max(from), (e.t + dur).min(to));
        if t1 <= t0 {
            continue;
        }
        let beside = e.detail.as_deref() == Some("beside");
        let worker = if beside { None } else { e.worker };
        rows.entry((e.device.unwrap_or(0), worker))
            .or_default()
            .push(Span {
                t0,
                t1,
                stage: name.clone(),
                part: (e.job, e.partition),
            });
    }
    rows
}

/// One letter per stage name: the known stages get mnemonic ones, others
/// the next free letter.
fn letters(rows: &Rows) -> Vec<(String, char)> {
    const KNOWN: [(&str, char); 11] = [
        ("upload_abc", 'u'),
        ("upload_z", 'z'),
        ("spmv", 's'),
        ("ntt_h", 'n'),
        ("msm_h", 'H'),
        ("msm_l", 'L'),
        ("msm_a", 'A'),
        ("msm_b_g1", 'B'),
        ("msm_b_g2", 'G'),
        ("tails", 't'),
        ("classify", 'c'),
    ];
    let mut names: Vec<&str> = rows.values().flatten().map(|s| s.stage.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut taken: Vec<char> = KNOWN.iter().map(|k| k.1).collect();
    let mut spare = ('a'..='z').chain('A'..='Z').chain('0'..='9');
    names
        .into_iter()
        .map(|n| {
            let c = KNOWN
                .iter()
                .find(|k| k.0 == n)
                .map(|k| k.1)
                .unwrap_or_else(|| {
                    let c = spare.find(|c| !taken.contains(c)).unwrap_or('?');
                    taken.push(c);
                    c
                });
            (n.to_string(), c)
        })
        .collect()
}

/// A row as `width` cells: each cell shows the stage that covers most of
/// it ('.' where nothing runs).
fn draw(spans: &[Span], from: f64, to: f64, width: usize, letter: &dyn Fn(&str) -> char) -> String {
    let cell = (to - from) / width as f64;
    (0..width)
        .map(|i| {
            let (c0, c1) = (from + i as f64 * cell, from + (i + 1) as f64 * cell);
            spans
                .iter()
                .map(|s| (crate::report::overlap((s.t0, s.t1), (c0, c1)), s))
                .filter(|(o, _)| *o > 0.0)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map_or('.', |(_, s)| letter(&s.stage))
        })
        .collect()
}

/// A device's busy-SM samples as `width` cells: the tens digit of the
/// busy share covering each cell (9: 90 % or more), '.' where none was read.
fn draw_busy(
    samples: &[(f64, f64, cuzk_devmon::Metrics)],
    from: f64,
    to: f64,
    width: usize,
) -> String {
    let cell = (to - from) / width as f64;
    (0..width)
        .map(|i| {
            let (c0, c1) = (from + i as f64 * cell, from + (i + 1) as f64 * cell);
            cuzk_devmon::weighted_mean(samples, c0, c1, |s| *s)
                .sm_busy_pct
                .map_or('.', |b| {
                    char::from_digit((b / 10.0).floor().clamp(0.0, 9.0) as u32, 10).unwrap_or('?')
                })
        })
        .collect()
}

/// Per device: what its workers' stages add up to, how much of that ran
/// while another partition's stage also ran, and the stages' totals.
#[derive(Debug, PartialEq)]
struct DeviceSummary {
    device: u32,
    partitions: usize,
    /// Sum of the stage spans.
    stage_sum: f64,
    /// Time at least one stage ran (their union).
    busy: f64,
    /// stage_sum − busy: seconds of stage work hidden behind other work.
    overlapped: f64,
    /// Per stage: total seconds, spans.
    stages: Vec<(String, f64, usize)>,
}

fn summarize(rows: &Rows) -> Vec<DeviceSummary> {
    let mut by_dev: BTreeMap<u32, Vec<&Span>> = BTreeMap::new();
    for ((d, w), spans) in rows {
        if w.is_some() {
            by_dev.entry(*d).or_default().extend(spans);
        }
    }
    by_dev
        .into_iter()
        .map(|(device, spans)| {
            let stage_sum: f64 = spans.iter().map(|s| s.t1 - s.t0).sum();
            let mut iv: Vec<(f64, f64)> = spans.iter().map(|s| (s.t0, s.t1)).collect();
            iv.sort_by(|a, b| a.0.total_cmp(&b.0));
            let busy: f64 = crate::report::union(iv).iter().map(|(a, b)| b - a).sum();
            let mut stages: Vec<(String, f64, usize)> = Vec::new();
            for s in &spans {
                match stages.iter_mut().find(|x| x.0 == s.stage) {
                    Some(x) => {
                        x.1 += s.t1 - s.t0;
                        x.2 += 1;
                    }
                    None => stages.push((s.stage.clone(), s.t1 - s.t0, 1)),
                }
            }
            stages.sort_by(|a, b| b.1.total_cmp(&a.1));
            let mut parts: Vec<_> = spans.iter().map(|s| s.part).collect();
            parts.sort_unstable();
            parts.dedup();
            DeviceSummary {
                device,
                partitions: parts.len(),
                stage_sum,
                busy,
                overlapped: (stage_sum - busy).max(0.0),
                stages,
            }
        })
        .collect()
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    let text = super::limits::read(&a.file, TIMELINE_FILE_LIMIT, "a timeline")
        .with_context(|| format!("cannot read {}", a.file.display()))?;
    let events = parse(&text).with_context(|| a.file.display().to_string())?;
    let stage_times = events
        .iter()
        .filter(|e| e.kind == EventKind::Stage)
        .map(|e| (e.t, e.t + e.dur.unwrap_or(0.0)));
    let (lo, hi) = stage_times.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), (a, b)| {
        (l.min(a), h.max(b))
    });
    if !lo.is_finite() {
        bail!(
            "{}: no stage spans (written by an engine with the timeline on?)",
            a.file.display()
        );
    }
    let (from, to) = (a.from.unwrap_or(lo), a.to.unwrap_or(hi));
    if !(from.is_finite() && to.is_finite() && to > from) {
        bail!("--from {from} must be before --to {to}");
    }
    let rows = rows(&events, from, to);
    let summary = summarize(&rows);
    if ctx.json {
        let devs: Vec<_> = summary
            .iter()
            .map(|s| {
                let stages: Vec<_> = s
                    .stages
                    .iter()
                    .map(|(n, t, k)| serde_json::json!({"stage": n, "s": t, "spans": k}))
                    .collect();
                serde_json::json!({
                    "device": s.device, "partitions": s.partitions, "stage_sum_s": s.stage_sum,
                    "busy_s": s.busy, "overlapped_s": s.overlapped, "stages": stages,
                })
            })
            .collect();
        let counters = crate::report::device::counters(&events, (from, to));
        println!(
            "{}",
            serde_json::json!({"from": from, "to": to, "devices": devs, "counters": counters})
        );
        return Ok(());
    }
    let width = usize::from(a.width);
    let legend = letters(&rows);
    let letter = |n: &str| legend.iter().find(|l| l.0 == n).map_or('?', |l| l.1);
    let mut out = format!(
        "{}: {:.3}–{:.3} s, one column = {:.1} ms\n",
        a.file.display(),
        from,
        to,
        (to - from) / width as f64 * 1e3
    );
    for ((d, w), spans) in &rows {
        let label = match w {
            Some(w) => format!("dev {d} gw {w}"),
            None => format!("dev {d} beside"),
        };
        out += &format!("{label:>13} |{}|\n", draw(spans, from, to, width, &letter));
    }
    let busy = crate::report::device::samples(&events);
    for (d, s) in &busy {
        let label = format!("dev {d} SMs");
        out += &format!("{label:>13} |{}|\n", draw_busy(s, from, to, width));
    }
    let l: Vec<String> = legend.iter().map(|(n, c)| format!("{c} {n}")).collect();
    out += &format!("legend: {}\n", l.join(", "));
    if !busy.is_empty() {
        out += "SMs row: busy share of the column from the hardware counters, 0–9 = 0–90 %+ ('.' no sample)\n";
    }
    for s in &summary {
        let per = |x: f64| x / s.partitions.max(1) as f64;
        out += &format!(
            "device {}: {} partitions; stages {:.3} s ({:.3} per partition), device busy {:.3} s ({:.3} per partition), {:.3} s of stage work overlapped ({:.0} %)\n",
            s.device,
            s.partitions,
            s.stage_sum,
            per(s.stage_sum),
            s.busy,
            per(s.busy),
            s.overlapped,
            100.0 * s.overlapped / s.stage_sum.max(f64::MIN_POSITIVE)
        );
        let st: Vec<String> = s
            .stages
            .iter()
            .map(|(n, t, k)| format!("{n} {:.3} s ({k})", t))
            .collect();
        out += &format!("  {}\n", st.join(", "));
    }
    for c in crate::report::device::counters(&events, (from, to)) {
        out += &crate::report::device::summary(&c);
    }
    ctx.say(out.trim_end());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stage(t: f64, dur: f64, name: &str, part: usize, worker: usize) -> Event {
        Event {
            t,
            kind: EventKind::Stage,
            job: Some(1),
            partition: Some(part),
            dur: Some(dur),
            name: Some(name.into()),
            device: Some(0),
            worker: Some(worker),
            bytes: None,
            detail: (name == "classify").then(|| "beside".into()),
            value: None,
        }
    }

    fn two_workers() -> Vec<Event> {
        vec![
            // Partition 0: H step then its MSM on worker 0.
            stage(0.0, 1.0, "ntt_h", 0, 0),
            stage(1.0, 2.0, "msm_h", 0, 0),
            // Partition 1's H step beside partition 0's MSM, on worker 1.
            stage(1.0, 1.0, "ntt_h", 1, 1),
            stage(3.0, 2.0, "msm_h", 1, 1),
            stage(0.0, 0.5, "classify", 0, 0),
        ]
    }

    #[test]
    fn overlap_is_the_stage_sum_beyond_the_busy_time() {
        let ev = two_workers();
        let s = summarize(&rows(&ev, 0.0, 5.0));
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].partitions, 2);
        assert!((s[0].stage_sum - 6.0).abs() < 1e-12);
        assert!((s[0].busy - 5.0).abs() < 1e-12);
        assert!((s[0].overlapped - 1.0).abs() < 1e-12);
        assert_eq!(s[0].stages[0], ("msm_h".to_string(), 4.0, 2));
        // The beside span is in no device total.
        assert!(s[0].stages.iter().all(|x| x.0 != "classify"));
    }

    #[test]
    fn rows_draw_where_stages_ran_and_clip_to_the_window() {
        let ev = two_workers();
        let r = rows(&ev, 0.0, 5.0);
        let legend = letters(&r);
        let letter = |n: &str| legend.iter().find(|l| l.0 == n).unwrap().1;
        assert_eq!(draw(&r[&(0, Some(0))], 0.0, 5.0, 5, &letter), "nHH..");
        assert_eq!(draw(&r[&(0, Some(1))], 0.0, 5.0, 5, &letter), ".n.HH");
        assert_eq!(draw(&r[&(0, None)], 0.0, 5.0, 10, &letter), "c.........");
        let clipped = rows(&ev, 2.5, 3.5);
        let s = summarize(&clipped);
        assert!((s[0].stage_sum - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_busy_row_shows_the_tens_digit_of_each_column() {
        let m = |b: f64| cuzk_devmon::Metrics {
            sm_busy_pct: Some(b),
            ..Default::default()
        };
        let s = [(0.0, 1.0, m(95.0)), (1.0, 2.0, m(42.0)), (2.0, 3.0, m(0.0))];
        assert_eq!(draw_busy(&s, 0.0, 4.0, 4), "940.");
        // A column across two samples shows their weighted mean: 68.5 %.
        assert_eq!(draw_busy(&s, 0.5, 1.5, 1), "6");
    }

    #[test]
    fn bad_lines_name_their_line() {
        let e = parse(b"{\"t\":0,\"kind\":\"gpu_start\"}\nnot json\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 2"), "{e:#}");
        assert!(parse(b"\xff").is_err());
    }
}
