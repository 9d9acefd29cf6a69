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
    /// Prove a built-in circuit with a `.params` file, or `prove porep` for Filecoin C2.
    Prove(ProveCmd),
    /// Verify proofs with a `.vk` or `.params` file, or `verify porep` for Filecoin C2.
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
    },
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
}

#[derive(Subcommand, Debug)]
enum TestdataSub {
    /// Parameters for a test sector size (made once per machine) and a sealed test sector's C1 output.
    Porep(cmd::porep::TestdataPorepArgs),
}

fn prove(ctx: &output::Ctx, c: ProveCmd) -> anyhow::Result<()> {
    match c.sub {
        None => cmd::prove::run(ctx, c.args),
        Some(ProveSub::Porep {
            args,
            backend,
            devices,
            config,
        }) => {
            let cfg = match &config {
                Some(p) => cuzk_scheduler::Config::load(p)?,
                None => cuzk_scheduler::Config::default(),
            };
            let engine = cmd::engine(
                cfg.engine_options()?,
                backend,
                cmd::ResidencyChoice::Auto,
                devices.as_deref().unwrap_or(&[]),
            )?;
            Ok(cmd::porep::run_prove(
                &args,
                cfg.srs.param_cache.as_deref(),
                &engine,
            )?)
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
        Cmd::Info(a) => cmd::info::run(&ctx, a),
        Cmd::Bench(c) => match c.sub {
            None => cmd::bench::run(&ctx, c.args),
            Some(BenchSub::Porep(a)) => cmd::bench::run_porep(&ctx, a),
        },
        Cmd::Daemon(a) => cmd::daemon::run(&ctx, a),
        Cmd::Client(a) => cmd::client::run(&ctx, a),
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
