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
//! `register` (page-locking a, b, c),
//! `upload_abc` and `ntt_h` (the H step's copies and transforms, split by
//! CUDA events; deferred: `upload_r1cs` once per circuit, then `upload_z`,
//! `spmv` and `ntt_h`), `msm_h`, `classify_wait` (classification that outlasted the
//! H path), `bitmap_sums` and `tails` (the two halves of the G1 split MSMs
//! L, A, B), `g2_bitmap_sums` and `g2_tails` (B in G2); streamed sets:
//! `upload_z`, `upload_r1cs` (per matrix) and `spmv` on the device for an
//! admitted recorded circuit, else `spmv` on the CPU and `upload_abc`,
//! and one stage per base set
//! (`msm_h`, `msm_l`, `msm_a`, `msm_b_g1`, `msm_b_g2`), with the bytes
//! they moved counted as `stream_bytes`.
//!
//! Pipelining: with two callers (the engine's GPU workers, up to
//! [`Backend::pipeline_depth`] = 2 per device), on resident bases one
//! partition's H step (no backend lock) runs while the other's MSMs hold
//! the device lock; on streamed bases one partition's CPU classification
//! runs while the other holds the device lock from its H step to its last
//! pass (a partition that finds the device free classifies beside its own
//! H step).
//!
//! Residency and the device budget: every size is checked against what the
//! backend may use ([`DeviceBudget`]: the configured memory limit, never
//! more than the card has free). [`GpuBackend::preload`] uploads a
//! parameter set's five base sets once when they fit beside one
//! partition's working set (a PoRep 32 GiB set is ~47 GiB; an H200 holds
//! 139 GiB); otherwise ([`Residency::Transient`], or `Auto` on a smaller
//! card) the bases stay in host memory, page-locked once
//! (`cuzk_pinned_mem::SharedRegistration`), and every MSM streams them
//! through two device chunk buffers sized to what is free
//! (`cuzk_msm::gpu::StreamedBases`: one pass per base set serves every MSM
//! of the partition against it); the H step then takes its two-buffer
//! path and a deferred partition's a, b, c are computed on the CPU. A set
//! that fits neither way is refused at placement
//! ([`Groth16Error::DeviceTooSmall`]), never by an allocation deep in a
//! kernel call.
//!
//! Architecture invariant: the results equal the CPU backend's bit for bit
//! (same [`ProofParts`]), so for fixed r, s both backends give the same
//! proof bytes; tests on the GPU machine check it.

use std::sync::Arc;

use cuzk_field::{Fr, G1Affine, G1Projective, G2Affine};
use cuzk_gpu::{Device, Stream};
use cuzk_msm::gpu::{GpuBases, Precomputed};
use cuzk_ntt::gpu::GpuNtt;
use cuzk_pinned_mem::SharedRegistration;
use cuzk_spmv::gpu::DeviceR1cs;
use cuzk_synth::compiled::CompiledR1cs;
use cuzk_synth::ProvingAssignment;
use parking_lot::Mutex;

use crate::backend::{check_shape, Backend, Placement, ProofParts};
use crate::error::{Groth16Error, Result};
use crate::params::Parameters;
use crate::timings::Timings;

mod budget;
mod h_path;
mod msms;
mod placement;
mod warm;
pub use budget::{
    bases_bytes, h_precomputed, lean_h_bytes, min_device_bytes, msm_bytes, partition_bytes,
    preview, split_host_bytes, stream_bytes, stream_chunk, stream_chunks, streamed_bytes,
    working_bytes, DeviceBudget, RecordMode, StreamPlan, DEVICE_MARGIN,
};
use cuzk_msm::chunks::StreamOp;
use msms::split_all;

/// Where a parameter set's bases live while proving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Residency {
    /// Choose from the device budget: resident when the bases plus one
    /// partition's working set fit, else transient.
    Auto,
    /// Upload once, keep on the device for every proof.
    Resident,
    /// Keep the bases in page-locked host memory and stream them through
    /// the device per MSM.
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
    /// Whether a resident (0) and a streamed (1) placement has warmed up
    /// on this device: the kernels it loads stay loaded for the process,
    /// so a later placement (a set switch, maybe on a deadline) skips it.
    warmed: [std::sync::atomic::AtomicBool; 2],
    /// How [`Backend::place`] places a set ([`GpuBackend::with_residency`]).
    residency: Residency,
    /// The matrices of the recorded circuit deferred assignments were last
    /// proved with (uploaded on first use, replaced by another circuit's).
    r1cs: Mutex<Option<Arc<DeviceR1cs>>>,
    /// The device memory this backend may use.
    budget: DeviceBudget,
    /// The plan of a set placed to stream its bases from host memory
    /// (`None`: nothing streams): chunk sizes fixed at placement from the
    /// room beside the lean H step, and the recorded circuits whose a, b,
    /// c it computes on the device ([`StreamPlan`]).
    plan: Mutex<Option<StreamPlan>>,
    /// Page-locked host matrices of recorded circuits a streamed placement
    /// uploads one matrix at a time ([`RecordMode::PerMatrix`]).
    record_pins: Mutex<Vec<SharedRegistration<CompiledR1cs>>>,
    /// Why each set placed here is placed as it is, by the address of the
    /// key partitions are proved against ([`Backend::describe`]).
    notes: Mutex<Vec<(usize, String)>>,
}

/// Bytes as GiB with one decimal, for placement notes.
fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
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
            warmed: Default::default(),
            residency: Residency::Auto,
            r1cs: Mutex::new(None),
            budget,
            plan: Mutex::new(None),
            record_pins: Mutex::new(Vec::new()),
            notes: Mutex::new(Vec::new()),
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
        self.notes.lock().clear();
        *self.r1cs.lock() = None;
        self.ntt.buffers().clear();
        self.depth.store(1, std::sync::atomic::Ordering::Relaxed);
        self.unpin();
    }

    /// The plan of the set placed to stream from host memory (`None`:
    /// nothing streams): its room, chunk sizes and admitted circuits.
    pub fn stream_plan(&self) -> Option<StreamPlan> {
        self.plan.lock().clone()
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
}

/// Idle page-locked witness buffers kept for reuse: four 32 GiB PoRep
/// witnesses (4.2 GB each). The engine frees idle ones its host budget
/// cannot hold beside the next partition, all but the one that partition
/// reuses.
const WITNESS_IDLE_BYTES: u64 = 17 << 30;

/// The page-locked witness buffers all GPU backends of the process share
/// (registered portable: any device reads them).
fn witness_pool() -> Arc<dyn cuzk_field::FrAlloc> {
    static POOL: std::sync::OnceLock<Arc<cuzk_pinned_mem::WitnessPool>> =
        std::sync::OnceLock::new();
    POOL.get_or_init(|| cuzk_pinned_mem::WitnessPool::new(WITNESS_IDLE_BYTES))
        .clone()
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

impl Backend for GpuBackend {
    fn name(&self) -> String {
        format!("cuda:{}", self.device.ordinal())
    }

    fn evaluate_host_bytes(&self, key: &Parameters) -> u64 {
        budget::split_host_bytes(key, self.resident_for(key).is_none())
    }

    fn pipeline_depth(&self, params: &Parameters) -> usize {
        match self.resident_for(params) {
            Some(_) => self.depth.load(std::sync::atomic::Ordering::Relaxed),
            // A streamed partition does all its device work under the
            // device lock, so a second one inside `evaluate` uses no
            // device memory: it classifies on the CPU while the first has
            // the device. At depth 1 the classification (1.4 s of a 32 GiB
            // partition's 6.0 s under a 16 GiB limit on an H100) ran
            // between the two.
            None => 2,
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
            let (least, detail) = min_device_bytes(set);
            let free = self.available();
            if least > free {
                return Err(Groth16Error::DeviceTooSmall {
                    backend: self.name(),
                    need: least,
                    detail: format!("{detail}, beside the resident set"),
                    available: free,
                    limit: self.budget.limit,
                    total: self.budget.total,
                });
            }
            let _g = self.device_lock.lock();
            self.pin(set);
            self.plan_stream(set, free)?;
            let warm = self.warm_up(set, None)?;
            let resident = self.resident_key();
            self.notes.lock().retain(|(k, _)| {
                resident
                    .as_ref()
                    .is_some_and(|r| Arc::as_ptr(r) as usize == *k)
            });
            self.note(
                set,
                format!(
                    "another set is resident and in use; {} free of the {} limit{}",
                    gib(free),
                    gib(self.budget.limit),
                    placement::warmed(warm)
                ),
            );
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
                    // Auto chose transient: key the pins on the full set
                    // (Auto again, so the note gives the sizes that chose).
                    self.preload_keyed(set, set, mode)?;
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
            let id = key as *const Parameters as usize;
            self.notes.lock().retain(|(k, _)| *k != id);
        }
    }

    fn memory_info(&self) -> Option<(u64, u64)> {
        self.mem_info().ok()
    }

    fn describe(&self, key: &Parameters) -> String {
        self.describe_placement(key)
    }

    fn abc_on_device(&self, record: &Arc<CompiledR1cs>) -> bool {
        let mut plan = self.plan.lock();
        let Some(p) = plan.as_mut() else {
            // Resident bases: the matrices join them on first use.
            return true;
        };
        let shape = record.shape();
        let fr = std::mem::size_of::<Fr>() as u64;
        let witness = (shape.num_aux + shape.num_inputs) as u64 * fr;
        let whole = cuzk_spmv::device_bytes(record) as u64;
        let largest = cuzk_spmv::matrix_device_bytes(record) as u64;
        let Some(mode) = p.admit(record.key(), witness, whole, largest) else {
            return false;
        };
        // The H step's pool keeps the witness beside its two buffers.
        let two = 2 * p.domain() as u64 * fr;
        self.ntt
            .buffers()
            .set_limit(usize::try_from(two + witness).unwrap_or(usize::MAX));
        drop(plan);
        if mode == RecordMode::PerMatrix {
            self.pin_record(record);
        }
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
        // Resident bases, or (None) the set's queries in host memory,
        // streamed through the device per MSM.
        let resident = self.resident_for(params);
        if resident.is_none() && !params.has_queries() {
            return Err(crate::backend::released_error(self.name()));
        }
        let streamed = resident.is_none();
        // A streamed placement computes an admitted recorded circuit's a,
        // b, c on the device beside the lean H step
        // ([`Backend::abc_on_device`]); any other's on the CPU (the engine
        // then reserved their host memory).
        let record_mode = match &pa.deferred {
            Some(d) if streamed => self.record_mode(&d.0.key()),
            _ => None,
        };
        if streamed && pa.deferred.is_some() && record_mode.is_none() {
            timings.time("spmv", || pa.evaluate_deferred())?;
        }
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
                let h = match record_mode {
                    Some(mode) => {
                        self.h_from_record_lean(&d.0, mode, params, view, &mut h_times)?
                    }
                    None => self.h_from_record(&d.0, params, view, &mut h_times)?,
                };
                (h, None)
            } else {
                // Page-lock a, b, c where they are (outside the device
                // lock, so it overlaps another partition's kernels):
                // copies then run at ~55 GB/s instead of ~8. Failure (no
                // permission, memory limits) just means pageable copies.
                // Only for the direct upload path: the staged H step
                // copies through its own pinned ring while the transforms
                // run, which beats registering (~14 GB/s) then copying.
                let direct = streamed || !self.ntt.h_upload_staged();
                let pins = direct.then(|| {
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
                let (coeffs, prof) = self.ntt.h_step_profiled_in(
                    &self.stream,
                    &abc[0],
                    &abc[1],
                    &abc[2],
                    streamed,
                )?;
                let wall = t.elapsed();
                let up = prof.upload.min(wall);
                h_times.add_at("upload_abc", t, up);
                h_times.add_at("ntt_h", t + up, wall - up);
                // Freeing 1.6 GB at 2^24 takes ~30–40 ms of page
                // unmapping: off this path, while the H MSM runs.
                drop(pins);
                (coeffs, free_in_background(abc))
            };
            if streamed {
                // The H step's other buffers (its second one, the witness)
                // go back to the device for the MSM passes' chunks.
                self.ntt.buffers().release_held();
            }
            // A streamed partition's caller holds the lock already.
            let _g = (!streamed).then(|| self.device_lock.lock());
            let h = match &resident {
                Some(b) => h_times.time("msm_h", || {
                    b.h.msm_device_prefix(0, &coeffs, n_h)
                        .map_err(Groth16Error::from)
                }),
                None => {
                    let op = [StreamOp::DenseDevice { start: 0, len: n_h }];
                    self.stream_msm(&params.h, &op, Some(&coeffs), &mut h_times, "msm_h")
                }
            };
            // The MSM has finished with the coefficients (it waits for its
            // result): back to the H step's pool, or to the device for the
            // other passes' chunks.
            if streamed {
                drop(coeffs);
            } else {
                self.ntt.buffers().put(coeffs, &self.stream);
            }
            h.map(|h| (h, abc_freeing))
        };
        let t_classify = std::time::Instant::now();
        // A streamed partition has the device to itself from its H step to
        // its last MSM pass, whose memory the two phases time-share
        // (budget::StreamPlan). While another partition has the device, it
        // classifies first, beside that one; when the device is free it
        // classifies beside its own H path, as a resident one does (a lone
        // 32 GiB WindowPoSt partition's classification is 1.9 s, its H path
        // 2.8 s). A resident one always classifies beside its own H path and
        // takes the device lock for its MSMs only. The GPU workers are plain
        // threads, so no rayon worker running the classification ever
        // waits for the device lock held here.
        let classify = || split_all(view).map(|s| (s, t_classify.elapsed()));
        let beside = |h_path| {
            std::thread::scope(|sc| {
                let h = sc.spawn(h_path);
                let splits = classify();
                (splits, h.join())
            })
        };
        let (splits, h, whole, overlapped) = if streamed {
            let (first, whole) = match self.device_lock.try_lock() {
                Some(whole) => (None, whole),
                None => (Some(classify()), self.device_lock.lock()),
            };
            // The scratch the MSM pool kept from the last partition's
            // passes, back to the device for this H step.
            cuzk_msm::gpu::release_scratch(&self.device).map_err(Groth16Error::from)?;
            match first {
                Some(splits) => (splits, Ok(h_path()), Some(whole), false),
                None => {
                    let (splits, h) = beside(h_path);
                    (splits, h, Some(whole), true)
                }
            }
        } else {
            let (splits, h) = beside(h_path);
            (splits, h, None, true)
        };
        let (h, abc_freeing) = h.map_err(|_| Groth16Error::Backend {
            backend: self.name(),
            message: "the H step's thread panicked".into(),
        })??;
        let (splits, classify_time) = splits?;
        if !overlapped {
            timings.add_at("classify", t_classify, classify_time);
        } else {
            // Classification ran beside the H path: only the part of it
            // that outlasted the H path adds to the partition's wall time.
            let extra = classify_time.saturating_sub(h_times.total());
            timings.beside("classify", t_classify, classify_time);
            if !extra.is_zero() {
                timings.add("classify_wait", extra);
            }
        }
        timings.merge(&h_times);

        // The aux assignment (4.3 GB at 2^27) has served classification and
        // the H path: freed beside the L, A, B MSMs rather than after them.
        let aux_freeing = free_in_background(std::mem::take(&mut pa.aux_assignment));

        let _g = whole.is_none().then(|| self.device_lock.lock());
        let inputs = &pa.input_assignment;
        let lab = match &resident {
            Some(b) => self.resident_lab(b, inputs, &splits, timings)?,
            None => self.streamed_lab(params, inputs, &splits, timings)?,
        };
        drop(whole);
        // Joined before returning, so the memory is back before the
        // partition's reservation is. Only `drop` runs there; a panic in it
        // is not this proof's.
        for f in [abc_freeing, aux_freeing].into_iter().flatten() {
            let _ = f.join();
        }
        Ok(ProofParts {
            h,
            l: lab.l,
            a: lab.a,
            b_g1: lab.b_g1,
            b_g2: lab.b_g2,
        })
    }
}
