//! `cargo xtask dist`: the release tarball of a proving host.
//!
//! Builds `cuzk` (`cargo build -p cuzk --profile P [--features cuda]`) and
//! packs `target/dist/cuzk-<version>-<target>[-cuda].tar.gz`, one folder of
//! the same name holding [`ENTRIES`]:
//!
//! - `bin/cuzk`, its debug info stripped (`strip --strip-debug`: symbols
//!   stay, for backtraces and `perf`) when `strip` is on PATH;
//! - `etc/cuzk.example.toml`: the one file `cuzk daemon --config` reads,
//!   every key at its default with its comment: the engine's example
//!   (scheduler/cuzk.example.toml) with its `[daemon]` section replaced by
//!   the daemon's (daemon/cuzk-daemon.example.toml), which lists the
//!   engine's two `[daemon]` keys as well as its own;
//! - `systemd/cuzk.service` (from `dist/`), `LICENSE-MIT`, `LICENSE-APACHE`
//!   and the install guide docs/INSTALL.md, at the top of the folder.
//!
//! `--check` then lists the tarball and fails on a missing entry or one
//! outside the folder, unpacks it, runs `bin/cuzk --version`, starts
//! `bin/cuzk daemon` on the shipped config (CPU backend, free ports) until
//! it answers `GET /status`, stops it with SIGTERM, and runs
//! `systemd-analyze verify` on the unit with `ExecStart` pointed at the
//! unpacked binary (it refuses a unit whose binary is missing), failing on
//! any warning about the unit. Without `systemd-analyze` that step is
//! skipped with a line saying so.
//!
//! CUDA architectures of `--cuda`: cuzk-cuda-build's
//! `RELEASE_ARCHS` for every kernel library (SASS for sm_80, 86, 89, 90 and
//! 120, PTX of sm_80 for newer cards), whatever `CUZK_CUDA_ARCHS` says in
//! the caller's environment: a release runs on every card a provider
//! proves on. `--archs 90` narrows it for the GPU machine's test of the
//! tarball (its transfers are limited to 64 MiB), in a tarball named so.

use std::collections::BTreeSet;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// Every file of the tarball, relative to its top folder.
pub(crate) const ENTRIES: [&str; 6] = [
    "bin/cuzk",
    "etc/cuzk.example.toml",
    "systemd/cuzk.service",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    "INSTALL.md",
];

/// Where the unit runs the binary; `--check` points it at the unpacked one.
const INSTALLED_BIN: &str = "/usr/local/bin/cuzk";

/// The build profile of the packed binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Profile {
    /// `target/debug` (CI reuses its debug build).
    Dev,
    /// `target/release`.
    Release,
}

impl Profile {
    fn cargo_name(self) -> &'static str {
        match self {
            Profile::Dev => "dev",
            Profile::Release => "release",
        }
    }

    fn dir(self) -> &'static str {
        match self {
            Profile::Dev => "debug",
            Profile::Release => "release",
        }
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct DistArgs {
    /// Build with `--features cuda` (SASS for sm_80, 86, 89, 90, 120; needs
    /// nvcc: `cargo xtask cuda`).
    #[arg(long)]
    cuda: bool,
    /// Cargo profile of the binary.
    #[arg(long, value_enum, default_value_t = Profile::Release)]
    profile: Profile,
    /// Folder for the tarball (default: <target dir>/dist).
    #[arg(long)]
    out: Option<PathBuf>,
    /// After packing, check the tarball: entries, `cuzk --version`, the
    /// daemon on the shipped config, `systemd-analyze verify`.
    #[arg(long)]
    check: bool,
    /// Pack the `cuzk` already in the profile's target folder instead of
    /// building it. CI packs the one `cargo test --workspace` built: a
    /// `cargo build -p cuzk` after it recompiles 78 crates for their
    /// narrower feature set (3.5 min on 2 cores), since
    /// dev-dependencies widen zerocopy's, getrandom's and regex's.
    #[arg(long, conflicts_with = "cuda")]
    prebuilt: bool,
    /// With `--cuda`: SASS for these architectures only (a comma list,
    /// e.g. `90`), in a tarball named `…-cuda-sm<list>` so it is never
    /// taken for a release. For the GPU machine, whose transfers take at
    /// most 64 MiB: a release's five architectures are several times
    /// that (sm_90 alone is a 40 MB fatbin).
    #[arg(long, requires = "cuda", value_parser = parse_archs)]
    archs: Option<String>,
}

/// `--archs`: a comma list of two- or three-digit compute capabilities.
fn parse_archs(s: &str) -> std::result::Result<String, String> {
    let ok = !s.is_empty()
        && s.split(',')
            .all(|a| (2..=3).contains(&a.len()) && a.bytes().all(|b| b.is_ascii_digit()));
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "{s:?}: a comma list of compute capabilities, e.g. 90 or 86,90"
        ))
    }
}

pub(crate) fn run(args: DistArgs) -> Result<()> {
    let root = crate::workspace_root();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let (version, target_dir) = cuzk_version_and_target_dir(&root, &cargo)?;
    let triple = host_triple()?;
    let name = format!(
        "cuzk-{version}-{triple}{}{}",
        if args.cuda { "-cuda" } else { "" },
        args.archs
            .as_ref()
            .map_or_else(String::new, |a| format!("-sm{}", a.replace(',', "-")))
    );

    let mut build = Command::new(&cargo);
    build.current_dir(&root).args([
        "build",
        "-p",
        "cuzk",
        "--profile",
        args.profile.cargo_name(),
    ]);
    if args.cuda {
        cuzk_cuda_build::Cuda::detect()
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("--cuda needs nvcc")?;
        build.args(["--features", "cuda"]);
        match &args.archs {
            Some(a) => {
                build.env("CUZK_CUDA_ARCHS", a);
                eprintln!("xtask dist: CUDA kernels for sm {a} only (--archs): not a release");
            }
            None => {
                build.env_remove("CUZK_CUDA_ARCHS");
                eprintln!(
                    "xtask dist: CUDA kernels for sm_{:?} (cuzk-cuda-build RELEASE_ARCHS)",
                    cuzk_cuda_build::RELEASE_ARCHS
                );
            }
        }
    }
    if !args.prebuilt {
        run_ok(&mut build, "cargo build -p cuzk")?;
    }
    let binary = target_dir.join(args.profile.dir()).join("cuzk");
    if !binary.is_file() {
        bail!("no cuzk binary at {}", binary.display());
    }

    let out = args.out.unwrap_or_else(|| target_dir.join("dist"));
    fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let stage = out.join(&name);
    stage_files(&root, &binary, &stage)?;
    let tarball = out.join(format!("{name}.tar.gz"));
    pack(&out, &name, &tarball)?;
    fs::remove_dir_all(&stage).with_context(|| format!("removing {}", stage.display()))?;
    let size = fs::metadata(&tarball).map(|m| m.len()).unwrap_or(0);
    println!(
        "xtask dist: {} ({:.1} MiB)",
        tarball.display(),
        size as f64 / (1 << 20) as f64
    );

    if args.check {
        check(&tarball, &name, &version)?;
        println!("xtask dist: check passed: {}", tarball.display());
    }
    Ok(())
}

/// The `cuzk` package's version and cargo's target directory.
fn cuzk_version_and_target_dir(root: &Path, cargo: &std::ffi::OsStr) -> Result<(String, PathBuf)> {
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata failed ({})", out.status);
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("parsing cargo metadata")?;
    let version = meta["packages"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "cuzk"))
        .and_then(|p| p["version"].as_str())
        .context("cargo metadata lists no `cuzk` package with a version")?
        .to_string();
    let target_dir = meta["target_directory"]
        .as_str()
        .context("cargo metadata has no target_directory")?;
    Ok((version, PathBuf::from(target_dir)))
}

/// The host's target triple (`rustc -vV`), which cargo builds for.
fn host_triple() -> Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(|h| h.trim().to_string())
        .context("rustc -vV printed no `host:` line")
}

/// Runs `cmd`, failing with `what` and its exit status.
fn run_ok(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd.status().with_context(|| format!("running {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// Fills `stage` (emptied first) with [`ENTRIES`].
fn stage_files(root: &Path, binary: &Path, stage: &Path) -> Result<()> {
    if stage.exists() {
        fs::remove_dir_all(stage).with_context(|| format!("removing {}", stage.display()))?;
    }
    for dir in ["bin", "etc", "systemd"] {
        fs::create_dir_all(stage.join(dir))
            .with_context(|| format!("creating {}", stage.join(dir).display()))?;
    }
    let bin = stage.join("bin/cuzk");
    copy(binary, &bin, 0o755)?;
    match Command::new("strip")
        .arg("--strip-debug")
        .arg(&bin)
        .status()
    {
        Ok(s) if s.success() => {}
        Ok(s) => bail!("strip --strip-debug {} failed ({s})", bin.display()),
        Err(_) => eprintln!("xtask dist: no `strip` on PATH: bin/cuzk keeps its debug info"),
    }
    let read =
        |rel: &str| fs::read_to_string(root.join(rel)).with_context(|| format!("reading {rel}"));
    let config = combined_config(
        &read("scheduler/cuzk.example.toml")?,
        &read("daemon/cuzk-daemon.example.toml")?,
    )?;
    write(&stage.join("etc/cuzk.example.toml"), &config)?;
    for (from, to) in [
        ("dist/cuzk.service", "systemd/cuzk.service"),
        ("LICENSE-MIT", "LICENSE-MIT"),
        ("LICENSE-APACHE", "LICENSE-APACHE"),
        ("docs/INSTALL.md", "INSTALL.md"),
    ] {
        copy(&root.join(from), &stage.join(to), 0o644)?;
    }
    Ok(())
}

fn copy(from: &Path, to: &Path, mode: u32) -> Result<()> {
    fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    fs::set_permissions(to, fs::Permissions::from_mode(mode))
        .with_context(|| format!("chmod {}", to.display()))
}

fn write(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o644))
        .with_context(|| format!("chmod {}", path.display()))
}

/// `tar` of `dir/name` into `tarball`, owned by root, sorted.
fn pack(dir: &Path, name: &str, tarball: &Path) -> Result<()> {
    let mut tar = Command::new("tar");
    tar.args([
        "--sort=name",
        "--owner=0",
        "--group=0",
        "--numeric-owner",
        "-czf",
    ])
    .arg(tarball)
    .arg("-C")
    .arg(dir)
    .arg(name);
    run_ok(&mut tar, "tar -czf")
}

/// The entries of a `.tar.gz` (`tar -tzf`).
fn list(tarball: &Path) -> Result<Vec<String>> {
    let out = Command::new("tar")
        .arg("-tzf")
        .arg(tarball)
        .output()
        .context("running tar -tzf")?;
    if !out.status.success() {
        bail!(
            "tar -tzf {} failed: {}",
            tarball.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect())
}

/// Checks a tarball's listing: every one of [`ENTRIES`] under `top/`, and
/// nothing outside `top/`.
pub(crate) fn check_listing(listing: &[String], top: &str) -> Result<()> {
    let mut have = BTreeSet::new();
    let mut stray = Vec::new();
    for e in listing {
        let e = e.trim_start_matches("./").trim_end_matches('/');
        if e.is_empty() {
            continue;
        }
        match e.strip_prefix(top) {
            Some("") => {}
            Some(rest) if rest.starts_with('/') => {
                have.insert(rest[1..].to_string());
            }
            _ => stray.push(e.to_string()),
        }
    }
    let missing: Vec<&str> = ENTRIES
        .iter()
        .copied()
        .filter(|e| !have.contains(*e))
        .collect();
    if !missing.is_empty() || !stray.is_empty() {
        bail!(
            "tarball is not as expected: missing under {top}/: [{}]; outside {top}/: [{}]",
            missing.join(", "),
            stray.join(", ")
        );
    }
    Ok(())
}

/// `--check`: see the module docs.
fn check(tarball: &Path, top: &str, version: &str) -> Result<()> {
    check_listing(&list(tarball)?, top)?;
    println!("check: all {} entries present", ENTRIES.len());
    let scratch = tarball.with_file_name(format!(".check-{top}"));
    if scratch.exists() {
        fs::remove_dir_all(&scratch).with_context(|| format!("removing {}", scratch.display()))?;
    }
    fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let result = check_unpacked(tarball, &scratch, top, version);
    let _ = fs::remove_dir_all(&scratch);
    result
}

fn check_unpacked(tarball: &Path, scratch: &Path, top: &str, version: &str) -> Result<()> {
    let mut tar = Command::new("tar");
    tar.arg("-xzf").arg(tarball).arg("-C").arg(scratch);
    run_ok(&mut tar, "tar -xzf")?;
    let dir = scratch
        .join(top)
        .canonicalize()
        .context("resolving the unpacked folder")?;
    let bin = dir.join("bin/cuzk");

    let out = Command::new(&bin)
        .arg("--version")
        .output()
        .with_context(|| format!("running {} --version", bin.display()))?;
    let printed = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || printed != format!("cuzk {version}") {
        bail!(
            "bin/cuzk --version: expected `cuzk {version}`, got `{printed}` ({})",
            out.status
        );
    }
    println!("check: bin/cuzk --version: {printed}");

    daemon_smoke(&bin, &dir.join("etc/cuzk.example.toml"), scratch)?;

    let unit = fs::read_to_string(dir.join("systemd/cuzk.service"))
        .context("reading systemd/cuzk.service")?;
    match which("systemd-analyze") {
        None => println!(
            "check: SKIPPED systemd-analyze verify: systemd-analyze is not on PATH \
             (Debian: apt-get install systemd)"
        ),
        Some(analyze) => {
            let verify_dir = scratch.join("verify");
            fs::create_dir_all(&verify_dir).context("creating the verify folder")?;
            let copy = verify_dir.join("cuzk.service");
            write(&copy, &unit_for_verify(&unit, &bin)?)?;
            let out = Command::new(analyze)
                .arg("verify")
                .arg(&copy)
                .output()
                .context("running systemd-analyze verify")?;
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let warnings = unit_warnings(&text, "cuzk.service");
            if !out.status.success() || !warnings.is_empty() {
                bail!(
                    "systemd-analyze verify systemd/cuzk.service ({}):\n  {}",
                    out.status,
                    if warnings.is_empty() {
                        text.trim().to_string()
                    } else {
                        warnings.join("\n  ")
                    }
                );
            }
            println!("check: systemd-analyze verify systemd/cuzk.service: clean");
        }
    }
    Ok(())
}

/// The unit with `ExecStart`'s installed path replaced by `bin`, so that
/// `systemd-analyze verify` finds an executable.
pub(crate) fn unit_for_verify(unit: &str, bin: &Path) -> Result<String> {
    let mut found = false;
    let lines: Vec<String> = unit
        .lines()
        .map(|l| match l.strip_prefix("ExecStart=") {
            Some(cmd) if cmd.starts_with(INSTALLED_BIN) => {
                found = true;
                format!("ExecStart={}{}", bin.display(), &cmd[INSTALLED_BIN.len()..])
            }
            _ => l.to_string(),
        })
        .collect();
    if !found {
        bail!("systemd/cuzk.service has no `ExecStart={INSTALLED_BIN} ...` line");
    }
    Ok(lines.join("\n") + "\n")
}

/// The lines of `systemd-analyze verify` output that are about `unit`.
pub(crate) fn unit_warnings(output: &str, unit: &str) -> Vec<String> {
    output
        .lines()
        .filter(|l| l.contains(unit))
        .map(|l| l.trim().to_string())
        .collect()
}

fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

/// Starts `bin daemon --config config` on the CPU backend and free local
/// ports, waits (at most 120 s) for `GET /status` to answer 200, then
/// sends SIGTERM and expects exit 0 within 60 s.
fn daemon_smoke(bin: &Path, config: &Path, scratch: &Path) -> Result<()> {
    let (grpc, http) = (free_port()?, free_port()?);
    let log_path = scratch.join("daemon.log");
    let log = fs::File::create(&log_path).context("creating daemon.log")?;
    let mut child = Command::new(bin)
        .arg("daemon")
        .arg("--config")
        .arg(config)
        .args(["--backend", "cpu"])
        .arg("--listen")
        .arg(format!("127.0.0.1:{grpc}"))
        .arg("--metrics-listen")
        .arg(format!("127.0.0.1:{http}"))
        .env("CUZK_PARAM_CACHE", scratch.join("params"))
        .env("CUZK_R1CS_CACHE", scratch.join("r1cs"))
        .stdout(log.try_clone().context("daemon.log")?)
        .stderr(log)
        .spawn()
        .with_context(|| format!("starting {} daemon", bin.display()))?;
    let logs = || {
        let t = fs::read_to_string(&log_path).unwrap_or_default();
        let start = t.len().saturating_sub(3000);
        let start = (start..t.len())
            .find(|&i| t.is_char_boundary(i))
            .unwrap_or(t.len());
        t[start..].to_string()
    };
    let served = wait_for_status(&mut child, http, Duration::from_secs(120));
    if let Err(e) = served {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e.context(format!("daemon log:\n{}", logs())));
    }
    // std has no SIGTERM; kill(1) sends it (procps, on every systemd host).
    let pid = child.id().to_string();
    match Command::new("kill").args(["-TERM", &pid]).status() {
        Ok(s) if s.success() => {}
        Ok(s) => {
            let _ = child.kill();
            let _ = child.wait();
            bail!("`kill -TERM {pid}` failed ({s})");
        }
        Err(_) => {
            child.kill().context("stopping the daemon")?;
            let _ = child.wait();
            println!(
                "check: bin/cuzk daemon served /status on etc/cuzk.example.toml; SKIPPED its \
                 SIGTERM shutdown: no `kill` on PATH (stopped with SIGKILL)"
            );
            return Ok(());
        }
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().context("waiting for the daemon")? {
            if !status.success() {
                bail!(
                    "daemon exited with {status} after SIGTERM; log:\n{}",
                    logs()
                );
            }
            println!(
                "check: bin/cuzk daemon served /status on etc/cuzk.example.toml and exited 0 on SIGTERM"
            );
            return Ok(());
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("daemon still running 60 s after SIGTERM; log:\n{}", logs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(l.local_addr().context("finding a free port")?.port())
}

fn wait_for_status(child: &mut Child, port: u16, limit: Duration) -> Result<()> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().context("waiting for the daemon")? {
            bail!("daemon exited before serving /status ({status})");
        }
        if http_get_ok(port, "/status") {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("daemon did not answer GET /status within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Whether `GET path` on 127.0.0.1:port answers 200.
fn http_get_ok(port: u16, path: &str) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200")
}

/// A TOML example file split at its `[table]` headers: the text before the
/// first, then each header with its text up to the next one.
fn sections(text: &str) -> (String, Vec<(String, String)>) {
    let mut preamble = String::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') && !t.starts_with("[[") && t.ends_with(']') {
            out.push((t.to_string(), String::new()));
        }
        match out.last_mut() {
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {
                preamble.push_str(line);
                preamble.push('\n');
            }
        }
    }
    (preamble, out)
}

/// The daemon's configuration file: the engine's example with its
/// `[daemon]` section replaced by the daemon's example's (which lists the
/// engine's `[daemon]` keys too), under a header of its own.
pub(crate) fn combined_config(engine: &str, daemon: &str) -> Result<String> {
    let (_, daemon_sections) = sections(daemon);
    let daemon_section = daemon_sections
        .into_iter()
        .find(|(h, _)| h == "[daemon]")
        .map(|(_, body)| body)
        .context("daemon/cuzk-daemon.example.toml has no [daemon] section")?;
    let (_, engine_sections) = sections(engine);
    if engine_sections.is_empty() {
        bail!("scheduler/cuzk.example.toml has no [section]");
    }
    let mut out = String::from(
        "# cuzk daemon configuration (`cuzk daemon --config FILE`): every key,\n\
         # set to its default. Copy it (e.g. to /data/zk/cuzk.toml), change what\n\
         # you need and delete the rest: every key is optional. Unknown keys and\n\
         # bad values are errors that name the key; command-line flags override\n\
         # the file. Made by `cargo xtask dist` from scheduler/cuzk.example.toml\n\
         # (the engine) and daemon/cuzk-daemon.example.toml ([daemon]).\n\n",
    );
    out.push_str(daemon_section.trim_end());
    out.push_str("\n\n");
    for (h, body) in engine_sections {
        if h != "[daemon]" {
            out.push_str(body.trim_end());
            out.push_str("\n\n");
        }
    }
    Ok(out.trim_end().to_string() + "\n")
}

#[cfg(test)]
#[path = "dist_tests.rs"]
mod tests;
