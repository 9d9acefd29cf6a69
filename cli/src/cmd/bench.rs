//! `cuzk bench`: j proofs of p partitions through the pipelined engine;
//! reports steady-state seconds per proof, GPU busy %, idle gaps, stage
//! medians and p95, peak RSS, and which resource bounded throughput.

use crate::circuit::{param_cache, CircuitArgs};
use crate::cmd::{engine, load_into, parse_devices, BackendChoice, ResidencyChoice};
use crate::output::Ctx;
use crate::report::{BenchRun, BenchSpec};
use anyhow::{Context, Result};
use cuzk_scheduler::{write_json_lines, ByteSpec, CircuitSource, Config, Engine, PartitionSource};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Directory of cached test parameters (overrides [srs] param_cache;
    /// default: $CUZK_PARAM_CACHE or the user's cache dir).
    #[arg(long)]
    pub param_cache: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// `cuzk bench porep`: PoRep C2 jobs from shape-correct random C1 outputs
/// (real constraint count, real synthesis, real GPU work; the proofs
/// cannot verify, so the self-check is off and the report says so).
#[derive(clap::Args, Debug)]
pub struct PorepArgs {
    /// Sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB).
    #[arg(long, default_value = "32GiB")]
    pub sector_size: String,
    /// Directory of the v28 `.params` file (default: the config's
    /// param_cache, else FIL_PROOFS_PARAMETER_CACHE, else
    /// /var/tmp/filecoin-proof-parameters).
    #[arg(long)]
    pub param_cache: Option<PathBuf>,
    /// Seed of the first random C1 (proof j uses seed + j).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub synthesis: super::porep::SynthesisArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The engine knobs `cuzk bench` and `cuzk bench porep` share.
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
    /// Prover backend.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Where the GPU keeps the parameters' bases: resident when they fit
    /// (auto), always resident, or streamed per partition (transient).
    #[arg(long, value_enum, default_value_t = ResidencyChoice::Auto)]
    pub residency: ResidencyChoice,
    /// GPUs to use, e.g. `0,1` (default: all).
    #[arg(long, value_parser = parse_devices)]
    pub devices: Option<Vec<u32>>,
}

/// The configuration file (or the defaults) with the flags applied.
pub(super) fn config(
    file: Option<&Path>,
    concurrency: Option<usize>,
    partition_workers: Option<usize>,
    gw: Option<usize>,
    budget: Option<&str>,
) -> Result<Config> {
    let mut cfg = match file {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    if let Some(c) = concurrency {
        cfg.synthesis.concurrency = Some(c);
    }
    if let Some(p) = partition_workers {
        cfg.synthesis.partition_workers = Some(p);
    }
    if let Some(g) = gw {
        cfg.gpus.gpu_workers_per_device = g;
    }
    if let Some(b) = budget {
        cfg.memory.budget = ByteSpec::parse(b).map_err(|e| anyhow::anyhow!("--budget: {e}"))?;
    }
    cfg.validate()
        .context("invalid settings (flags override the config file)")?;
    Ok(cfg)
}

/// The bench circuit's test parameters in `dir`, generated once.
fn params_file(ctx: &Ctx, circuit: &CircuitArgs, dir: &Path) -> Result<PathBuf> {
    let path = dir.join(format!("{}-setup0.params", circuit.shape_name()));
    if path.exists() {
        match cuzk_groth16::Parameters::inspect(&path) {
            Ok(_) => return Ok(path),
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
    Ok(path)
}

/// Runs the bench on `engine` and prints the report.
fn report(
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
    let run =
        crate::report::bench(engine, id, spec, make_source).context("the engine could not run")?;
    sp.finish_and_clear();
    if let Some(path) = timeline {
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

/// The engine of a Filecoin bench (`-j` checked, the timeline on) and its
/// parameter directory (`--param-cache`, else the config's, else
/// filecoin-proofs' default).
pub fn filecoin_bench_engine(
    e: &EngineArgs,
    param_cache: Option<&Path>,
) -> Result<(Engine, PathBuf)> {
    crate::cmd::limits::check_count("-j", e.jobs, crate::cmd::limits::MAX_BENCH_PARTITIONS)?;
    let cfg = config(
        e.config.as_deref(),
        e.concurrency,
        None,
        e.gw,
        e.budget.as_deref(),
    )?;
    let mut opts = cfg.engine_options()?;
    opts.timeline = true;
    let dir = cuzk_filecoin::resolve_param_dir(param_cache, cfg.srs.param_cache.as_deref());
    let engine = engine(
        opts,
        e.backend,
        e.residency,
        e.devices.as_deref().unwrap_or(&[]),
    )?;
    Ok((engine, dir))
}

/// `cuzk bench porep`.
pub fn run_porep(ctx: &Ctx, a: PorepArgs) -> Result<()> {
    let e = &a.engine;
    let (engine, dir) = filecoin_bench_engine(e, a.param_cache.as_deref())?;
    let size = cuzk_filecoin::parse_size(&a.sector_size)?;
    let kind = cuzk_filecoin::SealProofKind::new(size, cuzk_filecoin::SealVersion::V1_1)?;
    // The recorded circuit and the jobs (random C1s) are ready before the
    // clock starts.
    cuzk_filecoin::locate_params(&kind, &dir)?;
    let recorded = super::porep::Recorded::new(&a.synthesis);
    let r1cs = recorded.get(&kind, &engine)?;
    let sp = ctx.spinner("building random C1 outputs");
    let mut jobs = Vec::with_capacity(e.jobs);
    for j in 0..e.jobs {
        let c1 = cuzk_filecoin::bench_c1::random_c1(&kind, a.seed + j as u64)?;
        jobs.push(cuzk_filecoin::porep::porep_job(
            &c1,
            &dir,
            false,
            r1cs.as_ref(),
        )?);
    }
    sp.finish_and_clear();
    ctx.say(format!("synthesis: {:?}", a.synthesis.synthesis).to_lowercase());
    run_unchecked(
        ctx,
        &engine,
        jobs,
        format!("porep-{}", a.sector_size),
        e.timeline.as_deref(),
        "random C1 outputs",
    )
}

/// Runs ready benchmark jobs of one parameter file (loaded once) with the
/// self-check off and prints the report: their inputs are random, so the
/// proofs cannot verify (`what` says which inputs, in the report).
pub(super) fn run_unchecked(
    ctx: &Ctx,
    engine: &Engine,
    jobs: Vec<cuzk_filecoin::ProofJob>,
    label: String,
    timeline: Option<&Path>,
    what: &str,
) -> Result<()> {
    let first = jobs.first().context("no jobs (-j 0)")?;
    let (id, path, partitions) = (
        first.circuit_id.clone(),
        first.params_path.clone(),
        first.source.num_partitions(),
    );
    let n = jobs.len();
    let jobs: Vec<_> = jobs
        .into_iter()
        .map(|j| std::sync::Mutex::new(Some(j)))
        .collect();
    load_into(ctx, engine, &id, &path, false)?;
    ctx.say(format!(
        "self-check off: {what} give proofs that cannot verify"
    ));
    let spec = BenchSpec {
        label,
        jobs: n,
        partitions,
        self_check: false,
    };
    let make = |j: usize| -> Arc<dyn PartitionSource> {
        let job = jobs[j].lock().unwrap_or_else(|p| p.into_inner()).take();
        match job {
            Some(job) => job.source,
            None => Arc::new(cuzk_scheduler::AssignmentSource::new(Vec::new())),
        }
    };
    report(ctx, engine, &id, &spec, timeline, &make)?;
    Ok(())
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
    let cfg = config(
        a.engine.config.as_deref(),
        a.engine.concurrency,
        a.partition_workers,
        a.engine.gw,
        a.engine.budget.as_deref(),
    )?;
    let mut opts = cfg.engine_options()?;
    opts.timeline = true;
    let dir = param_cache(
        a.param_cache
            .clone()
            .or_else(|| cfg.srs.param_cache.clone()),
    )?;
    let path = params_file(ctx, &a.circuit, &dir)?;
    let engine = engine(
        opts,
        a.engine.backend,
        a.engine.residency,
        a.engine.devices.as_deref().unwrap_or(&[]),
    )?;
    const ID: &str = "bench";
    load_into(ctx, &engine, ID, &path, false)?;

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
        jobs: a.engine.jobs,
        partitions: p,
        self_check: true,
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
