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
    /// With --params: the device memory limit to place it under, as
    /// `--memory-limit` of the proving commands ("auto", "16GiB", "50%").
    #[arg(long, default_value = "auto")]
    pub memory_limit: String,
    /// Also print this configuration file's settings as they resolve on
    /// this machine (Curio's cuzk.toml too), with its warnings.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// The resolved settings of a configuration file, as JSON.
fn resolved(path: &std::path::Path) -> Result<serde_json::Value> {
    let (cfg, daemon) = cuzk_daemon::load_config(path)?;
    let engine = cfg.engine_options()?;
    Ok(serde_json::json!({
        "file": path,
        "engine": engine,
        "gpus": cfg.gpus,
        "srs": cfg.srs,
        "synthesis_threads": cfg.synthesis.threads,
        "logging": cfg.logging,
        "daemon": { "listen": cfg.daemon.listen, "settings": daemon },
        "notices": cfg.notices,
    }))
}

/// Per GPU, how `--params`' set would be placed under `limit`, and why.
#[cfg(feature = "cuda")]
fn placements(i: &cuzk_groth16::ParamsInfo, limit: &str) -> Result<Vec<String>> {
    use cuzk_groth16::gpu::{preview, DeviceBudget};
    let spec = cuzk_scheduler::ByteSpec::parse(limit)
        .map_err(|e| anyhow::anyhow!("--memory-limit: {e}"))?;
    let counts = cuzk_groth16::QueryCounts {
        h: i.h,
        l: i.l,
        a: i.a,
        b: i.b_g1,
    };
    let mut out = Vec::new();
    for d in 0..cuzk_gpu::device_count() {
        let (free, total) = cuzk_gpu::Device::new(d)?.mem_info()?;
        let limit = match spec {
            cuzk_scheduler::ByteSpec::Auto => None,
            ref s => Some(
                s.resolve(Some(total), || Ok(total))
                    .map_err(|e| anyhow::anyhow!("--memory-limit: {e}"))?,
            ),
        };
        let avail = DeviceBudget::new(limit, free, total).available(free);
        out.push(format!("cuda:{d} {}", preview(counts, i.ic, avail)));
    }
    Ok(out)
}

#[cfg(not(feature = "cuda"))]
fn placements(_i: &cuzk_groth16::ParamsInfo, _limit: &str) -> Result<Vec<String>> {
    Ok(Vec::new())
}

/// Whether the bench can read the GPUs' hardware counters (busy SMs and
/// the rest, `cuzk-devmon`), checked by one 50 ms reading of each.
fn counters_line() -> String {
    let mut targets = Vec::new();
    for d in 0..cuzk_gpu::device_count() {
        match cuzk_gpu::Device::new(d).and_then(|x| x.props()) {
            Ok(p) => targets.push(cuzk_devmon::Target {
                label: d as u32,
                pci_bus: p.pci_bus,
                pci_device: p.pci_device,
            }),
            Err(e) => return format!("no ({e})"),
        }
    }
    if targets.is_empty() {
        return "no GPU".into();
    }
    match cuzk_devmon::Monitor::start(targets, std::time::Duration::from_millis(50)) {
        Ok(m) => {
            std::thread::sleep(std::time::Duration::from_millis(60));
            let n = m.stop().samples.len();
            format!("readable ({n} readings in 60 ms)")
        }
        Err(e) => format!("no ({e})"),
    }
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
    let places = match &info {
        Some(i) => placements(i, &a.memory_limit)?,
        None => Vec::new(),
    };
    let config = a.config.as_deref().map(resolved).transpose()?;
    let counters = counters_line();
    if ctx.json {
        let params = info.as_ref().map(|i| {
            serde_json::json!({
                "file": a.params, "bytes": i.bytes, "domain": i.domain_size(), "public_inputs": i.ic.saturating_sub(1),
                "h": i.h, "l": i.l, "a": i.a, "b_g1": i.b_g1, "b_g2": i.b_g2,
                "placement": places,
            })
        });
        let tuning = serde_json::json!({
            "msm_profile": tuning.msm_profile,
            "msm_occupancy": tuning.msm_occupancy.env_value(),
            "h_copies_cap": tuning.h_copies_cap,
            "msm_max_rounds": tuning.msm_max_rounds,
        });
        println!(
            "{}",
            serde_json::json!({ "version": env!("CARGO_PKG_VERSION"), "cpu_threads": threads, "gpus": gpus.trim_end(), "hardware_counters": counters, "tuning": tuning, "params": params, "config": config })
        );
    } else {
        ctx.say(format!(
            "cuzk {}\nCPU threads: {threads}\n{}\nHardware counters: {counters}\nTuning: {tuning}",
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
            for p in &places {
                ctx.say(format!("placement: {p}"));
            }
        }
        if let Some(c) = &config {
            // One line per section, as JSON: what the daemon would run with.
            for key in [
                "file",
                "engine",
                "gpus",
                "srs",
                "synthesis_threads",
                "logging",
                "daemon",
            ] {
                ctx.say(format!("config {key}: {}", c[key]));
            }
            for n in c["notices"].as_array().into_iter().flatten() {
                ctx.say(format!(
                    "config warning: {}: {}",
                    n["key"].as_str().unwrap_or(""),
                    n["message"].as_str().unwrap_or("")
                ));
            }
        }
    }
    Ok(())
}
