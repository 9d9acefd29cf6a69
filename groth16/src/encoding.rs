//! Point encodings shared by `.params`, `.vk` and proofs (ZCash BLS12-381
//! format, as blst and bellperson write it), with parallel decoding.

use crate::error::{Groth16Error, Result};
use cuzk_field::{G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use rayon::prelude::*;

/// Bytes of an uncompressed G1 point.
pub const G1_UNCOMPRESSED: usize = 96;
/// Bytes of an uncompressed G2 point.
pub const G2_UNCOMPRESSED: usize = 192;
/// Bytes of a compressed G1 point.
pub const G1_COMPRESSED: usize = 48;
/// Bytes of a compressed G2 point.
pub const G2_COMPRESSED: usize = 96;

/// How much to check when decoding points from a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckMode {
    /// On-curve and subgroup checks on every point (slow: a subgroup check
    /// costs about a scalar multiplication). For files from untrusted sources.
    #[default]
    Full,
    /// Encoding checks only (flags, field elements in range), as
    /// filecoin-proofs does for its own cached parameters. A damaged file can
    /// then make a proof that fails to verify, which the prover's self-check
    /// catches: it is never returned.
    Trusted,
}

/// A cursor over a byte slice that reports truncation with context.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let available = self.bytes.len() - self.pos;
        if n > available {
            return Err(Groth16Error::Truncated {
                what,
                offset: self.pos,
                needed: n,
                available,
            });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub(crate) fn u32_be(&mut self, what: &'static str) -> Result<usize> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }
}

/// The flag bits of an uncompressed slot's first byte must have the
/// compression bit clear: blst's deserializer otherwise decompresses the
/// first half of the slot and ignores the rest, so one point would have
/// many encodings and a corrupted slot could still load.
fn uncompressed_flags_ok(first: u8) -> bool {
    first & 0x80 == 0
}

/// A point type with the ZCash encodings.
pub(crate) trait Encoded: Sized + Copy + Send + Sync + PrimeCurveAffine {
    const UNCOMPRESSED: usize;
    fn decode_uncompressed(bytes: &[u8], mode: CheckMode) -> Option<Self>;
    fn encode_uncompressed(&self, out: &mut Vec<u8>);
}

impl Encoded for G1Affine {
    const UNCOMPRESSED: usize = G1_UNCOMPRESSED;
    fn decode_uncompressed(bytes: &[u8], mode: CheckMode) -> Option<Self> {
        let arr: &[u8; G1_UNCOMPRESSED] = bytes.try_into().ok()?;
        if !uncompressed_flags_ok(arr[0]) {
            return None;
        }
        match mode {
            CheckMode::Full => Option::from(G1Affine::from_uncompressed(arr)),
            CheckMode::Trusted => Option::from(G1Affine::from_uncompressed_unchecked(arr)),
        }
    }
    fn encode_uncompressed(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_uncompressed());
    }
}

impl Encoded for G2Affine {
    const UNCOMPRESSED: usize = G2_UNCOMPRESSED;
    fn decode_uncompressed(bytes: &[u8], mode: CheckMode) -> Option<Self> {
        let arr: &[u8; G2_UNCOMPRESSED] = bytes.try_into().ok()?;
        if !uncompressed_flags_ok(arr[0]) {
            return None;
        }
        match mode {
            CheckMode::Full => Option::from(G2Affine::from_uncompressed(arr)),
            CheckMode::Trusted => Option::from(G2Affine::from_uncompressed_unchecked(arr)),
        }
    }
    fn encode_uncompressed(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_uncompressed());
    }
}

/// Decodes one point; the point at infinity is rejected like bellperson does
/// everywhere in `.params` and `.vk` (a valid key never contains one).
pub(crate) fn decode_point<P: Encoded>(
    bytes: &[u8],
    mode: CheckMode,
    what: &'static str,
    index: usize,
) -> Result<P> {
    let p = P::decode_uncompressed(bytes, mode).ok_or(Groth16Error::BadPoint {
        what,
        index,
        reason: match mode {
            CheckMode::Full => "not a valid point (encoding, curve or subgroup check failed)",
            CheckMode::Trusted => "not a valid point encoding",
        },
    })?;
    if bool::from(p.is_identity()) {
        return Err(Groth16Error::BadPoint {
            what,
            index,
            reason: "point at infinity",
        });
    }
    Ok(p)
}

/// Reads `u32 count ‖ count points`, decoding the points in parallel.
pub(crate) fn read_section<P: Encoded>(
    r: &mut Reader<'_>,
    mode: CheckMode,
    what: &'static str,
) -> Result<Vec<P>> {
    read_section_with(r, mode, what, &|_| {})
}

/// [`read_section`], calling `progress(bytes)` as each chunk of points is
/// decoded (from rayon workers, in no particular order).
pub(crate) fn read_section_with<P: Encoded>(
    r: &mut Reader<'_>,
    mode: CheckMode,
    what: &'static str,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<P>> {
    let n = r.u32_be(what)?;
    let bytes = r.take(
        n.checked_mul(P::UNCOMPRESSED)
            .ok_or(Groth16Error::Truncated {
                what,
                offset: r.pos,
                needed: usize::MAX,
                available: r.remaining(),
            })?,
        what,
    )?;
    // An indexed parallel map collects straight into the final vector
    // (a fallible or flattened one would gather per-thread pieces and copy
    // them again: tens of GB at 2^27). A bad point is remembered by index
    // (the lowest wins, as in a sequential read) and replaced by the
    // identity until the section is done.
    let first_bad = std::sync::atomic::AtomicUsize::new(usize::MAX);
    let points: Vec<P> = bytes
        .par_chunks_exact(P::UNCOMPRESSED)
        .enumerate()
        .map(|(i, b)| {
            if i % 1024 == 0 {
                progress(P::UNCOMPRESSED * 1024.min(n - i));
            }
            match decode_point::<P>(b, mode, what, i) {
                Ok(p) => p,
                Err(_) => {
                    first_bad.fetch_min(i, std::sync::atomic::Ordering::Relaxed);
                    P::identity()
                }
            }
        })
        .collect();
    match first_bad.into_inner() {
        usize::MAX => Ok(points),
        i => Err(decode_point::<P>(
            &bytes[i * P::UNCOMPRESSED..(i + 1) * P::UNCOMPRESSED],
            mode,
            what,
            i,
        )
        .err()
        .unwrap_or(Groth16Error::BadPoint {
            what,
            index: i,
            reason: "not a valid point encoding",
        })),
    }
}

/// Writes `u32 count ‖ points` (uncompressed), encoding 64 Ki points at a
/// time in parallel so a multi-GiB section streams without a full copy.
pub(crate) fn write_section<P: Encoded>(points: &[P], w: &mut impl std::io::Write) -> Result<()> {
    w.write_all(&(points.len() as u32).to_be_bytes())?;
    for chunk in points.chunks(1 << 16) {
        let parts: Vec<Vec<u8>> = chunk
            .par_chunks(1024)
            .map(|c| {
                let mut out = Vec::with_capacity(c.len() * P::UNCOMPRESSED);
                for p in c {
                    p.encode_uncompressed(&mut out);
                }
                out
            })
            .collect();
        for part in parts {
            w.write_all(&part)?;
        }
    }
    Ok(())
}
