//! `cargo xtask gpu-bundle`: everything the GPU machine runs, in one folder.
//!
//! The GPU machine has the driver but no Rust toolchain and no network, so
//! we build here and carry binaries there (docs/GPU.md). This task:
//! 1. finds every workspace package with a `cuda` feature (cargo metadata);
//! 2. builds their test binaries (`cargo test --no-run`) and benches
//!    (`cargo bench --no-run`) with that feature, reading the executables'
//!    paths from `--message-format=json`;
//! 3. builds `cuzk` (if the cli package has a `cuda` feature) and xtask in
//!    release;
//! 4. copies them, stripped of debug info, into `gpu-bundle/{tests,benches,bin}`
//!    with `run.sh` (runs every test, GPU-only ones included, and every
//!    bench, writing a report under $OUT or a given folder), a MANIFEST,
//!    and `lib.sh` for the hand-written session scripts of `docs/runs/`.
//!
//! Executables are gzip-compressed (stripped test binaries shrink ~3×) and
//! `run.sh` unpacks them into a temporary folder on the GPU machine. The
//! bundle must stay under the device tool's 64 MiB limit; we check.

use std::fs;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

const LIMIT_BYTES: u64 = 64 << 20;
const RUN_SH: &str = include_str!("gpu_bundle_run.sh");
/// Shared preamble of the `docs/runs/session*.sh` device scripts (unpack,
/// the `T` runner, time budget): copied next to them as `lib.sh`.
const SESSION_LIB: &str = include_str!("../../docs/runs/lib.sh");

#[derive(Debug)]
struct Exe {
    package: String,
    target: String,
    kind: &'static str,
    target_kinds: Vec<String>,
    path: PathBuf,
}

/// Release binaries of other packages that GPU-machine runs need: the PoRep
/// synthesis comparison (CPU only, but the GPU host has the 16 cores and
/// the memory) and, with `--anchor`, the supraseal-c2 side-by-side harness.
struct ExtraBin {
    package: &'static str,
    bin: &'static str,
    features: &'static str,
    /// Builds supraseal-c2 through sppark (needs the toolkit on PATH).
    sppark: bool,
}

const EXTRA_BINS: &[ExtraBin] = &[
    ExtraBin {
        package: "cuzk-filecoin-tools",
        bin: "cuzk-porep-synth",
        features: "",
        sppark: false,
    },
    ExtraBin {
        package: "cuzk-filecoin-tools",
        bin: "cuzk-post-synth",
        features: "",
        sppark: false,
    },
];

const ANCHOR_BIN: ExtraBin = ExtraBin {
    package: "cuzk-anchor",
    bin: "cuzk-anchor",
    features: "supraseal,cuda",
    sppark: true,
};

pub(crate) fn run(
    out: Option<PathBuf>,
    strip: bool,
    only: &[String],
    anchor: bool,
    extras: bool,
    tests: &[String],
    benches: &[String],
) -> Result<()> {
    let root = crate::workspace_root();
    let out = out.unwrap_or_else(|| root.join("gpu-bundle"));
    let cuda = cuzk_cuda_build::Cuda::detect()
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("the bundle needs nvcc")?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());

    let (mut gpu_pkgs, cli_has_cuda) = cuda_packages(&root, &cargo)?;
    if !only.is_empty() {
        if let Some(p) = only.iter().find(|p| !gpu_pkgs.contains(p)) {
            bail!(
                "-p {p}: not a workspace package with a `cuda` feature ({})",
                gpu_pkgs.join(", ")
            );
        }
        gpu_pkgs.retain(|p| only.contains(p));
    }
    if gpu_pkgs.is_empty() {
        bail!("no workspace package has a `cuda` feature");
    }
    eprintln!(
        "xtask gpu-bundle: packages with `cuda`: {}",
        gpu_pkgs.join(", ")
    );
    let features: Vec<String> = gpu_pkgs.iter().map(|p| format!("{p}/cuda")).collect();

    let mut exes = Vec::new();
    let kinds: &[(&str, &str)] = if tests.is_empty() || !benches.is_empty() {
        &[("test", "tests"), ("bench", "benches")]
    } else {
        &[("test", "tests")]
    };
    for &(sub, kind) in kinds {
        let mut cmd = Command::new(&cargo);
        // --release for the tests too: tests, benches and the release
        // binaries then share target/release, so each CUDA build script
        // (minutes of ptxas) runs once instead of once per profile.
        cmd.current_dir(&root).arg(sub).arg("--no-run");
        if sub == "test" {
            cmd.arg("--release");
        } else {
            // Build only the named benches (criterion's CPU benches take
            // minutes and are not wanted on the device).
            for b in benches {
                cmd.arg("--bench").arg(b);
            }
        }
        for p in &gpu_pkgs {
            cmd.arg("-p").arg(p);
        }
        cmd.arg("--features").arg(features.join(","));
        cmd.arg("--message-format=json-render-diagnostics");
        if anchor {
            // One environment for every build of the bundle: our build
            // scripts rerun (and recompile all CUDA) when PATH changes.
            sppark_env(&mut cmd, &cuda)?;
        }
        // `cargo bench` also builds each library's (empty) bench harness;
        // keep real bench targets only.
        exes.extend(collect_executables(cmd, kind, |e| {
            if kind == "tests" {
                tests.is_empty() || tests.contains(&e.target)
            } else {
                e.target_kinds.iter().any(|k| k == "bench")
                    && (benches.is_empty() || benches.contains(&e.target))
            }
        })?);
    }

    let mut bins = vec![("xtask", None)];
    if cli_has_cuda {
        bins.push(("cuzk", Some("cuzk/cuda")));
    } else {
        eprintln!("xtask gpu-bundle: cli has no `cuda` feature yet: cuzk left out");
    }
    for (pkg, feat) in bins {
        let mut cmd = Command::new(&cargo);
        cmd.current_dir(&root)
            .args(["build", "--release", "-p", pkg]);
        if let Some(f) = feat {
            cmd.args(["--features", f]);
        }
        if anchor {
            sppark_env(&mut cmd, &cuda)?;
        }
        cmd.arg("--message-format=json-render-diagnostics");
        exes.extend(collect_executables(cmd, "bin", |e| e.target == pkg)?);
    }

    let extra: Vec<&ExtraBin> = EXTRA_BINS
        .iter()
        .filter(|_| extras)
        .chain(anchor.then_some(&ANCHOR_BIN))
        .collect();
    for x in extra {
        let mut cmd = Command::new(&cargo);
        cmd.current_dir(&root)
            .args(["build", "--release", "-p", x.package, "--bin", x.bin]);
        if !x.features.is_empty() {
            cmd.args(["--features", x.features]);
        }
        if x.sppark || anchor {
            sppark_env(&mut cmd, &cuda)?;
        }
        cmd.arg("--message-format=json-render-diagnostics");
        exes.extend(collect_executables(cmd, "bin", |e| e.target == x.bin)?);
    }

    if out.exists() {
        fs::remove_dir_all(&out).with_context(|| format!("clearing {}", out.display()))?;
    }
    let mut manifest = String::new();
    manifest.push_str(&format!("# built {} from {}\n", utc_now(), git_rev(&root)));
    let mut total = 0u64;
    for e in &exes {
        let dir = out.join(e.kind);
        fs::create_dir_all(&dir)?;
        let name = match e.kind {
            "bin" => e.target.clone(),
            _ => format!("{}--{}", e.package, e.target),
        };
        let dst = dir.join(&name);
        fs::copy(&e.path, &dst).with_context(|| format!("copying {}", e.path.display()))?;
        if strip {
            strip_debug(&dst);
        }
        gzip(&dst)?;
        let size = fs::metadata(dst.with_file_name(format!("{name}.gz")))?.len();
        total += size;
        manifest.push_str(&format!("{}/{name} {size}\n", e.kind));
    }
    let run_sh = out.join("run.sh");
    fs::write(&run_sh, RUN_SH)?;
    make_executable(&run_sh)?;
    fs::write(out.join("MANIFEST"), &manifest)?;
    // A session script (docs/runs/*.sh, copied to session.sh) sources it.
    fs::write(out.join("lib.sh"), SESSION_LIB)?;
    eprint!("{manifest}");
    eprintln!(
        "xtask gpu-bundle: {} executables, {:.1} MiB in {}",
        exes.len(),
        total as f64 / (1 << 20) as f64,
        out.display()
    );
    if total > LIMIT_BYTES {
        bail!("bundle is {total} bytes, over the device tool's 64 MiB limit");
    }
    println!("{}", out.display());
    Ok(())
}

/// sppark's build helper (used by supraseal-c2) calls `nvcc` from PATH,
/// links `cudart_static` through LIBRARY_PATH, and emits no sm_90 code by
/// itself: we give it the pinned toolkit and the H200's architecture.
fn sppark_env(cmd: &mut Command, cuda: &cuzk_cuda_build::Cuda) -> Result<()> {
    let bin = cuda.nvcc().parent().context("nvcc has no folder")?;
    let mut path = std::ffi::OsString::from(bin);
    if let Some(p) = std::env::var_os("PATH") {
        path.push(":");
        path.push(p);
    }
    cmd.env("PATH", path)
        .env("LIBRARY_PATH", cuda.lib_dir())
        .env("NVCC_APPEND_FLAGS", "-gencode=arch=compute_90,code=sm_90");
    Ok(())
}

/// Workspace packages with a `cuda` feature (except the cli, built
/// separately), and whether the cli has one.
fn cuda_packages(root: &Path, cargo: &std::ffi::OsStr) -> Result<(Vec<String>, bool)> {
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .context("cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let mut pkgs = Vec::new();
    let mut cli = false;
    for p in v["packages"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default().to_string();
        let has = p["features"].get("cuda").is_some();
        if name == "cuzk" {
            cli = has;
        } else if has {
            pkgs.push(name);
        }
    }
    pkgs.sort();
    Ok((pkgs, cli))
}

/// Runs a cargo build with JSON messages and returns its executables.
fn collect_executables(
    mut cmd: Command,
    kind: &'static str,
    keep: impl Fn(&Exe) -> bool,
) -> Result<Vec<Exe>> {
    eprintln!("xtask gpu-bundle: {cmd:?}");
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .context("spawning cargo")?;
    let stdout = child.stdout.take().context("cargo stdout")?;
    let mut exes = Vec::new();
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line?;
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let Some(path) = msg["executable"].as_str() else {
            continue;
        };
        let package = msg["package_id"]
            .as_str()
            .map(package_name)
            .unwrap_or_default();
        let exe = Exe {
            package,
            target: msg["target"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            kind,
            target_kinds: msg["target"]["kind"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str().map(String::from))
                .collect(),
            path: PathBuf::from(path),
        };
        if keep(&exe) {
            exes.push(exe);
        }
    }
    let st = child.wait()?;
    if !st.success() {
        bail!("cargo failed ({st})");
    }
    Ok(exes)
}

/// Package name from a package id: "path+file:///…/gpu#cuzk-gpu@0.1.0"
/// (newer cargo) or "cuzk-gpu 0.1.0 (path+file:///…)" (older).
fn package_name(id: &str) -> String {
    if let Some((_, tail)) = id.rsplit_once('#') {
        let name = tail.split('@').next().unwrap_or(tail);
        // "#0.1.0" alone means the name is the last path component
        if name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            let head = id.rsplit_once('#').map(|(h, _)| h).unwrap_or(id);
            return head.rsplit('/').next().unwrap_or(head).to_string();
        }
        return name.to_string();
    }
    id.split_whitespace().next().unwrap_or(id).to_string()
}

fn strip_debug(path: &Path) {
    match Command::new("strip")
        .arg("--strip-debug")
        .arg(path)
        .status()
    {
        Ok(s) if s.success() => {}
        other => eprintln!(
            "xtask gpu-bundle: strip {} failed ({other:?}); kept as is",
            path.display()
        ),
    }
}

#[cfg(unix)]
fn make_executable(p: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = fs::metadata(p)?.permissions();
    perm.set_mode(0o755);
    fs::set_permissions(p, perm)?;
    Ok(())
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<()> {
    Ok(())
}

fn git_rev(root: &Path) -> String {
    Command::new("git")
        .current_dir(root)
        .args(["describe", "--always", "--dirty"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown revision".into())
}

fn utc_now() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Compresses `path` in place to `path.gz` (gzip is on every GPU machine;
/// `-n` keeps the output independent of timestamps).
fn gzip(path: &Path) -> Result<()> {
    let status = Command::new("gzip")
        .args(["-9", "-n", "-f"])
        .arg(path)
        .status()
        .context("running gzip")?;
    if !status.success() {
        bail!("gzip {} failed: {status}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn package_ids_of_both_cargo_formats() {
        assert_eq!(
            package_name("path+file:///w/main/gpu#cuzk-gpu@0.1.0"),
            "cuzk-gpu"
        );
        assert_eq!(package_name("path+file:///w/main/xtask#0.1.0"), "xtask");
        assert_eq!(
            package_name("cuzk-gpu 0.1.0 (path+file:///w/main/gpu)"),
            "cuzk-gpu"
        );
    }
}
