//! The per-stage statistics of a bench report (median, p95 over every
//! partition) and the streamed-bases figures, from the jobs' outputs.

use std::time::Duration;

use cuzk_scheduler::{JobOutput, PartitionTimes};

use super::{median, percentile, total, StageStats};

pub(super) fn summarize(name: &str, mut v: Vec<f64>) -> StageStats {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    StageStats {
        name: name.to_string(),
        count: n,
        median_s: median(&v),
        p95_s: percentile(&v, 95.0),
        mean_s: if n == 0 {
            0.0
        } else {
            total(v.iter().copied()) / n as f64
        },
        max_s: v.last().copied().unwrap_or(0.0),
    }
}

pub(super) fn stage_stats(ok: &[&JobOutput]) -> Vec<StageStats> {
    let parts: Vec<_> = ok.iter().flat_map(|o| o.partitions.iter()).collect();
    let secs = |f: &dyn Fn(&PartitionTimes) -> Duration| -> Vec<f64> {
        parts.iter().map(|p| f(p).as_secs_f64()).collect()
    };
    let mut out = vec![
        summarize("synthesis", secs(&|p| p.synthesis)),
        summarize("gpu_wait", secs(&|p| p.gpu_wait)),
    ];
    out.push(summarize("gpu", secs(&|p| p.gpu)));
    let mut names: Vec<&'static str> = Vec::new();
    for p in &parts {
        for (n, _) in p.stages.stages() {
            if !names.contains(n) {
                names.push(n);
            }
        }
    }
    for n in names {
        let v = parts
            .iter()
            .filter_map(|p| {
                p.stages
                    .stages()
                    .iter()
                    .find(|(s, _)| *s == n)
                    .map(|(_, d)| d.as_secs_f64())
            })
            .collect();
        out.push(summarize(&format!("gpu.{n}"), v));
    }
    out.push(summarize("assembly", secs(&|p| p.assembly)));
    out.push(summarize("verify", secs(&|p| p.verify)));
    out
}

/// The median bytes a partition streamed and the rate of the streamed
/// passes (bytes over the time of the stages that streamed).
pub(super) fn stream_stats(ok: &[&JobOutput]) -> (Option<u64>, Option<f64>) {
    const PASSES: [&str; 5] = ["msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"];
    let mut per: Vec<u64> = Vec::new();
    let (mut bytes, mut secs) = (0u64, 0f64);
    for p in ok.iter().flat_map(|o| o.partitions.iter()) {
        let b: u64 = p
            .stages
            .counts()
            .iter()
            .filter(|(w, _)| *w == "stream_bytes")
            .map(|(_, n)| *n)
            .sum();
        if b == 0 {
            continue;
        }
        per.push(b);
        bytes += b;
        secs += p
            .stages
            .stages()
            .iter()
            .filter(|(n, _)| PASSES.contains(n))
            .map(|(_, d)| d.as_secs_f64())
            .sum::<f64>();
    }
    if per.is_empty() {
        return (None, None);
    }
    per.sort_unstable();
    let rate = (secs > 0.0).then(|| bytes as f64 / secs / 1e9);
    (Some(per[per.len() / 2]), rate)
}
