//! One module per subcommand.

pub mod bench;
pub mod demo;
pub mod info;
pub mod prove;
pub mod setup;
pub mod verify;

use anyhow::{Context, Result};
use cuzk_field::Fr;
use std::path::Path;

/// Which prover backend to use.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when cuzk was built with CUDA and one is present, else the CPU.
    #[default]
    Auto,
    /// The CPU backend.
    Cpu,
    /// The GPU backend (an error if unavailable).
    Gpu,
}

/// Where the GPU backend keeps the parameters' bases (`--residency`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResidencyChoice {
    /// Resident when the bases and one partition's working set fit in free
    /// device memory, else transient.
    #[default]
    Auto,
    /// Upload once and keep on the device (an error when they do not fit).
    Resident,
    /// Stream each base set from page-locked host memory per partition.
    Transient,
}

/// Resolves the backend choice to an implementation. With the GPU backend
/// and `params`, the parameters' bases are placed once as `residency` says
/// (see `cuzk_groth16::gpu::Residency`).
pub fn backend(
    choice: BackendChoice,
    residency: ResidencyChoice,
    params: Option<&std::sync::Arc<cuzk_groth16::Parameters>>,
) -> Result<Box<dyn cuzk_groth16::Backend>> {
    let gpu_present = cuzk_gpu::built_with_cuda() && cuzk_gpu::device_count() > 0;
    match choice {
        BackendChoice::Cpu => Ok(Box::new(cuzk_groth16::CpuBackend)),
        BackendChoice::Auto if !gpu_present => Ok(Box::new(cuzk_groth16::CpuBackend)),
        BackendChoice::Auto | BackendChoice::Gpu => gpu_backend(residency, params),
    }
}

#[cfg(feature = "cuda")]
fn gpu_backend(
    residency: ResidencyChoice,
    params: Option<&std::sync::Arc<cuzk_groth16::Parameters>>,
) -> Result<Box<dyn cuzk_groth16::Backend>> {
    use cuzk_groth16::gpu::{GpuBackend, Residency};
    let be = GpuBackend::new(0).context("cannot start the GPU backend")?;
    if let Some(p) = params {
        let mode = match residency {
            ResidencyChoice::Auto => Residency::Auto,
            ResidencyChoice::Resident => Residency::Resident,
            ResidencyChoice::Transient => Residency::Transient,
        };
        let got = be
            .preload(p, mode)
            .context("cannot place the parameters on the GPU")?;
        eprintln!("GPU parameters: {got:?}");
    }
    Ok(Box::new(be))
}

#[cfg(not(feature = "cuda"))]
fn gpu_backend(
    _residency: ResidencyChoice,
    _params: Option<&std::sync::Arc<cuzk_groth16::Parameters>>,
) -> Result<Box<dyn cuzk_groth16::Backend>> {
    anyhow::bail!("this cuzk was built without CUDA (feature `cuda`); use --backend cpu")
}

/// Loads parameters with a progress bar (bytes decoded).
pub fn load_params(
    ctx: &crate::output::Ctx,
    path: &Path,
    full_check: bool,
) -> Result<cuzk_groth16::Parameters> {
    let mode = if full_check {
        cuzk_groth16::CheckMode::Full
    } else {
        cuzk_groth16::CheckMode::Trusted
    };
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let bar = ctx.bytes_bar("params", total);
    let p = cuzk_groth16::Parameters::load_with_progress(path, mode, &|n, _| bar.inc(n as u64))
        .context("cannot load parameters");
    bar.finish_and_clear();
    p
}

/// Public inputs file: a JSON array of 32-byte little-endian hex strings
/// (the `to_repr` form), one array per proof.
pub fn write_inputs(path: &Path, inputs: &[Vec<Fr>]) -> Result<()> {
    let v: Vec<Vec<String>> = inputs
        .iter()
        .map(|xs| xs.iter().map(|x| hex::encode(x.to_bytes_le())).collect())
        .collect();
    std::fs::write(path, serde_json::to_string_pretty(&v)?)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Reads a file written by [`write_inputs`].
pub fn read_inputs(path: &Path) -> Result<Vec<Vec<Fr>>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let v: Vec<Vec<String>> = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: expected a JSON array of arrays of hex strings",
            path.display()
        )
    })?;
    v.iter()
        .enumerate()
        .map(|(i, xs)| {
            xs.iter()
                .enumerate()
                .map(|(j, h)| {
                    let b: [u8; 32] = hex::decode(h)
                        .ok()
                        .and_then(|b| b.try_into().ok())
                        .with_context(|| {
                            format!(
                                "{}: proof {i} input {j}: not 32 bytes of hex",
                                path.display()
                            )
                        })?;
                    Option::from(Fr::from_bytes_le(&b)).with_context(|| {
                        format!(
                            "{}: proof {i} input {j}: not a canonical field element",
                            path.display()
                        )
                    })
                })
                .collect()
        })
        .collect()
}
