//! `cuzk info`: what this build and machine can do.

use crate::output::Ctx;
use anyhow::Result;
use cuzk_gpu::tuning::Tuning;
use cuzk_groth16::Parameters;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Also describe this `.params` file (section sizes; reads only the counts).
    #[arg(long)]
    pub params: Option<PathBuf>,
}

fn gpu_description() -> String {
    // "built without CUDA", "no CUDA device (…)", or one line per device.
    cuzk_gpu::describe_devices()
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    let threads = rayon::current_num_threads();
    let gpus = gpu_description();
    let tuning = Tuning::get();
    let info = match &a.params {
        Some(p) => Some(Parameters::inspect(p)?),
        None => None,
    };
    if ctx.json {
        let params = info.as_ref().map(|i| {
            serde_json::json!({
                "file": a.params, "bytes": i.bytes, "domain": i.domain_size(), "public_inputs": i.ic.saturating_sub(1),
                "h": i.h, "l": i.l, "a": i.a, "b_g1": i.b_g1, "b_g2": i.b_g2,
            })
        });
        let tuning = serde_json::json!({
            "msm_profile": tuning.msm_profile,
            "msm_occupancy": tuning.msm_occupancy.env_value(),
            "h_copies_cap": tuning.h_copies_cap,
        });
        println!(
            "{}",
            serde_json::json!({ "version": env!("CARGO_PKG_VERSION"), "cpu_threads": threads, "gpus": gpus.trim_end(), "tuning": tuning, "params": params })
        );
    } else {
        ctx.say(format!(
            "cuzk {}\nCPU threads: {threads}\n{}\nTuning: {tuning}",
            env!("CARGO_PKG_VERSION"),
            gpus.trim_end()
        ));
        if let Some(i) = info {
            ctx.say(format!(
                "{}: {} bytes, domain 2^{}, {} public inputs, H {}, L {}, A {}, B {} (G1 and G2)",
                a.params.as_ref().expect("set").display(),
                i.bytes,
                i.domain_size().trailing_zeros(),
                i.ic.saturating_sub(1),
                i.h,
                i.l,
                i.a,
                i.b_g1
            ));
        }
    }
    Ok(())
}
