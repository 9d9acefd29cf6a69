//! The CPU backend: blst's Pippenger tiles scheduled by rayon.
//!
//! One MSM is cut into tiles (a chunk of points × one window of scalar bits,
//! see `plan`), each computed by blst's `*_tile_pippenger` (XYZZ buckets,
//! signed digits, prefetching) on a rayon worker, then combined by doubling.
//! Running on rayon rather than blst's own thread pool lets the prover nest
//! MSMs inside its own parallel code without oversubscribing the cores, and
//! costs nothing: on the H200 host (16 cores) G1 2^16/2^18/2^20 took
//! 78/258/903 ms here vs 78/258/872 ms with blst's pool (criterion, same
//! inputs; within noise).
//! Bases are handed to blst in place (contiguous, or gathered through a list
//! of pointers for the sparse tail), never copied.

use blst::limb_t;
use cuzk_field::{Bitmap, Fr, Group};
use rayon::prelude::*;

use crate::classify::{self, for_each_selected, selected_count};
use crate::ffi::{self, Gather, Points, SCALAR_BYTES};
use crate::plan::{Plan, SMALL};
use crate::{MsmCurve, MsmError, Projective};

/// `msm_density` takes the split path (bitmap sum + tail MSM) when at least
/// this share (numerator / denominator) of the selected scalars is 0 or 1.
/// Below it the full MSM costs about the same (blst skips zero digits and a
/// one costs a single bucket addition) and avoids the gather. Measured with
/// `msm_sweep mix` (G1, H200 host, zeros:ones 3:1, rest random), split vs
/// full: 2^18 on 16 threads 10% trivial 280 vs 261 ms, 40% 198 vs 200,
/// 50% 164 vs 176, 70% 105 vs 128, 95% 27 vs 101; 2^16 on 2 threads 30%
/// 317 vs 303, 50% 242 vs 267, 95% 34 vs 62.
const SPLIT_MIN_TRIVIAL: (usize, usize) = (1, 2);

/// Bitmap words per parallel work item of `bitmap_sum` (16384 bits).
const SUM_WORDS: usize = 256;

/// Scalars per parallel work item of the byte conversion.
const CONVERT_CHUNK: usize = 4096;

/// Canonical little-endian bytes of each scalar (blst's input format), in
/// parallel. (`Fr` is stored in Montgomery form; this is one multiply each.)
fn scalar_bytes(scalars: &[Fr]) -> Vec<u8> {
    let mut out = vec![0u8; scalars.len() * SCALAR_BYTES];
    out.par_chunks_mut(SCALAR_BYTES * CONVERT_CHUNK)
        .zip(scalars.par_chunks(CONVERT_CHUNK))
        .for_each(|(o, s)| {
            for (o, s) in o.chunks_exact_mut(SCALAR_BYTES).zip(s) {
                o.copy_from_slice(&s.to_bytes_le());
            }
        });
    out
}

/// Bytes of the scalars selected by `density`, compacted to base order.
fn compact_bytes(scalars: &[Fr], density: &Bitmap, need: usize) -> Vec<u8> {
    let spans = classify::spans(scalars.len(), Some(density));
    let mut out = vec![0u8; need * SCALAR_BYTES];
    let mut pieces = Vec::with_capacity(spans.len());
    let mut rest = out.as_mut_slice();
    for (i, span) in spans.iter().enumerate() {
        let end = spans.get(i + 1).map_or(need, |next| next.base_start);
        let (head, tail) =
            std::mem::take(&mut rest).split_at_mut((end - span.base_start) * SCALAR_BYTES);
        pieces.push(head);
        rest = tail;
    }
    spans.par_iter().zip(pieces).for_each(|(span, piece)| {
        for_each_selected(scalars, Some(density), span, |base, s| {
            let o = (base - span.base_start) * SCALAR_BYTES;
            piece[o..o + SCALAR_BYTES].copy_from_slice(&s.to_bytes_le());
        });
    });
    out
}

/// Σ scalarᵢ·pointᵢ for each scalar set (32 canonical bytes per point each),
/// with the plan chosen for this machine.
pub(crate) fn pippenger<C: MsmCurve>(points: Points<'_, C>, sets: &[&[u8]]) -> Vec<Projective<C>> {
    let n = points.len();
    if n == 0 {
        return vec![Projective::<C>::identity(); sets.len()];
    }
    if n < SMALL {
        return sets.iter().map(|s| ffi::mult(points, s)).collect();
    }
    let max_window = Plan::max_window(C::bucket_limbs() * std::mem::size_of::<limb_t>());
    let plan = Plan::choose(n, rayon::current_num_threads(), max_window);
    run_plan(points, sets, plan)
}

/// Runs every tile of `plan` on rayon and combines the windows. Each tile
/// loops over all scalar sets, so a batch reuses the chunk's points while
/// they are in cache.
fn run_plan<C: MsmCurve>(points: Points<'_, C>, sets: &[&[u8]], plan: Plan) -> Vec<Projective<C>> {
    let n = points.len();
    let (nx, ny, w) = (plan.chunks, plan.windows(), plan.window);
    let scratch_len = C::bucket_limbs() << (w - 1);
    let tiles: Vec<Vec<Projective<C>>> = (0..nx * ny)
        .into_par_iter()
        .map_init(
            // blst leaves the buckets zeroed after each tile, so one
            // zeroed scratch serves every tile a worker runs.
            || vec![0 as limb_t; scratch_len],
            |scratch, t| {
                let (y, x) = (t / nx, t % nx);
                let (start, len) = plan.chunk(n, x);
                let pts = points.sub(start, len);
                let bytes = start * SCALAR_BYTES..(start + len) * SCALAR_BYTES;
                sets.iter()
                    .map(|s| ffi::tile(pts, &s[bytes.clone()], y * w, w, scratch))
                    .collect()
            },
        )
        .collect();
    (0..sets.len())
        .map(|k| {
            let mut acc = Projective::<C>::identity();
            for y in (0..ny).rev() {
                if y + 1 < ny {
                    for _ in 0..w {
                        acc = acc.double();
                    }
                }
                for x in 0..nx {
                    acc += tiles[y * nx + x][k];
                }
            }
            acc
        })
        .collect()
}

/// Σ `scalars[i]` · `bases[i]`. The lengths must match.
pub fn msm<C: MsmCurve>(bases: &[C], scalars: &[Fr]) -> Result<Projective<C>, MsmError> {
    if bases.len() != scalars.len() {
        return Err(MsmError::LengthMismatch {
            bases: bases.len(),
            scalars: scalars.len(),
        });
    }
    let bytes = scalar_bytes(scalars);
    Ok(pippenger(Points::Slice(bases), &[&bytes])[0])
}

/// One MSM per scalar vector, all against `bases` (each vector as long as
/// `bases`). Shares the tiling: every tile runs all vectors over its chunk
/// of points while they are hot in cache, and one parallel pass covers all.
pub fn msm_batch<C: MsmCurve, S: AsRef<[Fr]> + Sync>(
    bases: &[C],
    scalar_sets: &[S],
) -> Result<Vec<Projective<C>>, MsmError> {
    for s in scalar_sets {
        if s.as_ref().len() != bases.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: s.as_ref().len(),
            });
        }
    }
    let bytes: Vec<Vec<u8>> = scalar_sets
        .iter()
        .map(|s| scalar_bytes(s.as_ref()))
        .collect();
    let refs: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    Ok(pippenger(Points::Slice(bases), &refs))
}

/// Σ `scalars[k]` · `bases[indices[k]]`: an MSM over a gathered subset of the
/// bases (the sparse "tail"), without copying points. Indices may repeat and
/// need not be sorted (ascending runs fastest).
pub fn msm_gather<C: MsmCurve>(
    bases: &[C],
    indices: &[u32],
    scalars: &[Fr],
) -> Result<Projective<C>, MsmError> {
    if indices.len() != scalars.len() {
        return Err(MsmError::LengthMismatch {
            bases: indices.len(),
            scalars: scalars.len(),
        });
    }
    if let Some(&bad) = indices.par_iter().find_any(|&&i| i as usize >= bases.len()) {
        return Err(MsmError::IndexOutOfRange {
            index: bad.into(),
            bases: bases.len(),
        });
    }
    let gather = Gather::new(bases, indices.iter().map(|&i| i as usize), indices.len()).ok_or(
        MsmError::IndexOutOfRange {
            index: 0,
            bases: bases.len(),
        },
    )?;
    let bytes = scalar_bytes(scalars);
    Ok(pippenger(gather.points(), &[&bytes])[0])
}

/// Σ of `bases[j]` over the set bits `j` of `ones`, by batch-affine addition
/// (one shared inversion per ~1000 points, ≈ 6 multiplications per point)
/// in parallel chunks. `bases` may be longer than `ones`, not shorter.
pub fn bitmap_sum<C: MsmCurve>(bases: &[C], ones: &Bitmap) -> Result<Projective<C>, MsmError> {
    if ones.len() > bases.len() {
        return Err(MsmError::TooFewBases {
            have: bases.len(),
            need: ones.len(),
        });
    }
    let len = ones.len();
    let bases = &bases[..len];
    let sum = ones
        .as_words()
        .par_chunks(SUM_WORDS)
        .enumerate()
        .map(|(c, words)| {
            let first = c * SUM_WORDS * 64;
            let count = words.iter().map(|w| w.count_ones() as usize).sum();
            let indices = words.iter().enumerate().flat_map(|(k, &w)| {
                let at = first + 64 * k;
                SetBits(w).map(move |t| at + t)
            });
            // Bits at or past `len` are always clear in a Bitmap; filtering
            // them anyway keeps every gathered index in bounds.
            match Gather::new(bases, indices.filter(|&i| i < len), count) {
                Some(g) => ffi::sum(g.points()),
                None => Projective::<C>::identity(),
            }
        })
        .reduce(Projective::<C>::identity, |a, b| a + b);
    Ok(sum)
}

/// Positions of the set bits of one word, ascending.
struct SetBits(u64);

impl Iterator for SetBits {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let t = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(t)
    }
}

/// bellperson's density-filtered MSM: Σ over positions `i` whose `density`
/// bit is set of `scalars[i]` · `bases[rank(i)]`, where `rank(i)` counts the
/// set bits before `i`. `bases` holds only the selected bases, in order;
/// `None` means every position is selected.
///
/// `density` must have one bit per scalar. `bases` may be longer than the
/// number of selected positions (the extra bases are ignored, as bellperson
/// allows), but not shorter.
///
/// When most selected scalars are 0 or 1 (Filecoin's bit-heavy witnesses)
/// this runs the split path: zeros are skipped, ones are summed with
/// [`bitmap_sum`], and only the rest go through a [`msm_gather`] Pippenger
/// sized for them.
pub fn msm_density<C: MsmCurve>(
    bases: &[C],
    scalars: &[Fr],
    density: Option<&Bitmap>,
) -> Result<Projective<C>, MsmError> {
    let bases = selected_bases(bases, scalars, density)?;
    let need = bases.len();
    let trivial = classify::count_trivial(scalars, density);
    if trivial * SPLIT_MIN_TRIVIAL.1 < need * SPLIT_MIN_TRIVIAL.0 {
        return match density {
            None => msm(bases, scalars),
            Some(d) => {
                let bytes = compact_bytes(scalars, d, need);
                Ok(pippenger(Points::Slice(bases), &[&bytes])[0])
            }
        };
    }
    msm_split(bases, scalars, density)
}

/// The first `need` bases, where `need` is the number of positions the
/// density selects; an error when there are fewer bases than that.
fn selected_bases<'a, C>(
    bases: &'a [C],
    scalars: &[Fr],
    density: Option<&Bitmap>,
) -> Result<&'a [C], MsmError> {
    let need = selected_count(scalars, density)?;
    bases.get(..need).ok_or(MsmError::TooFewBases {
        have: bases.len(),
        need,
    })
}

/// The split path of [`msm_density`], unconditionally (`bases` already cut to
/// the selected count).
pub(crate) fn msm_split<C: MsmCurve>(
    bases: &[C],
    scalars: &[Fr],
    density: Option<&Bitmap>,
) -> Result<Projective<C>, MsmError> {
    let c = classify::classify(scalars, density)?;
    let (ones, tail) = rayon::join(
        || bitmap_sum(bases, &c.ones),
        || msm_gather(bases, &c.tail_indices, &c.tail_scalars),
    );
    Ok(ones? + tail?)
}

/// Knobs for benchmarks and tests; not a stable API.
#[doc(hidden)]
pub mod tuning {
    use super::*;

    /// [`msm`] with a forced window width and chunk count.
    pub fn msm_with_plan<C: MsmCurve>(
        bases: &[C],
        scalars: &[Fr],
        window: usize,
        chunks: usize,
    ) -> Projective<C> {
        assert_eq!(bases.len(), scalars.len());
        assert!(chunks >= 1 && bases.len() >= 2 * chunks);
        let bytes = scalar_bytes(scalars);
        let plan = Plan::new(window, chunks);
        run_plan(Points::Slice(bases), &[&bytes], plan)[0]
    }

    /// The window and chunk count [`msm`] picks for `n` points here.
    pub fn plan_for<C: MsmCurve>(n: usize) -> (usize, usize) {
        let max_window = Plan::max_window(C::bucket_limbs() * std::mem::size_of::<limb_t>());
        let p = Plan::choose(n, rayon::current_num_threads(), max_window);
        (p.window, p.chunks)
    }

    /// [`msm_density`]'s split path regardless of the scalar mix.
    pub fn msm_density_split<C: MsmCurve>(
        bases: &[C],
        scalars: &[Fr],
        density: Option<&Bitmap>,
    ) -> Result<Projective<C>, MsmError> {
        msm_split(selected_bases(bases, scalars, density)?, scalars, density)
    }

    /// [`msm_density`]'s full path regardless of the scalar mix.
    pub fn msm_density_full<C: MsmCurve>(
        bases: &[C],
        scalars: &[Fr],
        density: Option<&Bitmap>,
    ) -> Result<Projective<C>, MsmError> {
        let bases = selected_bases(bases, scalars, density)?;
        let bytes = match density {
            None => scalar_bytes(scalars),
            Some(d) => compact_bytes(scalars, d, bases.len()),
        };
        Ok(pippenger(Points::Slice(bases), &[&bytes])[0])
    }

    /// blst's own multi-threaded Pippenger (its thread pool, not rayon), on
    /// the same bases in place, for comparison.
    pub fn msm_blst_pool<C: MsmCurve>(bases: &[C], scalars: &[Fr]) -> Projective<C> {
        assert_eq!(bases.len(), scalars.len());
        if bases.is_empty() {
            return Projective::<C>::identity();
        }
        ffi::blst_pool_mult(bases, &scalar_bytes(scalars))
    }
}
