//! `cuzk setup`: seeded test parameters for a built-in circuit.

use crate::circuit::CircuitArgs;
use crate::output::{secs, Ctx};
use anyhow::{Context, Result};
use cuzk_groth16::{Parameters, ToxicWaste};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub circuit: CircuitArgs,
    /// Seed of the toxic waste. Anyone who knows it can forge proofs: test use only.
    #[arg(long, default_value_t = 0)]
    pub setup_seed: u64,
    /// Where to write the `.params` file.
    #[arg(long)]
    pub out: PathBuf,
    /// Also write the verifying key alone (bellperson `.vk` format).
    #[arg(long)]
    pub vk_out: Option<PathBuf>,
}

/// Generates parameters for `circuit` with a progress bar per stage.
pub fn generate(ctx: &Ctx, circuit: &CircuitArgs, setup_seed: u64) -> Result<Parameters> {
    let c = circuit.build(0)?;
    let bars = bars::Bars::new(*ctx);
    let progress =
        |stage: &'static str, done: usize, total: usize| bars.advance(stage, done, total);
    let toxic = ToxicWaste::from_seed(setup_seed);
    let p = if use_gpu_setup() {
        gpu_generate(c, &toxic, &progress)?
    } else {
        cuzk_groth16::generate_parameters(c, &toxic, Some(&progress))
            .context("parameter generation failed")?
    };
    bars.finish();
    Ok(p)
}

/// The GPU setup (fixed-base multiplications on the device) gives the same
/// parameters bit for bit, minutes faster from 2^22 up; used when this build
/// has CUDA and a GPU is present, unless `CUZK_SETUP=cpu`.
fn use_gpu_setup() -> bool {
    cfg!(feature = "cuda")
        && std::env::var("CUZK_SETUP").map_or(true, |v| v != "cpu")
        && cuzk_gpu::built_with_cuda()
        && cuzk_gpu::device_count() > 0
}

#[cfg(feature = "cuda")]
fn gpu_generate(
    c: crate::circuit::Builtin,
    toxic: &ToxicWaste,
    progress: &(dyn Fn(&'static str, usize, usize) + Sync),
) -> Result<Parameters> {
    cuzk_groth16::setup::generate_parameters_gpu(c, toxic, Some(progress), 0)
        .context("parameter generation on the GPU failed")
}

#[cfg(not(feature = "cuda"))]
fn gpu_generate(
    _c: crate::circuit::Builtin,
    _toxic: &ToxicWaste,
    _progress: &(dyn Fn(&'static str, usize, usize) + Sync),
) -> Result<Parameters> {
    anyhow::bail!("this build has no CUDA")
}

/// Writes parameters (and optionally the vk).
pub fn save(p: &Parameters, out: &Path, vk_out: Option<&Path>) -> Result<()> {
    p.save(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    if let Some(vk) = vk_out {
        std::fs::write(vk, p.vk.to_bytes())
            .with_context(|| format!("cannot write {}", vk.display()))?;
    }
    Ok(())
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    a.circuit.validate()?;
    let t = Instant::now();
    let p = generate(ctx, &a.circuit, a.setup_seed)?;
    let gen = t.elapsed();
    save(&p, &a.out, a.vk_out.as_deref())?;
    let size = std::fs::metadata(&a.out).map(|m| m.len()).unwrap_or(0);
    if ctx.json {
        println!(
            "{}",
            serde_json::json!({
                "params": a.out, "circuit": a.circuit.shape_name(), "domain": p.domain_size(),
                "inputs": p.num_public_inputs(), "aux": p.l.len(), "bytes": size, "seconds": secs(gen),
                "warning": "test parameters from a known seed: not for production",
            })
        );
    } else {
        ctx.say(format!(
            "wrote {} ({} bytes): {}, domain 2^{}, {} public inputs, {} aux; generated in {:.2} s\nwarning: test parameters from a known seed — NOT for production",
            a.out.display(), size, a.circuit.shape_name(), p.domain_size().trailing_zeros(), p.num_public_inputs(), p.l.len(), gen.as_secs_f64()
        ));
    }
    Ok(())
}

/// Progress bars keyed by setup stage, safe to drive from rayon workers.
mod bars {
    use crate::output::Ctx;
    use indicatif::{MultiProgress, ProgressBar};
    use std::sync::Mutex;

    pub struct Bars {
        ctx: Ctx,
        multi: MultiProgress,
        bars: Mutex<Vec<(&'static str, ProgressBar)>>,
    }

    impl Bars {
        pub fn new(ctx: Ctx) -> Self {
            let multi = if ctx.quiet {
                MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::hidden())
            } else {
                MultiProgress::new()
            };
            Self {
                ctx,
                multi,
                bars: Mutex::new(Vec::new()),
            }
        }

        pub fn advance(&self, stage: &'static str, done: usize, total: usize) {
            let mut bars = self.bars.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, b)) = bars.iter().find(|(s, _)| *s == stage) {
                b.inc(done as u64);
                return;
            }
            let b = self.multi.add(self.ctx.bar(stage, total as u64));
            b.inc(done as u64);
            bars.push((stage, b));
        }

        pub fn finish(&self) {
            for (_, b) in self.bars.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                b.finish_and_clear();
            }
        }
    }
}
