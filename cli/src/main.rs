//! `cuzk`: command-line front end of the cuzk Groth16 engine.
//!
//! Thin by design: every command parses its flags, calls the library crates
//! and prints a human summary (or JSON with `--json`). Errors are one line on
//! stderr and a non-zero exit; no panic or backtrace reaches the user.
#![forbid(unsafe_code)]

mod circuit;
mod cmd;
mod output;
mod params;
mod report;

use clap::{Parser, Subcommand};
#[cfg(feature = "filecoin")]
use cmd::filecoin::{AggregateSub, BenchSub, ProveSub, TestdataSub, VerifySub};
use std::process::ExitCode;

/// `cuzk --config FILE` with no subcommand runs the daemon, as Curio's
/// `cuzk` binary does (its systemd unit runs exactly that).
#[derive(Parser, Debug)]
#[command(
    name = "cuzk",
    version,
    about = "Fast Groth16 proofs over BLS12-381 (bellperson/Filecoin compatible)",
    after_help = "Without a command, runs the daemon (`cuzk daemon`) with the daemon's options, as Curio's cuzk does."
)]
struct Cli {
    /// Machine-readable JSON on stdout instead of the human summary.
    #[arg(long, global = true)]
    json: bool,
    /// Hide progress bars.
    #[arg(long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    daemon: cmd::daemon::Args,
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
    /// SnarkPack-aggregate Filecoin seal proofs (`aggregate porep`), as filecoin-proofs does, every input verified first.
    #[cfg(feature = "filecoin")]
    #[command(subcommand)]
    Aggregate(AggregateSub),
    /// Make local Filecoin test data (parameters and a sealed test sector).
    #[cfg(feature = "filecoin")]
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
    #[cfg(feature = "filecoin")]
    #[command(subcommand)]
    sub: Option<ProveSub>,
    #[command(flatten)]
    args: cmd::prove::Args,
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct BenchCmd {
    #[cfg(feature = "filecoin")]
    #[command(subcommand)]
    sub: Option<BenchSub>,
    #[command(flatten)]
    args: cmd::bench::Args,
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct VerifyCmd {
    #[cfg(feature = "filecoin")]
    #[command(subcommand)]
    sub: Option<VerifySub>,
    #[command(flatten)]
    args: cmd::verify::Args,
}

fn prove(ctx: &output::Ctx, c: ProveCmd) -> anyhow::Result<()> {
    #[cfg(feature = "filecoin")]
    if let Some(sub) = c.sub {
        return cmd::filecoin::prove(sub);
    }
    cmd::prove::run(ctx, c.args)
}

fn verify(ctx: &output::Ctx, c: VerifyCmd) -> anyhow::Result<()> {
    #[cfg(feature = "filecoin")]
    if let Some(sub) = c.sub {
        return cmd::filecoin::verify(sub);
    }
    cmd::verify::run(ctx, c.args)
}

fn bench(ctx: &output::Ctx, c: BenchCmd) -> anyhow::Result<()> {
    #[cfg(feature = "filecoin")]
    if let Some(sub) = c.sub {
        return cmd::filecoin::bench(ctx, sub);
    }
    cmd::bench::run(ctx, c.args)
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
    // A bare `cuzk` serves only where a Curio host keeps its config; else
    // it shows what it can do.
    let bare = std::env::args_os().len() == 1;
    if bare && !std::path::Path::new(cmd::daemon::DEFAULT_CONFIG).is_file() {
        let _ = <Cli as clap::CommandFactory>::command().print_help();
        return ExitCode::from(2);
    }
    let parsed = <Cli as clap::CommandFactory>::command()
        .try_get_matches()
        .and_then(|m| Ok((<Cli as clap::FromArgMatches>::from_arg_matches(&m)?, m)));
    let (cli, matches) = match parsed {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if cli.cmd.is_some() {
        if let Some(flag) = daemon_flag_given(&matches) {
            eprintln!("error: --{flag} is an option of the daemon: give it with no command (cuzk --config FILE …) or after `daemon`");
            return ExitCode::from(2);
        }
    }
    let ctx = output::Ctx {
        json: cli.json,
        quiet: cli.quiet || cli.json,
    };
    let Some(command) = cli.cmd else {
        return finish(std::panic::catch_unwind(|| {
            cmd::daemon::run(&ctx, cli.daemon)
        }));
    };
    let res = std::panic::catch_unwind(|| match command {
        Cmd::Demo(a) => cmd::demo::run(&ctx, a),
        Cmd::Setup(a) => cmd::setup::run(&ctx, a),
        Cmd::Prove(c) => prove(&ctx, c),
        Cmd::Verify(c) => verify(&ctx, c),
        #[cfg(feature = "filecoin")]
        Cmd::Aggregate(sub) => cmd::filecoin::aggregate(&ctx, sub),
        #[cfg(feature = "filecoin")]
        Cmd::Testdata(sub) => cmd::filecoin::testdata(sub),
        Cmd::Info(a) => cmd::info::run(&ctx, a),
        Cmd::Bench(c) => bench(&ctx, c),
        Cmd::Daemon(a) => cmd::daemon::run(&ctx, a),
        Cmd::Client(a) => cmd::client::run(&ctx, a),
        Cmd::Timeline(a) => cmd::timeline::run(&ctx, a),
    });
    finish(res)
}

/// A daemon option given before a command (`cuzk --listen X bench`),
/// which that command would ignore: its long name.
fn daemon_flag_given(m: &clap::ArgMatches) -> Option<String> {
    let daemon = <cmd::daemon::Args as clap::Args>::augment_args(clap::Command::new("daemon"));
    let given = daemon.get_arguments().find(|a| {
        m.value_source(a.get_id().as_str()) == Some(clap::parser::ValueSource::CommandLine)
    });
    given.map(|a| a.get_long().unwrap_or(a.get_id().as_str()).to_string())
}

/// The exit code of a command's outcome (its error on stderr in one line).
fn finish(res: std::thread::Result<anyhow::Result<()>>) -> ExitCode {
    match res {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {}", output::one_line(&e));
            ExitCode::from(1)
        }
        Err(_) => ExitCode::from(101),
    }
}
