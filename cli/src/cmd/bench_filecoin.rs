//! `cuzk bench porep|winning-post|window-post|snap`: the engine on
//! shape-correct random inputs of any sector size (C1 outputs from
//! `cuzk_filecoin_tools::bench_c1`, vanilla proofs from
//! `cuzk_filecoin_tools::bench_vanilla`), self-check off, one parameter
//! file loaded once. Real constraint counts, real synthesis and real GPU
//! work; the proofs cannot verify, and the report says so.

use super::bench::{config, report, EngineArgs};
use crate::cmd::{engine_with, load_into};
use crate::output::Ctx;
use crate::params::ParamArgs;
use crate::report::BenchSpec;
use anyhow::{Context, Result};
use cuzk_filecoin::{PostProofKind, PostType, PostVersion, SnapProofKind};
use cuzk_filecoin_tools::bench_vanilla::{random_post, random_snap};
use cuzk_scheduler::params::ParamFiles;
use cuzk_scheduler::{Engine, PartitionSource};
use std::path::PathBuf;
use std::sync::Arc;

/// What every Filecoin bench takes.
#[derive(clap::Args, Debug)]
pub struct FilecoinBenchArgs {
    /// Sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB).
    #[arg(long, default_value = "32GiB")]
    pub sector_size: String,
    #[command(flatten)]
    pub params: ParamArgs,
    /// Seed of the first random input (proof j uses seed + j).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub synthesis: super::porep::SynthesisArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// `cuzk bench porep`.
#[derive(clap::Args, Debug)]
pub struct PorepBenchArgs {
    #[command(flatten)]
    pub bench: FilecoinBenchArgs,
    /// Non-interactive PoRep: 126 partitions per 32 GiB sector (the
    /// interactive circuit and parameters); the SnarkPack aggregate is not
    /// made, as the random inputs' proofs cannot verify.
    #[arg(long)]
    pub ni: bool,
}

/// `cuzk bench winning-post|window-post|snap`.
#[derive(clap::Args, Debug)]
pub struct VanillaBenchArgs {
    #[command(flatten)]
    pub bench: FilecoinBenchArgs,
    /// WindowPoSt: sectors per proof (default: one full partition, the
    /// size's sector count: 2349 at 32 GiB).
    #[arg(long)]
    pub sectors: Option<usize>,
}

/// The engine of a Filecoin bench (`-j` checked, the timeline on) and its
/// parameter directory (`--param-cache`, else the config's, else
/// filecoin-proofs' own).
fn filecoin_bench_engine(
    a: &FilecoinBenchArgs,
) -> Result<(Engine, PathBuf, cuzk_scheduler::WitnessConfig)> {
    let e = &a.engine;
    crate::cmd::limits::check_count("-j", e.jobs, crate::cmd::limits::MAX_BENCH_PARTITIONS)?;
    let cfg = config(e, None)?;
    let mut opts = cfg.engine_options()?;
    opts.timeline = true;
    let dir = a
        .params
        .dir(cfg.srs.param_cache.as_deref(), ParamFiles::Filecoin);
    let engine = engine_with(opts, &cfg, e.device.backend)?;
    Ok((engine, dir, cfg.synthesis.witness))
}

/// `cuzk bench porep`.
pub fn run_porep(ctx: &Ctx, p: PorepBenchArgs) -> Result<()> {
    let a = &p.bench;
    let e = &a.engine;
    let (engine, dir, witness) = filecoin_bench_engine(a)?;
    let size = cuzk_filecoin::parse_size(&a.sector_size)?;
    let version = if p.ni {
        cuzk_filecoin::SealVersion::V1_2NonInteractive
    } else {
        cuzk_filecoin::SealVersion::V1_1
    };
    let kind = cuzk_filecoin::SealProofKind::new(size, version)?;
    // The recorded circuit and the jobs (random C1s) are ready before the
    // clock starts.
    cuzk_filecoin::locate(&dir, kind)?;
    let recorded = super::porep::Recorded::new(&a.synthesis);
    let r1cs = recorded.get(&kind, &engine)?;
    let sp = ctx.spinner("building random C1 outputs");
    let mut jobs = Vec::with_capacity(e.jobs);
    for j in 0..e.jobs {
        let c1 = cuzk_filecoin_tools::bench_c1::random_c1(&kind, a.seed + j as u64)?;
        jobs.push(cuzk_filecoin::porep::porep_job(
            &c1,
            &dir,
            false,
            r1cs.as_ref(),
            a.synthesis.witness(witness.porep),
        )?);
    }
    sp.finish_and_clear();
    ctx.say(
        match r1cs {
            Some(_) => format!(
                "synthesis: compiled, witness: {:?}",
                a.synthesis.witness(witness.porep)
            ),
            None => "synthesis: classic".into(),
        }
        .to_lowercase(),
    );
    run_unchecked(
        ctx,
        &engine,
        jobs,
        format!("{}porep-{}", if p.ni { "ni-" } else { "" }, a.sector_size),
        e,
        "random C1 outputs",
    )
}

/// Runs ready benchmark jobs of one parameter file (loaded once) with the
/// self-check off and prints the report: their inputs are random, so the
/// proofs cannot verify (`what` says which inputs, in the report).
fn run_unchecked(
    ctx: &Ctx,
    engine: &Engine,
    jobs: Vec<cuzk_filecoin::ProofJob>,
    label: String,
    e: &EngineArgs,
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
        device_sample: e.device_sample()?,
    };
    let make = |j: usize| -> Arc<dyn PartitionSource> {
        let job = jobs[j].lock().unwrap_or_else(|p| p.into_inner()).take();
        match job {
            Some(job) => job.source,
            None => Arc::new(cuzk_scheduler::AssignmentSource::new(Vec::new())),
        }
    };
    report(ctx, engine, &id, &spec, e.timeline.as_deref(), &make)?;
    Ok(())
}

/// Which proof `run` benchmarks.
#[derive(Clone, Copy, Debug)]
pub enum Bench {
    /// WinningPoSt or WindowPoSt.
    Post(PostType),
    /// SnapDeals.
    Snap,
}

/// Runs `cuzk bench winning-post|window-post|snap`.
pub fn run(ctx: &Ctx, what: Bench, v: VanillaBenchArgs) -> Result<()> {
    let a = &v.bench;
    let e = &a.engine;
    let (engine, dir, witness) = filecoin_bench_engine(a)?;
    let size = cuzk_filecoin::parse_size(&a.sector_size)?;
    // The record (loaded, or made on first use: about one classic
    // synthesis of a partition) and the inputs are ready before the clock
    // starts.
    let recorded = super::porep::Recorded::new(&a.synthesis);
    let post_kind = |typ| {
        let version = match typ {
            PostType::Winning => PostVersion::V1,
            PostType::Window => PostVersion::V1_2,
        };
        PostProofKind::new(typ, size, version)
    };
    let r1cs = match what {
        Bench::Snap => recorded.snap(&SnapProofKind::new(size)?, &engine)?,
        Bench::Post(typ) => recorded.post(&post_kind(typ)?, &engine)?,
    };
    ctx.say(match (&r1cs, what) {
        (None, _) => "synthesis: classic".to_string(),
        (Some(_), Bench::Post(_)) => format!(
            "synthesis: compiled, witness: {:?}",
            a.synthesis.witness(witness.post)
        )
        .to_lowercase(),
        (Some(_), Bench::Snap) => format!(
            "synthesis: compiled, witness: {:?}",
            a.synthesis.witness(witness.snap)
        )
        .to_lowercase(),
    });
    let sp = ctx.spinner("building random vanilla proofs");
    let (label, jobs) = match what {
        Bench::Post(typ) => {
            let kind = post_kind(typ)?;
            let sectors = v.sectors.unwrap_or_else(|| kind.sectors_per_partition());
            crate::cmd::limits::check_count("--sectors", sectors, 1 << 20)?;
            let jobs = (0..e.jobs)
                .map(|j| {
                    let input = random_post(&kind, sectors, a.seed + j as u64)?;
                    cuzk_filecoin::post::post_bench_job(
                        &input,
                        &dir,
                        r1cs.as_ref(),
                        a.synthesis.witness(witness.post),
                    )
                })
                .collect::<cuzk_filecoin::Result<Vec<_>>>()?;
            (kind.api_name(), jobs)
        }
        Bench::Snap => {
            let kind = SnapProofKind::new(size)?;
            let jobs = (0..e.jobs)
                .map(|j| {
                    let input = random_snap(&kind, a.seed + j as u64)?;
                    cuzk_filecoin::snap::snap_bench_job(
                        &input,
                        &dir,
                        r1cs.as_ref(),
                        a.synthesis.witness(witness.snap),
                    )
                })
                .collect::<cuzk_filecoin::Result<Vec<_>>>()?;
            (kind.api_name(), jobs)
        }
    };
    sp.finish_and_clear();
    run_unchecked(ctx, &engine, jobs, label, e, "random vanilla proofs")
}
