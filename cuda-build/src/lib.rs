//! # cuzk-cuda-build
//!
//! The single place where cuzk decides how CUDA code is compiled. GPU crates
//! list it as a build-dependency and call it from `build.rs`:
//!
//! ```no_run
//! // build.rs of a GPU crate with a `cuda` feature
//! if cuzk_cuda_build::cuda_feature_enabled() {
//!     let cuda = cuzk_cuda_build::Cuda::detect_or_exit();
//!     cuda.compile("mykernels", &["cuda/kernels.cu"], &["cuda/include"]);
//! }
//! ```
//!
//! Main entry points:
//! - [`Cuda::detect`]: finds `nvcc` via `NVCC`, then `CUDA_HOME` / `CUDA_PATH`,
//!   then `PATH`, then the toolkit that `cargo xtask cuda` installs under
//!   [`default_toolkit_dir`]; emits `cargo:rerun-if-env-changed` for each.
//! - [`Cuda::compile`]: compiles `.cu` files with the shared flags into a static
//!   library and emits the link lines (our archive, `cudart_static`, `dl`,
//!   `rt`, `pthread`, `stdc++`), so binaries need only the NVIDIA driver.
//! - [`Cuda::detect_or_exit`]: for the `cuda` feature: a missing toolkit is a
//!   hard build error that tells the user to run `cargo xtask cuda`.
//! - [`host_cxx`]: a `cc::Build` for compiling the same `__host__ __device__`
//!   headers as plain host C++ (CPU tests need no nvcc).
//!
//! Flags (see [`Cuda::nvcc_flags`]): `-O3 -std=c++17 -lineinfo`, SASS for
//! each of [`RELEASE_ARCHS`] and PTX for the lowest of them, which the
//! driver JIT-compiles on anything newer; `-Werror all-warnings` when the
//! `CI` variable is set. `CUZK_CUDA_ARCHS=90` (comma list) narrows the
//! targets for faster local builds.
//!
//! Features: none; the calling crate decides (through its own `cuda`
//! feature) whether CUDA is wanted at all.
#![forbid(unsafe_code)]

use std::env;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The architectures a build compiles unless `CUZK_CUDA_ARCHS` narrows
/// them: the cards Filecoin providers prove on. sm_80 (A100), sm_86 (RTX
/// 30xx, A4000–A6000), sm_89 (RTX 40xx, L4/L40), sm_90 (H100/H200), sm_120
/// (RTX 50xx). PTX of the lowest covers newer cards by JIT.
pub const RELEASE_ARCHS: [u32; 5] = [80, 86, 89, 90, 120];

/// The CUDA release whose wheels `cargo xtask cuda` installs (nvcc 13.0.88).
pub const TOOLKIT_VERSION: &str = "13.0";

/// Environment variables consulted by [`Cuda::detect`], in priority order
/// (plus `PATH` and `XDG_CACHE_HOME`/`HOME` for the xtask cache).
pub const ENV_VARS: &[&str] = &[
    "NVCC",
    "CUDA_HOME",
    "CUDA_PATH",
    "PATH",
    "XDG_CACHE_HOME",
    "HOME",
    "CI",
    "CUZK_CUDA_ARCHS",
    "NVCC_CCBIN",
];

/// Why no usable CUDA toolkit was found or a compile failed.
#[derive(Debug)]
pub enum Error {
    /// No nvcc anywhere we looked; `searched` lists the places.
    NotFound { searched: Vec<String> },
    /// nvcc was found but `cudart_static` was not beside it.
    NoCudart {
        nvcc: PathBuf,
        searched: Vec<PathBuf>,
    },
    /// Running a tool failed.
    Tool { what: String, detail: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotFound { searched } => write!(
                f,
                "nvcc not found (looked at: {}); run `cargo xtask cuda` to install CUDA {} \
                 from PyPI wheels into {}, or set NVCC / CUDA_HOME",
                searched.join(", "),
                TOOLKIT_VERSION,
                default_toolkit_dir()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "~/.cache/cuzk".into()),
            ),
            Error::NoCudart { nvcc, searched } => write!(
                f,
                "found {} but no libcudart_static.a in {:?}; run `cargo xtask cuda`",
                nvcc.display(),
                searched
            ),
            Error::Tool { what, detail } => write!(f, "{what} failed: {detail}"),
        }
    }
}

impl std::error::Error for Error {}

/// Where `cargo xtask cuda` keeps the toolkit:
/// `$XDG_CACHE_HOME/cuzk/cuda-13.0`, else `$HOME/.cache/cuzk/cuda-13.0`.
/// That directory is laid out like a CUDA install (`bin/nvcc`, `include`, `lib64`).
pub fn default_toolkit_dir() -> Option<PathBuf> {
    let base = match env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(env::var_os("HOME").filter(|v| !v.is_empty())?).join(".cache"),
    };
    Some(base.join("cuzk").join(format!("cuda-{TOOLKIT_VERSION}")))
}

/// True when the crate whose build script is running has its `cuda` feature on.
pub fn cuda_feature_enabled() -> bool {
    env::var_os("CARGO_FEATURE_CUDA").is_some()
}

/// A located CUDA toolkit.
#[derive(Debug, Clone)]
pub struct Cuda {
    nvcc: PathBuf,
    lib_dir: PathBuf,
    include_dir: PathBuf,
    archs: Vec<u32>,
    werror: bool,
}

fn is_file(p: &Path) -> bool {
    p.is_file()
}

fn toolkit_root_of(nvcc: &Path) -> Option<PathBuf> {
    // nvcc lives in <root>/bin; resolve symlinks so the xtask layout (whose
    // bin/ is a link into the wheel tree) finds the wheel's lib directory.
    let real = nvcc.canonicalize().ok()?;
    Some(real.parent()?.parent()?.to_path_buf())
}

impl Cuda {
    /// Finds nvcc and cudart_static. Emits `cargo:rerun-if-env-changed` for
    /// every variable it reads (harmless outside build scripts).
    pub fn detect() -> Result<Cuda, Error> {
        for v in ENV_VARS {
            println!("cargo:rerun-if-env-changed={v}");
        }
        let mut searched = Vec::new();
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(n) = env::var_os("NVCC").filter(|v| !v.is_empty()) {
            candidates.push(PathBuf::from(n));
            searched.push("$NVCC".to_string());
        }
        for var in ["CUDA_HOME", "CUDA_PATH"] {
            if let Some(h) = env::var_os(var).filter(|v| !v.is_empty()) {
                candidates.push(PathBuf::from(h).join("bin").join("nvcc"));
                searched.push(format!("${var}/bin/nvcc"));
            }
        }
        if let Some(path) = env::var_os("PATH") {
            for dir in env::split_paths(&path) {
                candidates.push(dir.join("nvcc"));
            }
            searched.push("$PATH".to_string());
        }
        if let Some(d) = default_toolkit_dir() {
            searched.push(d.join("bin/nvcc").display().to_string());
            candidates.push(d.join("bin").join("nvcc"));
        }
        let nvcc = candidates
            .into_iter()
            .find(|c| is_file(c))
            .ok_or(Error::NotFound { searched })?;
        Self::from_nvcc(nvcc)
    }

    /// Like [`Cuda::detect`] but for build scripts of crates whose `cuda`
    /// feature is on: prints the error as a cargo error and exits, so the
    /// user sees "run `cargo xtask cuda`" rather than a backtrace.
    pub fn detect_or_exit() -> Cuda {
        match Cuda::detect() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: the `cuda` feature needs the CUDA toolkit: {e}");
                println!("cargo:warning=the `cuda` feature needs nvcc: run `cargo xtask cuda`");
                std::process::exit(1);
            }
        }
    }

    fn from_nvcc(nvcc: PathBuf) -> Result<Cuda, Error> {
        let root = toolkit_root_of(&nvcc).ok_or_else(|| Error::Tool {
            what: "resolving nvcc".into(),
            detail: nvcc.display().to_string(),
        })?;
        let lib_candidates = vec![
            root.join("lib64"),
            root.join("lib"),
            root.join("targets/x86_64-linux/lib"),
            root.join("targets/sbsa-linux/lib"),
        ];
        let lib_dir = lib_candidates
            .iter()
            .find(|d| d.join("libcudart_static.a").is_file())
            .cloned()
            .ok_or_else(|| Error::NoCudart {
                nvcc: nvcc.clone(),
                searched: lib_candidates.clone(),
            })?;
        let include_dir = [
            root.join("include"),
            root.join("targets/x86_64-linux/include"),
        ]
        .into_iter()
        .find(|d| d.join("cuda_runtime.h").is_file())
        .unwrap_or_else(|| root.join("include"));
        let archs = match env::var("CUZK_CUDA_ARCHS") {
            Ok(s) if !s.trim().is_empty() => s
                .split(',')
                .filter_map(|a| a.trim().trim_start_matches("sm_").parse().ok())
                .collect(),
            _ => RELEASE_ARCHS.to_vec(),
        };
        Ok(Cuda {
            nvcc,
            lib_dir,
            include_dir,
            archs,
            werror: env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0"),
        })
    }

    /// The same toolkit compiling for `archs` only (SASS for each, PTX for
    /// the lowest). For code that only the H200 runs, such as test kernels:
    /// each SASS target costs a full ptxas pass.
    pub fn with_archs(mut self, archs: &[u32]) -> Cuda {
        self.archs = archs.to_vec();
        self
    }

    /// Path of the nvcc binary.
    pub fn nvcc(&self) -> &Path {
        &self.nvcc
    }

    /// Directory holding `libcudart_static.a`.
    pub fn lib_dir(&self) -> &Path {
        &self.lib_dir
    }

    /// Directory holding `cuda_runtime.h`.
    pub fn include_dir(&self) -> &Path {
        &self.include_dir
    }

    /// The SASS architectures compiled (PTX for the lowest in addition).
    pub fn archs(&self) -> &[u32] {
        &self.archs
    }

    /// The flags every cuzk `.cu` file is compiled with.
    pub fn nvcc_flags(&self) -> Vec<OsString> {
        let mut f: Vec<OsString> = Vec::new();
        for a in &self.archs {
            f.push("-gencode".into());
            f.push(format!("arch=compute_{a},code=sm_{a}").into());
        }
        // PTX for forward compatibility: the driver JIT-compiles it on GPUs
        // newer than every SASS target above. The lowest target's, since PTX
        // runs only on its own architecture and later ones.
        let ptx = self.archs.iter().min().copied().unwrap_or(RELEASE_ARCHS[0]);
        f.push("-gencode".into());
        f.push(format!("arch=compute_{ptx},code=compute_{ptx}").into());
        for s in [
            "-O3",
            "-std=c++17",
            "-lineinfo",
            "-cudart",
            "static",
            "-Xcompiler",
            "-fPIC",
            "-Xcompiler",
            "-Wall",
            "--expt-relaxed-constexpr",
        ] {
            f.push(s.into());
        }
        if self.werror {
            for s in ["-Werror", "all-warnings", "-Xcompiler", "-Werror"] {
                f.push(s.into());
            }
        }
        if let Some(cc) = env::var_os("NVCC_CCBIN").filter(|v| !v.is_empty()) {
            f.push("-ccbin".into());
            f.push(cc);
        }
        f
    }

    /// Compiles `sources` (paths relative to the crate root) into
    /// `lib<name>.a` in `OUT_DIR` and emits the cargo link directives.
    /// Panics with a readable message on a compile error (build-script use).
    pub fn compile(&self, name: &str, sources: &[&str], include_dirs: &[&str]) {
        if let Err(e) = self.try_compile(name, sources, include_dirs) {
            panic!("CUDA build of {name} failed: {e}");
        }
    }

    /// [`Cuda::compile`] returning the error instead of panicking.
    pub fn try_compile(
        &self,
        name: &str,
        sources: &[&str],
        include_dirs: &[&str],
    ) -> Result<PathBuf, Error> {
        let out_dir = PathBuf::from(env::var_os("OUT_DIR").ok_or_else(|| Error::Tool {
            what: "compile".into(),
            detail: "OUT_DIR is not set (call from build.rs)".into(),
        })?);
        let manifest =
            PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| ".".into()));
        let obj_dir = out_dir.join(format!("{name}-objs"));
        std::fs::create_dir_all(&obj_dir).map_err(|e| Error::Tool {
            what: "mkdir".into(),
            detail: e.to_string(),
        })?;
        let mut objects = Vec::new();
        // One nvcc per source, run concurrently: each compiles 5 targets
        // and is single-threaded, so a few files overlap well.
        let mut children = Vec::new();
        for src in sources {
            let src_path = manifest.join(src);
            println!("cargo:rerun-if-changed={}", src_path.display());
            let stem = Path::new(src)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "src".into());
            let obj = obj_dir.join(format!("{stem}.o"));
            let mut cmd = Command::new(&self.nvcc);
            cmd.args(self.nvcc_flags());
            for inc in include_dirs {
                let p = manifest.join(inc);
                println!("cargo:rerun-if-changed={}", p.display());
                cmd.arg("-I").arg(p);
            }
            cmd.arg("-c").arg(&src_path).arg("-o").arg(&obj);
            let child = cmd.spawn().map_err(|e| Error::Tool {
                what: format!("spawning {}", self.nvcc.display()),
                detail: e.to_string(),
            })?;
            children.push((src.to_string(), child));
            objects.push(obj);
        }
        let mut failures = Vec::new();
        for (src, child) in children {
            let out = child.wait_with_output().map_err(|e| Error::Tool {
                what: format!("nvcc {src}"),
                detail: e.to_string(),
            })?;
            if !out.status.success() {
                failures.push(format!("{src}: {}", out.status));
            }
        }
        if !failures.is_empty() {
            return Err(Error::Tool {
                what: "nvcc".into(),
                detail: failures.join("; "),
            });
        }
        let lib = out_dir.join(format!("lib{name}.a"));
        let _ = std::fs::remove_file(&lib);
        let mut ar = cc::Build::new()
            .try_get_archiver()
            .map_err(|e| Error::Tool {
                what: "finding ar".into(),
                detail: e.to_string(),
            })?;
        ar.arg("crs").arg(&lib).args(&objects);
        run(&mut ar, "ar")?;
        println!("cargo:rustc-link-search=native={}", out_dir.display());
        println!("cargo:rustc-link-lib=static={name}");
        self.emit_cudart_link();
        Ok(lib)
    }

    /// Emits the link lines for the static CUDA runtime. `-bundle` keeps the
    /// archive out of our rlib so several GPU crates can each ask for it and
    /// the final link still sees one copy.
    /// Emitted once per build script however often it is called: rustc
    /// rejects the same library named twice with link modifiers.
    pub fn emit_cudart_link(&self) {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| self.emit_cudart_link_now());
    }

    fn emit_cudart_link_now(&self) {
        println!("cargo:rustc-link-search=native={}", self.lib_dir.display());
        println!("cargo:rustc-link-lib=static:-bundle=cudart_static");
        for l in ["dl", "rt", "pthread", "stdc++"] {
            println!("cargo:rustc-link-lib=dylib={l}");
        }
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<(), Error> {
    let st = cmd.status().map_err(|e| Error::Tool {
        what: what.into(),
        detail: e.to_string(),
    })?;
    if st.success() {
        Ok(())
    } else {
        Err(Error::Tool {
            what: what.into(),
            detail: st.to_string(),
        })
    }
}

/// A `cc::Build` that compiles the `__host__ __device__` CUDA headers as
/// plain C++17 with the host compiler, for CPU tests of device code.
/// The headers see `CUZK_HOST_ONLY` and no `__CUDACC__`, so they pick the
/// portable C++ twin of every PTX fast path.
pub fn host_cxx() -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .std("c++17")
        .opt_level(2)
        .define("CUZK_HOST_ONLY", None)
        .warnings(true)
        .extra_warnings(true);
    if env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0") {
        b.warnings_into_errors(true);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolkit_dir_follows_xdg_then_home() {
        // Read-only checks on the current environment: whichever variable is
        // set decides, and the suffix is fixed.
        let d = default_toolkit_dir().expect("HOME or XDG_CACHE_HOME is set in tests");
        assert!(d.ends_with(format!("cuzk/cuda-{TOOLKIT_VERSION}")));
    }

    #[test]
    fn not_found_error_tells_the_fix() {
        let e = Error::NotFound {
            searched: vec!["$PATH".into()],
        };
        let s = e.to_string();
        assert!(s.contains("cargo xtask cuda"), "{s}");
        assert!(s.contains("$PATH"), "{s}");
    }

    #[test]
    fn flags_have_sm90_sass_and_ptx() {
        let c = Cuda {
            nvcc: "/x/bin/nvcc".into(),
            lib_dir: "/x/lib".into(),
            include_dir: "/x/include".into(),
            archs: vec![90],
            werror: true,
        };
        let f: Vec<String> = c
            .nvcc_flags()
            .into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let joined = f.join(" ");
        assert!(joined.contains("arch=compute_90,code=sm_90"));
        assert!(joined.contains("arch=compute_90,code=compute_90"));
        assert!(joined.contains("-cudart static"));
        assert!(joined.contains("-Werror all-warnings"));
        assert!(joined.contains("-lineinfo"));
    }

    #[test]
    fn the_release_list_gets_sass_for_each_and_ptx_for_the_lowest() {
        let c = Cuda {
            nvcc: "/x/bin/nvcc".into(),
            lib_dir: "/x/lib".into(),
            include_dir: "/x/include".into(),
            archs: RELEASE_ARCHS.to_vec(),
            werror: false,
        }
        .with_archs(&[120, 86, 90]);
        let joined = c
            .nvcc_flags()
            .into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        for a in [86, 90, 120] {
            assert!(
                joined.contains(&format!("arch=compute_{a},code=sm_{a}")),
                "{joined}"
            );
        }
        assert_eq!(joined.matches("code=compute_").count(), 1, "{joined}");
        assert!(
            joined.contains("arch=compute_86,code=compute_86"),
            "{joined}"
        );
        assert!(!joined.contains("-Werror"), "{joined}");
    }
}
