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

/// What the streamed passes moved, from every partition that streamed.
#[derive(Debug, Default, PartialEq)]
pub(super) struct StreamStats {
    /// Median bytes a partition streamed.
    pub bytes_per_partition: Option<u64>,
    /// Those bytes over the wall time of the stages that streamed, GB/s.
    pub gb_per_s: Option<f64>,
    /// Those bytes over the device time of their copies (CUDA events):
    /// the rate the link gave, to hold against its ceiling, GB/s.
    pub link_gb_per_s: Option<f64>,
}

pub(super) fn stream_stats(ok: &[&JobOutput]) -> StreamStats {
    const PASSES: [&str; 5] = ["msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"];
    let mut per: Vec<u64> = Vec::new();
    let (mut bytes, mut secs, mut copy) = (0u64, 0f64, 0f64);
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
        copy += p
            .stages
            .spans()
            .iter()
            .filter(|s| s.stage == "stream_upload")
            .map(|s| s.dur.as_secs_f64())
            .sum::<f64>();
    }
    if per.is_empty() {
        return StreamStats::default();
    }
    per.sort_unstable();
    let rate = |t: f64| (t > 0.0).then(|| bytes as f64 / t / 1e9);
    StreamStats {
        bytes_per_partition: Some(per[per.len() / 2]),
        gb_per_s: rate(secs),
        link_gb_per_s: rate(copy),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use cuzk_groth16::Timings;
    use cuzk_scheduler::{JobId, JobOutput, PartitionTimes};

    use super::{stream_stats, StreamStats};

    /// A partition whose passes streamed `gb` GB in `wall` seconds of MSM
    /// stages, `copy` seconds of it copies.
    fn part(gb: u64, wall: f64, copy: f64) -> PartitionTimes {
        let mut t = Timings::default();
        let t0 = Instant::now();
        if gb > 0 {
            t.count("stream_bytes", gb * 1_000_000_000);
        }
        t.add_at("ntt_h", t0, Duration::from_secs(5));
        t.add_at("msm_h", t0, Duration::from_secs_f64(wall / 2.0));
        t.add_at("msm_l", t0, Duration::from_secs_f64(wall / 2.0));
        t.beside("stream_upload", t0, Duration::from_secs_f64(copy / 2.0));
        t.beside("stream_upload", t0, Duration::from_secs_f64(copy / 2.0));
        t.beside("stream_kernels", t0, Duration::from_secs_f64(wall));
        PartitionTimes {
            synthesis: Duration::ZERO,
            gpu_wait: Duration::ZERO,
            gpu: Duration::ZERO,
            stages: t,
            assembly: Duration::ZERO,
            verify: Duration::ZERO,
            device: 0,
        }
    }

    fn job(partitions: Vec<PartitionTimes>) -> JobOutput {
        JobOutput {
            job: JobId(0),
            proofs: Vec::new(),
            inputs: Vec::new(),
            partitions,
            submitted_at: 0.0,
            finished_at: 1.0,
        }
    }

    #[test]
    fn streamed_bytes_over_the_passes_and_over_the_copies() {
        // 48 GB in 4 s of passes with 1 s of copies, twice; 24 GB in 2 s
        // with 0.5 s; a resident partition (no bytes, its stages ignored).
        let a = job(vec![part(48, 4.0, 1.0), part(0, 9.0, 0.0)]);
        let b = job(vec![part(48, 4.0, 1.0), part(24, 2.0, 0.5)]);
        let st = stream_stats(&[&a, &b]);
        assert_eq!(st.bytes_per_partition, Some(48_000_000_000));
        let close = |x: Option<f64>, y: f64| (x.unwrap() - y).abs() < 1e-9;
        assert!(close(st.gb_per_s, 120.0 / 10.0), "{st:?}");
        assert!(close(st.link_gb_per_s, 120.0 / 2.5), "{st:?}");
        assert_eq!(
            stream_stats(&[&job(vec![part(0, 1.0, 0.0)])]),
            StreamStats::default()
        );
    }
}
