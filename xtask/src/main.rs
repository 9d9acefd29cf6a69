//! # xtask
//!
//! cuzk's development tasks, run as `cargo xtask <task>` (the alias lives in
//! `.cargo/config.toml`). One module per task, in the rust-analyzer style:
//! plain Rust, `std::process::Command` with argument lists, no shell strings.
//!
//! - `cuda`: install nvcc 13.0.88 from pinned PyPI wheels into the per-user
//!   cache ([`cuzk_cuda_build::default_toolkit_dir`]) and check it;
//! - `bindgen [--check]`: regenerate (or check) the committed FFI bindings;
//! - `demo`: the README's first command (GPU when present, else CPU);
//! - `gpu-bundle`: build the CUDA test and bench binaries into `gpu-bundle/`
//!   with a `run.sh` for the GPU machine;
//! - `dist [--cuda] [--profile dev|release] [--out DIR] [--check]`: the
//!   release tarball of a proving host (`cuzk`, example config, systemd
//!   unit, licenses, install guide), see docs/INSTALL.md.
#![forbid(unsafe_code)]

mod bindgen;
mod cuda;
mod demo;
mod dist;
mod e2e_porep;
mod fuzz;
mod gpu_bundle;
mod soak;
mod sweep;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "xtask", about = "cuzk development tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Install CUDA 13.0 (nvcc, cudart, crt, cccl, nvvm) from PyPI wheels.
    Cuda {
        /// Install into this directory instead of the per-user cache.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Reinstall even if a checked install is present.
        #[arg(long)]
        force: bool,
    },
    /// Regenerate the committed bindgen bindings from the C headers.
    Bindgen {
        /// Do not write; fail if the committed bindings are stale.
        #[arg(long)]
        check: bool,
    },
    /// Build CUDA test/bench binaries into gpu-bundle/ with a run.sh.
    GpuBundle {
        /// Output directory (default: <workspace>/gpu-bundle).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Keep debug symbols (bigger bundle).
        #[arg(long)]
        no_strip: bool,
        /// Only these packages' tests and benches (default: every package
        /// with a `cuda` feature), e.g. `-p cuzk-gpu -p cuzk-ntt`.
        #[arg(short = 'p', long = "package")]
        packages: Vec<String>,
        /// Also build the supraseal-c2 side-by-side harness (cuzk-anchor;
        /// compiles supraseal-c2, ~11 min the first time on 2 cores).
        #[arg(long)]
        anchor: bool,
        /// Leave out the extra release binaries (cuzk-porep-synth).
        #[arg(long)]
        no_extras: bool,
        /// Only these test targets, e.g. `--test gpu` (default: every test
        /// target and every bench). With it, only the benches named by
        /// `--bench`: how a bundle with `--anchor` stays under the 64 MiB
        /// carry limit.
        #[arg(long = "test")]
        tests: Vec<String>,
        /// With `--test`: also these bench targets, e.g. `--bench gpu_msm`.
        #[arg(long = "bench", requires = "tests")]
        benches: Vec<String>,
    },
    /// The release tarball of a proving host: target/dist/cuzk-<version>-<target>[-cuda].tar.gz.
    Dist(dist::DistArgs),
    /// Filecoin end to end: seal a test sector, C2 through cuzk, `verify_seal` (params cached once per machine).
    E2ePorep {
        /// Test sector size: 2KiB, 8MiB or 512MiB.
        #[arg(long, default_value = "2KiB")]
        sector_size: String,
        /// Also run filecoin-proofs' own C2 on the same C1 and compare times.
        #[arg(long)]
        reference: bool,
        /// Generate missing parameters with cuzk's setup (~4 min for 2KiB) instead of filecoin-proofs' (~26 min).
        #[arg(long)]
        cuzk_generator: bool,
    },
    /// Run the libFuzzer targets of `fuzz/` (cargo-fuzz), each for a while.
    Fuzz {
        /// One target (default: all).
        #[arg(long)]
        target: Option<String>,
        /// Seconds per target.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Parallel fuzzing processes per target.
        #[arg(long, default_value_t = 1)]
        jobs: u32,
    },
    /// The engine on the CPU under random jobs, cancels and invalid jobs
    /// with a tight memory budget; checks outcomes, budget and RSS.
    Soak {
        /// Minutes to run.
        #[arg(long, default_value_t = 1.0)]
        minutes: f64,
        /// Seed of the job stream.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Run `cuzk bench` over a grid (c, gw, partition workers, sizes): JSON + Markdown + SVG.
    Sweep(Box<sweep::SweepArgs>),
    /// A demo proof: on the GPU when this machine has one (installs nvcc and
    /// builds with CUDA), else on the CPU. Extra arguments go to `cuzk demo`.
    Demo {
        /// Use the CPU even when a GPU is present.
        #[arg(long)]
        cpu: bool,
        /// Arguments for `cuzk demo` (e.g. `--log-size 20`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.task {
        Task::Cuda { dir, force } => cuda::run(dir, force),
        Task::Bindgen { check } => bindgen::run(check),
        Task::GpuBundle {
            out,
            no_strip,
            packages,
            anchor,
            no_extras,
            tests,
            benches,
        } => gpu_bundle::run(
            out, !no_strip, &packages, anchor, !no_extras, &tests, &benches,
        ),
        Task::Dist(args) => dist::run(args),
        Task::Fuzz {
            target,
            seconds,
            jobs,
        } => fuzz::run(target, seconds, jobs),
        Task::Soak { minutes, seed } => soak::run(minutes, seed),
        Task::Sweep(args) => sweep::run(*args),
        Task::Demo { cpu, args } => demo::run(cpu, &args),
        Task::E2ePorep {
            sector_size,
            reference,
            cuzk_generator,
        } => e2e_porep::run(&sector_size, reference, cuzk_generator),
    }
}

/// The workspace root (parent of xtask's manifest dir).
pub(crate) fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}
