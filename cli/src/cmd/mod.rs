//! One module per subcommand.

#[cfg(feature = "filecoin")]
pub mod aggregate;
pub mod bench;
#[cfg(feature = "filecoin")]
pub mod bench_filecoin;
pub mod client;
pub mod daemon;
pub mod demo;
#[cfg(feature = "filecoin")]
pub mod filecoin;
pub mod info;
pub mod limits;
#[cfg(feature = "filecoin")]
pub mod porep;
#[cfg(feature = "filecoin")]
pub mod post;
pub mod prove;
pub mod setup;
#[cfg(feature = "filecoin")]
pub mod snap;
pub mod timeline;
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

/// Where the GPU backend keeps the parameters' bases (`--residency`,
/// `[gpus] residency`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResidencyChoice {
    /// Resident when the bases and one partition's working set fit in the
    /// device memory limit, else transient.
    #[default]
    Auto,
    /// Upload once and keep on the device (an error when they do not fit).
    Resident,
    /// Keep the bases in page-locked host memory and stream them through
    /// the device per MSM.
    Transient,
}

/// The devices a proving command runs on and how (the flags every proving
/// command shares; each overrides its `[gpus]` key of the config file).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct DeviceArgs {
    /// Prover backend.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Where the GPU keeps the parameters' bases: resident when they fit
    /// the memory limit (auto), always resident, or streamed from
    /// page-locked host memory per MSM (transient) [config: gpus.residency].
    #[arg(long, value_enum)]
    pub residency: Option<ResidencyChoice>,
    /// Device memory each GPU may use: "auto" (what is free at start, less
    /// 1 GiB), a size ("16GiB") or a share of the card ("50%"); never more
    /// than is free [config: gpus.memory_limit].
    #[arg(long)]
    pub memory_limit: Option<String>,
    /// GPUs to use, e.g. `0,1` (default: all) [config: gpus.devices].
    #[arg(long, value_parser = parse_devices)]
    pub devices: Option<Vec<u32>>,
}

impl DeviceArgs {
    /// Writes the flags given into `cfg`'s `[gpus]` and checks them.
    pub fn apply(&self, cfg: &mut cuzk_scheduler::Config) -> Result<()> {
        if let Some(r) = self.residency {
            use clap::ValueEnum;
            let v = r.to_possible_value().expect("every residency is named");
            cfg.gpus.residency = v.get_name().to_string();
        }
        if let Some(m) = &self.memory_limit {
            cfg.gpus.memory_limit = cuzk_scheduler::ByteSpec::parse(m)
                .map_err(|e| anyhow::anyhow!("--memory-limit: {e}"))?;
        }
        if let Some(d) = &self.devices {
            cfg.gpus.devices = d.clone();
        }
        cfg.validate()
            .context("invalid settings (flags override the config file)")
    }
}

/// One backend per device and the devices' ordinals, in the same order.
pub type Backends = (Vec<std::sync::Arc<dyn cuzk_groth16::Backend>>, Vec<u32>);

/// One backend per device: the GPUs of `gpus.devices` (empty: every GPU),
/// each with `gpus.residency` and `gpus.memory_limit`, when the choice
/// resolves to the GPU, else one CPU backend. Returns the backends and
/// their device ordinals, in the same order.
pub fn backends(
    choice: BackendChoice,
    gpus: &cuzk_scheduler::config::GpuConfig,
) -> Result<Backends> {
    let gpu_present = cuzk_gpu::built_with_cuda() && cuzk_gpu::device_count() > 0;
    match choice {
        BackendChoice::Cpu => Ok((vec![std::sync::Arc::new(cuzk_groth16::CpuBackend)], vec![0])),
        BackendChoice::Auto if !gpu_present => {
            Ok((vec![std::sync::Arc::new(cuzk_groth16::CpuBackend)], vec![0]))
        }
        BackendChoice::Auto | BackendChoice::Gpu => gpu_backends(gpus),
    }
}

/// The engine every proving command runs on: `cfg`'s options with one
/// backend per device of its `[gpus]` (after [`DeviceArgs::apply`]).
pub fn engine(
    cfg: &cuzk_scheduler::Config,
    choice: BackendChoice,
) -> Result<cuzk_scheduler::Engine> {
    engine_with(cfg.engine_options()?, cfg, choice)
}

/// [`engine`] with options the caller adjusted (e.g. the timeline on).
/// Sizes the process's CPU pool (rayon's, which synthesis,
/// classification and CPU MSMs share) to `threads` (`[synthesis] threads`;
/// 0: one per core). Before any parallel work: a pool already running
/// keeps its size, and that is an error only when a size was asked for.
pub fn init_cpu_pool(threads: usize) -> Result<()> {
    let r = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("cuzk-cpu-{i}"))
        .build_global();
    match r {
        Err(e) if threads > 0 && rayon::current_num_threads() != threads => Err(anyhow::anyhow!(
            "[synthesis] threads = {threads}: the CPU pool already runs {} threads ({e})",
            rayon::current_num_threads()
        )),
        _ => Ok(()),
    }
}

pub fn engine_with(
    mut opts: cuzk_scheduler::EngineOptions,
    cfg: &cuzk_scheduler::Config,
    choice: BackendChoice,
) -> Result<cuzk_scheduler::Engine> {
    let (be, ordinals) = backends(choice, &cfg.gpus)?;
    opts.devices = ordinals;
    cuzk_scheduler::Engine::new(opts, be).context("cannot start the engine")
}

/// Loads a `.params` file into the engine's SRS cache under `id`, with a
/// progress bar, and says where it went and how long it took.
pub fn load_into(
    ctx: &crate::output::Ctx,
    engine: &cuzk_scheduler::Engine,
    id: &str,
    path: &Path,
    full_check: bool,
) -> Result<cuzk_scheduler::SrsInfo> {
    let info = with_bar(ctx, path, full_check, |mode, progress| {
        engine
            .load_circuit(id, path, mode, progress)
            .with_context(|| format!("cannot load parameters {}", path.display()))
    })?;
    let places: Vec<String> = info
        .details
        .iter()
        .zip(engine.backend_name().split(','))
        .map(|(d, be)| format!("{be} {d}"))
        .collect();
    ctx.say(format!(
        "parameters {}: loaded once in {:.1} s ({:.1} GiB on each device where resident; host keeps {:.1} GiB and reserves {:.1} GiB for the partitions in the MSMs); placement per device: {}",
        path.display(),
        info.load_s,
        info.device_bytes as f64 / (1u64 << 30) as f64,
        info.host_bytes as f64 / (1u64 << 30) as f64,
        info.working_bytes as f64 / (1u64 << 30) as f64,
        places.join(", ")
    ));
    Ok(info)
}

#[cfg(feature = "cuda")]
fn gpu_backends(gpus: &cuzk_scheduler::config::GpuConfig) -> Result<Backends> {
    use cuzk_groth16::gpu::{GpuBackend, Residency};
    let mode: Residency = gpus
        .residency
        .parse()
        .map_err(|e: String| anyhow::anyhow!("gpus.residency: {e}"))?;
    let ordinals: Vec<u32> = if gpus.devices.is_empty() {
        (0..cuzk_gpu::device_count() as u32).collect()
    } else {
        gpus.devices.clone()
    };
    anyhow::ensure!(!ordinals.is_empty(), "no GPU found");
    let mut out: Vec<std::sync::Arc<dyn cuzk_groth16::Backend>> = Vec::new();
    for &d in &ordinals {
        let dev =
            cuzk_gpu::Device::new(d as usize).with_context(|| format!("cannot open GPU {d}"))?;
        let (_, total) = dev.mem_info()?;
        // A share is of the card; "auto" is what is free (the backend's default).
        let limit = match gpus.memory_limit {
            cuzk_scheduler::ByteSpec::Auto => None,
            ref spec => Some(
                spec.resolve(Some(total), || Ok(total))
                    .map_err(|e| anyhow::anyhow!("gpus.memory_limit: {e}"))?,
            ),
        };
        let be = GpuBackend::with_memory_limit(d as usize, limit)
            .with_context(|| format!("cannot start the GPU backend on device {d}"))?
            .with_residency(mode);
        out.push(std::sync::Arc::new(be));
    }
    Ok((out, ordinals))
}

#[cfg(not(feature = "cuda"))]
fn gpu_backends(_gpus: &cuzk_scheduler::config::GpuConfig) -> Result<Backends> {
    anyhow::bail!("this cuzk was built without CUDA (feature `cuda`); use --backend cpu")
}

/// Loads parameters with a progress bar (bytes decoded): for commands
/// that need the parameters themselves, not a prover (verify, demo's cache).
pub fn load_params(
    ctx: &crate::output::Ctx,
    path: &Path,
    full_check: bool,
) -> Result<cuzk_groth16::Parameters> {
    with_bar(ctx, path, full_check, |mode, progress| {
        cuzk_groth16::Parameters::load_with_progress(path, mode, progress)
            .context("cannot load parameters")
    })
}

/// Runs a load of `path` with the check mode of `full_check` and a bytes
/// progress bar.
fn with_bar<T>(
    ctx: &crate::output::Ctx,
    path: &Path,
    full_check: bool,
    load: impl FnOnce(cuzk_groth16::CheckMode, &(dyn Fn(usize, usize) + Sync)) -> Result<T>,
) -> Result<T> {
    let mode = if full_check {
        cuzk_groth16::CheckMode::Full
    } else {
        cuzk_groth16::CheckMode::Trusted
    };
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let bar = ctx.bytes_bar("params", total);
    let out = load(mode, &|n, _| bar.inc(n as u64));
    bar.finish_and_clear();
    out
}

/// Parses `--devices 0,1`.
pub fn parse_devices(s: &str) -> std::result::Result<Vec<u32>, String> {
    s.split(',')
        .map(|d| {
            d.trim()
                .parse::<u32>()
                .map_err(|_| format!("--devices: {d:?} is not a device number"))
        })
        .collect()
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
    let text = limits::read(path, limits::INPUTS_FILE_LIMIT, "a public-inputs file")
        .with_context(|| format!("cannot read {}", path.display()))?;
    let v: Vec<Vec<String>> = serde_json::from_slice(&text).with_context(|| {
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
