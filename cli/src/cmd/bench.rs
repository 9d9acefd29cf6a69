//! `cuzk bench`: j proofs of p partitions through the pipelined engine;
//! reports steady-state seconds per proof, GPU busy %, idle gaps, stage
//! medians and p95, peak RSS, and which resource bounded throughput.

use crate::circuit::{param_cache, CircuitArgs};
use crate::cmd::{backend, load_params, BackendChoice, ResidencyChoice};
use crate::output::Ctx;
use anyhow::{Context, Result};
use cuzk_groth16::Parameters;
use cuzk_scheduler::{
    write_json_lines, BenchSpec, ByteSpec, CircuitSource, Config, PartitionSource,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub circuit: CircuitArgs,
    /// Synthesis concurrency c: partitions synthesized at once (overrides
    /// [synthesis] concurrency; default: the config file, else the number of cores).
    #[arg(short = 'c', long)]
    pub concurrency: Option<usize>,
    /// Proofs to run (j). Steady state needs at least 2: the first proof is warm-up.
    #[arg(short = 'j', long, default_value_t = 4)]
    pub jobs: usize,
    /// Partitions per proof (p).
    #[arg(short = 'p', long, default_value_t = 2)]
    pub partitions: usize,
    /// GPU workers per device (overrides [gpus] gpu_workers_per_device).
    #[arg(long)]
    pub gw: Option<usize>,
    /// Most partitions of one proof in synthesis at once (overrides
    /// [synthesis] partition_workers).
    #[arg(long)]
    pub partition_workers: Option<usize>,
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
    /// Directory of cached test parameters (overrides [srs] param_cache;
    /// default: $CUZK_PARAM_CACHE or the user's cache dir).
    #[arg(long)]
    pub param_cache: Option<PathBuf>,
    /// Prover backend.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Where the GPU keeps the parameters' bases: resident when they fit
    /// (auto), always resident, or streamed per partition (transient).
    #[arg(long, value_enum, default_value_t = ResidencyChoice::Auto)]
    pub residency: ResidencyChoice,
}

/// The configuration file (or the defaults) with the flags applied.
fn config(a: &Args) -> Result<Config> {
    let mut cfg = match &a.config {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    if let Some(c) = a.concurrency {
        cfg.synthesis.concurrency = Some(c);
    }
    if let Some(p) = a.partition_workers {
        cfg.synthesis.partition_workers = Some(p);
    }
    if let Some(g) = a.gw {
        cfg.gpus.gpu_workers_per_device = g;
    }
    if let Some(b) = &a.budget {
        cfg.memory.budget = ByteSpec::parse(b).map_err(|e| anyhow::anyhow!("--budget: {e}"))?;
    }
    cfg.validate()
        .context("invalid settings (flags override the config file)")?;
    Ok(cfg)
}

/// Cached test parameters for the circuit, generated on first use.
fn params(ctx: &Ctx, circuit: &CircuitArgs, dir: &Path) -> Result<Parameters> {
    let path = dir.join(format!("{}-setup0.params", circuit.shape_name()));
    if path.exists() {
        match load_params(ctx, &path, false) {
            Ok(p) => return Ok(p),
            Err(e) => ctx.say(format!("cached parameters unusable ({e:#}); regenerating")),
        }
    }
    ctx.say(format!(
        "generating test parameters for {} (cached at {})",
        circuit.shape_name(),
        path.display()
    ));
    let p = crate::cmd::setup::generate(ctx, circuit, 0)?;
    crate::cmd::setup::save(&p, &path, None)?;
    Ok(p)
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    a.circuit.validate()?;
    anyhow::ensure!(a.jobs >= 1, "-j must be at least 1");
    anyhow::ensure!(a.partitions >= 1, "--partitions must be at least 1");
    let cfg = config(&a)?;
    let opts = cfg.engine_options()?;
    let dir = param_cache(
        a.param_cache
            .clone()
            .or_else(|| cfg.srs.param_cache.clone()),
    )?;
    let params = Arc::new(params(ctx, &a.circuit, &dir)?);
    let be: Arc<dyn cuzk_groth16::Backend> =
        Arc::from(backend(a.backend, a.residency, Some(&params))?);

    // One shape for every partition, known without synthesizing where the
    // circuit can tell (the bench circuit), counted once otherwise.
    let shape = match a.circuit.circuit.as_str() {
        "bench" => cuzk_synth::circuits::BenchCircuit::new(a.circuit.log_size, 0)
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .expected_shape(),
        _ => {
            cuzk_synth::count_shape(a.circuit.build(0)?).context("counting the circuit's shape")?
        }
    };
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
        jobs: a.jobs,
        partitions: p,
    };
    let sp = ctx.spinner(&format!(
        "{} proofs x {} partitions of {} (c={}, gw={})",
        a.jobs, p, spec.label, opts.concurrency, opts.gpu_workers_per_device
    ));
    let run = cuzk_scheduler::bench(&opts, be, params, &spec, &make_source)
        .context("the engine could not run")?;
    sp.finish_and_clear();

    if let Some(path) = &a.timeline {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
        write_json_lines(&run.timeline, &mut f)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let r = &run.report;
    if ctx.json {
        println!("{}", serde_json::to_string(r)?);
    } else {
        ctx.say(r.summary());
        if let Some(path) = &a.timeline {
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
    Ok(())
}
