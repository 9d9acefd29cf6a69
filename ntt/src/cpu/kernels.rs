//! The radix-2 butterfly kernels and the cache-blocked driver.
//!
//! Twiddle tables are stored *per level*: `tw[h + x]` is the twiddle of the
//! butterfly at offset `x` (`0 ≤ x < h`) of a level whose butterflies pair
//! elements `h` apart, i.e. `ω_{2h}^x` for a plain transform. One table of
//! `n` entries serves every level of every sub-transform of a domain of `n`
//! points, and each level's twiddles are contiguous, so a pass over a level
//! streams its twiddles instead of striding through a master table.
//!
//! Two orders of butterflies are used:
//! - DIF (Gentleman–Sande): natural-order input, bit-reversed output,
//!   levels from `h = n/2` down to 1, butterfly `(a, b) → (a + b, (a − b)·w)`;
//! - DIT (Cooley–Tukey): bit-reversed input, natural-order output, levels
//!   from `h = 1` up to `n/2`, butterfly `(a, b) → (a + w·b, a − w·b)`.
//!
//! The driver ([`drive`]) splits a transform of `m = R·C` points into a
//! *column pass* (the `log R` levels with `h ≥ C`, which only pair elements of
//! the same column when the data is viewed as `R` rows of `C`) and `R`
//! independent row transforms of `C` contiguous points, recursively, until the
//! rows are "leaves" small enough to stay in L2 cache. The column pass works on
//! groups of a few adjacent columns copied into a contiguous buffer, so every
//! level of it runs in cache too: a transform costs one sweep over memory per
//! recursion level (two for 2^20 with the default tuning) instead of one per
//! butterfly level. Columns groups and rows are processed in parallel (rayon).

use super::blst_ops::{ct, gs};
use cuzk_field::Fr;
use ff::Field;
use rayon::prelude::*;

/// Which twiddles a DIF or DIT stage uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stage<'a> {
    /// Column levels use `ω^{-1}` (read from the forward table, mirrored).
    pub inverse: bool,
    /// Table for the leaf levels (`h <` leaf size), indexed like the global one.
    pub leaf: &'a [Fr],
    /// `leaf[h] == 1` for every level (plain tables): skip those multiplications.
    pub first_one: bool,
}

/// A whole transform: optional DIF stage, a per-leaf hook, optional DIT stage.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan<'a> {
    /// The domain's forward per-level table (`n` entries).
    pub tw: &'a [Fr],
    /// log2 of the leaf size (rows at most this big are done in one go).
    pub leaf_log: u32,
    /// At most this many levels per column pass.
    pub split_log: u32,
    /// Target number of elements in one column group's buffer.
    pub group_elems: usize,
    pub dif: Option<Stage<'a>>,
    pub dit: Option<Stage<'a>>,
}

/// In-place DIF of `v` (natural in, bit-reversed out) with per-level table `tw`.
pub(crate) fn dif_leaf(v: &mut [Fr], tw: &[Fr], first_one: bool) {
    let n = v.len();
    let mut h = n / 2;
    while h >= 1 {
        let t = &tw[h..2 * h];
        let start = usize::from(first_one);
        for blk in v.chunks_exact_mut(2 * h) {
            let (lo, hi) = blk.split_at_mut(h);
            if first_one {
                let a = lo[0];
                lo[0] += &hi[0];
                hi[0] = a - hi[0];
            }
            for x in start..h {
                (lo[x], hi[x]) = gs(lo[x], hi[x], &t[x]);
            }
        }
        h /= 2;
    }
}

/// In-place DIT of `v` (bit-reversed in, natural out) with per-level table `tw`.
pub(crate) fn dit_leaf(v: &mut [Fr], tw: &[Fr], first_one: bool) {
    let n = v.len();
    let mut h = 1;
    while h < n {
        let t = &tw[h..2 * h];
        let start = usize::from(first_one);
        for blk in v.chunks_exact_mut(2 * h) {
            let (lo, hi) = blk.split_at_mut(h);
            if first_one {
                let m = hi[0];
                hi[0] = lo[0] - m;
                lo[0] += &m;
            }
            for x in start..h {
                (lo[x], hi[x]) = ct(lo[x], hi[x], &t[x]);
            }
        }
        h *= 2;
    }
}

/// One DIF level on two buffer rows: butterflies `x0 + j` of a level with span `h`.
fn dif_rows(top: &mut [Fr], bot: &mut [Fr], tw: &[Fr], h: usize, x0: usize, inverse: bool) {
    let w = top.len();
    let mut start = 0;
    if x0 == 0 {
        // Twiddle 1.
        let a = top[0];
        top[0] += &bot[0];
        bot[0] = a - bot[0];
        start = 1;
    }
    if inverse {
        // ω_{2h}^{-x} = −ω_{2h}^{h−x} = −tw[2h − x] for 0 < x < h, so
        // (a − b)·ω^{-x} = (b − a)·tw[2h − x]: a GS butterfly on (b, a).
        for j in start..w {
            (top[j], bot[j]) = gs(bot[j], top[j], &tw[2 * h - x0 - j]);
        }
    } else {
        let t = &tw[h + x0..h + x0 + w];
        for j in start..w {
            (top[j], bot[j]) = gs(top[j], bot[j], &t[j]);
        }
    }
}

/// One DIT level on two buffer rows (see [`dif_rows`]).
fn dit_rows(top: &mut [Fr], bot: &mut [Fr], tw: &[Fr], h: usize, x0: usize, inverse: bool) {
    let w = top.len();
    let mut start = 0;
    if x0 == 0 {
        let m = bot[0];
        bot[0] = top[0] - m;
        top[0] += &m;
        start = 1;
    }
    if inverse {
        // tw[2h − x] = −ω^{-x}, so the two outputs swap roles.
        for j in start..w {
            (bot[j], top[j]) = ct(top[j], bot[j], &tw[2 * h - x0 - j]);
        }
    } else {
        let t = &tw[h + x0..h + x0 + w];
        for j in start..w {
            (top[j], bot[j]) = ct(top[j], bot[j], &t[j]);
        }
    }
}

/// The top `log_rows` levels of a DIF (or the last ones of a DIT) of
/// `data.len()` points, done column group by column group.
fn column_pass(data: &mut [Fr], log_rows: u32, w: usize, tw: &[Fr], inverse: bool, dit: bool) {
    let m = data.len();
    let rows = 1usize << log_rows;
    let cols = m >> log_rows;
    let w = w.clamp(1, cols);
    let ngroups = cols / w;
    // Hand each task the pieces of its columns: disjoint `&mut` borrows, so
    // the strided access needs no unsafe code. One pointer per piece: for
    // 2^20 points in groups of 16 columns that is 64 Ki entries (1 MiB).
    let mut groups: Vec<Vec<&mut [Fr]>> = (0..ngroups).map(|_| Vec::with_capacity(rows)).collect();
    for row in data.chunks_mut(cols) {
        for (g, piece) in row.chunks_mut(w).enumerate() {
            groups[g].push(piece);
        }
    }
    groups.into_par_iter().enumerate().for_each_init(
        Vec::new,
        |buf: &mut Vec<Fr>, (g, mut pieces)| {
            buf.clear();
            for p in pieces.iter() {
                buf.extend_from_slice(p);
            }
            let c0 = g * w;
            let mut level = |hr: usize| {
                let h = hr * cols;
                for blk in buf.chunks_exact_mut(2 * hr * w) {
                    let (top, bot) = blk.split_at_mut(hr * w);
                    for (r, (t, b)) in top
                        .chunks_exact_mut(w)
                        .zip(bot.chunks_exact_mut(w))
                        .enumerate()
                    {
                        let x0 = r * cols + c0;
                        if dit {
                            dit_rows(t, b, tw, h, x0, inverse);
                        } else {
                            dif_rows(t, b, tw, h, x0, inverse);
                        }
                    }
                }
            };
            if dit {
                let mut hr = 1;
                while hr < rows {
                    level(hr);
                    hr *= 2;
                }
            } else {
                let mut hr = rows / 2;
                while hr >= 1 {
                    level(hr);
                    hr /= 2;
                }
            }
            for (p, src) in pieces.iter_mut().zip(buf.chunks_exact(w)) {
                p.copy_from_slice(src);
            }
        },
    );
}

/// Runs `plan` on `data`, a (sub-)transform whose first element sits at
/// position `offset` of the whole vector. `mid(leaf, leaf_offset)` runs on
/// every leaf between the DIF and DIT stages, while the leaf is in cache.
pub(crate) fn drive<M>(plan: &Plan<'_>, data: &mut [Fr], offset: usize, mid: &M)
where
    M: Fn(&mut [Fr], usize) + Sync,
{
    let m = data.len();
    debug_assert!(m.is_power_of_two());
    let log_m = m.trailing_zeros();
    if log_m <= plan.leaf_log {
        if let Some(s) = &plan.dif {
            dif_leaf(data, s.leaf, s.first_one);
        }
        mid(data, offset);
        if let Some(s) = &plan.dit {
            dit_leaf(data, s.leaf, s.first_one);
        }
        return;
    }
    let log_rows = (log_m - plan.leaf_log).min(plan.split_log);
    let cols = m >> log_rows;
    let w = (plan.group_elems >> log_rows).max(1);
    if let Some(s) = &plan.dif {
        column_pass(data, log_rows, w, plan.tw, s.inverse, false);
    }
    data.par_chunks_mut(cols)
        .enumerate()
        .for_each(|(i, row)| drive(plan, row, offset + i * cols, mid));
    if let Some(s) = &plan.dit {
        column_pass(data, log_rows, w, plan.tw, s.inverse, true);
    }
}

/// `x.reverse_bits()` restricted to the low `bits` bits.
#[inline]
pub(crate) fn bitrev(x: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        x.reverse_bits() >> (usize::BITS - bits)
    }
}

/// Multiplies every element of `v` by `k` (skipped when `k == 1`).
pub(crate) fn scale(v: &mut [Fr], k: &Fr) {
    if *k != Fr::ONE {
        for x in v {
            *x *= k;
        }
    }
}
