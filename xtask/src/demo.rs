//! `cargo xtask demo`: the README's first command. A demo proof on the GPU
//! when this machine has an NVIDIA GPU, else on the CPU.
//!
//! Deciding needs no CUDA toolkit: `nvidia-smi -L` (shipped with the driver)
//! lists the GPUs. With one, we install the pinned nvcc (`cargo xtask cuda`,
//! once per machine) and build `cuzk` with `--features cuda` for this
//! machine's GPUs only (`nvidia-smi --query-gpu=compute_cap`, unless
//! `CUZK_CUDA_ARCHS` is set): each architecture is a ptxas pass of minutes
//! over the MSM kernels. Without one, the plain CPU build. Extra arguments
//! go to `cuzk demo`.

use std::process::Command;

use anyhow::{bail, Context, Result};

fn has_nvidia_gpu() -> bool {
    Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GPU "))
        .unwrap_or(false)
}

/// This machine's GPU architectures as `CUZK_CUDA_ARCHS` lists them
/// ("8.6" becomes 86), or None when nvidia-smi cannot say.
fn local_archs() -> Option<String> {
    let o = Command::new("nvidia-smi")
        .args(["--query-gpu=compute_cap", "--format=csv,noheader"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    archs_from_compute_caps(&String::from_utf8_lossy(&o.stdout))
}

fn archs_from_compute_caps(text: &str) -> Option<String> {
    let mut archs: Vec<u32> = text
        .lines()
        .filter_map(|l| {
            let (major, minor) = l.trim().split_once('.')?;
            Some(major.parse::<u32>().ok()? * 10 + minor.parse::<u32>().ok()?)
        })
        .collect();
    archs.sort_unstable();
    archs.dedup();
    (!archs.is_empty()).then(|| {
        archs
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    })
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
        if std::env::var_os("CUZK_CUDA_ARCHS").is_none() {
            if let Some(a) = local_archs() {
                eprintln!("xtask demo: CUDA kernels for this machine's GPUs: CUZK_CUDA_ARCHS={a}");
                cmd.env("CUZK_CUDA_ARCHS", a);
            }
        }
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

#[cfg(test)]
mod tests {
    use super::archs_from_compute_caps;

    #[test]
    fn compute_capabilities_become_an_arch_list() {
        assert_eq!(archs_from_compute_caps("9.0\n"), Some("90".into()));
        assert_eq!(
            archs_from_compute_caps("8.6\n12.0\n8.6\n"),
            Some("86,120".into())
        );
        assert_eq!(archs_from_compute_caps(""), None);
        assert_eq!(archs_from_compute_caps("[N/A]\n"), None);
    }
}
