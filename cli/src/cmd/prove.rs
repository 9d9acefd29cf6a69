//! `cuzk prove`: prove built-in circuits with a `.params` file.

use crate::circuit::CircuitArgs;
use crate::cmd::{engine, load_into, write_inputs, DeviceArgs};
use crate::output::{secs, timings_json, timings_text, Ctx};
use anyhow::{Context, Result};
use cuzk_scheduler::{CircuitSource, Config, JobSpec};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub circuit: CircuitArgs,
    /// The `.params` file (bellperson format). Required.
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Number of circuits to prove as one batch (witness seeds witness_seed, +1, …),
    /// like the partitions of one proof.
    #[arg(long, default_value_t = 1)]
    pub count: usize,
    /// Where to write the proofs (192 bytes each, concatenated). Required.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where to write the public inputs (JSON); default: <out>.inputs.json.
    #[arg(long)]
    pub inputs_out: Option<PathBuf>,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// On-curve and subgroup checks on every parameter point while loading (slow).
    #[arg(long)]
    pub full_check: bool,
    /// Print the time of every stage.
    #[arg(long)]
    pub timings: bool,
    /// Engine configuration file (TOML, see `scheduler/cuzk.example.toml`).
    #[arg(long)]
    pub config: Option<PathBuf>,
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    // Optional in clap only so that `cuzk prove porep` does not need them.
    let params_path = a.params.clone().context("--params is required")?;
    let out_path = a.out.clone().context("--out is required")?;
    a.circuit.validate()?;
    crate::cmd::limits::check_count("--count", a.count, crate::cmd::limits::MAX_COUNT)?;
    let inputs_path = a
        .inputs_out
        .clone()
        .unwrap_or_else(|| out_path.with_extension("inputs.json"));
    crate::cmd::limits::check_outputs(
        &[("--out", &out_path), ("--inputs-out", &inputs_path)],
        &[
            ("--params", &params_path),
            (
                "--config",
                a.config.as_deref().unwrap_or(std::path::Path::new("")),
            ),
        ],
    )?;
    let mut cfg = match &a.config {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    a.device.apply(&mut cfg)?;
    let e = engine(&cfg, a.device.backend)?;
    let t0 = Instant::now();
    const ID: &str = "prove";
    load_into(ctx, &e, ID, &params_path, a.full_check)?;
    let load = t0.elapsed();
    let circuit = a.circuit.clone();
    let seed0 = a.circuit.witness_seed;
    let source = CircuitSource::new(a.count, None, move |i| {
        circuit.build(seed0 + i as u64).map_err(Into::into)
    });
    let t1 = Instant::now();
    let out = e
        .submit_blocking(JobSpec::new(ID, Arc::new(source)))
        .and_then(|h| h.wait())
        .with_context(|| {
            format!(
                "proving {} with {}",
                a.circuit.shape_name(),
                params_path.display()
            )
        })?;
    let prove_time = t1.elapsed();
    std::fs::write(&out_path, out.proof_bytes())
        .with_context(|| format!("cannot write {}", out_path.display()))?;
    write_inputs(&inputs_path, &out.inputs)?;
    let mut total = cuzk_groth16::Timings::default();
    for p in &out.partitions {
        total.add("synthesis", p.synthesis);
        total.merge(&p.stages);
        total.add("epilogue", p.assembly);
        total.add("verify", p.verify);
    }
    if ctx.json {
        println!(
            "{}",
            serde_json::json!({
                "proofs": out_path, "inputs": inputs_path, "count": a.count, "backend": e.backend_name(),
                "load_seconds": secs(load), "prove_seconds": secs(prove_time), "stages": timings_json(&total),
            })
        );
    } else {
        ctx.say(format!(
            "{} proof(s) of {} written to {} (inputs: {}); loaded parameters in {:.2} s, proved (and self-checked) in {:.3} s",
            a.count, a.circuit.shape_name(), out_path.display(), inputs_path.display(), load.as_secs_f64(), prove_time.as_secs_f64()
        ));
        if a.timings {
            if a.count > 1 {
                ctx.say(format!("stage times, summed over the {} proofs:", a.count));
            }
            ctx.say(timings_text(&total));
        }
    }
    Ok(())
}
