//! The GPU backend (`cuda` feature): the H step and every MSM of a
//! partition on one NVIDIA GPU, the parameters' bases resident on the device.
//!
//! Per partition ([`GpuBackend::evaluate`]):
//! 1. in parallel on the CPU (rayon), the aux and input scalars are split
//!    into zero / one / tail for L, A and B (`cuzk_msm::classify`; B's split
//!    serves G1 and G2), while the device runs
//! 2. the H step on a, b, c (uploaded, 7 NTTs + pointwise, `cuzk_ntt::gpu`)
//!    and the H MSM straight from the device-resident coefficients (no round
//!    trip over PCIe). For a deferred assignment (a recorded circuit,
//!    `CompiledR1cs::defer`) the witness is uploaded instead and a, b, c are
//!    computed on the device (`cuzk_spmv`) from the circuit's matrices,
//!    which stay resident (one recorded circuit per backend);
//! 3. L, A, B(G1), B(G2): bitmap sums over the ones and Pippenger over the
//!    gathered tails, against the resident bases;
//! 4. the caller's epilogue (r, s) and self-check on the CPU, as for the
//!    CPU backend.
//!
//! Stages reported to [`Timings`] (what `cuzk prove --timings` prints):
//! `upload_bases` (transient sets only), `register` (page-locking a, b, c),
//! `upload_abc` and `ntt_h` (the H step's copies and transforms, split by
//! CUDA events; deferred: `upload_r1cs` once per circuit, then `upload_z`,
//! `spmv` and `ntt_h`), `msm_h`, `classify_wait` (classification that outlasted the
//! H path), `bitmap_sums` and `tails` (the two halves of the G1 split MSMs
//! L, A, B), `g2_bitmap_sums` and `g2_tails` (B in G2).
//!
//! Pipelining: the H step takes no backend lock, so with two callers (a
//! batch, [`Backend::pipeline_depth`] = 2) one partition's H step runs while
//! the previous one's MSMs hold the device. (The engine's GPU workers hold
//! the engine's own device lock around the whole call, so they do not
//! overlap this way.)
//!
//! Residency: [`GpuBackend::preload`] uploads a parameter set's five base
//! sets once (a PoRep 32 GiB set is ~47 GiB; an H200 holds 139 GiB). A
//! partition proved against parameters that were not preloaded, or when
//! [`Residency::Transient`] is chosen, uploads each base set for the call and
//! frees it after (slower, but bounded by the largest single set); a set
//! preloaded as transient has its host memory page-locked once
//! (`cuzk_pinned_mem::SharedRegistration`), so those uploads stream from
//! pinned memory.
//!
//! Architecture invariant: the results equal the CPU backend's bit for bit
//! (same [`ProofParts`]), so for fixed r, s both backends give the same
//! proof bytes; tests on the GPU machine check it.

use std::sync::Arc;

use cuzk_field::{Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use cuzk_gpu::{Device, DeviceBuffer, Stream};
use cuzk_msm::gpu::{GpuBases, GpuPoint, Precomputed};
use cuzk_msm::{classify, Classified, MsmError, Projective};
use cuzk_ntt::gpu::GpuNtt;
use cuzk_pinned_mem::SharedRegistration;
use cuzk_spmv::gpu::DeviceR1cs;
use cuzk_synth::compiled::CompiledR1cs;
use cuzk_synth::ProvingAssignment;
use group::Group;
use parking_lot::Mutex;

use crate::backend::{check_shape, Backend, Placement, ProofParts};
use crate::error::{Groth16Error, Result};
use crate::params::Parameters;
use crate::timings::Timings;

mod budget;
pub use budget::{
    bases_bytes, h_precomputed, min_device_bytes, msm_bytes, partition_bytes, working_bytes,
    DeviceBudget, DEVICE_MARGIN,
};

/// Where a parameter set's bases live while proving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Residency {
    /// Choose from free device memory: resident when the bases plus the
    /// working set fit, else transient.
    Auto,
    /// Upload once, keep on the device for every proof.
    Resident,
    /// Upload each base set per partition and free it after.
    Transient,
}

impl std::str::FromStr for Residency {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(Residency::Auto),
            "resident" => Ok(Residency::Resident),
            "transient" | "stream" => Ok(Residency::Transient),
            _ => Err(format!(
                "unknown residency {s:?} (expected auto, resident or transient)"
            )),
        }
    }
}

/// The five base sets of one parameter set, on the device.
#[derive(Debug)]
struct Bases {
    h: GpuBases<G1Affine>,
    l: GpuBases<G1Affine>,
    a: GpuBases<G1Affine>,
    b_g1: GpuBases<G1Affine>,
    b_g2: GpuBases<G2Affine>,
}

#[derive(Debug)]
struct ResidentSet {
    /// Held so the address compared in `evaluate` can never be reused by
    /// another parameter set while these bases are cached.
    params: Arc<Parameters>,
    bases: Arc<Bases>,
}

/// The GPU backend for one device.
#[derive(Debug)]
pub struct GpuBackend {
    device: Device,
    ntt: Arc<GpuNtt>,
    /// The NTT stream (the MSMs run on each base set's own stream).
    stream: Stream,
    resident: Mutex<Option<ResidentSet>>,
    /// The page-locked host queries of a set preloaded as transient.
    pinned: Mutex<Vec<SharedRegistration<Parameters>>>,
    /// Serialises the MSMs and base uploads of concurrent callers (the
    /// engine's GPU workers, a pipelined batch): one partition's MSMs at a
    /// time, while another caller's H step (staging + transforms, serialised
    /// by `GpuNtt`) and CPU classification proceed outside the lock.
    device_lock: Mutex<()>,
    /// [`Backend::pipeline_depth`] for the resident set: 2 when it leaves
    /// room for two partitions' working sets, else 1.
    depth: std::sync::atomic::AtomicUsize,
    /// How [`Backend::place`] places a set ([`GpuBackend::with_residency`]).
    residency: Residency,
    /// The matrices of the recorded circuit deferred assignments were last
    /// proved with (uploaded on first use, replaced by another circuit's).
    r1cs: Mutex<Option<Arc<DeviceR1cs>>>,
    /// The device memory this backend may use.
    budget: DeviceBudget,
}

fn spmv_err(e: cuzk_spmv::SpmvError) -> Groth16Error {
    match e {
        cuzk_spmv::SpmvError::Compiled(c) => Groth16Error::Compiled(c),
        cuzk_spmv::SpmvError::Gpu(g) => Groth16Error::Gpu(g),
        e => Groth16Error::Backend {
            backend: "gpu".into(),
            message: format!("spmv: {e}"),
        },
    }
}

impl GpuBackend {
    /// A backend on device `ordinal` (twiddle tables built now).
    pub fn new(ordinal: usize) -> Result<Self> {
        Self::with_memory_limit(ordinal, None)
    }

    /// A backend on device `ordinal` that uses at most `limit` bytes of
    /// device memory (`None`: what is free now, less [`DEVICE_MARGIN`];
    /// never more than is free at any time, see [`DeviceBudget`]).
    pub fn with_memory_limit(ordinal: usize, limit: Option<u64>) -> Result<Self> {
        let device = Device::new(ordinal)?;
        let (free, total) = device.mem_info()?;
        let budget = DeviceBudget::new(limit, free, total);
        let ntt = GpuNtt::for_device(&device)?;
        let stream = Stream::new(&device)?;
        Ok(GpuBackend {
            device,
            ntt,
            stream,
            resident: Mutex::new(None),
            pinned: Mutex::new(Vec::new()),
            device_lock: Mutex::new(()),
            depth: std::sync::atomic::AtomicUsize::new(1),
            residency: Residency::Auto,
            r1cs: Mutex::new(None),
            budget,
        })
    }

    /// The device memory budget ([`DeviceBudget`]).
    pub fn budget(&self) -> DeviceBudget {
        self.budget
    }

    /// Device bytes this backend may still allocate: its limit less what
    /// it holds, and no more than the device has free (0 when unreadable).
    pub fn available(&self) -> u64 {
        self.mem_info()
            .map_or(0, |(free, _)| self.budget.available(free))
    }

    /// Sets how [`Backend::place`] places parameter sets (default
    /// [`Residency::Auto`]).
    pub fn with_residency(mut self, mode: Residency) -> Self {
        self.residency = mode;
        self
    }

    /// The device this backend runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Free and total device memory in bytes.
    pub fn mem_info(&self) -> Result<(u64, u64)> {
        self.device.mem_info().map_err(Groth16Error::from)
    }

    /// Uploads `params`' bases once so every later partition proved against
    /// this same `Arc` uses them from device memory. With
    /// [`Residency::Auto`], decides from free device memory; returns the
    /// residency in effect. Replaces any previously preloaded set.
    pub fn preload(&self, params: &Arc<Parameters>, mode: Residency) -> Result<Residency> {
        self.preload_keyed(params, params, mode)
    }

    /// [`GpuBackend::preload`] of the queries of `set`, with later
    /// partitions recognised by `key` (the same set, possibly without its
    /// queries: [`Parameters::without_queries`]). A transient placement
    /// needs the queries in `key`.
    pub fn preload_keyed(
        &self,
        set: &Parameters,
        key: &Arc<Parameters>,
        mode: Residency,
    ) -> Result<Residency> {
        if !set.has_queries() {
            return Err(crate::backend::released_error(self.name()));
        }
        let params = set;
        let mut slot = self.resident.lock();
        *slot = None; // free the old set before measuring free memory
        self.ntt.buffers().clear(); // and the old set's H-step buffers
        self.depth.store(1, std::sync::atomic::Ordering::Relaxed);
        self.unpin();
        let need = bases_bytes(params) + working_bytes(params, 1);
        let free = self.available();
        // Admission: a set this device cannot prove with at all is refused
        // here, with what it needs, never by an allocation failing later.
        let (least, detail) = min_device_bytes(params);
        if least > free {
            return Err(Groth16Error::DeviceTooSmall {
                backend: self.name(),
                need: least,
                detail,
                available: free,
                limit: self.budget.limit,
                total: self.budget.total,
            });
        }
        let mode = match mode {
            Residency::Auto => {
                if need <= free {
                    Residency::Resident
                } else {
                    Residency::Transient
                }
            }
            m => m,
        };
        if mode == Residency::Resident {
            let _g = self.device_lock.lock();
            let h_pre = h_precomputed(params, self.available(), cuzk_gpu::tuning::Tuning::get().h_copies_cap);
            let bases = self.upload(params, h_pre)?;
            *slot = Some(ResidentSet {
                params: Arc::clone(key),
                bases: Arc::new(bases),
            });
            // Two partitions in flight (one's H step beside the other's
            // MSMs) only when both working sets fit beside the bases.
            // (An unreadable free-memory figure just means no pipelining.)
            let depth = if self.available() >= working_bytes(params, 2) {
                2
            } else {
                1
            };
            self.depth
                .store(depth, std::sync::atomic::Ordering::Relaxed);
            self.keep_h_buffers(depth, params);
        } else {
            if !key.has_queries() {
                return Err(crate::backend::released_error(self.name()));
            }
            self.pin(key);
            self.keep_h_buffers(1, params);
        }
        Ok(mode)
    }

    /// Lets the H step keep the buffers of `depth` partitions between
    /// calls: the working memory the placement reserved for them
    /// ([`partition_bytes`] each), so the pool never holds more than the
    /// budget already counts as used. Keeping them saves an allocation and a
    /// `cudaFree` (which waits for the whole device, the other partition's
    /// MSMs included) per buffer and partition.
    fn keep_h_buffers(&self, depth: usize, params: &Parameters) {
        let bytes = (depth as u64).saturating_mul(partition_bytes(params));
        self.ntt
            .buffers()
            .set_limit(usize::try_from(bytes).unwrap_or(usize::MAX));
    }

    /// The set preloaded as resident, if any.
    fn resident_key(&self) -> Option<Arc<Parameters>> {
        self.resident.lock().as_ref().map(|r| Arc::clone(&r.params))
    }

    /// Page-locks the five queries of `params` for transient uploads. A
    /// failure (memory-lock limits) leaves them pageable: slower uploads,
    /// same proofs.
    fn pin(&self, params: &Arc<Parameters>) {
        let g1 = |f: fn(&Parameters) -> &[G1Affine]| SharedRegistration::new(Arc::clone(params), f);
        let pins = [
            g1(|p| &p.h),
            g1(|p| &p.l),
            g1(|p| &p.a),
            g1(|p| &p.b_g1),
            SharedRegistration::new(Arc::clone(params), |p: &Parameters| &p.b_g2[..]),
        ];
        *self.pinned.lock() = pins.into_iter().filter_map(|r| r.ok()).collect();
    }

    /// Unregisters pinned queries, outside any transient upload.
    fn unpin(&self) {
        let _g = self.device_lock.lock();
        self.pinned.lock().clear();
    }

    /// True when the H step stages a, b, c through the NTT's pinned ring
    /// (the default) rather than page-locking them (`CUZK_H_UPLOAD=direct`).
    pub fn h_upload_staged(&self) -> bool {
        self.ntt.h_upload_staged()
    }

    /// Bytes of host memory page-locked for transient uploads (0 when the
    /// set is resident, pinning is unavailable, or it failed).
    pub fn pinned_bytes(&self) -> usize {
        self.pinned
            .lock()
            .iter()
            .map(SharedRegistration::bytes)
            .sum()
    }

    /// Drops the resident bases (frees device memory) and unpins the host
    /// queries of a transient set.
    pub fn unload(&self) {
        *self.resident.lock() = None;
        self.ntt.buffers().clear();
        self.depth.store(1, std::sync::atomic::Ordering::Relaxed);
        self.unpin();
    }

    /// The shifted copies the resident set's H bases hold, if any
    /// ([`h_precomputed`]).
    pub fn h_copies(&self) -> Option<Precomputed> {
        self.resident
            .lock()
            .as_ref()
            .and_then(|r| r.bases.h.precomputed())
    }

    /// True when `params` is the preloaded set.
    pub fn is_resident(&self, params: &Parameters) -> bool {
        self.resident
            .lock()
            .as_ref()
            .is_some_and(|r| std::ptr::eq(Arc::as_ptr(&r.params), params))
    }

    /// Uploads the five base sets; the H bases with shifted copies when
    /// `h_pre` says so ([`h_precomputed`]).
    fn upload(&self, params: &Parameters, h_pre: Option<Precomputed>) -> Result<Bases> {
        let up1 = |v: &[G1Affine]| GpuBases::upload(&self.device, v).map_err(Groth16Error::from);
        let h = match h_pre {
            Some(p) => GpuBases::upload_precomputed(&self.device, &params.h, p)?,
            None => up1(&params.h)?,
        };
        Ok(Bases {
            h,
            l: up1(&params.l)?,
            a: up1(&params.a)?,
            b_g1: up1(&params.b_g1)?,
            b_g2: GpuBases::upload(&self.device, &params.b_g2)?,
        })
    }

    fn resident_for(&self, params: &Parameters) -> Option<Arc<Bases>> {
        self.resident
            .lock()
            .as_ref()
            .filter(|r| std::ptr::eq(Arc::as_ptr(&r.params), params))
            .map(|r| Arc::clone(&r.bases))
    }

    /// The device copy of `rec`'s matrices, uploaded on first use (one
    /// recorded circuit per backend: another one replaces it). Two
    /// partitions then no longer fit beside it? The pipeline depth drops
    /// to 1 rather than risk a failed allocation mid-proof.
    fn device_r1cs(
        &self,
        rec: &CompiledR1cs,
        params: &Parameters,
        times: &mut Timings,
    ) -> Result<Arc<DeviceR1cs>> {
        let mut slot = self.r1cs.lock();
        if let Some(d) = slot.as_ref().filter(|d| d.key() == rec.key()) {
            return Ok(Arc::clone(d));
        }
        *slot = None; // free the old copy before allocating the new one
        let stream = Stream::new(&self.device)?;
        let d = times
            .time("upload_r1cs", || DeviceR1cs::upload(&stream, rec))
            .map_err(spmv_err)?;
        let d = Arc::new(d);
        *slot = Some(Arc::clone(&d));
        let depth = self.depth.load(std::sync::atomic::Ordering::Relaxed);
        // Buffers the H step keeps are working memory, free for this.
        let free = self.available() + self.ntt.buffers().held_bytes() as u64;
        if depth > 1 && free < working_bytes(params, depth) {
            self.depth.store(1, std::sync::atomic::Ordering::Relaxed);
            self.keep_h_buffers(1, params);
        }
        Ok(d)
    }

    /// The witness of `pa` (inputs, aux) in device buffers from the H
    /// step's pool. Aux in pooled page-locked memory (the engine's witness
    /// buffers, [`GpuBackend::witness_alloc`]) goes up by DMA on a copy
    /// stream of this call's own, with no CPU copy and no lock shared with
    /// the other GPU worker, overlapping whatever kernels run meanwhile; it
    /// has landed when this returns. Other memory goes through the NTT's
    /// staging ring (a CPU copy into pinned chunks), enqueued ahead of the
    /// backend stream's next work.
    fn upload_witness(
        &self,
        pa: &ProvingAssignment,
    ) -> Result<(DeviceBuffer<Fr>, DeviceBuffer<Fr>)> {
        let pool = self.ntt.buffers();
        if pa.aux_assignment.is_page_locked() {
            // The copy stream writes the buffers first, so it is the one
            // that waits for their previous users (the pool's events).
            let copy = Stream::new(&self.device)?;
            let mut inputs = pool.take(pa.input_assignment.len(), &copy)?;
            let mut aux = pool.take(pa.aux_assignment.len(), &copy)?;
            inputs.upload(&copy, &pa.input_assignment)?;
            aux.upload(&copy, &pa.aux_assignment)?;
            return Ok((inputs, aux));
        }
        let s = &self.stream;
        let mut inputs = pool.take(pa.input_assignment.len(), s)?;
        let mut aux = pool.take(pa.aux_assignment.len(), s)?;
        self.ntt.upload(s, &mut inputs, &pa.input_assignment)?;
        self.ntt.upload(s, &mut aux, &pa.aux_assignment)?;
        Ok((inputs, aux))
    }

    /// The H step of a deferred assignment: the witness uploaded, a, b, c
    /// computed on the device from `rec`'s resident matrices straight into
    /// the H step's buffers (zero-padded to the domain), then the
    /// transforms. Returns the buffer holding h; the stage split comes
    /// from CUDA events, so nothing synchronises inside.
    fn h_from_record(
        &self,
        rec: &CompiledR1cs,
        params: &Parameters,
        pa: &ProvingAssignment,
        times: &mut Timings,
    ) -> Result<DeviceBuffer<Fr>> {
        use cuzk_gpu::Event;
        let dev = self.device_r1cs(rec, params, times)?;
        let n = params.domain_size();
        let s = &self.stream;
        let pool = self.ntt.buffers();
        let take = |len: usize| pool.take(len, s).map_err(Groth16Error::from);
        let (mut a, mut b, mut c) = (take(n)?, take(n)?, take(n)?);
        let ev = (0..3)
            .map(|_| Event::new(&self.device))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let t = std::time::Instant::now();
        // Returns once the witness is on the device (DMA) or its copies are
        // enqueued ahead of `s`'s next work (staged): the host clock then
        // measures the upload, the events the rest.
        let (inputs, aux) = self.upload_witness(pa)?;
        let up = t.elapsed();
        ev[0].record(s)?;
        dev.evaluate(s, &inputs, &aux, [&mut a, &mut b, &mut c])
            .map_err(spmv_err)?;
        ev[1].record(s)?;
        self.ntt.h_step_device(s, &mut a, &mut b, &mut c)?;
        ev[2].record(s)?;
        ev[2].synchronize()?;
        let wall = t.elapsed();
        // A failed measurement reads as zero: a timing never fails a step
        // whose result is good.
        let ms = |i: usize, j: usize| f64::from(ev[i].elapsed_ms(&ev[j]).unwrap_or(0.0).max(0.0));
        let d = |m: f64| std::time::Duration::from_secs_f64(m / 1e3);
        let spmv = d(ms(0, 1)).min(wall.saturating_sub(up));
        times.add_at("upload_z", t, up);
        times.add_at("spmv", t + up, spmv);
        times.add_at("ntt_h", t + up + spmv, wall.saturating_sub(up + spmv));
        for buf in [inputs, aux, b, c] {
            pool.put(buf, s);
        }
        Ok(a)
    }
}

/// Idle page-locked witness buffers kept for reuse: four 32 GiB PoRep
/// witnesses (4.2 GB each). The engine frees idle ones its host budget
/// cannot hold beside the next partition.
const WITNESS_IDLE_BYTES: u64 = 17 << 30;

/// The page-locked witness buffers all GPU backends of the process share
/// (registered portable: any device reads them).
fn witness_pool() -> Arc<dyn cuzk_field::FrAlloc> {
    static POOL: std::sync::OnceLock<Arc<cuzk_pinned_mem::WitnessPool>> =
        std::sync::OnceLock::new();
    POOL.get_or_init(|| cuzk_pinned_mem::WitnessPool::new(WITNESS_IDLE_BYTES))
        .clone()
}

/// The zero/one/tail splits of one partition.
struct Splits {
    l: Classified,
    a_aux: Classified,
    b_inputs: Classified,
    b_aux: Classified,
}

/// Drops `v` on a new thread and returns its handle, or drops it inline
/// (`spawn` drops its closure, and with it `v`, when it fails) and returns
/// `None`.
fn free_in_background<T: Send + 'static>(v: T) -> Option<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("cuzk-free".into())
        .spawn(move || drop(v))
        .ok()
}

fn split_all(pa: &ProvingAssignment) -> std::result::Result<Splits, MsmError> {
    let aux = &pa.aux_assignment;
    let ((l, a_aux), (b_inputs, b_aux)) = rayon::join(
        || {
            rayon::join(
                || classify(aux, None),
                || classify(aux, Some(&pa.a_aux_density)),
            )
        },
        || {
            rayon::join(
                || classify(&pa.input_assignment, Some(&pa.b_input_density)),
                || classify(aux, Some(&pa.b_aux_density)),
            )
        },
    );
    Ok(Splits {
        l: l?,
        a_aux: a_aux?,
        b_inputs: b_inputs?,
        b_aux: b_aux?,
    })
}

/// The two halves of the split MSMs against one base set: the bitmap sums
/// (scalars equal to one) and the Pippenger tails, kept apart so `--timings`
/// can report them as separate stages.
fn split_parts<C: GpuPoint>(
    bases: &GpuBases<C>,
    parts: &[(usize, &Classified)],
    timings: &mut Timings,
    ones_stage: &'static str,
    tail_stage: &'static str,
) -> std::result::Result<Projective<C>, MsmError> {
    let mut acc = Projective::<C>::identity();
    timings.time(ones_stage, || -> std::result::Result<(), MsmError> {
        for &(start, c) in parts {
            if c.ones.count_ones() > 0 {
                acc += bases.bitmap_sum(start, &c.ones)?;
            }
        }
        Ok(())
    })?;
    timings.time(tail_stage, || -> std::result::Result<(), MsmError> {
        for &(start, c) in parts {
            if !c.tail_indices.is_empty() {
                acc += bases.msm_gather(start, &c.tail_indices, &c.tail_scalars)?;
            }
        }
        Ok(())
    })?;
    Ok(acc)
}

impl Backend for GpuBackend {
    fn name(&self) -> String {
        format!("cuda:{}", self.device.ordinal())
    }

    fn pipeline_depth(&self, params: &Parameters) -> usize {
        // Only for the resident set: partitions of another set upload
        // their bases per call, and two of those at once could exhaust
        // device memory.
        match self.resident_for(params) {
            Some(_) => self.depth.load(std::sync::atomic::Ordering::Relaxed),
            None => 1,
        }
    }

    fn place(
        &self,
        set: &Arc<Parameters>,
        hollow: &Arc<Parameters>,
        may_evict: bool,
    ) -> Result<Placement> {
        let occupied = self
            .resident_key()
            .is_some_and(|k| !Arc::ptr_eq(&k, set) && !Arc::ptr_eq(&k, hollow));
        if occupied && !may_evict {
            // The resident set stays; this one streams from pinned host
            // memory (replacing the pins of any earlier transient set, under
            // the device lock so no upload reads from them meanwhile).
            if !set.has_queries() {
                return Err(crate::backend::released_error(self.name()));
            }
            let _g = self.device_lock.lock();
            self.pin(set);
            return Ok(Placement::Host);
        }
        let mode = self.residency;
        // Resident sets are recognised by the hollow key, so the caller may
        // drop the host copy; transient ones stream from the full set.
        let key = match mode {
            Residency::Transient => set,
            _ => hollow,
        };
        match self.preload_keyed(set, key, mode)? {
            Residency::Resident => Ok(Placement::Resident),
            _ => {
                if !Arc::ptr_eq(key, set) {
                    // Auto chose transient: key the pins on the full set.
                    self.preload_keyed(set, set, Residency::Transient)?;
                }
                Ok(Placement::Host)
            }
        }
    }

    fn evict(&self, key: &Parameters) {
        if self.is_resident(key) {
            self.unload();
        } else if self
            .pinned
            .lock()
            .first()
            .is_some_and(|r| std::ptr::eq(Arc::as_ptr(r.owner()), key))
        {
            self.unpin();
        }
    }

    fn memory_info(&self) -> Option<(u64, u64)> {
        self.mem_info().ok()
    }

    fn abc_on_device(&self) -> bool {
        true
    }

    fn witness_alloc(&self) -> Option<Arc<dyn cuzk_field::FrAlloc>> {
        Some(witness_pool())
    }

    fn evaluate(
        &self,
        params: &Parameters,
        mut pa: ProvingAssignment,
        timings: &mut Timings,
    ) -> Result<ProofParts> {
        check_shape(params, &pa)?;
        let resident = self.resident_for(params);
        let transient_bases;
        let bases: &Bases = match &resident {
            Some(b) => b,
            None => {
                if !params.has_queries() {
                    return Err(crate::backend::released_error(self.name()));
                }
                let _g = self.device_lock.lock();
                transient_bases = timings.time("upload_bases", || self.upload(params, None))?;
                &transient_bases
            }
        };
        let n_h = params.counts().h;

        // CPU classification (rayon, on this thread) overlaps the device's
        // H step and H MSM (on a plain scoped thread). Not rayon::join: the
        // H path holds locks (GpuNtt's staging ring, the device lock) while
        // it calls into rayon (the ring's parallel copies), and a rayon
        // worker waiting there may steal another partition's H path, which
        // would then wait for a lock its own thread holds. A plain thread
        // never steals.
        let mut h_times = Timings::default();
        // a, b, c belong to the H path alone (classification reads the aux
        // assignment): it frees them once they are on the device.
        let abc = [
            std::mem::take(&mut pa.a),
            std::mem::take(&mut pa.b),
            std::mem::take(&mut pa.c),
        ];
        let view = &pa;
        let h_path = || -> Result<(G1Projective, Option<std::thread::JoinHandle<()>>)> {
            let (coeffs, abc_freeing) = if let Some(d) = &view.deferred {
                (self.h_from_record(&d.0, params, view, &mut h_times)?, None)
            } else {
                // Page-lock a, b, c where they are (outside the device
                // lock, so it overlaps another partition's kernels):
                // copies then run at ~55 GB/s instead of ~8 (docs/GPU.md
                // §8). Failure (no permission, memory limits) just means
                // pageable copies. Only for the direct upload path: the
                // staged H step copies through its own pinned ring while
                // the transforms run, which beats registering (~14 GB/s)
                // then copying.
                let pins = (!self.ntt.h_upload_staged()).then(|| {
                    h_times.time("register", || {
                        [&abc[0], &abc[1], &abc[2]]
                            .map(|v| cuzk_pinned_mem::Registered::new_read_only(v).ok())
                    })
                });
                // No device lock for the H step: its CPU staging and its
                // transforms overlap another partition's MSMs (GpuNtt
                // serialises staged H steps; direct ones share one stream).
                // Wall time, split by the device's own account of the
                // uploads (CUDA events), so the stages still add up.
                let t = std::time::Instant::now();
                let (coeffs, prof) = self
                    .ntt
                    .h_step_profiled(&self.stream, &abc[0], &abc[1], &abc[2])
                    ?;
                let wall = t.elapsed();
                let up = prof.upload.min(wall);
                h_times.add_at("upload_abc", t, up);
                h_times.add_at("ntt_h", t + up, wall - up);
                // Freeing 1.6 GB at 2^24 takes ~30–40 ms of page
                // unmapping: off this path, while the H MSM runs.
                drop(pins);
                (coeffs, free_in_background(abc))
            };
            let _g = self.device_lock.lock();
            let h = h_times.time("msm_h", || {
                bases.h.msm_device_prefix(0, &coeffs, n_h).map_err(Groth16Error::from)
            });
            // The MSM has finished with the coefficients (it waits for its
            // result): back to the H step's pool.
            self.ntt.buffers().put(coeffs, &self.stream);
            h.map(|h| (h, abc_freeing))
        };
        let t_classify = std::time::Instant::now();
        let (splits, h) = std::thread::scope(|sc| {
            let h = sc.spawn(h_path);
            let splits = split_all(view).map(|s| (s, t_classify.elapsed()));
            (splits, h.join())
        });
        let (h, abc_freeing) = h.map_err(|_| Groth16Error::Backend {
            backend: self.name(),
            message: "the H step's thread panicked".into(),
        })??;
        let (splits, classify_time) = splits?;
        // Classification ran beside the H path: only the part of it that
        // outlasted the H path adds to the partition's wall time.
        let extra = classify_time.saturating_sub(h_times.total());
        timings.beside("classify", t_classify, classify_time);
        timings.merge(&h_times);
        if !extra.is_zero() {
            timings.add("classify_wait", extra);
        }

        // The aux assignment (4.3 GB at 2^27) has served classification and
        // the H path: freed beside the L, A, B MSMs rather than after them.
        let aux_freeing = free_in_background(std::mem::take(&mut pa.aux_assignment));

        let _g = self.device_lock.lock();
        let ni = pa.input_assignment.len();
        let nbi = splits.b_inputs.selected();
        // G1 first (L, A, B), each half timed as one stage over the three
        // base sets; A's public inputs are dense and join the tails.
        let (bits, tails) = ("bitmap_sums", "tails");
        let l = split_parts(&bases.l, &[(0, &splits.l)], timings, bits, tails)?;
        let a_inputs = timings
            .time(tails, || bases.a.msm(0, &pa.input_assignment))
            ?;
        let a = a_inputs
            + split_parts(&bases.a, &[(ni, &splits.a_aux)], timings, bits, tails)
                ?;
        let b_parts = [(0, &splits.b_inputs), (nbi, &splits.b_aux)];
        let b_g1 = split_parts(&bases.b_g1, &b_parts, timings, bits, tails)?;
        let b_g2: G2Projective =
            split_parts(&bases.b_g2, &b_parts, timings, "g2_bitmap_sums", "g2_tails")
                ?;
        // Joined before returning, so the memory is back before the
        // partition's reservation is. Only `drop` runs there; a panic in it
        // is not this proof's.
        for f in [abc_freeing, aux_freeing].into_iter().flatten() {
            let _ = f.join();
        }
        Ok(ProofParts {
            h,
            l,
            a,
            b_g1,
            b_g2,
        })
    }
}
