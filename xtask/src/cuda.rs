//! `cargo xtask cuda`: a CUDA 13.0 toolkit from pinned PyPI wheels.
//!
//! The development and CI machines have no system CUDA. NVIDIA publishes the
//! compiler pieces as wheels; installed with `pip --target` they form a tree
//! `nvidia/cu13/{bin,include,lib,nvvm}` that nvcc can use once `lib64` exists
//! (its `nvcc.profile` looks for libraries under `lib64`). We pin every wheel
//! to 13.0.x: a 13.5 nvvm with a 13.0 ptxas emits PTX the assembler rejects
//! ("Unsupported .version").

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The wheels, pinned. cccl has no 13.0.88 build; 13.0.85 is its 13.0 release.
pub(crate) const WHEELS: &[(&str, &str)] = &[
    ("nvidia-cuda-nvcc", "13.0.88"),
    ("nvidia-cuda-runtime", "13.0.88"),
    ("nvidia-cuda-crt", "13.0.88"),
    ("nvidia-cuda-cccl", "13.0.85"),
    ("nvidia-nvvm", "13.0.88"),
];

const NVCC_VERSION_TAG: &str = "V13.0.88";
const STAMP: &str = ".cuzk-cuda-installed";
const LINKS: &[&str] = &["bin", "include", "lib", "lib64", "nvvm"];

pub(crate) fn run(dir: Option<PathBuf>, force: bool) -> Result<()> {
    let dir = match dir {
        Some(d) => d,
        None => cuzk_cuda_build::default_toolkit_dir()
            .context("neither XDG_CACHE_HOME nor HOME is set; pass --dir")?,
    };
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let stamp = dir.join(STAMP);
    let wanted = stamp_text();
    let installed = fs::read_to_string(&stamp).ok();
    if force || installed.as_deref() != Some(wanted.as_str()) || !dir.join("bin/nvcc").is_file() {
        install(&dir)?;
        fs::write(&stamp, &wanted)?;
    } else {
        eprintln!("xtask cuda: wheels already installed in {}", dir.display());
    }
    check(&dir)?;
    println!("{}", dir.join("bin").join("nvcc").display());
    eprintln!(
        "xtask cuda: CUDA {} ready. The GPU crates find it automatically; \
         for other tools: export CUDA_HOME={}",
        NVCC_VERSION_TAG,
        dir.display()
    );
    Ok(())
}

fn stamp_text() -> String {
    WHEELS.iter().map(|(n, v)| format!("{n}=={v}\n")).collect()
}

fn install(dir: &Path) -> Result<()> {
    let site = dir.join("site");
    let partial = dir.join("site.partial");
    if partial.exists() {
        fs::remove_dir_all(&partial)?;
    }
    let python = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    let mut cmd = Command::new(&python);
    cmd.args(["-m", "pip", "install", "--no-deps", "--no-compile"])
        .args(["--disable-pip-version-check", "--target"])
        .arg(&partial);
    for (n, v) in WHEELS {
        cmd.arg(format!("{n}=={v}"));
    }
    eprintln!(
        "xtask cuda: installing {} wheels into {}",
        WHEELS.len(),
        dir.display()
    );
    let st = cmd
        .status()
        .with_context(|| format!("running {} -m pip", python.to_string_lossy()))?;
    if !st.success() {
        bail!("pip install failed ({st}); is python3 with pip available and PyPI reachable?");
    }
    for l in LINKS {
        let p = dir.join(l);
        if p.symlink_metadata().is_ok() {
            fs::remove_file(&p).or_else(|_| fs::remove_dir_all(&p))?;
        }
    }
    if site.exists() {
        fs::remove_dir_all(&site)?;
    }
    fs::rename(&partial, &site)?;
    let root = find_root(&site)?;
    // nvcc.profile adds -L$(TOP)/lib64; the wheel ships only lib/.
    let lib64 = root.join("lib64");
    if lib64.symlink_metadata().is_err() {
        symlink(Path::new("lib"), &lib64)?;
    }
    let rel = root.strip_prefix(dir).unwrap_or(&root).to_path_buf();
    for l in LINKS {
        symlink(&rel.join(l), &dir.join(l))?;
    }
    Ok(())
}

/// The wheel tree's CUDA root: the directory whose `bin/nvcc` exists
/// (`site/nvidia/cu13` for the 13.x wheels).
fn find_root(site: &Path) -> Result<PathBuf> {
    let nvidia = site.join("nvidia");
    for e in fs::read_dir(&nvidia).with_context(|| format!("reading {}", nvidia.display()))? {
        let p = e?.path();
        if p.join("bin").join("nvcc").is_file() {
            return Ok(p);
        }
    }
    bail!("no nvidia/*/bin/nvcc under {}", site.display())
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link)
        .with_context(|| format!("linking {} -> {}", link.display(), target.display()))
}

#[cfg(not(unix))]
fn symlink(_target: &Path, _link: &Path) -> Result<()> {
    bail!("xtask cuda supports Linux only")
}

/// `nvcc --version` must say 13.0.88, and a tiny kernel must compile and
/// link against the static runtime for sm_90 (not run: there may be no GPU).
fn check(dir: &Path) -> Result<()> {
    let nvcc = dir.join("bin").join("nvcc");
    let out = Command::new(&nvcc)
        .arg("--version")
        .output()
        .with_context(|| format!("running {}", nvcc.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !text.contains(NVCC_VERSION_TAG) {
        bail!(
            "{} --version did not report {NVCC_VERSION_TAG}:\n{text}",
            nvcc.display()
        );
    }
    let tmp = dir.join("check");
    fs::create_dir_all(&tmp)?;
    let src = tmp.join("probe.cu");
    fs::write(
        &src,
        "#include <cstdio>\n\
         __global__ void k(unsigned* x) { x[threadIdx.x] = __umulhi(x[threadIdx.x], 3u); }\n\
         int main() { int n = -1; cudaError_t e = cudaGetDeviceCount(&n);\n\
           std::printf(\"%s %d\\n\", cudaGetErrorName(e), n); return 0; }\n",
    )?;
    let exe = tmp.join("probe");
    let st = Command::new(&nvcc)
        .args([
            "-gencode",
            "arch=compute_90,code=sm_90",
            "-cudart",
            "static",
            "-o",
        ])
        .arg(&exe)
        .arg(&src)
        .status()?;
    if !st.success() || !exe.is_file() {
        bail!(
            "{} could not compile and link a probe kernel",
            nvcc.display()
        );
    }
    eprintln!(
        "xtask cuda: {} compiles sm_90 with static cudart",
        nvcc.display()
    );
    Ok(())
}
