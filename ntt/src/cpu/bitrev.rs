//! Bit-reversal permutation, cache-blocked and parallel.

use super::kernels::bitrev;
use crate::NttError;
use rayon::prelude::*;

/// log2 of the tile side: indices are split as `hi | mid | lo` with `hi` and
/// `lo` this many bits, so a tile is 16 runs of 16 contiguous elements
/// (512 bytes each for `Fr`) and every memory access touches whole cache lines.
const TILE_LOG: u32 = 4;

/// Permutes `v` in place so that `v[i]` and `v[bitrev(i)]` trade places,
/// where `bitrev` reverses the `log2(v.len())` low bits.
///
/// Errors unless the length is a power of two (an empty slice is left alone).
pub fn bit_reverse_permute<T: Copy + Send + Sync>(v: &mut [T]) -> Result<(), NttError> {
    let n = v.len();
    if n == 0 {
        return Ok(());
    }
    if !n.is_power_of_two() {
        return Err(NttError::NotPowerOfTwo(n));
    }
    permute(v, n.trailing_zeros());
    Ok(())
}

/// The runs of tile `m` and of tile `bitrev(m)` (empty when they coincide).
type TilePair<'a, T> = (Vec<&'a mut [T]>, Vec<&'a mut [T]>);

pub(crate) fn permute<T: Copy + Send + Sync>(v: &mut [T], log_n: u32) {
    if log_n <= 2 * TILE_LOG + 2 {
        // Up to 1024 elements: everything is in L1/L2, plain swaps are fine.
        for i in 0..v.len() {
            let j = bitrev(i, log_n);
            if i < j {
                v.swap(i, j);
            }
        }
        return;
    }
    let t = 1usize << TILE_LOG;
    let mid_bits = log_n - 2 * TILE_LOG;
    let nmid = 1usize << mid_bits;
    // Element (hi, m, lo) moves to (bitrev(lo), bitrev(m), bitrev(hi)): tile
    // `m` (16 runs of 16) and tile `bitrev(m)` swap with a transpose. Each
    // task owns both tiles of a pair; the runs are disjoint `&mut` borrows.
    let mut groups: Vec<TilePair<'_, T>> = (0..nmid).map(|_| (Vec::new(), Vec::new())).collect();
    for (idx, run) in v.chunks_mut(t).enumerate() {
        let m = idx & (nmid - 1);
        let rm = bitrev(m, mid_bits);
        if m <= rm {
            groups[m].0.push(run);
        } else {
            groups[rm].1.push(run);
        }
    }
    groups.into_par_iter().for_each(|(mut a, mut b)| {
        if a.is_empty() {
            return;
        }
        let old_a: Vec<T> = a.iter().flat_map(|r| r.iter().copied()).collect();
        let src = |old: &[T], hi_t: usize, lo_t: usize| {
            old[bitrev(lo_t, TILE_LOG) * t + bitrev(hi_t, TILE_LOG)]
        };
        if b.is_empty() {
            for (hi_t, run) in a.iter_mut().enumerate() {
                for (lo_t, x) in run.iter_mut().enumerate() {
                    *x = src(&old_a, hi_t, lo_t);
                }
            }
        } else {
            let old_b: Vec<T> = b.iter().flat_map(|r| r.iter().copied()).collect();
            for (hi_t, run) in a.iter_mut().enumerate() {
                for (lo_t, x) in run.iter_mut().enumerate() {
                    *x = src(&old_b, hi_t, lo_t);
                }
            }
            for (hi_t, run) in b.iter_mut().enumerate() {
                for (lo_t, x) in run.iter_mut().enumerate() {
                    *x = src(&old_a, hi_t, lo_t);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_definition_for_all_small_sizes() {
        for log_n in 0..=14u32 {
            let n = 1usize << log_n;
            let mut v: Vec<u32> = (0..n as u32).collect();
            bit_reverse_permute(&mut v).unwrap();
            for (i, x) in v.iter().enumerate() {
                assert_eq!(*x as usize, bitrev(i, log_n), "log_n {log_n} i {i}");
            }
            // An involution.
            bit_reverse_permute(&mut v).unwrap();
            assert!(v.iter().enumerate().all(|(i, x)| *x as usize == i));
        }
    }

    #[test]
    fn rejects_other_lengths() {
        let mut v = vec![0u8; 12];
        assert_eq!(
            bit_reverse_permute(&mut v),
            Err(NttError::NotPowerOfTwo(12))
        );
        let mut e: Vec<u8> = vec![];
        assert_eq!(bit_reverse_permute(&mut e), Ok(()));
    }
}
