//! The CUDA NTT (`cuda` feature): [`GpuNtt`], one per device, holding the
//! twiddle table (uploaded once, 9.06 MiB) and a small cache of scale tables
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
use crate::twin::{self, Fused, HPlan, Kind, Order, Step, PW_MUL};
use crate::{NttError, MAX_LOG_SIZE};
use cuzk_field::{Field, Fr, PrimeField};
use cuzk_gpu::{BufferPool, Device, DeviceBuffer, Event, Stream};
use cuzk_pinned_mem::Stager;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

type ScaleKey = ([u8; 32], [u8; 32]);

/// At most this many scale tables stay cached per device (1 MiB each): the
/// H step needs two per size; arbitrary shifts come and go.
const SCALE_CACHE: usize = 64;

/// Where an H step's device time went ([`GpuNtt::h_step_profiled`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HStepProfile {
    /// Copying a, b and c to the device (zero-padded to the domain).
    pub upload: Duration,
    /// The six transforms (the product a·b fused into the last, or one
    /// pointwise product where the lean path must reuse b's buffer).
    pub transforms: Duration,
}

/// The NTT context of one device.
#[derive(Debug)]
pub struct GpuNtt {
    device: Device,
    tw: DeviceBuffer<Fr>,
    scales: Mutex<HashMap<ScaleKey, Arc<DeviceBuffer<Fr>>>>,
    /// The H step's staged uploads, made on first use ([`Staging`]).
    staging: OnceLock<Option<Mutex<Staging>>>,
    /// The H step's n-element buffers, kept between calls up to the limit
    /// the prover sets ([`GpuNtt::buffers`]).
    pool: BufferPool<Fr>,
}

/// Pinned chunks in the H step's upload ring: 4 × 16 MiB. Measured on the
/// H200 host at 2^24 (upload + transforms per proof): 4 × 16 MiB 131 ms,
/// 8 × 8 MiB 146 ms, 2 × 64 MiB 125 ms (within noise of each other) vs
/// 274 ms for page-locking a, b, c and copying them directly.
const STAGE_SLOTS: usize = 4;
const STAGE_CHUNK: usize = (16 << 20) / std::mem::size_of::<Fr>();

/// What the staged H step needs besides the transforms: a copy stream (so
/// copies overlap kernels), a ring of pinned chunks, and one "vector
/// uploaded" event per input.
#[derive(Debug)]
struct Staging {
    copy: Stream,
    ring: Stager<Fr>,
    ready: [Event; 3],
}

impl Staging {
    /// `None` when `CUZK_H_UPLOAD=direct` or the ring cannot be pinned (a
    /// pageable ring would serialise every copy: no better than direct).
    fn new(device: &Device) -> Option<Staging> {
        if std::env::var("CUZK_H_UPLOAD").is_ok_and(|v| v == "direct") {
            return None;
        }
        // CUZK_H_STAGE="slots,MiB[,threads]" overrides the ring's shape
        // (measuring).
        let var = std::env::var("CUZK_H_STAGE").unwrap_or_default();
        let mut f = var.split(',').map(|x| x.trim().parse::<usize>().ok());
        let slots = f.next().flatten().unwrap_or(STAGE_SLOTS);
        let chunk = f
            .next()
            .flatten()
            .map_or(STAGE_CHUNK, |mib| (mib << 20) / std::mem::size_of::<Fr>());
        let ring = match f.next().flatten() {
            Some(t) => Stager::with_threads(device, slots, chunk, t),
            None => Stager::new(device, slots, chunk),
        }
        .ok()?;
        if !ring.is_pinned() {
            return None;
        }
        Some(Staging {
            copy: Stream::new(device).ok()?,
            ring,
            ready: [
                Event::new(device).ok()?,
                Event::new(device).ok()?,
                Event::new(device).ok()?,
            ],
        })
    }
}

fn gpu(e: cuzk_gpu::GpuError) -> NttError {
    NttError::Gpu(e)
}

fn pinned(e: cuzk_pinned_mem::PinnedError) -> NttError {
    match e {
        cuzk_pinned_mem::PinnedError::Gpu(g) => NttError::Gpu(g),
        // Only allocation failures remain (the ring exists already).
        other => NttError::Gpu(cuzk_gpu::GpuError::HostAlloc(other.to_string())),
    }
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
            staging: OnceLock::new(),
            pool: BufferPool::new(device),
        });
        map.insert(device.ordinal(), c.clone());
        Ok(c)
    }

    /// The device.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Where the H step takes its device buffers from and puts its scratch
    /// back. Its limit starts at 0 (every buffer freed after use); the
    /// prover that owns the device's memory budget raises it, and gives
    /// back the buffer [`GpuNtt::h_step`] returns once done with it
    /// ([`BufferPool::put`]).
    pub fn buffers(&self) -> &BufferPool<Fr> {
        &self.pool
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
        self.step_fused(stream, data, step, Fused::NONE)
    }

    /// [`GpuNtt::step`] with fused operands for a transform step.
    fn step_fused(
        &self,
        stream: &Stream,
        data: &mut DeviceBuffer<Fr>,
        step: &Step,
        fused: Fused<'_, DeviceBuffer<Fr>>,
    ) -> Result<(), NttError> {
        match step {
            Step::Run { flags, scale } => {
                let sc = match scale {
                    Some((s, k)) => Some(self.scale(stream, *s, *k)?),
                    None => None,
                };
                device::run(stream, data, *flags, &self.tw, sc.as_deref(), fused)
            }
            Step::Bitrev if !fused.is_none() => {
                Err(NttError::Twin("fused operands need a transform"))
            }
            Step::Bitrev => device::bitrev(stream, data),
        }
    }

    /// The plan's last two steps on `x`: the inverse transform reading
    /// `x·mul` (fused into its first pass; `x` alone when the product is
    /// already there) and subtracting `c` (c's result, [`HPlan::c_coeffs`])
    /// from its output, then the bit reversal.
    fn back(
        &self,
        stream: &Stream,
        plan: &HPlan,
        x: &mut DeviceBuffer<Fr>,
        mul: Option<&DeviceBuffer<Fr>>,
        c: &DeviceBuffer<Fr>,
    ) -> Result<(), NttError> {
        let [first, rest] = &plan.back;
        self.step_fused(stream, x, first, Fused { mul, sub: Some(c) })?;
        self.step(stream, x, rest)
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
        for v in [&mut *a, &mut *b] {
            for s in &plan.to_coset {
                self.step(stream, v, s)?;
            }
        }
        self.step(stream, c, &plan.c_coeffs)?;
        self.back(stream, &plan, a, Some(b), c)
    }

    /// The H step from host vectors of equal length `len` (bellperson's
    /// domain: the smallest power of two `n ≥ len`), leaving `h` on the
    /// device: the returned buffer holds all `n` coefficients (see
    /// [`GpuNtt::h_step_device`]). Staged (the default, see
    /// [`GpuNtt::h_upload_staged`]): three device buffers of `n` elements
    /// (12 GiB at 2^27), calls serialised per device; direct: two. Waits for
    /// the uploads; the transforms may still run on `stream` when it returns.
    /// Call it from a plain thread, not from a rayon worker (the staged path
    /// holds a mutex across its parallel copies).
    pub fn h_step(
        &self,
        stream: &Stream,
        a: &[Fr],
        b: &[Fr],
        c: &[Fr],
    ) -> Result<DeviceBuffer<Fr>, NttError> {
        self.h_step_marked(stream, a, b, c, None, false)
    }

    /// [`GpuNtt::h_step`], then waits for it and says how its device time
    /// split between the three uploads and the transforms. The split comes
    /// from four CUDA events around the uploads, so the step runs exactly as
    /// unprofiled (no synchronisation inside it).
    pub fn h_step_profiled(
        &self,
        stream: &Stream,
        a: &[Fr],
        b: &[Fr],
        c: &[Fr],
    ) -> Result<(DeviceBuffer<Fr>, HStepProfile), NttError> {
        self.h_step_profiled_in(stream, a, b, c, false)
    }

    /// [`GpuNtt::h_step_profiled`]; with `lean`, always the two-buffer
    /// direct path (8 GiB at 2^27 instead of the staged path's 12), for a
    /// device memory limit that the staged path would exceed.
    pub fn h_step_profiled_in(
        &self,
        stream: &Stream,
        a: &[Fr],
        b: &[Fr],
        c: &[Fr],
        lean: bool,
    ) -> Result<(DeviceBuffer<Fr>, HStepProfile), NttError> {
        let ev = (0..5)
            .map(|_| Event::new(&self.device))
            .collect::<Result<Vec<_>, _>>()
            .map_err(gpu)?;
        let x = self.h_step_marked(stream, a, b, c, Some(&ev), lean)?;
        ev[4].synchronize().map_err(gpu)?;
        // A failed measurement reads as zero: a timing never fails a step
        // whose result is good.
        let ms = |i: usize, j: usize| ev[i].elapsed_ms(&ev[j]).unwrap_or(0.0);
        let upload = ms(0, 1) + ms(2, 3);
        let total = ms(0, 4).max(upload);
        let d = |m: f32| Duration::from_secs_f64(f64::from(m.max(0.0)) / 1e3);
        Ok((
            x,
            HStepProfile {
                upload: d(upload),
                transforms: d(total - upload),
            },
        ))
    }

    /// True when [`GpuNtt::h_step`] stages its uploads (a pinned ring and a
    /// copy stream, overlapping the transforms) rather than copying the
    /// caller's memory directly: callers then gain nothing by page-locking
    /// a, b, c first. `CUZK_H_UPLOAD=direct` selects the direct path (for
    /// comparisons); staging also falls back to it when memory cannot be
    /// pinned.
    pub fn h_upload_staged(&self) -> bool {
        self.staging().is_some()
    }

    /// Copies host `src` into `dst[..src.len()]` for work enqueued next on
    /// `stream`: through the staging ring on the copy stream when staging
    /// is on (`stream` then waits for the copy's event, so the caller's
    /// thread returns once the last chunk is handed to the DMA), else a
    /// direct copy that waits. `src` may be pageable and may be reused
    /// when this returns. Call it from a plain thread, not from a rayon
    /// worker (as [`GpuNtt::h_step`]).
    pub fn upload(
        &self,
        stream: &Stream,
        dst: &mut DeviceBuffer<Fr>,
        src: &[Fr],
    ) -> Result<(), NttError> {
        if src.len() > dst.len() {
            return Err(NttError::LengthMismatch {
                expected: dst.len(),
                got: src.len(),
            });
        }
        match self.staging() {
            Some(st) => {
                let mut st = st.lock().unwrap_or_else(|p| p.into_inner());
                let st = &mut *st;
                st.ring.upload(&st.copy, dst, 0, src).map_err(pinned)?;
                st.ready[0].record(&st.copy).map_err(gpu)?;
                stream.wait(&st.ready[0]).map_err(gpu)
            }
            None => device::upload_padded(stream, dst, src),
        }
    }

    /// The staging state, created on first use; `None` when the direct path
    /// is chosen or staging is unavailable.
    fn staging(&self) -> Option<&Mutex<Staging>> {
        self.staging
            .get_or_init(|| Staging::new(&self.device).map(Mutex::new))
            .as_ref()
    }

    /// The H step from host vectors; with `marks`, events 0/1 bracket the
    /// uploads of a and b, 2/3 the upload of c, 4 the end (staged: 0/1
    /// bracket all three uploads on the copy stream, 2/3 an empty span).
    fn h_step_marked(
        &self,
        stream: &Stream,
        a: &[Fr],
        b: &[Fr],
        c: &[Fr],
        marks: Option<&[Event]>,
        lean: bool,
    ) -> Result<DeviceBuffer<Fr>, NttError> {
        // The staged path holds the staging mutex across rayon calls (the
        // ring's copies): from a rayon worker, work stealing could run
        // another H step on this thread and deadlock on that mutex.
        debug_assert!(
            rayon::current_thread_index().is_none(),
            "GpuNtt::h_step must not be called from a rayon worker"
        );
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
        let mark = |i: usize, on: &Stream| -> Result<(), NttError> {
            match marks {
                Some(m) => m[i].record(on).map_err(gpu),
                None => Ok(()),
            }
        };
        if let Some(st) = self.staging().filter(|_| !lean) {
            let mut st = st.lock().unwrap_or_else(|p| p.into_inner());
            return self.h_step_staged(stream, &mut st, [a, b, c], n, &plan, &mark);
        }

        self.h_step_lean_with(stream, n, |i, v| -> Result<(), NttError> {
            // Events 0/1 bracket the uploads of a and b, 2/3 that of c.
            match i {
                0 => {
                    mark(0, stream)?;
                    device::upload_padded(stream, v, a)
                }
                1 => {
                    device::upload_padded(stream, v, b)?;
                    mark(1, stream)
                }
                _ => {
                    mark(2, stream)?;
                    device::upload_padded(stream, v, c)?;
                    mark(3, stream)
                }
            }
        })
        .and_then(|x| {
            mark(4, stream)?;
            Ok(x)
        })
    }

    /// The H step in two device buffers of `n` elements (a power of two),
    /// the inputs written by `fill(i, buffer)` (i = 0: a, 1: b, 2: c; each
    /// enqueues on `stream` the whole vector, zero-padded to `n`): a and b
    /// are filled and taken to the coset, multiplied, then c takes b's
    /// buffer for its one transform. Returns the buffer holding all `n` coefficients of h (see
    /// [`GpuNtt::h_step_device`]); the other goes back to the pool. For a
    /// device memory limit the three-buffer paths would exceed (8 GiB at
    /// 2^27 instead of 12). Enqueued on `stream`; returns before the
    /// device finishes.
    pub fn h_step_lean_with<E: From<NttError>>(
        &self,
        stream: &Stream,
        n: usize,
        mut fill: impl FnMut(usize, &mut DeviceBuffer<Fr>) -> Result<(), E>,
    ) -> Result<DeviceBuffer<Fr>, E> {
        let plan = Self::plan_for(n)?;
        let mut x = self.pool.take(n, stream).map_err(gpu)?;
        let mut y = self.pool.take(n, stream).map_err(gpu)?;
        fill(0, &mut x)?;
        fill(1, &mut y)?;
        for v in [&mut x, &mut y] {
            for s in &plan.to_coset {
                self.step(stream, v, s)?;
            }
        }
        device::pointwise(stream, PW_MUL, &mut x, Some(&y), Fr::ONE).map_err(E::from)?;
        // Stream order puts c's writes after the product has read y.
        fill(2, &mut y)?;
        self.step(stream, &mut y, &plan.c_coeffs)?;
        self.back(stream, &plan, &mut x, None, &y)?;
        self.pool.put(y, stream);
        Ok(x)
    }

    /// The staged H step: three device buffers; a, b, c go through the
    /// pinned ring on the copy stream, and each vector's transforms start
    /// (on `stream`) as soon as its copy is done, while the CPU stages the
    /// next vector. One more n-element buffer than the direct path (4 GiB at
    /// 2^27) buys the overlap.
    fn h_step_staged(
        &self,
        stream: &Stream,
        st: &mut Staging,
        [a, b, c]: [&[Fr]; 3],
        n: usize,
        plan: &HPlan,
        mark: &dyn Fn(usize, &Stream) -> Result<(), NttError>,
    ) -> Result<DeviceBuffer<Fr>, NttError> {
        // The copy stream writes them first, so it is the one that waits
        // for their previous users.
        let copy = &st.copy;
        let mut bufs = (0..3)
            .map(|_| self.pool.take(n, copy))
            .collect::<Result<Vec<_>, _>>()
            .map_err(gpu)?;
        mark(0, copy)?;
        for (i, v) in [a, b, c].into_iter().enumerate() {
            let buf = &mut bufs[i];
            st.ring.upload(copy, buf, 0, v).map_err(pinned)?;
            buf.memset_range(copy, v.len(), n - v.len(), 0)
                .map_err(gpu)?;
            if i == 2 {
                // Before ready[2], so waiting for the end (event 4, after
                // the compute stream waited for ready[2]) covers them too.
                mark(1, copy)?;
                mark(2, copy)?;
                mark(3, copy)?;
            }
            st.ready[i].record(copy).map_err(gpu)?;
            stream.wait(&st.ready[i]).map_err(gpu)?;
            if i == 2 {
                self.step(stream, buf, &plan.c_coeffs)?;
            } else {
                for s in &plan.to_coset {
                    self.step(stream, buf, s)?;
                }
            }
        }
        let z = bufs.pop().expect("three buffers");
        let y = bufs.pop().expect("three buffers");
        let mut x = bufs.pop().expect("three buffers");
        self.back(stream, plan, &mut x, Some(&y), &z)?;
        mark(4, stream)?;
        // Back to the pool after the kernels that read them (stream order);
        // the ring's slots are guarded by their own events.
        self.pool.put(y, stream);
        self.pool.put(z, stream);
        Ok(x)
    }
}
