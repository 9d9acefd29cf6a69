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
    /// Where the fixed-base multiplications run: the GPU when this build
    /// has CUDA and one is present (auto), the CPU, or GPU 0 (an error
    /// without one). Both give the same parameters bit for bit.
    #[arg(long, value_enum, default_value_t = SetupDevice::Auto)]
    pub device: SetupDevice,
}

/// Where a setup's fixed-base work runs (`cuzk setup --device`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SetupDevice {
    /// GPU 0 when this build has CUDA and a GPU is present, else the CPU.
    #[default]
    Auto,
    /// The CPU.
    Cpu,
    /// GPU 0 (an error without one).
    Gpu,
}

impl SetupDevice {
    /// Whether the GPU runs it. The GPU setup gives the same parameters
    /// bit for bit, minutes faster from 2^22 up.
    fn gpu(self) -> Result<bool> {
        let present = cuzk_gpu::built_with_cuda() && cuzk_gpu::device_count() > 0;
        match self {
            SetupDevice::Auto => Ok(cfg!(feature = "cuda") && present),
            SetupDevice::Cpu => Ok(false),
            SetupDevice::Gpu => {
                anyhow::ensure!(
                    cfg!(feature = "cuda"),
                    "this cuzk was built without CUDA (feature `cuda`); use --device cpu"
                );
                anyhow::ensure!(present, "no GPU found; use --device cpu");
                Ok(true)
            }
        }
    }
}

/// Generates parameters for `circuit` with a progress bar per stage.
pub fn generate(
    ctx: &Ctx,
    circuit: &CircuitArgs,
    setup_seed: u64,
    device: SetupDevice,
) -> Result<Parameters> {
    let c = circuit.build(0)?;
    let gpu = device.gpu()?;
    let bars = bars::Bars::new(*ctx);
    let progress =
        |stage: &'static str, done: usize, total: usize| bars.advance(stage, done, total);
    let toxic = ToxicWaste::from_seed(setup_seed);
    let p = if gpu {
        gpu_generate(c, &toxic, &progress)?
    } else {
        cuzk_groth16::generate_parameters(c, &toxic, Some(&progress))
            .context("parameter generation failed")?
    };
    bars.finish();
    Ok(p)
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

/// Writes parameters (and optionally the vk), each through a temporary
/// file of its own renamed into place, so concurrent runs to one output
/// leave one run's whole file, never a mix.
pub fn save(p: &Parameters, out: &Path, vk_out: Option<&Path>) -> Result<()> {
    p.save(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    if let Some(vk) = vk_out {
        let tmp = cuzk_groth16::params::unique_tmp(vk);
        std::fs::write(&tmp, p.vk.to_bytes())
            .and_then(|()| std::fs::rename(&tmp, vk))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
            .with_context(|| format!("cannot write {}", vk.display()))?;
    }
    Ok(())
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    a.circuit.validate()?;
    let mut outs: Vec<(&str, &Path)> = vec![("--out", &a.out)];
    if let Some(vk) = &a.vk_out {
        outs.push(("--vk-out", vk));
    }
    crate::cmd::limits::check_outputs(&outs, &[])?;
    let t = Instant::now();
    let p = generate(ctx, &a.circuit, a.setup_seed, a.device)?;
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

/// Progress bars keyed by setup stage, safe to drive from rayon workers;
/// on finish, one line per stage with its wall time,
/// which is how the 2^26 setup's time was split between the single-threaded
/// QAP pass and the fixed-base multiplications.
mod bars {
    use crate::output::Ctx;
    use indicatif::{MultiProgress, ProgressBar};
    use std::sync::Mutex;
    use std::time::Instant;

    struct Stage {
        name: &'static str,
        bar: ProgressBar,
        total: usize,
        first: Instant,
        last: Instant,
    }

    pub struct Bars {
        ctx: Ctx,
        multi: MultiProgress,
        start: Instant,
        bars: Mutex<Vec<Stage>>,
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
                start: Instant::now(),
                bars: Mutex::new(Vec::new()),
            }
        }

        pub fn advance(&self, stage: &'static str, done: usize, total: usize) {
            let now = Instant::now();
            let mut bars = self.bars.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(s) = bars.iter_mut().find(|s| s.name == stage) {
                s.bar.inc(done as u64);
                s.last = now;
                return;
            }
            let bar = self.multi.add(self.ctx.bar(stage, total as u64));
            bar.inc(done as u64);
            bars.push(Stage {
                name: stage,
                bar,
                total,
                first: now,
                last: now,
            });
        }

        /// Clears the bars and prints each stage's time (not with --quiet
        /// or --json: there the caller reports the total only).
        pub fn finish(&self) {
            let bars = self.bars.lock().unwrap_or_else(|e| e.into_inner());
            for s in bars.iter() {
                s.bar.finish_and_clear();
            }
            if self.ctx.quiet || self.ctx.json {
                return;
            }
            // Stages run one after another: a stage's time runs from the
            // previous stage's last report (its first report comes only
            // after its first chunk) to its own last one.
            let mut prev = self.start;
            for s in bars.iter() {
                self.ctx.say(format!(
                    "  {:>5}: {:>11} items in {:7.2} s",
                    s.name,
                    s.total,
                    (s.last - prev.min(s.first)).as_secs_f64(),
                ));
                prev = s.last;
            }
        }
    }
}
