//! Bounds on what one command accepts from outside, and the output-path
//! checks every writing command runs before its expensive work: a bad
//! flag fails in milliseconds with one line, not after minutes of proving
//! or by overwriting an input.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Most circuits `cuzk prove --count` proves in one run: every proof of a
/// run is kept (and written) together; longer streams are `cuzk bench`'s.
pub const MAX_COUNT: usize = 1024;
/// Most partitions (`-j` × `-p`) one `cuzk bench` run schedules.
pub const MAX_BENCH_PARTITIONS: usize = 1 << 20;
/// Largest proof file read (`--proof`): ~350 k proofs of 192 bytes.
pub const PROOF_FILE_LIMIT: u64 = 64 << 20;
/// Largest public-inputs file read (`--inputs`).
pub const INPUTS_FILE_LIMIT: u64 = 256 << 20;
/// Largest C1 output read (`--c1`): a 64 GiB sector's is well under
/// 100 MB; parsed JSON takes ~30× its size in memory, so this also bounds
/// the parse.
#[cfg(feature = "filecoin")]
pub const C1_FILE_LIMIT: u64 = 256 << 20;

/// Largest aggregation manifest read: 8192 sectors with inline 32 GiB
/// proofs are ~25 MB.
#[cfg(feature = "filecoin")]
pub const MANIFEST_FILE_LIMIT: u64 = 64 << 20;

/// Reads `path` whole, at most `limit` bytes (a clear error beyond).
pub fn read(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>> {
    Ok(cuzk_groth16::file::read_capped(path, limit, what)?)
}

/// Checks `-j`/`-p`-style counts before anything is allocated for them.
pub fn check_count(flag: &str, n: usize, max: usize) -> Result<()> {
    if n == 0 {
        bail!("{flag} must be at least 1");
    }
    if n > max {
        bail!("{flag} {n} is more than the {max} one run accepts");
    }
    Ok(())
}

/// The file a path will name once written: its parent resolved (which must
/// exist and be a directory) joined with its file name.
fn output_identity(flag: &str, path: &Path) -> Result<PathBuf> {
    if path.is_dir() {
        bail!("{flag} {} is a directory", path.display());
    }
    let name = path
        .file_name()
        .with_context(|| format!("{flag} {} does not name a file", path.display()))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        bail!(
            "{flag} {}: directory {} does not exist",
            path.display(),
            parent.display()
        );
    }
    let parent = parent
        .canonicalize()
        .with_context(|| format!("{flag} {}", path.display()))?;
    // An existing file may be a symlink to an input: resolve it too.
    Ok(path.canonicalize().unwrap_or_else(|_| parent.join(name)))
}

/// Refuses outputs that are directories, sit in missing directories, name
/// the same file as each other, or name one of the inputs (which writing
/// would overwrite). `outputs` and `inputs` are (flag, path) pairs.
pub fn check_outputs(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for &(flag, path) in outputs {
        let id = output_identity(flag, path)?;
        if let Some((other, _)) = seen.iter().find(|(_, p)| *p == id) {
            bail!("{other} and {flag} name the same file {}", path.display());
        }
        for &(iflag, ipath) in inputs {
            if ipath.canonicalize().is_ok_and(|i| i == id) {
                bail!(
                    "{flag} {} is the {iflag} input: writing it would overwrite the input",
                    path.display()
                );
            }
        }
        seen.push((flag, id));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_that_collide_or_cannot_be_written_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let params = d.join("x.params");
        std::fs::write(&params, b"p").unwrap();
        let out = d.join("x.proof");
        assert!(check_outputs(&[("--out", &out)], &[("--params", &params)]).is_ok());
        let e = check_outputs(&[("--out", &params)], &[("--params", &params)]).unwrap_err();
        assert!(e.to_string().contains("overwrite"), "{e}");
        // The same file spelled differently is still the same file.
        let again = d.join(".").join("x.params");
        assert!(check_outputs(&[("--out", &again)], &[("--params", &params)]).is_err());
        let e = check_outputs(&[("--out", &out), ("--inputs-out", &out)], &[]).unwrap_err();
        assert!(e.to_string().contains("same file"), "{e}");
        let e = check_outputs(&[("--out", d)], &[]).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let e = check_outputs(&[("--out", &d.join("missing/x.proof"))], &[]).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        #[cfg(unix)]
        {
            let link = d.join("link.proof");
            std::os::unix::fs::symlink(&params, &link).unwrap();
            assert!(check_outputs(&[("--out", &link)], &[("--params", &params)]).is_err());
        }
    }

    #[test]
    fn counts_are_bounded() {
        assert!(check_count("-j", 0, 10).is_err());
        assert!(check_count("-j", 10, 10).is_ok());
        assert!(check_count("-j", 11, 10).is_err());
        assert!(check_count("-j", usize::MAX, 10).is_err());
    }
}
