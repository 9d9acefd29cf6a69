//! `cargo xtask fuzz [--target T] [--seconds N]`: the libFuzzer targets
//! of `fuzz/` (cargo-fuzz, its own workspace), each for N seconds, from
//! its committed seeds (`fuzz/seeds/T`) plus what earlier runs added
//! (`fuzz/corpus/T`, not committed). A crash leaves its input under
//! `fuzz/artifacts/T` and fails the task.

use anyhow::{bail, Context, Result};
use std::process::Command;

/// Every target, in the order they run: the `[[bin]]`s of
/// `fuzz/Cargo.toml` (their bodies are `cuzk_fuzz_checks`' checks, whose
/// test keeps the two lists and the seed folders the same).
fn targets(fuzz: &std::path::Path) -> Result<Vec<String>> {
    let path = fuzz.join("Cargo.toml");
    let manifest: toml::Table = std::fs::read_to_string(&path)
        .with_context(|| format!("reading {}", path.display()))?
        .parse()
        .with_context(|| format!("parsing {}", path.display()))?;
    let bins = manifest
        .get("bin")
        .and_then(|b| b.as_array())
        .context("fuzz/Cargo.toml has no [[bin]]")?;
    bins.iter()
        .map(|b| {
            b.get("name")
                .and_then(|n| n.as_str())
                .map(str::to_string)
                .context("a [[bin]] of fuzz/Cargo.toml without a name")
        })
        .collect()
}

pub fn run(target: Option<String>, seconds: u64, jobs: u32) -> Result<()> {
    let root = crate::workspace_root();
    let fuzz = root.join("fuzz");
    let all = targets(&fuzz)?;
    let targets: Vec<&str> = match &target {
        Some(t) if all.contains(t) => vec![t.as_str()],
        Some(t) => bail!("unknown fuzz target {t:?} (known: {})", all.join(", ")),
        None => all.iter().map(String::as_str).collect(),
    };
    if Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .map_or(true, |o| !o.status.success())
    {
        bail!("cargo-fuzz is not installed: cargo install cargo-fuzz --locked --version 0.13.2");
    }
    // cargo-fuzz passes nightly flags (-Z...) to rustc; on a stable
    // toolchain RUSTC_BOOTSTRAP lets it. No sanitizer: the parsers are
    // safe Rust, so coverage and speed matter more than ASan.
    // The options go before the target and its `--` libFuzzer arguments:
    // after `--` they would reach libFuzzer (as a corpus directory), and
    // `run` would rebuild everything with the default sanitizer.
    let cargo_fuzz = |sub: &str, args: &[&str]| {
        let mut c = Command::new("cargo");
        c.current_dir(&fuzz)
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["fuzz", sub, "--sanitizer", "none"])
            .args(args);
        c
    };
    let st = cargo_fuzz("build", &[])
        .status()
        .context("cargo fuzz build")?;
    if !st.success() {
        bail!("cargo fuzz build failed");
    }
    for t in targets {
        let corpus = fuzz.join("corpus").join(t);
        std::fs::create_dir_all(&corpus)?;
        let seeds = fuzz.join("seeds").join(t);
        let secs = format!("-max_total_time={seconds}");
        let jobs_flag = format!("-fork={jobs}");
        let mut args = vec![t];
        let mut tail: Vec<String> = vec![
            corpus.display().to_string(),
            seeds.display().to_string(),
            "--".into(),
            secs,
            // An input may take at most this much memory (MiB) and time (s):
            // what the no-unbounded-allocation rule means for one input.
            "-rss_limit_mb=2048".into(),
            "-malloc_limit_mb=1024".into(),
            "-timeout=20".into(),
            "-print_final_stats=1".into(),
        ];
        if jobs > 1 {
            tail.push(jobs_flag);
        }
        let tail_refs: Vec<&str> = tail.iter().map(String::as_str).collect();
        args.extend(tail_refs);
        println!("== fuzz {t} for {seconds} s");
        let st = cargo_fuzz("run", &args)
            .status()
            .context("cargo fuzz run")?;
        if !st.success() {
            bail!("fuzz target {t} failed (see fuzz/artifacts/{t})");
        }
    }
    Ok(())
}
