//! `cuzk-anchor`: cuzk's GPU prover and bellperson 0.26 + supraseal-c2 side
//! by side, on the same circuit (`BenchCircuit`), the same `.params` file and
//! the same GPU. Every proof of both sides is checked with bellperson's
//! verifier.
//!
//! Features: `cuda` builds the cuzk side, `supraseal` the supraseal side;
//! without either the binary still runs (parameter generation, and it says
//! which sides are missing). See README.md for the build environment.
#![forbid(unsafe_code)]

#[cfg(feature = "cuda")]
mod cuzk_side;
mod logger;
mod measure;
mod params;
mod referee;
mod report;
#[cfg(feature = "supraseal")]
mod supraseal_side;

use anyhow::{bail, Context, Result};
use clap::{Parser, ValueEnum};
use cuzk_synth::circuits::BenchCircuit;
use measure::Measured;
use referee::Referee;
use report::Record;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Smallest and largest `--sizes` (log2 of the constraint count). 2^27 is a
/// Filecoin PoRep partition; its parameters take ~80 GB of host memory.
const MIN_LOG: u32 = 10;
const MAX_LOG: u32 = 27;

#[derive(Parser, Debug)]
#[command(
    name = "cuzk-anchor",
    version,
    about = "cuzk's GPU prover vs bellperson 0.26 + supraseal-c2: same circuit, parameters and GPU"
)]
struct Args {
    /// Circuit sizes, log2 of the constraint count (comma-separated).
    #[arg(long, value_delimiter = ',', required_unless_present = "load_only",
          value_parser = clap::value_parser!(u32).range(MIN_LOG as i64..=MAX_LOG as i64))]
    sizes: Vec<u32>,
    /// Circuits in the batched call (a single-circuit call is always measured too).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=64))]
    batch: u64,
    /// Which circuit both sides prove: `bench` (SHA-256 chain plus
    /// field-arithmetic filler, filling the domain) or `sha` (the chain
    /// alone).
    #[arg(long, value_enum, default_value = "bench")]
    circuit: params::Circuit,
    /// Folder of `<circuit>-<log>.params` files; missing ones are generated there.
    #[arg(long, required_unless_present = "load_only")]
    params_dir: Option<PathBuf>,
    /// Write the records as JSON here (rewritten after every size).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Sides to run, in this order.
    #[arg(long, value_delimiter = ',', default_value = "cuzk,supraseal")]
    sides: Vec<Side>,
    /// Witness seed (circuit i of a batch uses seed + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seed of the test setup, for parameter files generated here.
    #[arg(long, default_value_t = 0)]
    setup_seed: u64,
    /// Unmeasured single-circuit proofs per side and size before measuring.
    #[arg(long, default_value_t = 1)]
    warmup: usize,
    /// CUDA device of the cuzk side. supraseal-c2 uses every visible GPU:
    /// on a multi-GPU host, restrict it with CUDA_VISIBLE_DEVICES.
    #[arg(long, default_value_t = 0)]
    gpu: usize,
    /// GPU workers of the cuzk side's engine: with 2, one partition's H
    /// step runs beside the previous one's MSMs (batches only).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=4))]
    gw: u64,
    /// Append the cuzk side's engine timeline (one JSON object per event,
    /// `cuzk_scheduler::Event`; every call's events, on the engine's clock)
    /// to this file, for `cuzk timeline FILE`.
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Only find or generate the parameter files, prove nothing.
    #[arg(long)]
    setup_only: bool,
    /// Measure only loading this `.params` file (any circuit: a 2^27 bench
    /// file or the 32 GiB PoRep one), each side `--load-rounds` times in
    /// turn, and prove nothing. `--sizes` and `--params-dir` are not used.
    #[arg(long, value_name = "FILE")]
    load_only: Option<PathBuf>,
    /// Loads per side with `--load-only` (the first may read from disk,
    /// later ones from the page cache).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=8))]
    load_rounds: u32,
    /// Print bellperson's and supraseal's info logs.
    #[arg(long)]
    verbose: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Side {
    /// cuzk_groth16 with the GPU backend (feature `cuda`).
    Cuzk,
    /// bellperson 0.26 + supraseal-c2 (feature `supraseal`).
    Supraseal,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Cuzk => "cuzk",
            Side::Supraseal => "supraseal",
        }
    }

    fn feature(self) -> &'static str {
        match self {
            Side::Cuzk => "cuda",
            Side::Supraseal => "supraseal",
        }
    }

    fn built(self) -> bool {
        match self {
            Side::Cuzk => cfg!(feature = "cuda"),
            Side::Supraseal => cfg!(feature = "supraseal"),
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    logger::init(args.verbose);
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("cuzk-anchor: some measurements failed or did not verify (see above)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("cuzk-anchor: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs everything; `Ok(false)` if some side failed or a proof did not verify.
fn run(args: &Args) -> Result<bool> {
    if let Some(file) = &args.load_only {
        return load_only(args, file);
    }
    let params_dir = args
        .params_dir
        .as_deref()
        .context("--params-dir is required")?;
    if !params_dir.is_dir() {
        bail!(
            "--params-dir {}: not an existing directory",
            params_dir.display()
        );
    }
    let mut sides: Vec<Side> = Vec::new();
    for &side in &args.sides {
        if sides.contains(&side) {
            continue;
        }
        if side.built() {
            sides.push(side);
        } else {
            eprintln!(
                "side `{}` unavailable: this binary was built without feature `{}`",
                side.name(),
                side.feature()
            );
        }
    }
    if sides.is_empty() && !args.setup_only {
        bail!("none of the requested sides is built into this binary (rebuild with --features cuda,supraseal), or pass --setup-only");
    }
    let mut sizes: Vec<u32> = Vec::new();
    for &log in &args.sizes {
        if !sizes.contains(&log) {
            sizes.push(log);
        }
    }
    let batch = usize::try_from(args.batch).context("--batch")?;
    let sides_built: Vec<&'static str> = [Side::Cuzk, Side::Supraseal]
        .into_iter()
        .filter(|s| s.built())
        .map(Side::name)
        .collect();

    let mut records: Vec<Record> = Vec::new();
    for &log in &sizes {
        let circuit = args.circuit.make(log, args.seed)?;
        let constraints = circuit.expected_constraints();
        eprintln!(
            "== 2^{log}: {} circuit, {constraints} constraints",
            args.circuit.name()
        );
        let path = params::ensure(params_dir, args.circuit, log, circuit, args.setup_seed)?;
        if args.setup_only {
            continue;
        }
        let referee = Referee::from_params_file(&path)?;
        for &side in &sides {
            records.extend(run_side(
                args,
                side,
                log,
                constraints,
                batch,
                &path,
                &referee,
            ));
            // After every side, so a run cut short (a device time limit)
            // keeps what it measured.
            write_json(args, &sides_built, batch, &records)?;
        }
    }
    if !records.is_empty() {
        println!("{}", report::markdown(&records, batch));
    }
    Ok(records.iter().all(|r| r.verified && r.error.is_none()))
}

/// `--load-only`: each built side loads `file` `--load-rounds` times, in
/// turn (so both read from the same page cache), and drops it. cuzk: read,
/// decode and place resident on the device (the engine's SRS cache).
/// supraseal-c2: its constructor (pinned allocation, header) returns
/// before a background thread has read the points; dropping joins that
/// thread, so "new + drop" bounds its load from above (it also includes
/// freeing the pinned memory).
fn load_only(args: &Args, file: &Path) -> Result<bool> {
    let bytes = std::fs::metadata(file)
        .with_context(|| format!("--load-only {}", file.display()))?
        .len();
    eprintln!(
        "load-only: {} ({:.1} GB)",
        file.display(),
        bytes as f64 / 1e9
    );
    let mut ok = true;
    let mut rows: Vec<serde_json::Value> = Vec::new();
    for round in 1..=args.load_rounds {
        for &side in &args.sides {
            if !side.built() {
                eprintln!(
                    "side `{}` unavailable (feature `{}`)",
                    side.name(),
                    side.feature()
                );
                continue;
            }
            let t = Instant::now();
            // Dropping a side is part of its load time (supraseal-c2 joins
            // its reader thread there); a side built out is a never-built
            // stand-in without Drop, hence the allow.
            #[allow(clippy::drop_non_drop)]
            let r = match side {
                Side::Cuzk => load_cuzk(file, args).map(|c| {
                    let placed = t.elapsed();
                    drop(c);
                    (placed, t.elapsed())
                }),
                Side::Supraseal => load_supraseal(file).map(|s| {
                    let constructed = t.elapsed();
                    drop(s);
                    (constructed, t.elapsed())
                }),
            };
            match r {
                Ok((first, total)) => {
                    let (a, b) = (first.as_secs_f64(), total.as_secs_f64());
                    eprintln!(
                        "load-only round {round} {}: {a:.1} s until returned, {b:.1} s with drop",
                        side.name()
                    );
                    rows.push(serde_json::json!({
                        "side": side.name(), "round": round, "bytes": bytes,
                        "returned_s": a, "with_drop_s": b,
                    }));
                }
                Err(e) => {
                    eprintln!("load-only round {round} {}: {e:#}", side.name());
                    ok = false;
                }
            }
        }
    }
    if let Some(json) = &args.json {
        let text = serde_json::to_string_pretty(&rows).context("encoding JSON")?;
        std::fs::write(json, text + "\n").with_context(|| format!("writing {}", json.display()))?;
    }
    Ok(ok)
}

/// Writes the records so far to `--json`, if given.
fn write_json(
    args: &Args,
    sides_built: &[&'static str],
    batch: usize,
    records: &[Record],
) -> Result<()> {
    let Some(json) = &args.json else {
        return Ok(());
    };
    let report = report::Report {
        tool: "cuzk-anchor",
        version: env!("CARGO_PKG_VERSION"),
        sides_built: sides_built.to_vec(),
        circuit: args.circuit,
        seed: args.seed,
        setup_seed: args.setup_seed,
        batch,
        warmup: args.warmup,
        records,
    };
    let text = serde_json::to_string_pretty(&report).context("encoding JSON")?;
    std::fs::write(json, text + "\n").with_context(|| format!("writing {}", json.display()))
}

/// The circuits of one call: seeds `seed, seed + 1, …`.
fn circuits(kind: params::Circuit, log: u32, seed: u64, n: usize) -> Result<Vec<BenchCircuit>> {
    (0..n as u64)
        .map(|i| kind.make(log, seed.wrapping_add(i)))
        .collect()
}

/// One side at one size: load, warm up, then one circuit alone and a batch.
/// Failures become records with an error, so a long run carries on.
fn run_side(
    args: &Args,
    side: Side,
    log: u32,
    constraints: usize,
    batch: usize,
    path: &Path,
    referee: &Referee,
) -> Vec<Record> {
    let name = side.name();
    let mut batches = vec![1];
    if batch > 1 {
        batches.push(batch);
    }
    let failed_all = |e: anyhow::Error| -> Vec<Record> {
        eprintln!("{name} 2^{log}: {e:#}");
        batches
            .iter()
            .map(|&b| Record::failed(name, log, constraints, b, format!("{e:#}")))
            .collect()
    };
    let measure = |prove: &dyn Fn(Vec<BenchCircuit>) -> Result<Measured>, load: Duration| {
        for i in 0..args.warmup {
            eprintln!("{name} 2^{log}: warm-up {}/{}", i + 1, args.warmup);
            if let Err(e) = circuits(args.circuit, log, args.seed, 1).and_then(prove) {
                return failed_all(e.context("warm-up"));
            }
        }
        batches
            .iter()
            .map(|&b| {
                let result = circuits(args.circuit, log, args.seed, b).and_then(prove);
                match result {
                    Ok(m) => {
                        eprintln!(
                            "{name} 2^{log} batch {b}: wall {:.3} s, synth {:.3} s, GPU {} s, verified {}",
                            m.wall.as_secs_f64(),
                            m.synth.as_secs_f64(),
                            m.gpu.map_or("?".to_owned(), |d| format!("{:.3}", d.as_secs_f64())),
                            m.verified
                        );
                        Record::ok(name, log, constraints, load, &m)
                    }
                    Err(e) => {
                        eprintln!("{name} 2^{log} batch {b}: {e:#}");
                        Record::failed(name, log, constraints, b, format!("{e:#}"))
                    }
                }
            })
            .collect()
    };
    let t = Instant::now();
    match side {
        Side::Cuzk => match load_cuzk(path, args) {
            Ok(prover) => measure(&|c| prover.prove(c, referee), t.elapsed()),
            Err(e) => failed_all(e),
        },
        Side::Supraseal => match load_supraseal(path) {
            Ok(prover) => measure(&|c| prover.prove(c, referee), t.elapsed()),
            Err(e) => failed_all(e),
        },
    }
}

#[cfg(feature = "cuda")]
fn load_cuzk(path: &Path, args: &Args) -> Result<cuzk_side::Cuzk> {
    cuzk_side::Cuzk::load(path, args.gpu, args.gw as usize, args.timeline.clone())
}

#[cfg(not(feature = "cuda"))]
fn load_cuzk(_path: &Path, _args: &Args) -> Result<Unavailable> {
    bail!("built without feature `cuda`")
}

#[cfg(feature = "supraseal")]
fn load_supraseal(path: &Path) -> Result<supraseal_side::Supraseal> {
    supraseal_side::Supraseal::load(path)
}

#[cfg(not(feature = "supraseal"))]
fn load_supraseal(_path: &Path) -> Result<Unavailable> {
    bail!("built without feature `supraseal`")
}

/// Stand-in for a side this binary was built without (never constructed).
#[cfg(not(all(feature = "cuda", feature = "supraseal")))]
#[derive(Debug)]
enum Unavailable {}

#[cfg(not(all(feature = "cuda", feature = "supraseal")))]
impl Unavailable {
    fn prove(&self, _: Vec<BenchCircuit>, _: &Referee) -> Result<Measured> {
        match *self {}
    }
}
