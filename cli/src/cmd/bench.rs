//! `cuzk bench`: j proofs of p partitions through the pipelined engine;
//! reports steady-state seconds per proof, GPU busy %, idle gaps, stage
//! medians and p95, peak RSS, and which resource bounded throughput.

use crate::circuit::CircuitArgs;
use crate::cmd::{engine_with, load_into, DeviceArgs};
use crate::output::Ctx;
use crate::params::{test_params, ParamArgs};
use crate::report::{BenchRun, BenchSpec};
use anyhow::{Context, Result};
use cuzk_scheduler::params::ParamFiles;
use cuzk_scheduler::{
    write_json_lines, ByteSpec, CircuitSource, Config, Engine, Event, EventKind, PartitionSource,
};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub circuit: CircuitArgs,
    /// Partitions per proof (p).
    #[arg(short = 'p', long, default_value_t = 2)]
    pub partitions: usize,
    /// Most partitions of one proof in synthesis at once (overrides
    /// [synthesis] partition_workers).
    #[arg(long)]
    pub partition_workers: Option<usize>,
    #[command(flatten)]
    pub params: ParamArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The engine knobs `cuzk bench` and the Filecoin benches share.
#[derive(clap::Args, Debug)]
pub struct EngineArgs {
    /// Synthesis concurrency c: partitions synthesized at once (overrides
    /// [synthesis] concurrency; default: the config file, else the number of cores).
    #[arg(short = 'c', long)]
    pub concurrency: Option<usize>,
    /// Proofs to run (j). Steady state needs at least 2: the first proof is warm-up.
    #[arg(short = 'j', long, default_value_t = 4)]
    pub jobs: usize,
    /// GPU workers per device (overrides [gpus] gpu_workers_per_device).
    #[arg(long)]
    pub gw: Option<usize>,
    /// Memory budget: "auto", a size ("8GiB") or a share of RAM ("50%")
    /// (overrides [memory] budget).
    #[arg(long)]
    pub budget: Option<String>,
    /// Engine configuration file (TOML; see scheduler/cuzk.example.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Write every timeline event (one JSON object per line) to this file.
    #[arg(long)]
    pub timeline: Option<PathBuf>,
    /// Read the GPUs' hardware counters (busy SMs, occupancy, integer
    /// pipe, DRAM, PCIe; NVML GPM, Hopper or newer) every this many
    /// milliseconds, into the timeline and the report; 0: not at all.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub device_sample_ms: u64,
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// The configuration file (or the defaults) with the flags applied.
pub(super) fn config(e: &EngineArgs, partition_workers: Option<usize>) -> Result<Config> {
    let mut cfg = match e.config.as_deref() {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    for n in &cfg.notices {
        eprintln!("warning: {}: {}", n.key, n.message);
    }
    super::init_cpu_pool(cfg.synthesis.threads)?;
    if let Some(c) = e.concurrency {
        cfg.synthesis.concurrency = Some(c);
    }
    if let Some(p) = partition_workers {
        cfg.synthesis.partition_workers = Some(p);
    }
    if let Some(g) = e.gw {
        cfg.gpus.gpu_workers_per_device = g;
    }
    if let Some(b) = e.budget.as_deref() {
        cfg.memory.budget = ByteSpec::parse(b).map_err(|e| anyhow::anyhow!("--budget: {e}"))?;
    }
    e.device.apply(&mut cfg)?;
    Ok(cfg)
}

impl EngineArgs {
    /// `--device-sample-ms` as a period (`None`: off), checked against
    /// the sampler's range.
    pub(super) fn device_sample(&self) -> Result<Option<Duration>> {
        if self.device_sample_ms == 0 {
            return Ok(None);
        }
        let p = Duration::from_millis(self.device_sample_ms);
        if p < cuzk_devmon::MIN_PERIOD {
            anyhow::bail!(
                "--device-sample-ms {}: at least {} ms (or 0: off)",
                self.device_sample_ms,
                cuzk_devmon::MIN_PERIOD.as_millis()
            );
        }
        Ok(Some(p))
    }
}

/// Runs the bench on `engine` and prints the report.
pub(super) fn report(
    ctx: &Ctx,
    engine: &Engine,
    id: &str,
    spec: &BenchSpec,
    timeline: Option<&Path>,
    make_source: &dyn Fn(usize) -> Arc<dyn PartitionSource>,
) -> Result<BenchRun> {
    let opts = engine.options();
    let sp = ctx.spinner(&format!(
        "{} proofs x {} partitions of {} (c={}, gw={}, devices {:?})",
        spec.jobs,
        spec.partitions,
        spec.label,
        opts.concurrency,
        opts.gpu_workers_per_device,
        opts.devices
    ));
    // The timeline file is written as the run goes, and each partition's
    // end is a line on stderr: a run stopped by a time limit still shows
    // what it finished.
    let mut file = timeline
        .map(|path| {
            std::fs::File::create(path)
                .map(std::io::BufWriter::new)
                .with_context(|| format!("cannot create {}", path.display()))
        })
        .transpose()?;
    let mut write_error = None;
    // With --json the report owns stdout; the progress lines still go to
    // stderr, where a device script's log keeps them.
    let show = ctx.json || !ctx.quiet;
    let mut progress = Progress::default();
    let mut on_events = |events: &[Event]| {
        if let Some(f) = file.as_mut() {
            if write_error.is_none() {
                if let Err(e) = write_json_lines(events, f).and_then(|()| f.flush()) {
                    write_error = Some(e);
                }
            }
        }
        if show {
            for line in events.iter().filter_map(|e| progress.line(e)) {
                sp.suspend(|| eprintln!("{line}"));
            }
        }
    };
    let run = crate::report::bench(engine, id, spec, make_source, &mut on_events)
        .context("the engine could not run")?;
    sp.finish_and_clear();
    if let (Some(e), Some(path)) = (write_error, timeline) {
        return Err(anyhow::Error::new(e).context(format!("cannot write {}", path.display())));
    }
    let r = &run.report;
    if ctx.json {
        println!("{}", serde_json::to_string(r)?);
    } else {
        ctx.say(r.summary());
        if let Some(path) = timeline {
            ctx.say(format!(
                "timeline: {} events in {}",
                run.timeline.len(),
                path.display()
            ));
        }
    }
    if r.failed_jobs > 0 {
        anyhow::bail!(
            "{} of {} proofs failed; first: {}",
            r.failed_jobs,
            r.jobs,
            r.errors.first().map(String::as_str).unwrap_or("?")
        );
    }
    Ok(run)
}

/// The bench's stderr lines: one per proved partition (its time in the
/// device region and, when its bases were streamed, the device time of
/// the base uploads and of the streamed kernels) and per proof that ended.
#[derive(Default)]
struct Progress {
    /// Per (proof, partition) in flight: when it entered the device
    /// region, the region's length once it left, and the streamed
    /// passes' upload and kernel seconds.
    open: HashMap<(u64, usize), Partition>,
}

#[derive(Default)]
struct Partition {
    entered: f64,
    region: Option<(f64, u32)>,
    upload: f64,
    kernels: f64,
}

impl Progress {
    fn line(&mut self, e: &Event) -> Option<String> {
        let what = match e.kind {
            EventKind::GpuStart => {
                let p = self.open.entry((e.job?, e.partition?)).or_default();
                p.entered = e.t;
                return None;
            }
            EventKind::GpuEnd => {
                let p = self.open.get_mut(&(e.job?, e.partition?))?;
                p.region = Some((e.t - p.entered, e.device?));
                return None;
            }
            EventKind::Stage => {
                let p = self.open.get_mut(&(e.job?, e.partition?))?;
                match e.name.as_deref() {
                    Some("stream_upload") => p.upload += e.dur?,
                    Some("stream_kernels") => p.kernels += e.dur?,
                    _ => {}
                }
                return None;
            }
            // The stages are in by the assembly that follows them.
            EventKind::Assembly => {
                let (j, k) = (e.job?, e.partition?);
                let p = self.open.remove(&(j, k))?;
                let (region, device) = p.region?;
                let streamed = if p.upload + p.kernels > 0.0 {
                    format!(
                        " (streamed: uploads {:.2} s, kernels {:.2} s)",
                        p.upload, p.kernels
                    )
                } else {
                    String::new()
                };
                format!("partition {k} of proof {j} proved in {region:.2} s on device {device}{streamed}")
            }
            EventKind::JobDone => format!("proof {} done", e.job?),
            EventKind::JobFailed => format!(
                "proof {} failed: {}",
                e.job?,
                e.detail.as_deref().unwrap_or("?")
            ),
            _ => return None,
        };
        Some(format!("[{:8.1} s] {what}", e.t))
    }
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    a.circuit.validate()?;
    use crate::cmd::limits::{check_count, MAX_BENCH_PARTITIONS};
    check_count("-j", a.engine.jobs, MAX_BENCH_PARTITIONS)?;
    check_count("--partitions", a.partitions, MAX_BENCH_PARTITIONS)?;
    check_count(
        "-j × --partitions",
        a.engine.jobs.saturating_mul(a.partitions),
        MAX_BENCH_PARTITIONS,
    )?;
    let cfg = config(&a.engine, a.partition_workers)?;
    let mut opts = cfg.engine_options()?;
    opts.timeline = true;
    let dir = a
        .params
        .dir(cfg.srs.param_cache.as_deref(), ParamFiles::Test);
    let (path, _) = test_params(ctx, &a.circuit, &dir)?;
    let engine = engine_with(opts, &cfg, a.engine.device.backend)?;
    const ID: &str = "bench";
    load_into(ctx, &engine, ID, &path, false)?;

    // One shape for every partition.
    let shape = a.circuit.shape()?;
    let (p, seed0) = (a.partitions, a.circuit.witness_seed);
    let circuit = a.circuit.clone();
    let make_source = move |j: usize| -> Arc<dyn PartitionSource> {
        let c = circuit.clone();
        Arc::new(CircuitSource::new(p, Some(shape), move |i| {
            c.build(seed0 + (j * p + i) as u64).map_err(Into::into)
        }))
    };
    let spec = BenchSpec {
        label: a.circuit.shape_name(),
        jobs: a.engine.jobs,
        partitions: p,
        self_check: true,
        device_sample: a.engine.device_sample()?,
    };
    report(
        ctx,
        &engine,
        ID,
        &spec,
        a.engine.timeline.as_deref(),
        &make_source,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Progress;
    use cuzk_scheduler::Event;

    fn ev(json: &str) -> Event {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn progress_gives_each_partition_its_device_time() {
        let mut p = Progress::default();
        let quiet = [
            r#"{"t":1.0,"kind":"gpu_start","job":3,"partition":2,"device":0}"#,
            r#"{"t":1.5,"kind":"gpu_start","job":3,"partition":4,"device":1}"#,
            r#"{"t":3.5,"kind":"gpu_end","job":3,"partition":2,"device":0}"#,
            r#"{"t":1.1,"kind":"stage","job":3,"partition":2,"name":"stream_upload","dur":0.25}"#,
            r#"{"t":1.2,"kind":"stage","job":3,"partition":2,"name":"stream_kernels","dur":1.5}"#,
            r#"{"t":2.2,"kind":"stage","job":3,"partition":2,"name":"stream_upload","dur":0.5}"#,
            r#"{"t":2.3,"kind":"stage","job":3,"partition":2,"name":"msm_h","dur":9.0}"#,
            r#"{"t":4.0,"kind":"gpu_end","job":3,"partition":4,"device":1}"#,
            r#"{"t":5.0,"kind":"synth_end","job":3}"#,
        ];
        for e in quiet {
            assert_eq!(p.line(&ev(e)), None, "{e}");
        }
        assert_eq!(
            p.line(&ev(
                r#"{"t":3.5,"kind":"assembly","job":3,"partition":2,"dur":0.1}"#
            ))
            .unwrap(),
            "[     3.5 s] partition 2 of proof 3 proved in 2.50 s on device 0 \
             (streamed: uploads 0.75 s, kernels 1.50 s)"
        );
        assert_eq!(
            p.line(&ev(
                r#"{"t":4.0,"kind":"assembly","job":3,"partition":4,"dur":0.1}"#
            ))
            .unwrap(),
            "[     4.0 s] partition 4 of proof 3 proved in 2.50 s on device 1"
        );
        assert_eq!(
            p.line(&ev(
                r#"{"t":5.0,"kind":"job_failed","job":3,"detail":"no"}"#
            ))
            .unwrap(),
            "[     5.0 s] proof 3 failed: no"
        );
        assert!(p.open.is_empty());
    }
}
