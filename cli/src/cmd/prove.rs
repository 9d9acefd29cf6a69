//! `cuzk prove`: prove built-in circuits with a `.params` file.

use crate::circuit::CircuitArgs;
use crate::cmd::{backend, load_params, write_inputs, BackendChoice, ResidencyChoice};
use crate::output::{secs, timings_json, timings_text, Ctx};
use anyhow::{Context, Result};
use cuzk_groth16::{prove_batch, Proof, ProveOptions};
use std::path::PathBuf;
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
    /// Prover backend.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Where the GPU keeps the parameters' bases: resident when they fit
    /// (auto), always resident, or streamed per partition (transient).
    #[arg(long, value_enum, default_value_t = ResidencyChoice::Auto)]
    pub residency: ResidencyChoice,
    /// On-curve and subgroup checks on every parameter point while loading (slow).
    #[arg(long)]
    pub full_check: bool,
    /// Print the time of every stage.
    #[arg(long)]
    pub timings: bool,
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    // Optional in clap only so that `cuzk prove porep` does not need them.
    let params_path = a.params.clone().context("--params is required")?;
    let out_path = a.out.clone().context("--out is required")?;
    a.circuit.validate()?;
    anyhow::ensure!(a.count >= 1, "--count must be at least 1");
    let t0 = Instant::now();
    let params = std::sync::Arc::new(load_params(ctx, &params_path, a.full_check)?);
    let load = t0.elapsed();
    let be = backend(a.backend, a.residency, Some(&params))?;
    let circuits = (0..a.count as u64)
        .map(|i| a.circuit.build(a.circuit.witness_seed + i))
        .collect::<Result<Vec<_>>>()?;
    let t1 = Instant::now();
    let outs = prove_batch(
        &params,
        circuits,
        be.as_ref(),
        &mut rand::rngs::OsRng,
        ProveOptions::default(),
    )
    .with_context(|| {
        format!(
            "proving {} with {}",
            a.circuit.shape_name(),
            params_path.display()
        )
    })?;
    let prove_time = t1.elapsed();
    let proofs: Vec<Proof> = outs.iter().map(|o| o.proof).collect();
    std::fs::write(&out_path, Proof::many_to_bytes(&proofs))
        .with_context(|| format!("cannot write {}", out_path.display()))?;
    let inputs_path = a
        .inputs_out
        .clone()
        .unwrap_or_else(|| out_path.with_extension("inputs.json"));
    write_inputs(
        &inputs_path,
        &outs.iter().map(|o| o.inputs.clone()).collect::<Vec<_>>(),
    )?;
    let mut total = cuzk_groth16::Timings::default();
    for o in &outs {
        total.merge(&o.timings);
    }
    if ctx.json {
        println!(
            "{}",
            serde_json::json!({
                "proofs": out_path, "inputs": inputs_path, "count": a.count, "backend": be.name(),
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
