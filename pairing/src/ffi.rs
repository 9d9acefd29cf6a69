//! The crate's only `unsafe` code: safe wrappers over the generated
//! bindings of `cuda/cuzk_pairing.h` (`crate::sys`) that check every length
//! before crossing.
//!
//! Layout facts relied on: blstrs' `G1Affine`/`G2Affine` are transparent
//! over `blst_p1_affine`/`blst_p2_affine`, which equal `affine_t<fp_t>` /
//! `affine_t<fp2_t>`, and blstrs' `Fp12` over `blst_fp12`, which equals
//! `fp12_t` (static_asserts in field/cuda/bls12_381.cuh; the Fp12 check is
//! below); all Montgomery.

use cuzk_field::{Fp12, G1Affine, G2Affine};
use cuzk_gpu::GpuError;

use crate::plan::Plan;
use crate::sys;

const _: () = assert!(std::mem::size_of::<Fp12>() == sys::CUZK_PAIRING_FP12_BYTES as usize);
const _: () = assert!(std::mem::size_of::<Fp12>() == std::mem::size_of::<blst::blst_fp12>());

/// The pairs and the plan agree: one G2 point per G1 point, the plan's
/// pair count.
fn check_pairs(g1: usize, g2: usize, plan: &Plan) -> Result<(), GpuError> {
    if g1 != g2 || g1 != plan.pairs() {
        return Err(GpuError::InvalidArgument(format!(
            "{g1} G1 and {g2} G2 points for a plan of {} pairs",
            plan.pairs()
        )));
    }
    Ok(())
}

/// Host twin: one conjugated Miller product per group of `plan`, computed
/// by the device's code on the CPU.
pub(crate) fn host_miller(
    p: &[G1Affine],
    q: &[G2Affine],
    plan: &Plan,
) -> Result<Vec<Fp12>, GpuError> {
    check_pairs(p.len(), q.len(), plan)?;
    let mut out = vec![Fp12::default(); plan.groups()];
    // SAFETY: p and q hold plan.pairs() points each, the offsets are the
    // plan's (tasks + 1 and groups + 1 entries, which the twin checks
    // again), out holds one Fp12 per group; synchronous, nothing kept.
    let e = unsafe {
        sys::cuzk_pairing_host_miller(
            p.as_ptr().cast(),
            q.as_ptr().cast(),
            plan.task_starts.as_ptr(),
            plan.tasks() as u32,
            plan.group_starts.as_ptr(),
            plan.groups() as u32,
            out.as_mut_ptr().cast(),
        )
    };
    // SAFETY: `e` is the value the entry point just returned.
    unsafe { cuzk_gpu::check_twin_error(e) }?;
    Ok(out)
}

#[cfg(feature = "cuda")]
pub(crate) use device::*;

#[cfg(feature = "cuda")]
mod device {
    use cuzk_field::{Fp12, G1Affine, G2Affine};
    use cuzk_gpu::{DeviceBuffer, GpuError, Stream};

    use super::check_pairs;
    use crate::plan::Plan;
    use crate::sys;

    /// One Miller-loop point's slot (`CUZK_PAIRING_POINT_BYTES`).
    pub(crate) type PointSlot = [u64; 36];
    const _: () =
        assert!(std::mem::size_of::<PointSlot>() == sys::CUZK_PAIRING_POINT_BYTES as usize);

    /// A plan's offsets on the device, uploaded from the plan itself: the
    /// only way offsets reach [`dev_miller`], so its kernels read no pair,
    /// point or partial slot outside the plan's counts.
    pub(crate) struct DevicePlan {
        plan: Plan,
        task_starts: DeviceBuffer<u32>,
        group_starts: DeviceBuffer<u32>,
    }

    impl DevicePlan {
        pub fn upload(stream: &Stream, plan: Plan) -> Result<DevicePlan, GpuError> {
            Ok(DevicePlan {
                task_starts: DeviceBuffer::from_slice(stream, &plan.task_starts)?,
                group_starts: DeviceBuffer::from_slice(stream, &plan.group_starts)?,
                plan,
            })
        }

        pub fn plan(&self) -> &Plan {
            &self.plan
        }
    }

    /// The device buffers of one call.
    pub(crate) struct DeviceArgs<'a> {
        pub p: &'a DeviceBuffer<G1Affine>,
        pub q: &'a DeviceBuffer<G2Affine>,
        pub plan: &'a DevicePlan,
        pub points: &'a mut DeviceBuffer<PointSlot>,
        pub partials: &'a mut DeviceBuffer<Fp12>,
        pub out: &'a mut DeviceBuffer<Fp12>,
    }

    /// Queues the Miller products of `a.plan` on `stream`: one conjugated
    /// product per group into `a.out`.
    pub(crate) fn dev_miller(a: DeviceArgs<'_>, stream: &Stream) -> Result<(), GpuError> {
        let plan = a.plan.plan();
        check_pairs(a.p.len(), a.q.len(), plan)?;
        if a.points.len() < plan.pairs()
            || a.partials.len() < plan.tasks()
            || a.out.len() != plan.groups()
        {
            return Err(GpuError::InvalidArgument(format!(
                "scratch of {} points and {} partials, {} outputs, for {} pairs in {} tasks and {} groups",
                a.points.len(),
                a.partials.len(),
                a.out.len(),
                plan.pairs(),
                plan.tasks(),
                plan.groups()
            )));
        }
        // SAFETY: every buffer is a live device allocation at least as long
        // as the plan needs (checked above); the offsets were uploaded from
        // that plan (`DevicePlan`), so every kernel index stays inside them;
        // the buffers outlive the queued work because the caller
        // synchronises `stream` (downloading `out`) before dropping them.
        let e = unsafe {
            sys::cuzk_pairing_dev_miller(
                a.p.as_ptr(),
                a.q.as_ptr(),
                a.plan.task_starts.as_ptr().cast(),
                plan.tasks() as u32,
                a.plan.group_starts.as_ptr().cast(),
                plan.groups() as u32,
                plan.max_group_tasks,
                a.points.as_mut_ptr(),
                a.partials.as_mut_ptr(),
                a.out.as_mut_ptr(),
                stream.raw(),
            )
        };
        // SAFETY: `e` is the value the entry point just returned.
        unsafe { cuzk_gpu::check_shim_error(e) }
    }
}
