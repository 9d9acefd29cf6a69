//! Reading files from outside with bounds: a file read whole is refused
//! when it is larger than a limit for its kind (checked against the
//! metadata first, and again while reading, since a pipe or a device such
//! as `/dev/zero` reports no length), and a path that must be a regular
//! file is checked to be one so the error names the real problem.

use crate::error::{Groth16Error, Result};
use std::io::Read;
use std::path::Path;

/// Largest `.vk` accepted: IC points for ~700 k public inputs, far more
/// than any Filecoin circuit has (PoRep 32 GiB: a few hundred).
pub const VK_LIMIT: u64 = 64 << 20;

/// Checks that `path` is a regular file (following symlinks).
pub fn check_regular_file(path: &Path) -> Result<std::fs::Metadata> {
    let m = std::fs::metadata(path).map_err(|source| Groth16Error::File {
        path: path.to_owned(),
        source,
    })?;
    if m.is_file() {
        return Ok(m);
    }
    Err(Groth16Error::NotAFile {
        path: path.to_owned(),
        kind: if m.is_dir() {
            "a directory"
        } else {
            "a device, pipe or socket"
        },
    })
}

/// Reads `path` whole, refusing more than `limit` bytes. Pipes and devices
/// are read too (bounded by the limit), so `--inputs /dev/stdin` works.
pub fn read_capped(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>> {
    let io = |source| Groth16Error::File {
        path: path.to_owned(),
        source,
    };
    let f = std::fs::File::open(path).map_err(io)?;
    let m = f.metadata().map_err(io)?;
    if m.is_dir() {
        return Err(Groth16Error::NotAFile {
            path: path.to_owned(),
            kind: "a directory",
        });
    }
    let too_large = || Groth16Error::TooLarge {
        path: path.to_owned(),
        what,
        limit,
    };
    if m.is_file() && m.len() > limit {
        return Err(too_large());
    }
    let mut out = Vec::with_capacity(if m.is_file() { m.len() as usize } else { 0 });
    f.take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(io)?;
    if out.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_regular_files_and_endless_devices() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![7u8; 100]).unwrap();
        assert_eq!(read_capped(&p, 100, "test").unwrap().len(), 100);
        assert!(matches!(
            read_capped(&p, 99, "test"),
            Err(Groth16Error::TooLarge { limit: 99, .. })
        ));
        // An endless device stops at the limit instead of filling memory.
        assert!(matches!(
            read_capped(Path::new("/dev/zero"), 1 << 16, "test"),
            Err(Groth16Error::TooLarge { .. })
        ));
        assert!(matches!(
            read_capped(dir.path(), 1 << 16, "test"),
            Err(Groth16Error::NotAFile { .. })
        ));
        assert!(matches!(
            check_regular_file(dir.path()),
            Err(Groth16Error::NotAFile {
                kind: "a directory",
                ..
            })
        ));
        assert!(check_regular_file(&p).is_ok());
    }
}
