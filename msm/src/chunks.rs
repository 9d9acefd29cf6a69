//! Streaming a base set through a device too small to hold it: every MSM
//! against the set is split by base chunk, so one pass over the chunks
//! (each uploaded once, the next one's upload overlapping this one's
//! kernels) serves every MSM of a partition, and the partial sums add up
//! to the whole MSM (addition is associative, so the split changes no
//! result).
//!
//! This module is the plan: which part of each MSM falls in which chunk,
//! in chunk-local coordinates. It is plain host code, tested against the
//! CPU MSM in CI; `gpu::StreamedBases` runs it on the device, and
//! [`run_host`] runs it through the host twin of the GPU pipeline.

use std::ops::Range;

use cuzk_field::{Bitmap, Fr};

use crate::MsmError;

/// One MSM against a streamed base set.
#[derive(Clone, Copy, Debug)]
pub enum StreamOp<'a> {
    /// Σ `scalars[k]` · `bases[start + k]`.
    Dense {
        /// First base.
        start: usize,
        /// One scalar per base from `start`.
        scalars: &'a [Fr],
    },
    /// Σ `scalars[k]` · `bases[start + k]` over `len` scalars that live
    /// on the device (the H MSM's coefficients, straight from the H step):
    /// the executor is given them beside the ops.
    DenseDevice {
        /// First base.
        start: usize,
        /// Scalars.
        len: usize,
    },
    /// Σ `bases[start + j]` over the set bits `j` of `ones`.
    Bitmap {
        /// First base.
        start: usize,
        /// One bit per base from `start`.
        ones: &'a Bitmap,
    },
    /// Σ `scalars[k]` · `bases[start + indices[k]]` (any order, repeats
    /// allowed).
    Gather {
        /// First base.
        start: usize,
        /// Base indices relative to `start`.
        indices: &'a [u32],
        /// One scalar per index.
        scalars: &'a [Fr],
    },
}

/// The share of one [`StreamOp`] in one chunk, in chunk-local base
/// indices (base `chunk_start + i` is local `i`).
#[derive(Clone, Debug, PartialEq)]
pub enum ChunkPart {
    /// Σ `op scalars[scalars]` · local bases from `local_start`.
    Dense {
        /// First local base.
        local_start: usize,
        /// The range of the op's scalars.
        scalars: Range<usize>,
    },
    /// Σ local bases `local_start + j` over the set bits `j` of `ones`.
    Bitmap {
        /// First local base.
        local_start: usize,
        /// The bits of the op's bitmap that fall in this chunk.
        ones: Bitmap,
    },
    /// Σ `scalars[e]` · local base `indices[e]` − `shift` (mod 2^32) over
    /// the entries `e` of a run of the op's gather ([`Plan::gather`] gives
    /// the run's indices and scalars): the part borrows them, so a plan
    /// copies nothing. (Copied per chunk, the 127 M tails of a 32 GiB
    /// WindowPoSt partition's L MSM cost 0.9–1.1 s a pass on a 16-core
    /// host, the device idle.)
    Gather {
        /// The run: positions in the op's (ascending) indices and scalars.
        entries: Range<usize>,
        /// `chunk start − op start`, mod 2^32: an index minus it is local.
        shift: u32,
    },
}

/// A plan: for each chunk that any op touches, the op parts in it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Bases per chunk (the last chunk may be shorter).
    pub chunk: usize,
    /// Bases in the set.
    pub n: usize,
    /// `(chunk index, op index, part)`, chunks ascending.
    pub parts: Vec<(usize, usize, ChunkPart)>,
    /// `(op index, its sorted copy)`: the gathers whose indices were not
    /// ascending, sorted by index (stably) for the plan to cut into runs.
    pub sorted: Vec<(usize, SortedCopy)>,
}

/// A gather's indices and scalars, sorted by index.
pub type SortedCopy = (Vec<u32>, Vec<Fr>);

impl Plan {
    /// The base range of chunk `k`.
    pub fn range(&self, k: usize) -> Range<usize> {
        let lo = k * self.chunk;
        lo..(lo + self.chunk).min(self.n)
    }

    /// The chunks that have work, ascending, each once.
    pub fn chunks(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.parts.iter().map(|p| p.0).collect();
        v.dedup();
        v
    }

    /// The indices (relative to the op's start, not yet local: subtract
    /// the shift) and scalars of gather part `p` of this plan of `ops`.
    pub fn gather<'s>(&'s self, ops: &'s [StreamOp<'s>], p: usize) -> Option<GatherRun<'s>> {
        let (_, o, ChunkPart::Gather { entries, shift }) = self.parts.get(p)? else {
            return None;
        };
        let (indices, scalars) = match self.sorted.iter().find(|s| s.0 == *o) {
            Some((_, (i, s))) => (&i[..], &s[..]),
            None => match ops.get(*o)? {
                StreamOp::Gather {
                    indices, scalars, ..
                } => (*indices, *scalars),
                _ => return None,
            },
        };
        Some(GatherRun {
            indices: indices.get(entries.clone())?,
            scalars: scalars.get(entries.clone())?,
            shift: *shift,
        })
    }

    /// Bases uploaded by one pass: the sizes of the chunks with work.
    pub fn bases_streamed(&self) -> usize {
        self.chunks().iter().map(|&k| self.range(k).len()).sum()
    }
}

/// A gather part's inputs, borrowed from its op ([`Plan::gather`]).
#[derive(Clone, Copy, Debug)]
pub struct GatherRun<'a> {
    /// Base indices relative to the op's start.
    pub indices: &'a [u32],
    /// One scalar per index.
    pub scalars: &'a [Fr],
    /// Subtracted (mod 2^32) from an index, it gives the chunk-local base.
    pub shift: u32,
}

impl GatherRun<'_> {
    /// The run's chunk-local indices, copied and shifted by the host twin
    /// of the device's step (for [`run_host`] and tests; a device pass
    /// shifts them in device memory after their upload).
    pub fn local(&self) -> Result<Vec<u32>, MsmError> {
        let mut idx = self.indices.to_vec();
        crate::gpu::host::index_sub(&mut idx, self.shift)?;
        Ok(idx)
    }
}

/// Where one part's host inputs (scalars, gather indices, bitmap words)
/// go in its chunk's input slot on the device, in elements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputOffsets {
    /// First scalar in the slot's scalar buffer.
    pub fr: usize,
    /// First index in the slot's index buffer.
    pub idx: usize,
    /// First word in the slot's bitmap words.
    pub words: usize,
}

impl Plan {
    /// Each part's [`InputOffsets`] in its chunk's input slot (parts in
    /// plan order, packed one after another per chunk), and the largest
    /// chunk's totals: what one slot must hold. A chunk's inputs are at
    /// most one scalar and one index per base of the chunk plus a bitmap
    /// word per 64 bases and op ([`crate::gpu::stream_input_bytes`]).
    pub fn input_layout(&self, ops: &[StreamOp<'_>]) -> (Vec<InputOffsets>, InputOffsets) {
        let mut at = Vec::with_capacity(self.parts.len());
        let (mut cur, mut max, mut chunk) =
            (InputOffsets::default(), InputOffsets::default(), None);
        for (k, o, part) in &self.parts {
            if chunk != Some(*k) {
                chunk = Some(*k);
                cur = InputOffsets::default();
            }
            at.push(cur);
            match (part, ops.get(*o)) {
                (ChunkPart::Dense { scalars, .. }, Some(StreamOp::Dense { .. })) => {
                    cur.fr += scalars.len()
                }
                (ChunkPart::Bitmap { ones, .. }, _) => cur.words += ones.as_words().len(),
                (ChunkPart::Gather { entries, .. }, _) => {
                    cur.fr += entries.len();
                    cur.idx += entries.len();
                }
                _ => {}
            }
            max.fr = max.fr.max(cur.fr);
            max.idx = max.idx.max(cur.idx);
            max.words = max.words.max(cur.words);
        }
        (at, max)
    }
}

/// Splits `ops` against a set of `n` bases streamed in chunks of `chunk`
/// bases. Refuses ops that reach past the set.
pub fn plan(ops: &[StreamOp<'_>], n: usize, chunk: usize) -> Result<Plan, MsmError> {
    if chunk == 0 {
        return Err(MsmError::TooFewBases { have: 0, need: 1 });
    }
    let mut parts: Vec<(usize, usize, ChunkPart)> = Vec::new();
    let mut sorted = Vec::new();
    for (o, op) in ops.iter().enumerate() {
        match *op {
            StreamOp::Dense { start, .. } | StreamOp::DenseDevice { start, .. } => {
                let len = match *op {
                    StreamOp::Dense { scalars, .. } => scalars.len(),
                    StreamOp::DenseDevice { len, .. } => len,
                    _ => 0,
                };
                let end = check_end(start, len, n)?;
                for k in chunks_of(start..end, chunk) {
                    let (lo, hi) = (k * chunk, ((k + 1) * chunk).min(n));
                    let (a, b) = (start.max(lo), end.min(hi));
                    parts.push((
                        k,
                        o,
                        ChunkPart::Dense {
                            local_start: a - lo,
                            scalars: a - start..b - start,
                        },
                    ));
                }
            }
            StreamOp::Bitmap { start, ones } => {
                let end = check_end(start, ones.len(), n)?;
                for k in chunks_of(start..end, chunk) {
                    let (lo, hi) = (k * chunk, ((k + 1) * chunk).min(n));
                    let (a, b) = (start.max(lo), end.min(hi));
                    let bits = slice_bits(ones, a - start..b - start);
                    if bits.count_ones() > 0 {
                        parts.push((
                            k,
                            o,
                            ChunkPart::Bitmap {
                                local_start: a - lo,
                                ones: bits,
                            },
                        ));
                    }
                }
            }
            StreamOp::Gather {
                start,
                indices,
                scalars,
            } => {
                if indices.len() != scalars.len() {
                    return Err(MsmError::LengthMismatch {
                        bases: indices.len(),
                        scalars: scalars.len(),
                    });
                }
                let (shares, copy) = gather_parts(start, indices, scalars, n, chunk)?;
                parts.extend(shares.into_iter().map(|(k, part)| (k, o, part)));
                if let Some(copy) = copy {
                    sorted.push((o, copy));
                }
            }
        }
    }
    // Stable: within a chunk the parts keep the ops' order.
    parts.sort_by_key(|p| p.0);
    Ok(Plan {
        chunk,
        n,
        parts,
        sorted,
    })
}

/// Base `start + i` of a set of `n`, or the error naming `i`.
fn global_index(start: usize, i: u32, n: usize) -> Result<usize, MsmError> {
    start
        .checked_add(i as usize)
        .filter(|&g| g < n)
        .ok_or(MsmError::IndexOutOfRange {
            index: i.into(),
            bases: n.saturating_sub(start),
        })
}

/// A gather's part in one chunk: `(chunk index, part)`.
type Share = (usize, ChunkPart);

/// A gather's share of each chunk it touches: one run of entries per
/// chunk, found by binary search in ascending indices (the zero/one/tail
/// split's tails: every gather of a proof). Other orders are sorted by
/// index first (stably: repeats keep their order), and the sorted copy is
/// returned beside the shares. An index out of range fails with the first
/// one in the op's order.
fn gather_parts(
    start: usize,
    indices: &[u32],
    scalars: &[Fr],
    n: usize,
    chunk: usize,
) -> Result<(Vec<Share>, Option<SortedCopy>), MsmError> {
    use rayon::prelude::*;
    // In ascending indices the first out of range is found by binary
    // search; only other orders need a pass over every index.
    let ascending = indices.par_windows(2).all(|w| w[0] <= w[1]);
    let bad = if ascending {
        let first_bad = indices.partition_point(|&i| global_index(start, i, n).is_ok());
        indices.get(first_bad).map(|&i| global_index(start, i, n))
    } else {
        indices
            .par_iter()
            .map(|&i| global_index(start, i, n))
            .find_first(|g| g.is_err())
    };
    if let Some(Err(e)) = bad {
        return Err(e);
    }
    let copy = if ascending {
        None
    } else {
        let mut pairs: Vec<(u32, Fr)> = indices
            .iter()
            .copied()
            .zip(scalars.iter().copied())
            .collect();
        pairs.par_sort_by_key(|p| p.0);
        Some(pairs.into_iter().unzip::<u32, Fr, Vec<u32>, Vec<Fr>>())
    };
    let indices = copy.as_ref().map_or(indices, |c| &c.0[..]);
    let (Some(&first), Some(&last)) = (indices.first(), indices.last()) else {
        return Ok((Vec::new(), copy));
    };
    // The run of chunk k: op positions whose base is in [k·chunk, (k+1)·chunk).
    let cut = |k: usize| {
        let rel = (k * chunk).saturating_sub(start);
        indices.partition_point(|&i| (i as usize) < rel)
    };
    let (lo, hi) = (start + first as usize, start + last as usize);
    let shares = (lo / chunk..hi / chunk + 1)
        .filter_map(|k| {
            let entries = cut(k)..cut(k + 1);
            // Local = start + index − k·chunk, in [0, chunk): exact mod 2^32
            // (indices are u32, so k·chunk − start < 2^32 where a run exists).
            let shift = (k * chunk).wrapping_sub(start) as u32;
            (!entries.is_empty()).then_some((k, ChunkPart::Gather { entries, shift }))
        })
        .collect();
    Ok((shares, copy))
}

fn check_end(start: usize, len: usize, n: usize) -> Result<usize, MsmError> {
    start
        .checked_add(len)
        .filter(|&e| e <= n)
        .ok_or(MsmError::TooFewBases {
            have: n.saturating_sub(start),
            need: len,
        })
}

/// The chunks that `range` (non-empty or not) overlaps.
fn chunks_of(range: Range<usize>, chunk: usize) -> Range<usize> {
    if range.is_empty() {
        return 0..0;
    }
    range.start / chunk..(range.end - 1) / chunk + 1
}

/// Bits `range` of `b` as a bitmap of their own.
fn slice_bits(b: &Bitmap, range: Range<usize>) -> Bitmap {
    let (words, len) = (b.as_words(), range.len());
    let (w0, shift) = (range.start / 64, range.start % 64);
    let out: Vec<u64> = (0..len.div_ceil(64))
        .map(|i| {
            let lo = words.get(w0 + i).copied().unwrap_or(0) >> shift;
            let hi = match shift {
                0 => 0,
                s => words.get(w0 + i + 1).copied().unwrap_or(0) << (64 - s),
            };
            lo | hi
        })
        .collect();
    // `from_words` clears the bits past `len`.
    Bitmap::from_words(out, len).expect("as many words as the length needs")
}

/// Runs `plan` through the host twin of the GPU pipeline as the device
/// pass does: one chunk of `bases` at a time (the chunk as its own slice,
/// as the device sees it), every MSM part into one bucket accumulator at
/// `window` reduced once at the end, every bitmap part summed on its own.
/// Returns the sum of every op. For tests: single-threaded and slow.
pub fn run_host<C: crate::gpu::GpuPoint>(
    bases: &[C],
    ops: &[StreamOp<'_>],
    plan: &Plan,
    window: u32,
) -> Result<crate::Projective<C>, MsmError> {
    use group::Group;
    let mut buckets = crate::gpu::host::Buckets::<C>::new(window)?;
    let mut sum = crate::Projective::<C>::identity();
    for (p, (k, o, part)) in plan.parts.iter().enumerate() {
        let chunk = &bases[plan.range(*k)];
        match (part, &ops[*o]) {
            (
                ChunkPart::Dense {
                    local_start,
                    scalars,
                },
                StreamOp::Dense { scalars: all, .. },
            ) => {
                let sc = &all[scalars.clone()];
                buckets.add(&chunk[*local_start..*local_start + sc.len()], None, sc)?;
            }
            (ChunkPart::Bitmap { local_start, ones }, _) => {
                sum += crate::gpu::host::bitmap_sum(&chunk[*local_start..], ones)?;
            }
            (ChunkPart::Gather { .. }, _) => {
                let run = plan
                    .gather(ops, p)
                    .ok_or(MsmError::TooFewBases { have: 0, need: 1 })?;
                buckets.add(chunk, Some(&run.local()?), run.scalars)?;
            }
            // Device scalars (or a dense part of another op: impossible by
            // construction of the plan) have no host twin.
            _ => return Err(MsmError::TooFewBases { have: 0, need: 1 }),
        }
    }
    Ok(sum + buckets.sum()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_slice_across_word_boundaries() {
        let b = Bitmap::from_bools((0..300).map(|i| i % 7 == 0 || i % 11 == 3));
        for r in [0..300, 5..70, 64..128, 63..65, 130..131, 299..300, 10..10] {
            let s = slice_bits(&b, r.clone());
            assert_eq!(s.len(), r.len());
            let want: Vec<bool> = r.clone().map(|i| b.get(i)).collect();
            assert_eq!(s.iter().collect::<Vec<_>>(), want, "{r:?}");
            assert_eq!(s.count_ones(), want.iter().filter(|&&x| x).count());
        }
    }

    #[test]
    fn plans_cover_each_op_exactly_once() {
        let n = 1000;
        let sc: Vec<Fr> = (0..400u64).map(Fr::from).collect();
        let ones = Bitmap::from_bools((0..600).map(|i| i % 3 == 0));
        let idx: Vec<u32> = vec![999 - 100, 0, 250, 250, 510, 1];
        let isc: Vec<Fr> = (1..=6u64).map(Fr::from).collect();
        let ops = [
            StreamOp::Dense {
                start: 90,
                scalars: &sc,
            },
            StreamOp::Bitmap {
                start: 100,
                ones: &ones,
            },
            StreamOp::Gather {
                start: 100,
                indices: &idx,
                scalars: &isc,
            },
        ];
        let p = plan(&ops, n, 128).unwrap();
        // Dense: 400 scalars from 90 touch chunks 0..=3.
        let dense: Vec<_> = p.parts.iter().filter(|x| x.1 == 0).collect();
        assert_eq!(dense.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
        let covered: usize = dense
            .iter()
            .map(|x| match &x.2 {
                ChunkPart::Dense { scalars, .. } => scalars.len(),
                _ => 0,
            })
            .sum();
        assert_eq!(covered, 400);
        // Bits: as many ones over the chunks as in the op.
        let bits: usize = p
            .parts
            .iter()
            .filter_map(|x| match &x.2 {
                ChunkPart::Bitmap { ones, .. } => Some(ones.count_ones()),
                _ => None,
            })
            .sum();
        assert_eq!(bits, ones.count_ones());
        // Gather: every entry once, repeats kept.
        let g: usize = p
            .parts
            .iter()
            .filter_map(|x| match &x.2 {
                ChunkPart::Gather { entries, .. } => Some(entries.len()),
                _ => None,
            })
            .sum();
        assert_eq!(g, idx.len());
        // The unsorted gather's sorted copy is the plan's own.
        assert_eq!(p.sorted.len(), 1);
        assert_eq!(p.sorted[0].0, 2);
        assert!(p.parts.windows(2).all(|w| w[0].0 <= w[1].0));
        // Bits 100..700 reach chunk 5; index 899 from 100 is base 999, chunk 7.
        assert_eq!(p.chunks(), [0, 1, 2, 3, 4, 5, 7]);
        // Out of range ops are refused.
        let bad = [StreamOp::Dense {
            start: 700,
            scalars: &sc,
        }];
        assert!(plan(&bad, n, 128).is_err());
        let far = [700u32];
        let one = [Fr::from(1u64)];
        let bad = [StreamOp::Gather {
            start: 300,
            indices: &far,
            scalars: &one,
        }];
        assert!(matches!(
            plan(&bad, n, 128),
            Err(MsmError::IndexOutOfRange { .. })
        ));
    }

    /// A chunk's gathered entries: (chunk, local indices, scalars).
    type Shares = Vec<(usize, Vec<u32>, Vec<Fr>)>;

    /// What a gather's plan must hold, the plain way: each entry in its
    /// chunk at its local index, in index order within the chunk (ties in
    /// the op's order), or the first index out of range in the op's order.
    fn gather_oracle(
        start: usize,
        idx: &[u32],
        sc: &[Fr],
        n: usize,
        chunk: usize,
    ) -> Result<Shares, MsmError> {
        let mut per: Vec<Vec<(u32, Fr)>> = vec![Vec::new(); n.div_ceil(chunk)];
        for (&i, s) in idx.iter().zip(sc) {
            let g = global_index(start, i, n)?;
            per[g / chunk].push(((g % chunk) as u32, *s));
        }
        Ok(per
            .into_iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, mut v)| {
                v.sort_by_key(|e| e.0);
                let (indices, scalars) = v.into_iter().unzip();
                (k, indices, scalars)
            })
            .collect())
    }

    /// The plan's gather shares of its only op, as the device gets them.
    fn plan_shares(
        start: usize,
        idx: &[u32],
        sc: &[Fr],
        n: usize,
        chunk: usize,
    ) -> Result<Shares, MsmError> {
        let ops = [StreamOp::Gather {
            start,
            indices: idx,
            scalars: sc,
        }];
        let p = plan(&ops, n, chunk)?;
        Ok((0..p.parts.len())
            .map(|i| {
                let run = p.gather(&ops, i).expect("every part a gather");
                (p.parts[i].0, run.local().unwrap(), run.scalars.to_vec())
            })
            .collect())
    }

    proptest::proptest! {
        /// Ascending (the binary-search cut) or not (sorted first), with
        /// repeats: the plain grouping's shares, errors included.
        #[test]
        fn gathers_split_into_their_chunks(
            mut idx in proptest::collection::vec(0u32..700, 0..300),
            start in 0usize..400,
            chunk in 1usize..200,
            n in 1usize..1100,
            ascending in proptest::bool::ANY,
        ) {
            if ascending {
                idx.sort_unstable();
            }
            let sc: Vec<Fr> = (0..idx.len() as u64).map(|v| Fr::from(v * 7 + 1)).collect();
            let got = plan_shares(start, &idx, &sc, n, chunk);
            let want = gather_oracle(start, &idx, &sc, n, chunk);
            match (got, want) {
                (Ok(g), Ok(w)) => proptest::prop_assert_eq!(g, w),
                (Err(g), Err(w)) => proptest::prop_assert_eq!(format!("{g:?}"), format!("{w:?}")),
                (g, w) => proptest::prop_assert!(false, "plan {g:?}, plain {w:?}"),
            }
        }
    }

    #[test]
    fn input_layout_packs_each_chunk_within_one_slot() {
        let sc: Vec<Fr> = (0..40u64).map(Fr::from).collect();
        let ones = Bitmap::from_bools((0..600).map(|i| i % 3 == 0));
        let idx: Vec<u32> = (0..500u32).map(|i| (i * 7) % 600).collect();
        let isc: Vec<Fr> = (0..500u64).map(Fr::from).collect();
        let ops = [
            StreamOp::Dense {
                start: 0,
                scalars: &sc,
            },
            StreamOp::Bitmap {
                start: 40,
                ones: &ones,
            },
            StreamOp::Gather {
                start: 40,
                indices: &idx,
                scalars: &isc,
            },
            StreamOp::DenseDevice { start: 0, len: 640 },
        ];
        let chunk = 128;
        let p = plan(&ops, 640, chunk).unwrap();
        let (at, max) = p.input_layout(&ops);
        assert_eq!(at.len(), p.parts.len());
        // Per chunk: each part's inputs [at, at + len) follow the previous
        // part's, from 0, and end within the slot.
        let lens = |o: usize, part: &ChunkPart| -> (usize, usize, usize) {
            match (part, &ops[o]) {
                (ChunkPart::Dense { scalars, .. }, StreamOp::Dense { .. }) => (scalars.len(), 0, 0),
                (ChunkPart::Bitmap { ones, .. }, _) => (0, 0, ones.as_words().len()),
                (ChunkPart::Gather { entries, .. }, _) => (entries.len(), entries.len(), 0),
                _ => (0, 0, 0),
            }
        };
        let mut end = InputOffsets::default();
        for (i, (k, o, part)) in p.parts.iter().enumerate() {
            if i == 0 || p.parts[i - 1].0 != *k {
                end = InputOffsets::default();
            }
            assert_eq!(at[i], end, "part {i}");
            let (f, x, w) = lens(*o, part);
            end = InputOffsets {
                fr: end.fr + f,
                idx: end.idx + x,
                words: end.words + w,
            };
            assert!(end.fr <= max.fr && end.idx <= max.idx && end.words <= max.words);
        }
        // Gathered indices land in every chunk, so the largest is not 0,
        // and one slot holds what the budget counts for it.
        assert!(max.fr > 0 && max.idx > 0 && max.words > 0);
        let slot = (max.fr * 32 + max.idx * 4 + max.words * 8) as u64;
        assert!(slot <= crate::gpu::stream_input_bytes(chunk) / 3);
    }
}
