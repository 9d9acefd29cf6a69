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

    #[derive(Default)]
    struct Part {
        ones: Vec<u32>,
        tail_indices: Vec<u32>,
        tail_scalars: Vec<Fr>,
        zeros: usize,
    }
    let parts: Vec<Part> = spans(scalars.len(), density)
        .par_iter()
        .map(|span| {
            let mut p = Part::default();
            for_each_selected(scalars, density, span, |base, s| {
                // `base < need <= u32::MAX + 1`, so the casts are lossless.
                if *s == Fr::ZERO {
                    p.zeros += 1;
                } else if *s == Fr::ONE {
                    p.ones.push(base as u32);
                } else {
                    p.tail_indices.push(base as u32);
                    p.tail_scalars.push(*s);
                }
            });
            p
        })
        .collect();

    // Sequential merge: Bitmap has no word-level constructor, so ones are
    // set one by one (~1 ns each; 33 M ones for a 32 GiB partition).
    let mut out = Classified {
        ones: Bitmap::zeros(need),
        ..Default::default()
    };
    let tail_len = parts.iter().map(|p| p.tail_indices.len()).sum();
    out.tail_indices.reserve_exact(tail_len);
    out.tail_scalars.reserve_exact(tail_len);
    for p in parts {
        for i in p.ones {
            out.ones.set(i as usize);
        }
        out.tail_indices.extend_from_slice(&p.tail_indices);
        out.tail_scalars.extend_from_slice(&p.tail_scalars);
        out.zeros += p.zeros;
    }
    Ok(out)
}
