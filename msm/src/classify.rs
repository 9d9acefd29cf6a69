//! Splitting density-selected scalars into zeros, ones and the rest.
//!
//! Backend-agnostic: the CPU path sums the ones with [`crate::bitmap_sum`]
//! and runs the rest through [`crate::msm_gather`]; a GPU backend can upload
//! the same `ones` bitmap (word layout of [`Bitmap`]) and tail arrays.
//!
//! Index spaces: *positions* index the scalars (one per variable); *base
//! indices* index the compacted bases (one per set density bit, in order;
//! equal to positions when there is no density). Everything returned here is
//! in base indices.

use std::ops::Range;

use cuzk_field::{Bitmap, Field, Fr};
use rayon::prelude::*;

use crate::MsmError;

/// Positions per parallel work item (a multiple of 64, so items own whole
/// bitmap words).
const SPAN_POSITIONS: usize = 1 << 14;

/// Selected scalars split three ways, in base-index space.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Classified {
    /// One bit per selected base: set where the scalar is one. Its length is
    /// the number of selected bases.
    pub ones: Bitmap,
    /// Base indices (ascending) whose scalar is neither zero nor one.
    pub tail_indices: Vec<u32>,
    /// The scalars of `tail_indices`, same order.
    pub tail_scalars: Vec<Fr>,
    /// Number of selected scalars that are zero.
    pub zeros: usize,
}

impl Classified {
    /// Number of selected bases (zeros + ones + tail).
    pub fn selected(&self) -> usize {
        self.ones.len()
    }
}

/// Host bytes [`classify`] holds at most, while it runs and in what it
/// returns, for `selected` scalars among `positions` (the scalars' length):
/// a 4-byte index and a 32-byte scalar per tail, or at most 8 bytes per one
/// while it runs, a bit per selected scalar, and 256 bytes per span of 2^14
/// positions. Whatever the scalars, never more: a caller reserves this
/// from a memory budget before the witness is known.
pub fn classified_bytes_bound(positions: usize, selected: usize) -> u64 {
    let n = selected as u64;
    let spans = (positions as u64).div_ceil(SPAN_POSITIONS as u64) + 1;
    n * (4 + std::mem::size_of::<Fr>() as u64) + n.div_ceil(64) * 8 + spans * 256
}

/// Validates a (scalars, density) pair and returns how many bases it selects.
pub(crate) fn selected_count(scalars: &[Fr], density: Option<&Bitmap>) -> Result<usize, MsmError> {
    match density {
        None => Ok(scalars.len()),
        Some(d) if d.len() != scalars.len() => Err(MsmError::DensityLength {
            density: d.len(),
            scalars: scalars.len(),
        }),
        Some(d) => Ok(d.count_ones()),
    }
}

/// A parallel work item: positions `pos` and the base index of the first
/// selected position in it.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    pub pos: Range<usize>,
    pub base_start: usize,
}

/// Cuts `0..n` positions into spans of `SPAN_POSITIONS`, with the rank of
/// each span's start (one sequential popcount pass over the words).
pub(crate) fn spans(n: usize, density: Option<&Bitmap>) -> Vec<Span> {
    let mut out = Vec::with_capacity(n.div_ceil(SPAN_POSITIONS));
    let mut base = 0;
    let mut start = 0;
    while start < n {
        let end = (start + SPAN_POSITIONS).min(n);
        out.push(Span {
            pos: start..end,
            base_start: base,
        });
        base += match density {
            None => end - start,
            Some(d) => d.as_words()[start / 64..end.div_ceil(64)]
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum(),
        };
        start = end;
    }
    out
}

/// Calls `f(base_index, scalar)` for every selected position of `span`.
pub(crate) fn for_each_selected(
    scalars: &[Fr],
    density: Option<&Bitmap>,
    span: &Span,
    mut f: impl FnMut(usize, &Fr),
) {
    match density {
        None => {
            for (k, s) in scalars[span.pos.clone()].iter().enumerate() {
                f(span.base_start + k, s);
            }
        }
        Some(d) => {
            let mut base = span.base_start;
            let words = &d.as_words()[span.pos.start / 64..span.pos.end.div_ceil(64)];
            for (k, &w) in words.iter().enumerate() {
                let mut w = w;
                let word_pos = span.pos.start + 64 * k;
                while w != 0 {
                    let pos = word_pos + w.trailing_zeros() as usize;
                    w &= w - 1;
                    f(base, &scalars[pos]);
                    base += 1;
                }
            }
        }
    }
}

/// Counts the selected scalars that are zero or one (to decide whether the
/// fast path pays).
pub(crate) fn count_trivial(scalars: &[Fr], density: Option<&Bitmap>) -> usize {
    spans(scalars.len(), density)
        .par_iter()
        .map(|span| {
            let mut n = 0;
            for_each_selected(scalars, density, span, |_, s| {
                n += usize::from(*s == Fr::ZERO || *s == Fr::ONE);
            });
            n
        })
        .sum()
}

/// Splits the scalars selected by `density` (all of them when `None`) into
/// zeros, ones and the rest; see [`Classified`].
///
/// Errors: the density must have one bit per scalar; at most `u32::MAX + 1`
/// bases may be selected.
pub fn classify(scalars: &[Fr], density: Option<&Bitmap>) -> Result<Classified, MsmError> {
    let need = selected_count(scalars, density)?;
    if need > u32::MAX as usize + 1 {
        return Err(MsmError::TooManyPoints(need));
    }

    // Two passes, so the tails are written once, in place: the first
    // counts each span's tails, the second writes them into the span's own
    // slice of exact-size outputs. Per-span vectors merged afterwards would
    // hold up to 3× the tails at once (doubling growth, then the copy):
    // ≈ 30 GB for a 32 GiB WindowPoSt partition, nearly all tail.
    let spans = spans(scalars.len(), density);
    let tails: Vec<usize> = spans
        .par_iter()
        .map(|span| {
            let mut n = 0;
            for_each_selected(scalars, density, span, |_, s| {
                n += usize::from(*s != Fr::ZERO && *s != Fr::ONE);
            });
            n
        })
        .collect();
    let tail_len = tails.iter().sum();
    let mut out = Classified {
        ones: Bitmap::zeros(need),
        tail_indices: vec![0u32; tail_len],
        tail_scalars: vec![Fr::ZERO; tail_len],
        zeros: 0,
    };
    let mut slots = Vec::with_capacity(spans.len());
    let (mut idx_rest, mut sc_rest) = (&mut out.tail_indices[..], &mut out.tail_scalars[..]);
    for &n in &tails {
        let (i, ir) = idx_rest.split_at_mut(n);
        let (s, sr) = sc_rest.split_at_mut(n);
        slots.push((i, s));
        (idx_rest, sc_rest) = (ir, sr);
    }
    // Per span: its zeros and the base indices of its ones (a bitmap word
    // may straddle two spans' base ranges, so the bits are set afterwards).
    let found: Vec<(usize, Vec<u32>)> = spans
        .par_iter()
        .zip(slots)
        .map(|(span, (idx, sc))| {
            let (mut zeros, mut ones, mut k) = (0, Vec::new(), 0);
            for_each_selected(scalars, density, span, |base, s| {
                // `base < need <= u32::MAX + 1`, so the casts are lossless.
                if *s == Fr::ZERO {
                    zeros += 1;
                } else if *s == Fr::ONE {
                    ones.push(base as u32);
                } else {
                    idx[k] = base as u32;
                    sc[k] = *s;
                    k += 1;
                }
            });
            (zeros, ones)
        })
        .collect();
    for (zeros, ones) in found {
        out.zeros += zeros;
        for i in ones {
            out.ones.set(i as usize);
        }
    }
    Ok(out)
}
