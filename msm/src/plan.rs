//! How to cut one Pippenger MSM into independent tiles for rayon.
//!
//! A tile is (a chunk of the points) × (one window of scalar bits): blst sums
//! the chunk's points into `2^(w-1)` signed-digit buckets and reduces them.
//! Its cost is about `points + B · 2^w` mixed additions (the bucket reduction
//! does two full XYZZ additions per bucket). Tiles run in parallel; the
//! window results are combined by doubling at the end (negligible).
//!
//! Windows are `w` bits wide starting at bit 0; the top window must be
//! *partial* (narrower than `w`), because blst treats a full-width top window
//! as signed and would drop its carry out of bit 255. So `w` never divides
//! 255 and there are `255 / w + 1` windows.

use crate::ffi::NBITS;

/// Below this many points a single single-threaded blst call is used (it
/// switches to precomputed 4-bit tables under 32 points).
pub(crate) const SMALL: usize = 64;

/// Smallest chunk of points a tile gets (blst needs two; tiny chunks waste
/// the bucket reduction).
const MIN_CHUNK: usize = 32;

/// Bucket-reduction cost per `2^w`, in per-point units: two XYZZ additions
/// per bucket over `2^(w-1)` buckets. An effective constant: per-point cost
/// also grows with `w` once the buckets leave L2, which this absorbs.
/// Checked with `examples/msm_sweep.rs` on the H200 host (16 cores, G1):
/// the chosen plan was within noise (≤ 10%) of the best forced
/// (window, chunks) at 2^10..2^20 on 1 and 16 threads, e.g. 2^20 on 16
/// threads: plan w16/c1 0.95 s, best w16/c1 0.85 s, w14/c4 0.92 s, w18/c1 1.08 s.
const REDUCE_COST: f64 = 1.3;

/// Memory one thread may spend on buckets (G1 bucket 192 B, G2 384 B):
/// 32 MiB allows w = 18 on G1 and 17 on G2, more than any size needs.
const MAX_BUCKET_BYTES: usize = 32 << 20;

/// The tiling of one MSM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Window width in bits.
    pub window: usize,
    /// Number of point chunks.
    pub chunks: usize,
}

/// Whether `w` is a usable window width (the top window stays partial).
fn valid_window(w: usize) -> bool {
    w >= 2 && NBITS % w != 0
}

impl Plan {
    /// Number of windows (the top one partial).
    pub fn windows(&self) -> usize {
        NBITS / self.window + 1
    }

    /// Points `start, len` of chunk `x` out of `n` (sizes differ by at most one).
    pub fn chunk(&self, n: usize, x: usize) -> (usize, usize) {
        let base = n / self.chunks;
        let extra = n % self.chunks;
        let start = x * base + x.min(extra);
        (start, base + usize::from(x < extra))
    }

    /// Largest window whose buckets fit `MAX_BUCKET_BYTES` per thread.
    pub fn max_window(bucket_bytes: usize) -> usize {
        // 2^(w-1) buckets per tile; grow while one more bit still fits.
        let mut w = 2;
        while (bucket_bytes << w) <= MAX_BUCKET_BYTES {
            w += 1;
        }
        w
    }

    /// A given plan; panics on a window that divides 255 or is below 2.
    pub fn new(window: usize, chunks: usize) -> Plan {
        assert!(valid_window(window), "window {window} unusable");
        Plan {
            window,
            chunks: chunks.max(1),
        }
    }

    /// The cheapest plan for `n` points on `threads` threads by the cost
    /// model: `ceil(tiles / threads) · (chunk + REDUCE_COST · 2^w)`.
    pub fn choose(n: usize, threads: usize, max_window: usize) -> Plan {
        let threads = threads.max(1);
        let max_chunks = (n / MIN_CHUNK).clamp(1, 4 * threads);
        let mut best = (
            f64::INFINITY,
            Plan {
                window: 2,
                chunks: 1,
            },
        );
        for w in (2..=max_window).filter(|&w| valid_window(w)) {
            let ny = NBITS / w + 1;
            for nx in 1..=max_chunks {
                let rounds = (nx * ny).div_ceil(threads) as f64;
                let tile = n.div_ceil(nx) as f64 + REDUCE_COST * (1u64 << w) as f64;
                let cost = rounds * tile;
                if cost < best.0 {
                    best = (
                        cost,
                        Plan {
                            window: w,
                            chunks: nx,
                        },
                    );
                }
            }
        }
        best.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_exactly() {
        for n in [64, 65, 1000, 1 << 16] {
            for threads in [1, 2, 3, 16] {
                let p = Plan::choose(n, threads, 18);
                assert!(valid_window(p.window));
                assert!(p.windows() * p.window > NBITS);
                assert!((p.windows() - 1) * p.window < NBITS);
                let mut next = 0;
                for x in 0..p.chunks {
                    let (s, l) = p.chunk(n, x);
                    assert_eq!(s, next);
                    assert!(l >= 2);
                    next = s + l;
                }
                assert_eq!(next, n);
            }
        }
    }

    #[test]
    fn windows_grow_with_size() {
        let small = Plan::choose(1 << 10, 1, 18).window;
        let large = Plan::choose(1 << 20, 1, 18).window;
        assert!(small < large, "{small} {large}");
        assert!(Plan::choose(1 << 27, 16, 18).window <= 18);
        assert_eq!(Plan::max_window(192), 18);
        assert_eq!(Plan::max_window(384), 17);
    }
}
