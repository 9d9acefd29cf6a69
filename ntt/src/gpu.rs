//! The CUDA NTT (`cuda` feature): [`GpuNtt`], one per device, holding the
//! twiddle table (uploaded once, 1.06 MiB) and a small cache of scale tables
//! (1 MiB each), with transforms on device-resident buffers (enqueued on a
//! caller's [`Stream`], no copies), on host slices (upload, transform,
//! download), and the Groth16 H step leaving `h` on the device.
//!
//! Kernels: `cuda/ntt_kernels.cu` over `cuda/ntt.cuh` (see that file for the
//! pass structure); the modes and the H-step sequence come from
//! [`crate::twin`], the same code the CPU tests run through the host twin.
//!
//! Memory of the H step at `n = 2^27` (a PoRep 32 GiB partition): a vector
//! is 4 GiB. [`GpuNtt::h_step`] (host inputs) uses two device buffers, 8 GiB
//! (`a` then `b` transformed, multiplied into `a`; `c` uploaded into `b`'s
//! buffer), plus 3 MiB of tables; [`GpuNtt::h_step_device`] works in place on
//! the caller's three buffers (12 GiB) and allocates nothing.

use crate::ffi::device;
use crate::twin::{self, HPlan, Kind, Order, Step, PW_MUL, PW_SUB_MUL};
use crate::{NttError, MAX_LOG_SIZE};
use cuzk_field::{Field, Fr, PrimeField};
use cuzk_gpu::{Device, DeviceBuffer, Stream};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

type ScaleKey = ([u8; 32], [u8; 32]);

/// At most this many scale tables stay cached per device (1 MiB each): the
/// H step needs two per size; arbitrary shifts come and go.
const SCALE_CACHE: usize = 64;

/// The NTT context of one device.
#[derive(Debug)]
pub struct GpuNtt {
    device: Device,
    tw: DeviceBuffer<Fr>,
    scales: Mutex<HashMap<ScaleKey, Arc<DeviceBuffer<Fr>>>>,
}

fn gpu(e: cuzk_gpu::GpuError) -> NttError {
    NttError::Gpu(e)
}

impl GpuNtt {
    /// The context of `device`, created on first use (uploads the twiddle
    /// table) and shared afterwards.
    pub fn for_device(device: &Device) -> Result<Arc<GpuNtt>, NttError> {
        static ALL: OnceLock<Mutex<HashMap<usize, Arc<GpuNtt>>>> = OnceLock::new();
        let all = ALL.get_or_init(Default::default);
        let mut map = all.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = map.get(&device.ordinal()) {
            return Ok(c.clone());
        }
        let stream = Stream::new(device).map_err(gpu)?;
        let tw = DeviceBuffer::from_slice(&stream, twin::twiddle_table()).map_err(gpu)?;
        let c = Arc::new(GpuNtt {
            device: *device,
            tw,
            scales: Mutex::new(HashMap::new()),
        });
        map.insert(device.ordinal(), c.clone());
        Ok(c)
    }

    /// The device.
    pub fn device(&self) -> Device {
        self.device
    }

    fn scale(&self, stream: &Stream, s: Fr, k: Fr) -> Result<Arc<DeviceBuffer<Fr>>, NttError> {
        let key = (s.to_repr(), k.to_repr());
        let mut m = self.scales.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = m.get(&key) {
            return Ok(t.clone());
        }
        let t = Arc::new(DeviceBuffer::from_slice(stream, &twin::scale_table(s, k)).map_err(gpu)?);
        if m.len() >= SCALE_CACHE {
            // Dropping a table another stream still uses is safe: cudaFree
            // waits for pending work.
            m.clear();
        }
        m.insert(key, t.clone());
        Ok(t)
    }

    fn step(
        &self,
        stream: &Stream,
        data: &mut DeviceBuffer<Fr>,
        step: &Step,
    ) -> Result<(), NttError> {
        match step {
            Step::Run { flags, scale } => {
                let sc = match scale {
                    Some((s, k)) => Some(self.scale(stream, *s, *k)?),
                    None => None,
                };
                device::run(stream, data, *flags, &self.tw, sc.as_deref())
            }
            Step::Bitrev => device::bitrev(stream, data),
        }
    }

    fn check_len(len: usize) -> Result<u32, NttError> {
        if !len.is_power_of_two() {
            return Err(NttError::NotPowerOfTwo(len));
        }
        let log_n = len.trailing_zeros();
        if log_n > MAX_LOG_SIZE {
            return Err(NttError::DomainTooLarge {
                log_size: log_n,
                max_log_size: MAX_LOG_SIZE,
            });
        }
        Ok(log_n)
    }

    /// Enqueues a transform of the whole buffer (power-of-two length ≤ 2^28)
    /// on `stream`, in place. Returns before the device finishes.
    pub fn transform(
        &self,
        stream: &Stream,
        data: &mut DeviceBuffer<Fr>,
        kind: Kind,
        input: Order,
        output: Order,
    ) -> Result<(), NttError> {
        let log_n = Self::check_len(data.len())?;
        for s in twin::steps(kind, log_n, input, output)? {
            self.step(stream, data, &s)?;
        }
        Ok(())
    }

    /// Uploads `data`, transforms it and downloads the result (waits).
    pub fn transform_host(
        &self,
        stream: &Stream,
        data: &mut [Fr],
        kind: Kind,
        input: Order,
        output: Order,
    ) -> Result<(), NttError> {
        Self::check_len(data.len())?;
        let mut buf = DeviceBuffer::from_slice(stream, data).map_err(gpu)?;
        self.transform(stream, &mut buf, kind, input, output)?;
        buf.download(stream, data).map_err(gpu)
    }

    /// Copies `src` into the first `src.len()` elements of `dst`, zeroes the
    /// rest (bellperson's padding), and waits (`src` may be pageable).
    pub fn upload_padded(
        &self,
        stream: &Stream,
        dst: &mut DeviceBuffer<Fr>,
        src: &[Fr],
    ) -> Result<(), NttError> {
        device::upload_padded(stream, dst, src)
    }

    fn plan_for(len: usize) -> Result<HPlan, NttError> {
        twin::h_plan(Self::check_len(len)?)
    }

    /// The H step in place on device buffers of one power-of-two length `n`
    /// (inputs zero-padded to `n` by the caller): afterwards `a` holds all
    /// `n` coefficients of `h` (bellperson keeps the first `n − 1`; the last
    /// is zero for a satisfied system) and `b`, `c` are scratch. Enqueued on
    /// `stream`; returns before the device finishes.
    pub fn h_step_device(
        &self,
        stream: &Stream,
        a: &mut DeviceBuffer<Fr>,
        b: &mut DeviceBuffer<Fr>,
        c: &mut DeviceBuffer<Fr>,
    ) -> Result<(), NttError> {
        if b.len() != a.len() || c.len() != a.len() {
            return Err(NttError::UnequalLengths {
                a: a.len(),
                b: b.len(),
                c: c.len(),
            });
        }
        let plan = Self::plan_for(a.len())?;
        for v in [&mut *a, &mut *b, &mut *c] {
            for s in &plan.to_coset {
                self.step(stream, v, s)?;
            }
        }
        device::pointwise(stream, PW_MUL, a, Some(b), Fr::ONE)?;
        device::pointwise(stream, PW_SUB_MUL, a, Some(c), plan.z_inv)?;
        for s in &plan.back {
            self.step(stream, a, s)?;
        }
        Ok(())
    }

    /// The H step from host vectors of equal length `len` (bellperson's
    /// domain: the smallest power of two `n ≥ len`), leaving `h` on the
    /// device: the returned buffer holds all `n` coefficients (see
    /// [`GpuNtt::h_step_device`]). Two device buffers of `n` elements (8 GiB
    /// at 2^27). Waits for the uploads; the transforms are still running on
    /// `stream` when it returns.
    pub fn h_step(
        &self,
        stream: &Stream,
        a: &[Fr],
        b: &[Fr],
        c: &[Fr],
    ) -> Result<DeviceBuffer<Fr>, NttError> {
        let len = a.len();
        if b.len() != len || c.len() != len {
            return Err(NttError::UnequalLengths {
                a: len,
                b: b.len(),
                c: c.len(),
            });
        }
        if len > 1 << MAX_LOG_SIZE {
            return Err(NttError::DomainTooLarge {
                log_size: usize::BITS - (len - 1).leading_zeros(),
                max_log_size: MAX_LOG_SIZE,
            });
        }
        let n = len.max(1).next_power_of_two();
        let plan = Self::plan_for(n)?;
        let mut x = DeviceBuffer::<Fr>::alloc(&self.device, n).map_err(gpu)?;
        let mut y = DeviceBuffer::<Fr>::alloc(&self.device, n).map_err(gpu)?;
        device::upload_padded(stream, &mut x, a)?;
        device::upload_padded(stream, &mut y, b)?;
        for v in [&mut x, &mut y] {
            for s in &plan.to_coset {
                self.step(stream, v, s)?;
            }
        }
        device::pointwise(stream, PW_MUL, &mut x, Some(&y), Fr::ONE)?;
        // Stream order puts this copy after the product has read y.
        device::upload_padded(stream, &mut y, c)?;
        for s in &plan.to_coset {
            self.step(stream, &mut y, s)?;
        }
        device::pointwise(stream, PW_SUB_MUL, &mut x, Some(&y), plan.z_inv)?;
        for s in &plan.back {
            self.step(stream, &mut x, s)?;
        }
        // y is dropped here; cudaFree waits for the kernels that read it.
        Ok(x)
    }
}
