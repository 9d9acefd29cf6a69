//! `cargo xtask demo`: the README's first command. A demo proof on the GPU
//! when this machine has an NVIDIA GPU, else on the CPU.
//!
//! Deciding needs no CUDA toolkit: `nvidia-smi -L` (shipped with the driver)
//! lists the GPUs. With one, we install the pinned nvcc (`cargo xtask cuda`,
//! once per machine) and build `cuzk` with `--features cuda`; without, the
//! plain CPU build. Extra arguments go to `cuzk demo`.

use std::process::Command;

use anyhow::{bail, Context, Result};

fn has_nvidia_gpu() -> bool {
    Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GPU "))
        .unwrap_or(false)
}

pub(crate) fn run(cpu_only: bool, args: &[String]) -> Result<()> {
    let gpu = !cpu_only && has_nvidia_gpu();
    if gpu {
        eprintln!("xtask demo: NVIDIA GPU found: building cuzk with CUDA");
        crate::cuda::run(None, false).context("installing nvcc for the GPU build")?;
    } else {
        eprintln!("xtask demo: no NVIDIA GPU (or --cpu): CPU build");
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(crate::workspace_root())
        .args(["run", "--release", "-p", "cuzk"]);
    if gpu {
        cmd.args(["--features", "cuda"]);
    }
    // `cuzk demo`'s default backend (auto) takes the GPU in a CUDA build
    // when one is present.
    cmd.args(["--", "demo"]);
    if cpu_only {
        cmd.args(["--backend", "cpu"]);
    }
    cmd.args(args);
    let status = cmd.status().context("running cargo")?;
    if !status.success() {
        bail!("cuzk demo failed ({status})");
    }
    Ok(())
}
