//! The device memory budget of a placement: what the bases, one partition
//! in flight and one MSM's scratch take, and what is left for shifted
//! copies of the H bases. The one place these sizes are computed.

use cuzk_field::{G1Affine, G2Affine};
use cuzk_msm::gpu::Precomputed;

use crate::params::Parameters;

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
