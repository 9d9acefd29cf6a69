//! The Filecoin subcommands (feature `filecoin`): `prove`, `verify`,
//! `testdata` and `bench` of `porep`, `winning-post`, `window-post` and
//! `snap`, over `cuzk-filecoin` and `cuzk-filecoin-tools`.

use super::bench_filecoin::{self, Bench, PorepBenchArgs, VanillaBenchArgs};
use super::{aggregate, porep, post, snap};
use crate::output::Ctx;
use anyhow::Result;
use clap::Subcommand;
use cuzk_filecoin::PostType;

#[derive(Subcommand, Debug)]
pub enum ProveSub {
    /// Filecoin PoRep commit phase 2 from a C1 output; the proof `seal_commit_phase2` would return.
    Porep {
        #[command(flatten)]
        args: porep::ProvePorepArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// WinningPoSt from filecoin-proofs-api vanilla proofs; the proof `generate_winning_post_with_vanilla` would return.
    WinningPost {
        #[command(flatten)]
        args: post::ProvePostArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// WindowPoSt from filecoin-proofs-api vanilla proofs; the proof `generate_window_post_with_vanilla` would return.
    WindowPost {
        #[command(flatten)]
        args: post::ProvePostArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// SnapDeals (sector update) from filecoin-proofs-api vanilla partition proofs; the proof `generate_empty_sector_update_proof_with_vanilla` would return.
    Snap {
        #[command(flatten)]
        args: snap::ProveSnapArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
}

/// Where a Filecoin proof runs: the flags every `prove <kind>` shares.
#[derive(clap::Args, Debug)]
pub struct EngineArgs {
    #[command(flatten)]
    device: super::DeviceArgs,
    /// Engine configuration file (TOML): synthesis concurrency, GPU
    /// workers, memory budget, parameter directory.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
}

impl EngineArgs {
    /// The configuration file's settings and an engine started from them.
    fn start(&self) -> Result<(cuzk_scheduler::Config, cuzk_scheduler::Engine)> {
        let mut cfg = match &self.config {
            Some(p) => cuzk_scheduler::Config::load(p)?,
            None => cuzk_scheduler::Config::default(),
        };
        self.device.apply(&mut cfg)?;
        let engine = super::engine(&cfg, self.device.backend)?;
        Ok((cfg, engine))
    }
}

#[derive(Subcommand, Debug)]
pub enum BenchSub {
    /// PoRep C2 jobs from shape-correct random C1 outputs (self-check off).
    Porep(PorepBenchArgs),
    /// WinningPoSt jobs from shape-correct random vanilla proofs (self-check off).
    WinningPost(VanillaBenchArgs),
    /// WindowPoSt jobs (one partition by default) from shape-correct random vanilla proofs (self-check off).
    WindowPost(VanillaBenchArgs),
    /// SnapDeals jobs from shape-correct random vanilla proofs (self-check off).
    Snap(VanillaBenchArgs),
}

#[derive(Subcommand, Debug)]
pub enum VerifySub {
    /// Check a PoRep C2 proof with filecoin-proofs' own `verify_seal`.
    Porep(porep::VerifyPorepArgs),
    /// Check a WinningPoSt proof with filecoin-proofs' own `verify_winning_post`.
    WinningPost(post::VerifyPostArgs),
    /// Check a WindowPoSt proof with filecoin-proofs' own `verify_window_post`.
    WindowPost(post::VerifyPostArgs),
    /// Check a SnapDeals proof with filecoin-proofs' own `verify_empty_sector_update_proof`.
    Snap(snap::VerifySnapArgs),
    /// Check a SnarkPack aggregate of seal proofs with filecoin-proofs' own `verify_aggregate_seal_commit_proofs`.
    Aggregate(aggregate::VerifyAggregateArgs),
}

#[derive(Subcommand, Debug)]
pub enum AggregateSub {
    /// SnarkPack-aggregate N sectors' PoRep C2 proofs (a JSON manifest); the bytes `aggregate_seal_commit_proofs` returns.
    Porep(aggregate::AggregatePorepArgs),
}

#[derive(Subcommand, Debug)]
pub enum TestdataSub {
    /// Parameters for a test sector size (made once per machine) and a sealed test sector's C1 output.
    Porep(porep::TestdataPorepArgs),
    /// Parameters for a test sector size and a SnapDeals update of a sector sealed here (its vanilla proofs).
    Snap(snap::TestdataSnapArgs),
    /// Parameters and the vanilla proofs of sectors sealed here for a WinningPoSt.
    WinningPost(post::TestdataPostArgs),
    /// Parameters and the vanilla proofs of sectors sealed here for a WindowPoSt.
    WindowPost(post::TestdataPostArgs),
}

/// `cuzk prove <kind>`.
pub fn prove(sub: ProveSub) -> Result<()> {
    match sub {
        ProveSub::Porep { args, engine } => {
            let (cfg, engine) = engine.start()?;
            let dir = cfg.srs.param_cache.as_deref();
            Ok(porep::run_prove(
                &args,
                dir,
                cfg.synthesis.witness.porep,
                &engine,
            )?)
        }
        ProveSub::WinningPost { args, engine } => {
            let (cfg, engine) = engine.start()?;
            let dir = cfg.srs.param_cache.as_deref();
            let witness = cfg.synthesis.witness.post;
            Ok(post::run_prove(
                PostType::Winning,
                &args,
                dir,
                witness,
                &engine,
            )?)
        }
        ProveSub::WindowPost { args, engine } => {
            let (cfg, engine) = engine.start()?;
            let dir = cfg.srs.param_cache.as_deref();
            let witness = cfg.synthesis.witness.post;
            Ok(post::run_prove(
                PostType::Window,
                &args,
                dir,
                witness,
                &engine,
            )?)
        }
        ProveSub::Snap { args, engine } => {
            let (cfg, engine) = engine.start()?;
            let dir = cfg.srs.param_cache.as_deref();
            Ok(snap::run_prove(
                &args,
                dir,
                cfg.synthesis.witness.snap,
                &engine,
            )?)
        }
    }
}

/// `cuzk verify <kind>`: an invalid proof is an error (exit code 1).
pub fn verify(sub: VerifySub) -> Result<()> {
    let (valid, what) = match sub {
        VerifySub::Porep(a) => (porep::run_verify(&a, None)?, "PoRep"),
        VerifySub::WinningPost(a) => (
            post::run_verify(PostType::Winning, &a, None)?,
            "WinningPoSt",
        ),
        VerifySub::WindowPost(a) => (post::run_verify(PostType::Window, &a, None)?, "WindowPoSt"),
        VerifySub::Snap(a) => (snap::run_verify(&a, None)?, "SnapDeals"),
        VerifySub::Aggregate(a) => (aggregate::run_verify(&a)?, "aggregate"),
    };
    anyhow::ensure!(valid, "the {what} proof is INVALID");
    Ok(())
}

/// `cuzk aggregate <kind>`.
pub fn aggregate(ctx: &Ctx, sub: AggregateSub) -> Result<()> {
    match sub {
        AggregateSub::Porep(a) => aggregate::run(ctx, &a),
    }
}

/// `cuzk testdata <kind>`.
pub fn testdata(sub: TestdataSub) -> Result<()> {
    match sub {
        TestdataSub::Porep(a) => porep::run_testdata(&a)?,
        TestdataSub::Snap(a) => snap::run_testdata(&a)?,
        TestdataSub::WinningPost(a) => post::run_testdata(PostType::Winning, &a)?,
        TestdataSub::WindowPost(a) => post::run_testdata(PostType::Window, &a)?,
    }
    Ok(())
}

/// `cuzk bench <kind>`.
pub fn bench(ctx: &Ctx, sub: BenchSub) -> Result<()> {
    match sub {
        BenchSub::Porep(a) => bench_filecoin::run_porep(ctx, a),
        BenchSub::WinningPost(a) => bench_filecoin::run(ctx, Bench::Post(PostType::Winning), a),
        BenchSub::WindowPost(a) => bench_filecoin::run(ctx, Bench::Post(PostType::Window), a),
        BenchSub::Snap(a) => bench_filecoin::run(ctx, Bench::Snap, a),
    }
}
