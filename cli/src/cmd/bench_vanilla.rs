//! `cuzk bench winning-post|window-post|snap`: the engine on shape-correct
//! random vanilla proofs (`cuzk_filecoin::bench_vanilla`) of any sector
//! size, self-check off, one parameter file loaded once.

use super::bench::{filecoin_bench_engine, run_unchecked, EngineArgs};
use crate::output::Ctx;
use anyhow::Result;
use cuzk_filecoin::bench_vanilla::{random_post, random_snap};
use cuzk_filecoin::{PostProofKind, PostType, PostVersion, SnapProofKind};
use std::path::PathBuf;

/// `cuzk bench winning-post|window-post|snap`.
#[derive(clap::Args, Debug)]
pub struct VanillaBenchArgs {
    /// Sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB).
    #[arg(long, default_value = "32GiB")]
    pub sector_size: String,
    /// WindowPoSt: sectors per proof (default: one full partition, the
    /// size's sector count: 2349 at 32 GiB).
    #[arg(long)]
    pub sectors: Option<usize>,
    /// Directory of the v28 `.params` file (default: the config's
    /// param_cache, else FIL_PROOFS_PARAMETER_CACHE, else
    /// /var/tmp/filecoin-proof-parameters).
    #[arg(long)]
    pub param_cache: Option<PathBuf>,
    /// Seed of the first random input (proof j uses seed + j).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// SnapDeals only: PoSt circuits are always synthesized classically
    /// (a WindowPoSt partition synthesizes its sectors in parallel).
    #[command(flatten)]
    pub synthesis: super::porep::SynthesisArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
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
pub fn run(ctx: &Ctx, what: Bench, a: VanillaBenchArgs) -> Result<()> {
    let e = &a.engine;
    let (engine, dir) = filecoin_bench_engine(e, a.param_cache.as_deref())?;
    let size = cuzk_filecoin::parse_size(&a.sector_size)?;
    // The record (loaded, or made on first use: about one classic
    // synthesis of a partition) and the inputs are ready before the clock
    // starts.
    let r1cs = match what {
        Bench::Snap => {
            super::porep::Recorded::new(&a.synthesis).snap(&SnapProofKind::new(size)?, &engine)?
        }
        Bench::Post(_) => None,
    };
    ctx.say(match (what, &r1cs) {
        (Bench::Post(_), _) => "synthesis: classic (PoSt circuits are not recorded)",
        (Bench::Snap, Some(_)) => "synthesis: compiled",
        (Bench::Snap, None) => "synthesis: classic",
    });
    let sp = ctx.spinner("building random vanilla proofs");
    let (label, jobs) = match what {
        Bench::Post(typ) => {
            let version = match typ {
                PostType::Winning => PostVersion::V1,
                PostType::Window => PostVersion::V1_2,
            };
            let kind = PostProofKind::new(typ, size, version)?;
            let sectors = a.sectors.unwrap_or_else(|| kind.sectors_per_partition());
            crate::cmd::limits::check_count("--sectors", sectors, 1 << 20)?;
            let jobs = (0..e.jobs)
                .map(|j| {
                    let input = random_post(&kind, sectors, a.seed + j as u64)?;
                    cuzk_filecoin::post::post_bench_job(&input, &dir)
                })
                .collect::<cuzk_filecoin::Result<Vec<_>>>()?;
            (kind.api_name(), jobs)
        }
        Bench::Snap => {
            let kind = SnapProofKind::new(size)?;
            let jobs = (0..e.jobs)
                .map(|j| {
                    let input = random_snap(&kind, a.seed + j as u64)?;
                    cuzk_filecoin::snap::snap_bench_job(&input, &dir, r1cs.as_ref())
                })
                .collect::<cuzk_filecoin::Result<Vec<_>>>()?;
            (kind.api_name(), jobs)
        }
    };
    sp.finish_and_clear();
    run_unchecked(
        ctx,
        &engine,
        jobs,
        label,
        e.timeline.as_deref(),
        "random vanilla proofs",
    )
}
