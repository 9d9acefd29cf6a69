//! Proving parameters in bellperson's `.params` format.
//!
//! Layout (all counts big-endian `u32`, points uncompressed):
//! verifying key ‖ H[n] ‖ L[n] ‖ A[n] ‖ B_G1[n] ‖ B_G2[n]. A and B hold only
//! the non-infinity points (inputs first, then aux in order), which line up
//! with the density bitmaps synthesis produces.

use crate::encoding::{
    read_section_with, write_section, CheckMode, Reader, G1_UNCOMPRESSED, G2_UNCOMPRESSED,
};
use crate::error::{Groth16Error, Result};
use crate::vk::VerifyingKey;
use cuzk_field::{G1Affine, G2Affine};
use std::path::Path;

/// Groth16 proving parameters (the SRS of one circuit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameters {
    /// The verifying key.
    pub vk: VerifyingKey,
    /// τⁱ·Z(τ)/δ for i in 0..m−1 (m = domain size).
    pub h: Vec<G1Affine>,
    /// (β·Aⱼ + α·Bⱼ + Cⱼ)(τ)/δ for each aux variable.
    pub l: Vec<G1Affine>,
    /// Aⱼ(τ) for every variable whose A column is non-zero (inputs, then aux).
    pub a: Vec<G1Affine>,
    /// Bⱼ(τ) in G1, same filtering.
    pub b_g1: Vec<G1Affine>,
    /// Bⱼ(τ) in G2, same filtering.
    pub b_g2: Vec<G2Affine>,
    /// Set when the five queries were dropped from host memory
    /// ([`Parameters::without_queries`]): their lengths, which the prover
    /// still checks every partition against.
    released: Option<QueryCounts>,
}

/// The lengths of the five queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryCounts {
    /// H points (domain − 1).
    pub h: usize,
    /// L points (aux variables).
    pub l: usize,
    /// A points.
    pub a: usize,
    /// B points in G1 (and in G2: the two are always equal).
    pub b: usize,
}

impl QueryCounts {
    /// Bytes of the five queries' points (affine, as the device holds them
    /// and as [`Parameters::host_bytes`] counts them): the one formula.
    pub fn point_bytes(&self) -> u64 {
        let g1 = std::mem::size_of::<G1Affine>() as u64;
        let g2 = std::mem::size_of::<G2Affine>() as u64;
        (self.h + self.l + self.a + self.b) as u64 * g1 + self.b as u64 * g2
    }

    /// Domain size the queries were made for (H has one point fewer).
    pub fn domain_size(&self) -> usize {
        self.h + 1
    }
}

/// Section sizes of a `.params` file, read from its header and counts only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamsInfo {
    /// Public inputs + 1 (ONE).
    pub ic: usize,
    /// H points (domain − 1).
    pub h: usize,
    /// L points (aux variables).
    pub l: usize,
    /// A points.
    pub a: usize,
    /// B points in G1.
    pub b_g1: usize,
    /// B points in G2.
    pub b_g2: usize,
    /// Total file size implied by the counts.
    pub bytes: usize,
}

impl ParamsInfo {
    /// Domain size the parameters were made for.
    pub fn domain_size(&self) -> usize {
        self.h + 1
    }
}

impl Parameters {
    /// Parameters from their verifying key and five queries.
    pub fn new(
        vk: VerifyingKey,
        h: Vec<G1Affine>,
        l: Vec<G1Affine>,
        a: Vec<G1Affine>,
        b_g1: Vec<G1Affine>,
        b_g2: Vec<G2Affine>,
    ) -> Self {
        Self {
            vk,
            h,
            l,
            a,
            b_g1,
            b_g2,
            released: None,
        }
    }

    /// The lengths of the five queries (also of released ones).
    pub fn counts(&self) -> QueryCounts {
        self.released.unwrap_or(QueryCounts {
            h: self.h.len(),
            l: self.l.len(),
            a: self.a.len(),
            b: self.b_g1.len(),
        })
    }

    /// False once the queries were dropped from host memory (the set lives
    /// on a device; only a backend holding it can prove with it).
    pub fn has_queries(&self) -> bool {
        self.released.is_none()
    }

    /// The verifying key and the queries' lengths, without the queries
    /// themselves: what the host keeps of a set that is resident on every
    /// device (a 32 GiB PoRep set is ~47 GB the host cannot spare beside
    /// its syntheses).
    pub fn without_queries(&self) -> Self {
        Self {
            vk: self.vk.clone(),
            h: Vec::new(),
            l: Vec::new(),
            a: Vec::new(),
            b_g1: Vec::new(),
            b_g2: Vec::new(),
            released: Some(self.counts()),
        }
    }

    /// Bytes of host memory the queries take (0 once released).
    pub fn host_bytes(&self) -> u64 {
        match self.released {
            Some(_) => 0,
            None => self.counts().point_bytes(),
        }
    }

    /// Decodes parameters from bytes (e.g. an mmap'd file), points in parallel.
    pub fn from_bytes(bytes: &[u8], mode: CheckMode) -> Result<Self> {
        Self::from_bytes_with_progress(bytes, mode, &|_| {})
    }

    /// [`Parameters::from_bytes`], calling `progress(n)` as each run of `n`
    /// bytes of H, L, A and B points is decoded (from rayon workers): the
    /// calls add up to the point bytes read, a little less than
    /// `bytes.len()` (the verifying key and the counts are not reported).
    pub fn from_bytes_with_progress(
        bytes: &[u8],
        mode: CheckMode,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let vk = VerifyingKey::read_from(&mut r, mode)?;
        let h = read_section_with::<G1Affine>(&mut r, mode, "H query", progress)?;
        let l = read_section_with::<G1Affine>(&mut r, mode, "L query", progress)?;
        let a = read_section_with::<G1Affine>(&mut r, mode, "A query", progress)?;
        let b_g1 = read_section_with::<G1Affine>(&mut r, mode, "B_G1 query", progress)?;
        let b_g2 = read_section_with::<G2Affine>(&mut r, mode, "B_G2 query", progress)?;
        if r.remaining() != 0 {
            return Err(Groth16Error::TrailingBytes {
                what: "parameters",
                extra: r.remaining(),
            });
        }
        let p = Self::new(vk, h, l, a, b_g1, b_g2);
        p.check_consistency()?;
        Ok(p)
    }

    /// Memory-maps and decodes a `.params` file.
    pub fn load(path: &Path, mode: CheckMode) -> Result<Self> {
        Self::load_with_progress(path, mode, &|_, _| {})
    }

    /// [`Parameters::load`] with `progress(done, total)` in bytes, called
    /// from rayon workers as chunks of points are decoded (`done` is the
    /// bytes of this call; their sum reaches `total` minus the verifying
    /// key's few KB). A 2^27-constraint file is ~75 GB: minutes from disk,
    /// so the CLI draws this as a bar.
    pub fn load_with_progress(
        path: &Path,
        mode: CheckMode,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Self> {
        let map = map_file(path)?;
        let total = map.len();
        let p = Self::from_bytes_with_progress(&map, mode, &|n| progress(n, total))
            .map_err(|e| with_path(e, path))?;
        check_unchanged(path, total as u64)?;
        Ok(p)
    }

    /// Reads only the section counts (fast: seeks over the points).
    pub fn inspect(path: &Path) -> Result<ParamsInfo> {
        let map = map_file(path)?;
        Self::inspect_bytes(&map).map_err(|e| with_path(e, path))
    }

    /// Section counts from bytes; checks that the file is exactly as long as
    /// the counts say.
    pub fn inspect_bytes(bytes: &[u8]) -> Result<ParamsInfo> {
        let mut r = Reader::new(bytes);
        r.take(3 * G1_UNCOMPRESSED + 3 * G2_UNCOMPRESSED, "verifying key")?;
        let mut counts = [0usize; 6];
        for (i, (what, size)) in [
            ("vk IC", G1_UNCOMPRESSED),
            ("H query", G1_UNCOMPRESSED),
            ("L query", G1_UNCOMPRESSED),
            ("A query", G1_UNCOMPRESSED),
            ("B_G1 query", G1_UNCOMPRESSED),
            ("B_G2 query", G2_UNCOMPRESSED),
        ]
        .into_iter()
        .enumerate()
        {
            counts[i] = r.u32_be(what)?;
            r.take(counts[i] * size, what)?;
        }
        if r.remaining() != 0 {
            return Err(Groth16Error::TrailingBytes {
                what: "parameters",
                extra: r.remaining(),
            });
        }
        Ok(ParamsInfo {
            ic: counts[0],
            h: counts[1],
            l: counts[2],
            a: counts[3],
            b_g1: counts[4],
            b_g2: counts[5],
            bytes: bytes.len(),
        })
    }

    fn check_consistency(&self) -> Result<()> {
        if self.b_g1.len() != self.b_g2.len() {
            return Err(Groth16Error::Mismatch(format!(
                "B_G1 has {} points but B_G2 has {}",
                self.b_g1.len(),
                self.b_g2.len()
            )));
        }
        if !(self.h.len() + 1).is_power_of_two() {
            return Err(Groth16Error::Mismatch(format!(
                "H has {} points; a domain size minus one is expected",
                self.h.len()
            )));
        }
        Ok(())
    }

    /// Writes the parameters in bellperson's format.
    pub fn write(&self, w: &mut impl std::io::Write) -> Result<()> {
        if !self.has_queries() {
            return Err(Groth16Error::Mismatch(
                "these parameters' queries were released from host memory".into(),
            ));
        }
        self.vk.write(w)?;
        write_section(&self.h, w)?;
        write_section(&self.l, w)?;
        write_section(&self.a, w)?;
        write_section(&self.b_g1, w)?;
        write_section(&self.b_g2, w)
    }

    /// Writes to `path` atomically (a temporary file renamed into place), so
    /// an interrupted write never leaves a truncated `.params` behind.
    pub fn save(&self, path: &Path) -> Result<()> {
        let tmp = unique_tmp(path);
        let io = |source| Groth16Error::File {
            path: tmp.clone(),
            source,
        };
        let f = std::fs::File::create(&tmp).map_err(io)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        let written = self
            .write(&mut w)
            .and_then(|()| w.into_inner().map_err(|e| io(e.into_error())))
            .and_then(|f| f.sync_all().map_err(io))
            .and_then(|()| {
                std::fs::rename(&tmp, path).map_err(|source| Groth16Error::File {
                    path: path.to_owned(),
                    source,
                })
            });
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// Number of public inputs (without ONE).
    pub fn num_public_inputs(&self) -> usize {
        self.vk.num_public_inputs()
    }

    /// Domain size m (H has m − 1 points).
    pub fn domain_size(&self) -> usize {
        self.counts().domain_size()
    }
}

/// Maps a `.params` file. A directory or a device is refused by name
/// (mapping one fails with a confusing "No such device"). The map is only
/// as stable as the file: truncating or rewriting it in place while it is
/// read makes the kernel raise SIGBUS on the missing pages, which no
/// safe code can catch; replacing it by rename (as `save` does) is safe.
/// A size change that did not hit a missing page is caught after the
/// decode ([`check_unchanged`]).
/// A temporary name beside `path` that no other writer uses at the same
/// time (process id, a per-process counter and the clock): two `setup`
/// runs to one output must not write into one temporary file, or the one
/// renamed last may hold the other's bytes.
pub fn unique_tmp(path: &Path) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".{}.{}.{nanos:x}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    path.with_file_name(name)
}

fn map_file(path: &Path) -> Result<memmap2::Mmap> {
    crate::file::check_regular_file(path)?;
    let f = std::fs::File::open(path).map_err(|source| Groth16Error::File {
        path: path.to_owned(),
        source,
    })?;
    crate::mmap::map_readonly(&f).map_err(|source| Groth16Error::File {
        path: path.to_owned(),
        source,
    })
}

/// Fails when `path` no longer has the size it had when it was mapped.
fn check_unchanged(path: &Path, before: u64) -> Result<()> {
    let after = std::fs::metadata(path)
        .map_err(|source| Groth16Error::File {
            path: path.to_owned(),
            source,
        })?
        .len();
    if after != before {
        return Err(Groth16Error::Changed {
            path: path.to_owned(),
            before,
            after,
        });
    }
    Ok(())
}

pub(crate) fn with_path(e: Groth16Error, path: &Path) -> Groth16Error {
    match e {
        Groth16Error::File { .. } | Groth16Error::InFile { .. } => e,
        other => Groth16Error::InFile {
            path: path.to_owned(),
            source: Box::new(other),
        },
    }
}
