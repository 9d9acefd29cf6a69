//! `cuzk`: command-line front end of the cuzk Groth16 engine.
//!
//! Thin by design: every command parses its flags, calls the library crates
//! and prints a human summary (or JSON with `--json`). Errors are one line on
//! stderr and a non-zero exit; no panic or backtrace reaches the user.
#![forbid(unsafe_code)]

mod circuit;
mod cmd;
mod output;
mod report;

use clap::{Parser, Subcommand};
use cuzk_filecoin::PostType;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "cuzk",
    version,
    about = "Fast Groth16 proofs over BLS12-381 (bellperson/Filecoin compatible)"
)]
struct Cli {
    /// Machine-readable JSON on stdout instead of the human summary.
    #[arg(long, global = true)]
    json: bool,
    /// Hide progress bars.
    #[arg(long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Build a benchmark circuit, make (or reuse) cached test parameters, prove, verify, report times.
    Demo(cmd::demo::Args),
    /// Generate test parameters for a built-in circuit (seeded; NOT for production).
    Setup(cmd::setup::Args),
    /// Prove a built-in circuit with a `.params` file, or `prove porep|winning-post|window-post|snap` for Filecoin.
    Prove(ProveCmd),
    /// Verify proofs with a `.vk` or `.params` file, or `verify porep|winning-post|window-post|snap` for Filecoin.
    Verify(VerifyCmd),
    /// Make local Filecoin test data (parameters and a sealed test sector).
    #[command(subcommand)]
    Testdata(TestdataSub),
    /// Run j proofs of p partitions through the pipelined engine; report throughput and what bounded it.
    Bench(BenchCmd),
    /// Show the build, the machine, GPUs, and (optionally) a `.params` file's shape.
    Info(cmd::info::Args),
    /// Run the proving daemon (gRPC cuzk.v1, the protocol Curio speaks) until SIGTERM/SIGINT.
    Daemon(cmd::daemon::Args),
    /// Talk to a running daemon: submit, await, prove, status, cancel, preload, evict, metrics.
    Client(cmd::client::Args),
    /// Draw a timeline file (`bench --timeline`) as a text Gantt chart of the device stages, with what overlapped.
    Timeline(cmd::timeline::Args),
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct ProveCmd {
    #[command(subcommand)]
    sub: Option<ProveSub>,
    #[command(flatten)]
    args: cmd::prove::Args,
}

#[derive(Subcommand, Debug)]
enum ProveSub {
    /// Filecoin PoRep commit phase 2 from a C1 output; the proof `seal_commit_phase2` would return.
    Porep {
        #[command(flatten)]
        args: cmd::porep::ProvePorepArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// WinningPoSt from filecoin-proofs-api vanilla proofs; the proof `generate_winning_post_with_vanilla` would return.
    WinningPost {
        #[command(flatten)]
        args: cmd::post::ProvePostArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// WindowPoSt from filecoin-proofs-api vanilla proofs; the proof `generate_window_post_with_vanilla` would return.
    WindowPost {
        #[command(flatten)]
        args: cmd::post::ProvePostArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// SnapDeals (sector update) from filecoin-proofs-api vanilla partition proofs; the proof `generate_empty_sector_update_proof_with_vanilla` would return.
    Snap {
        #[command(flatten)]
        args: cmd::snap::ProveSnapArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
}

/// Where a Filecoin proof runs: the flags every `prove <kind>` shares.
#[derive(clap::Args, Debug)]
struct EngineArgs {
    /// Prover backend.
    #[arg(long, value_enum, default_value_t = cmd::BackendChoice::Auto)]
    backend: cmd::BackendChoice,
    /// GPUs to prove on, e.g. `0,1` (default: all).
    #[arg(long, value_parser = cmd::parse_devices)]
    devices: Option<Vec<u32>>,
    /// Engine configuration file (TOML): synthesis concurrency, GPU
    /// workers, memory budget, parameter directory.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
}

impl EngineArgs {
    /// The configuration file's settings and an engine started from them.
    fn start(&self) -> anyhow::Result<(cuzk_scheduler::Config, cuzk_scheduler::Engine)> {
        let cfg = match &self.config {
            Some(p) => cuzk_scheduler::Config::load(p)?,
            None => cuzk_scheduler::Config::default(),
        };
        let engine = cmd::engine(
            cfg.engine_options()?,
            self.backend,
            cmd::ResidencyChoice::Auto,
            self.devices.as_deref().unwrap_or(&[]),
        )?;
        Ok((cfg, engine))
    }
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct BenchCmd {
    #[command(subcommand)]
    sub: Option<BenchSub>,
    #[command(flatten)]
    args: cmd::bench::Args,
}

#[derive(Subcommand, Debug)]
enum BenchSub {
    /// PoRep C2 jobs from shape-correct random C1 outputs (self-check off).
    Porep(cmd::bench::PorepArgs),
    /// WinningPoSt jobs from shape-correct random vanilla proofs (self-check off).
    WinningPost(cmd::bench_vanilla::VanillaBenchArgs),
    /// WindowPoSt jobs (one partition by default) from shape-correct random vanilla proofs (self-check off).
    WindowPost(cmd::bench_vanilla::VanillaBenchArgs),
    /// SnapDeals jobs from shape-correct random vanilla proofs (self-check off).
    Snap(cmd::bench_vanilla::VanillaBenchArgs),
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct VerifyCmd {
    #[command(subcommand)]
    sub: Option<VerifySub>,
    #[command(flatten)]
    args: cmd::verify::Args,
}

#[derive(Subcommand, Debug)]
enum VerifySub {
    /// Check a PoRep C2 proof with filecoin-proofs' own `verify_seal`.
    Porep(cmd::porep::VerifyPorepArgs),
    /// Check a WinningPoSt proof with filecoin-proofs' own `verify_winning_post`.
    WinningPost(cmd::post::VerifyPostArgs),
    /// Check a WindowPoSt proof with filecoin-proofs' own `verify_window_post`.
    WindowPost(cmd::post::VerifyPostArgs),
    /// Check a SnapDeals proof with filecoin-proofs' own `verify_empty_sector_update_proof`.
    Snap(cmd::snap::VerifySnapArgs),
}

#[derive(Subcommand, Debug)]
enum TestdataSub {
    /// Parameters for a test sector size (made once per machine) and a sealed test sector's C1 output.
    Porep(cmd::porep::TestdataPorepArgs),
    /// Parameters for a test sector size and a SnapDeals update of a sector sealed here (its vanilla proofs).
    Snap(cmd::snap::TestdataSnapArgs),
    /// Parameters and the vanilla proofs of sectors sealed here for a WinningPoSt.
    WinningPost(cmd::post::TestdataPostArgs),
    /// Parameters and the vanilla proofs of sectors sealed here for a WindowPoSt.
    WindowPost(cmd::post::TestdataPostArgs),
}

fn prove(ctx: &output::Ctx, c: ProveCmd) -> anyhow::Result<()> {
    match c.sub {
        None => cmd::prove::run(ctx, c.args),
        Some(ProveSub::Porep { args, engine }) => {
            let (cfg, engine) = engine.start()?;
            let dir = cfg.srs.param_cache.as_deref();
            Ok(cmd::porep::run_prove(&args, dir, &engine)?)
        }
        Some(ProveSub::WinningPost { args, engine }) => {
            let (cfg, engine) = engine.start()?;
            let dir = cfg.srs.param_cache.as_deref();
            Ok(cmd::post::run_prove(
                PostType::Winning,
                &args,
                dir,
                &engine,
            )?)
        }
        Some(ProveSub::WindowPost { args, engine }) => {
            let (cfg, engine) = engine.start()?;
            let dir = cfg.srs.param_cache.as_deref();
            Ok(cmd::post::run_prove(PostType::Window, &args, dir, &engine)?)
        }
        Some(ProveSub::Snap { args, engine }) => {
            let (cfg, engine) = engine.start()?;
            let dir = cfg.srs.param_cache.as_deref();
            Ok(cmd::snap::run_prove(&args, dir, &engine)?)
        }
    }
}

fn verify(ctx: &output::Ctx, c: VerifyCmd) -> anyhow::Result<()> {
    match c.sub {
        None => cmd::verify::run(ctx, c.args),
        Some(VerifySub::Porep(a)) => {
            if !cmd::porep::run_verify(&a, None)? {
                anyhow::bail!("the PoRep proof is INVALID");
            }
            Ok(())
        }
        Some(VerifySub::WinningPost(a)) => {
            if !cmd::post::run_verify(PostType::Winning, &a, None)? {
                anyhow::bail!("the WinningPoSt proof is INVALID");
            }
            Ok(())
        }
        Some(VerifySub::WindowPost(a)) => {
            if !cmd::post::run_verify(PostType::Window, &a, None)? {
                anyhow::bail!("the WindowPoSt proof is INVALID");
            }
            Ok(())
        }
        Some(VerifySub::Snap(a)) => {
            if !cmd::snap::run_verify(&a, None)? {
                anyhow::bail!("the SnapDeals proof is INVALID");
            }
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    // A bug must still end in one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = cuzk_groth16::panic_message(info.payload());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("error: internal error (please report): {msg}{at}");
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let ctx = output::Ctx {
        json: cli.json,
        quiet: cli.quiet || cli.json,
    };
    let res = std::panic::catch_unwind(|| match cli.cmd {
        Cmd::Demo(a) => cmd::demo::run(&ctx, a),
        Cmd::Setup(a) => cmd::setup::run(&ctx, a),
        Cmd::Prove(c) => prove(&ctx, c),
        Cmd::Verify(c) => verify(&ctx, c),
        Cmd::Testdata(TestdataSub::Porep(a)) => Ok(cmd::porep::run_testdata(&a)?),
        Cmd::Testdata(TestdataSub::Snap(a)) => Ok(cmd::snap::run_testdata(&a)?),
        Cmd::Testdata(TestdataSub::WinningPost(a)) => {
            Ok(cmd::post::run_testdata(PostType::Winning, &a)?)
        }
        Cmd::Testdata(TestdataSub::WindowPost(a)) => {
            Ok(cmd::post::run_testdata(PostType::Window, &a)?)
        }
        Cmd::Info(a) => cmd::info::run(&ctx, a),
        Cmd::Bench(c) => match c.sub {
            None => cmd::bench::run(&ctx, c.args),
            Some(BenchSub::Porep(a)) => cmd::bench::run_porep(&ctx, a),
            Some(BenchSub::WinningPost(a)) => {
                use cmd::bench_vanilla::{run, Bench};
                run(&ctx, Bench::Post(PostType::Winning), a)
            }
            Some(BenchSub::WindowPost(a)) => {
                use cmd::bench_vanilla::{run, Bench};
                run(&ctx, Bench::Post(PostType::Window), a)
            }
            Some(BenchSub::Snap(a)) => {
                cmd::bench_vanilla::run(&ctx, cmd::bench_vanilla::Bench::Snap, a)
            }
        },
        Cmd::Daemon(a) => cmd::daemon::run(&ctx, a),
        Cmd::Client(a) => cmd::client::run(&ctx, a),
        Cmd::Timeline(a) => cmd::timeline::run(&ctx, a),
    });
    match res {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {}", output::one_line(&e));
            ExitCode::from(1)
        }
        Err(_) => ExitCode::from(101),
    }
}
