//! The device path: a call's pairs uploaded, its Miller products computed
//! by `cuda/pairing_api.cu`, the Fp12 values downloaded (the final
//! exponentiations stay on the CPU: one per product, and there are few).

use cuzk_field::{Fp12, G1Affine, G2Affine};
use cuzk_gpu::{Device, DeviceBuffer, GpuError, Stream};
use parking_lot::Mutex;

use crate::ffi::{dev_miller, DeviceArgs, DevicePlan, PointSlot};
use crate::plan::{chunk_for, Plan};
use crate::PairingError;

/// Registers a Miller-loop thread is assumed to take: an Fp12 alone is 144
/// 32-bit registers, so ptxas gives each thread the most it can (255).
const REGS_PER_THREAD: u32 = 256;

/// One device's Miller loops. Calls from several threads queue on its one
/// stream in turn.
#[derive(Debug)]
pub(crate) struct GpuMiller {
    device: Device,
    stream: Mutex<Stream>,
    /// Miller-loop threads the device runs at once.
    resident: usize,
}

impl GpuMiller {
    pub fn new(device: &Device) -> Result<GpuMiller, GpuError> {
        let props = device.props()?;
        let per_sm =
            (props.regs_per_sm / REGS_PER_THREAD).clamp(1, props.max_threads_per_sm.max(1));
        Ok(GpuMiller {
            device: *device,
            stream: Mutex::new(Stream::new(device)?),
            resident: (props.sm_count.max(1) * per_sm) as usize,
        })
    }

    pub fn device(&self) -> Device {
        self.device
    }

    /// One conjugated Miller product per group of `group_lens` pairs,
    /// stored one group after another in `p` and `q`.
    pub fn miller(
        &self,
        p: &[G1Affine],
        q: &[G2Affine],
        group_lens: &[usize],
    ) -> Result<Vec<Fp12>, PairingError> {
        let plan = Plan::new(group_lens, chunk_for(p.len(), self.resident))?;
        let stream = self.stream.lock();
        let (pairs, tasks, groups) = (plan.pairs(), plan.tasks(), plan.groups());
        let dp = DeviceBuffer::from_slice(&stream, p)?;
        let dq = DeviceBuffer::from_slice(&stream, q)?;
        let dplan = DevicePlan::upload(&stream, plan)?;
        let mut points = DeviceBuffer::<PointSlot>::alloc(&self.device, pairs)?;
        let mut partials = DeviceBuffer::<Fp12>::alloc(&self.device, tasks)?;
        let mut out = DeviceBuffer::<Fp12>::alloc(&self.device, groups)?;
        dev_miller(
            DeviceArgs {
                p: &dp,
                q: &dq,
                plan: &dplan,
                points: &mut points,
                partials: &mut partials,
                out: &mut out,
            },
            &stream,
        )?;
        // `to_vec` waits for the stream: every buffer above is still alive.
        Ok(out.to_vec(&stream)?)
    }
}
