//! Where parameter files live, and the seeded test parameters of the
//! built-in circuits, made once per directory.
//!
//! One directory setting serves every command and the daemon
//! (`--param-cache`, `[srs] param_cache`); [`param_dir`] resolves it. When
//! it is unset, each kind of file keeps the default its tools already use
//! ([`ParamFiles`]): Filecoin's v28 files are where filecoin-proofs looks
//! for them, cuzk's own test parameters in the user's cache.
//!
//! [`ensure_test_params`] is the one rule for a cached test parameter file:
//! it is used when its section counts fit the circuit's shape (which also
//! proves it complete: [`Parameters::inspect`] checks the file's length
//! against its counts), else it is generated again and replaced.

use cuzk_groth16::{Groth16Error, Parameters};
use cuzk_synth::Shape;
use std::path::{Path, PathBuf};

/// filecoin-proofs' default parameter directory.
pub const FILECOIN_PARAM_DIR: &str = "/var/tmp/filecoin-proof-parameters";

/// Which files a parameter directory is resolved for: where they are when
/// neither the command line nor the configuration file says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamFiles {
    /// Seeded test parameters of the built-in circuits (`cuzk demo`,
    /// `cuzk bench`, the daemon's bench jobs): `$CUZK_PARAM_CACHE`, else
    /// `<user cache>/cuzk/params` (`~/.cache/cuzk/params` on Linux).
    Test,
    /// Filecoin's v28 `.params`/`.vk` files: `$FIL_PROOFS_PARAMETER_CACHE`,
    /// else [`FILECOIN_PARAM_DIR`], as filecoin-proofs itself resolves it.
    Filecoin,
}

/// The parameter directory: `flag` (the command line's `--param-cache`),
/// else `config` (`[srs] param_cache`), else the environment variable and
/// default of `files`. An empty environment variable counts as unset.
pub fn param_dir(flag: Option<&Path>, config: Option<&Path>, files: ParamFiles) -> PathBuf {
    if let Some(p) = flag.or(config) {
        return p.to_path_buf();
    }
    let env = match files {
        ParamFiles::Test => "CUZK_PARAM_CACHE",
        ParamFiles::Filecoin => "FIL_PROOFS_PARAMETER_CACHE",
    };
    if let Some(v) = std::env::var_os(env).filter(|v| !v.is_empty()) {
        return PathBuf::from(v);
    }
    match files {
        ParamFiles::Test => dirs::cache_dir()
            .unwrap_or_else(|| PathBuf::from("/var/tmp"))
            .join("cuzk")
            .join("params"),
        ParamFiles::Filecoin => PathBuf::from(FILECOIN_PARAM_DIR),
    }
}

/// The file of a built-in circuit's test parameters in `dir`:
/// `<name>-setup<seed>.params` (e.g. `bench-k16-setup0.params`), the name
/// `cuzk demo`, `cuzk bench` and the daemon share.
pub fn test_params_path(dir: &Path, name: &str, setup_seed: u64) -> PathBuf {
    dir.join(format!("{name}-setup{setup_seed}.params"))
}

/// What [`ensure_test_params`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestParams {
    /// The file was there and fits the circuit.
    Cached,
    /// The file was absent, and was generated.
    Generated,
    /// The file was there but did not fit (the reason), and was generated
    /// again.
    Replaced(String),
}

/// Why [`ensure_test_params`] has no file.
#[derive(Debug, thiserror::Error)]
pub enum TestParamsError {
    /// The directory could not be created.
    #[error("cannot create {path}: {source}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The generator failed.
    #[error("generating test parameters for {path}: {source}")]
    Generate {
        /// The file it was to write.
        path: PathBuf,
        /// The generator's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The generated parameters could not be written.
    #[error(transparent)]
    Save(#[from] Groth16Error),
}

/// Makes sure `path` holds test parameters for a circuit of `shape`: a file
/// whose counts fit (public inputs, L points = aux variables, H points =
/// domain − 1) is used; an absent, truncated or unfitting one is made by
/// `generate` (told why a present file was unfit) and written atomically,
/// so a concurrent reader never sees half a file.
pub fn ensure_test_params<E>(
    path: &Path,
    shape: &Shape,
    generate: impl FnOnce(Option<&str>) -> Result<Parameters, E>,
) -> Result<TestParams, TestParamsError>
where
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let unfit = if path.exists() {
        match unfit(path, shape) {
            None => return Ok(TestParams::Cached),
            Some(why) => Some(why),
        }
    } else {
        None
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| TestParamsError::Dir {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let params = generate(unfit.as_deref()).map_err(|e| TestParamsError::Generate {
        path: path.to_path_buf(),
        source: e.into(),
    })?;
    params.save(path)?;
    Ok(match unfit {
        None => TestParams::Generated,
        Some(why) => TestParams::Replaced(why),
    })
}

/// Why the file at `path` does not fit `shape`, or `None` when it does.
fn unfit(path: &Path, shape: &Shape) -> Option<String> {
    let info = match Parameters::inspect(path) {
        Ok(info) => info,
        Err(e) => return Some(e.to_string()),
    };
    let want_h = shape.domain_size() - 1;
    (info.ic != shape.num_inputs || info.h != want_h || info.l != shape.num_aux).then(|| {
        format!(
            "the file has {} inputs, {} H and {} L points; the circuit needs {}, {} and {}",
            info.ic, info.h, info.l, shape.num_inputs, want_h, shape.num_aux
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_groth16::ToxicWaste;
    use cuzk_synth::circuits::BenchCircuit;

    fn generate(log: u32) -> Result<Parameters, Groth16Error> {
        cuzk_groth16::generate_parameters(
            BenchCircuit::new(log, 0).unwrap(),
            &ToxicWaste::from_seed(0),
            None,
        )
    }

    #[test]
    fn made_once_then_cached_and_replaced_when_unfit() {
        let dir = tempfile::tempdir().unwrap();
        let path = test_params_path(&dir.path().join("sub"), "bench-k10", 0);
        assert!(path.ends_with("sub/bench-k10-setup0.params"));
        let shape = BenchCircuit::new(10, 0).unwrap().expected_shape();
        let made = ensure_test_params(&path, &shape, |why| {
            assert_eq!(why, None);
            generate(10)
        });
        assert_eq!(made.unwrap(), TestParams::Generated);
        let again = ensure_test_params(&path, &shape, |_| -> Result<_, Groth16Error> {
            panic!("a fitting file is not generated again")
        });
        assert_eq!(again.unwrap(), TestParams::Cached);

        // Another circuit's file under this name, then a truncated one.
        let other = BenchCircuit::new(11, 0).unwrap().expected_shape();
        let r = ensure_test_params(&path, &other, |why| {
            assert!(why.unwrap().contains("H"), "{why:?}");
            generate(11)
        });
        assert!(matches!(r.unwrap(), TestParams::Replaced(_)));
        let len = std::fs::metadata(&path).unwrap().len();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 1).unwrap();
        let r = ensure_test_params(&path, &other, |_| generate(11));
        assert!(matches!(r.unwrap(), TestParams::Replaced(_)));
        assert_eq!(
            ensure_test_params(&path, &other, |_| generate(11)).unwrap(),
            TestParams::Cached
        );

        // A generator's failure names the file.
        let bad = test_params_path(dir.path(), "x", 1);
        let e = ensure_test_params(&bad, &shape, |_| Err("no")).unwrap_err();
        assert!(e.to_string().contains("x-setup1.params"), "{e}");
    }

    #[test]
    fn dir_resolution() {
        let (f, c) = (Path::new("/flag"), Path::new("/config"));
        for files in [ParamFiles::Test, ParamFiles::Filecoin] {
            assert_eq!(param_dir(Some(f), Some(c), files), f);
            assert_eq!(param_dir(None, Some(c), files), c);
        }
    }
}
