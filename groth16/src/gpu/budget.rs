//! The device memory budget of a placement: how much a backend may use
//! ([`DeviceBudget`]: the configured limit, never more than the card has
//! free), what the bases, one partition in flight and one MSM's scratch
//! take, what a set needs at the least ([`min_device_bytes`]), and what is
//! left for shifted copies of the H bases. The one place these sizes are
//! computed.

use cuzk_field::{G1Affine, G2Affine};
use cuzk_msm::gpu::Precomputed;

use crate::params::Parameters;

/// Device memory left unused for the CUDA context's own allocations and
/// the stream-ordered pool's rounding.
pub const DEVICE_MARGIN: u64 = 1 << 30;

/// The device memory one backend may use: at most `limit` bytes in all
/// (the configured memory limit, or what was free when the backend
/// started, less [`DEVICE_MARGIN`]), and never more than is free now, so
/// another process that takes memory later (a shared card) shrinks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceBudget {
    /// Bytes this backend may hold in all.
    pub limit: u64,
    /// Free device bytes when the backend started (before its own use).
    baseline_free: u64,
    /// The card's memory.
    pub total: u64,
}

impl DeviceBudget {
    /// The budget of a backend starting now with `free` of `total` bytes
    /// free and an optional configured `limit`.
    pub fn new(limit: Option<u64>, free: u64, total: u64) -> Self {
        let cap = free.saturating_sub(DEVICE_MARGIN);
        DeviceBudget {
            limit: limit.map_or(cap, |l| l.min(cap)),
            baseline_free: free,
            total,
        }
    }

    /// Bytes still available to this backend when the device has `free`
    /// bytes free: the limit less what it holds (free at start less free
    /// now), and no more than `free` less the margin.
    pub fn available(&self, free: u64) -> u64 {
        let used = self.baseline_free.saturating_sub(free);
        self.limit
            .saturating_sub(used)
            .min(free.saturating_sub(DEVICE_MARGIN))
    }
}

/// The least device memory a placement of `params` needs, and what it is
/// made of: every base set (the transient path uploads all five for a
/// partition) and one partition's working set.
pub fn min_device_bytes(params: &Parameters) -> (u64, String) {
    let (b, w) = (bases_bytes(params), working_bytes(params, 1));
    let gib = |x: u64| format!("{:.1} GiB", x as f64 / (1u64 << 30) as f64);
    (
        b.saturating_add(w),
        format!(
            "bases {}, one partition's H step {} and MSM scratch {}",
            gib(b),
            gib(partition_bytes(params)),
            gib(msm_bytes(params))
        ),
    )
}

/// Bytes the bases of `params` take on the device.
pub fn bases_bytes(params: &Parameters) -> u64 {
    let g1 = std::mem::size_of::<G1Affine>() as u64;
    let g2 = std::mem::size_of::<G2Affine>() as u64;
    let c = params.counts();
    (c.h + c.l + c.a + c.b) as u64 * g1 + c.b as u64 * g2
}

/// Device bytes one partition in flight holds besides the bases: the H
/// step's three n-element buffers (staged uploads) and the witness of a
/// deferred assignment (inputs and aux), plus 64 MiB of small buffers.
pub fn partition_bytes(params: &Parameters) -> u64 {
    let n = params.domain_size() as u64;
    let witness = (params.counts().l + params.vk.ic.len()) as u64 * 32;
    3 * n * 32 + witness + (64 << 20)
}

/// Device bytes of the largest MSM's temporaries for `params`
/// ([`cuzk_msm::gpu::scratch_bytes`]: the pipeline's own allocations, ≈ 22
/// GB for the 2^27 H MSM). One MSM runs at a time per device (the device
/// lock), so this is counted once however many partitions are in flight.
pub fn msm_bytes(params: &Parameters) -> u64 {
    use cuzk_msm::gpu::scratch_bytes;
    let c = params.counts();
    let g1 = c.h.max(c.l).max(c.a).max(c.b);
    scratch_bytes::<G1Affine>(g1).max(scratch_bytes::<G2Affine>(c.b))
}

/// Device bytes `depth` partitions in flight need besides the bases:
/// `depth` × [`partition_bytes`] + one [`msm_bytes`].
pub fn working_bytes(params: &Parameters, depth: usize) -> u64 {
    (depth as u64)
        .saturating_mul(partition_bytes(params))
        .saturating_add(msm_bytes(params))
}

/// Device memory a resident placement leaves unused beside the bases and the
/// working sets of two partitions, before shifted H copies are considered.
const H_COPIES_MARGIN: u64 = 2 << 30;

/// The shifted copies of the H bases a resident placement keeps
/// ([`cuzk_msm::gpu::Precomputed`]): as many as fit in `free` device
/// memory beside all bases, two partitions' working sets (so pipelining is
/// never given up for them) and [`H_COPIES_MARGIN`], at the width the MSM's
/// cost model picks for that many copies; `None` when not even one extra
/// copy fits. `CUZK_H_COPIES` caps the copies (1: none), e.g. for A/B runs.
pub fn h_precomputed(params: &Parameters, free: u64) -> Option<Precomputed> {
    let n = params.counts().h;
    let cap = std::env::var("CUZK_H_COPIES")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .unwrap_or(u32::MAX);
    let h_bytes = (n * std::mem::size_of::<G1Affine>()) as u64;
    if n == 0 || cap < 2 {
        return None;
    }
    let spare =
        free.checked_sub(bases_bytes(params) + working_bytes(params, 2) + H_COPIES_MARGIN)?;
    let mut max = u32::try_from(spare / h_bytes)
        .unwrap_or(u32::MAX)
        .saturating_add(1)
        .min(cap);
    while max >= 2 {
        let p = Precomputed::for_points(n, max);
        let extra_scratch = cuzk_msm::gpu::scratch_bytes_precomputed::<G1Affine>(n, p)
            .saturating_sub(msm_bytes(params));
        let need = u64::from(p.copies - 1) * h_bytes + extra_scratch;
        if p.copies < 2 {
            return None;
        }
        if need <= spare {
            return Some(p);
        }
        max = p.copies - 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_the_limit_and_never_more_than_is_free() {
        const G: u64 = 1 << 30;
        // No limit: what was free at start, less the margin.
        let b = DeviceBudget::new(None, 100 * G, 140 * G);
        assert_eq!(b.limit, 99 * G);
        assert_eq!(b.available(100 * G), 99 * G);
        // 30 GiB used by this backend: 69 left.
        assert_eq!(b.available(70 * G), 69 * G);
        // A limit below what is free.
        let b = DeviceBudget::new(Some(16 * G), 100 * G, 140 * G);
        assert_eq!(b.available(100 * G), 16 * G);
        assert_eq!(b.available(90 * G), 6 * G);
        assert_eq!(b.available(80 * G), 0);
        // Another process takes memory later: what is free bounds it.
        assert_eq!(b.available(4 * G), 0);
        let b = DeviceBudget::new(Some(16 * G), 100 * G, 140 * G);
        assert_eq!(b.available(100 * G - 95 * G), 0);
        // A limit above what is free is what is free.
        let b = DeviceBudget::new(Some(64 * G), 24 * G, 140 * G);
        assert_eq!(b.limit, 23 * G);
    }
}
