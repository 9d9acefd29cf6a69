//! `cuzk demo`: the README's first command. Builds a benchmark circuit,
//! creates or reuses cached test parameters, proves, verifies, reports.

use crate::circuit::CircuitArgs;
use crate::cmd::{engine, load_params, DeviceArgs};
use crate::output::{secs, timings_json, timings_text, Ctx};
use crate::params::{test_params, ParamArgs};
use anyhow::{Context, Result};
use cuzk_groth16::verify_proof;
use cuzk_scheduler::params::ParamFiles;
use cuzk_scheduler::{CircuitSource, Config, JobSpec};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub circuit: CircuitArgs,
    #[command(flatten)]
    pub params: ParamArgs,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Regenerate the cached parameters even if present.
    #[arg(long)]
    pub fresh: bool,
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    a.circuit.validate()?;
    let dir = a.params.dir(None, ParamFiles::Test);
    let t0 = Instant::now();
    if a.fresh {
        let path = cuzk_scheduler::params::test_params_path(&dir, &a.circuit.shape_name(), 0);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("cannot remove {}", path.display()))
            }
            _ => {}
        }
    }
    let (path, made) = test_params(ctx, &a.circuit, &dir)?;
    let params = load_params(ctx, &path, false)?;
    let params_time = t0.elapsed();

    let params = std::sync::Arc::new(params);
    let mut cfg = Config::default();
    a.device.apply(&mut cfg)?;
    let e = engine(&cfg, a.device.backend)?;
    e.register_circuit("demo", params.clone())?;
    let circuit = a.circuit.clone();
    let seed = a.circuit.witness_seed;
    let source = CircuitSource::new(1, None, move |_| circuit.build(seed).map_err(Into::into));
    let t1 = Instant::now();
    let job = e
        .submit(JobSpec::new("demo", std::sync::Arc::new(source)))
        .and_then(|h| h.wait())
        .context("proving failed")?;
    let prove_time = t1.elapsed();
    let (proof, inputs, part) = (job.proofs[0], &job.inputs[0], &job.partitions[0]);
    let mut timings = cuzk_groth16::Timings::default();
    timings.add("synthesis", part.synthesis);
    timings.merge(&part.stages);
    timings.add("epilogue", part.assembly);
    timings.add("self_check", part.verify);
    let t2 = Instant::now();
    let ok = verify_proof(&params.vk.prepare(), &proof, inputs)?;
    let verify_time = t2.elapsed();
    anyhow::ensure!(ok, "the proof did not verify");

    if ctx.json {
        println!(
            "{}",
            serde_json::json!({
                "circuit": a.circuit.shape_name(), "backend": e.backend_name(), "domain": params.domain_size(),
                "constraints_and_inputs_upper_bound": params.domain_size(),
                "params": path, "params_generated": made, "params_seconds": secs(params_time),
                "prove_seconds": secs(prove_time), "stages": timings_json(&timings),
                "verify_seconds": secs(verify_time), "verified": ok,
                "proof_hex": hex::encode(proof.to_bytes()),
            })
        );
    } else {
        ctx.say(format!(
            "circuit {} (domain 2^{}), backend {}\nparameters {} {} in {:.2} s\nproved in {:.3} s:\n{}\nverified in {:.3} s: OK\nproof {}",
            a.circuit.shape_name(),
            params.domain_size().trailing_zeros(),
            e.backend_name(),
            path.display(),
            if made { "generated" } else { "loaded" },
            params_time.as_secs_f64(),
            prove_time.as_secs_f64(),
            timings_text(&timings),
            verify_time.as_secs_f64(),
            hex::encode(proof.to_bytes()),
        ));
    }
    Ok(())
}
