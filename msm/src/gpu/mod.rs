//! The GPU Pippenger MSM over G1 and G2 (`cuda/msm_pipeline.cuh`).
//!
//! The pipeline is written once as `__host__ __device__` C++ step functors
//! driven through an executor: the device executor launches one thread per
//! index, the host executor runs plain loops. So the complete algorithm —
//! signed digits from Montgomery scalars, per-window counting sort of point
//! indices by bucket, XYZZ bucket accumulation in levels, running-sum bucket
//! reduction — also runs on the CPU (the window sums then come back and
//! [`combine_windows`] doubles them together here, on the CPU, in both cases):
//! [`host`] exposes that twin, and the CI tests compare it with
//! [`crate::msm`] (`tests/gpu_host.rs`). The GPU run then confirms it.
//!
//! Entry points:
//! - [`window_for`]: the window width the GPU MSM uses for `n` points;
//! - [`host`]: the host twin (always built);
//! - with the `cuda` feature, [`GpuBases`]: a base set resident on the
//!   device (upload once; MSMs over any sub-range, batches, gathered tails,
//!   bitmap sums and the density split against it, scalars from the host or
//!   already on the device), and [`StreamedBases`] for base sets larger
//!   than device memory: every MSM of a partition in one pass over
//!   double-buffered chunks (the plan in [`crate::chunks`]);
//! - [`fixed_base_mul`] / [`GpuFixedBase`] (with `cuda`): `scalars[i]·base`
//!   for one base and many scalars, affine (test parameter generation;
//!   method and floor in `fixed_base.rs`), with the host twin
//!   [`host::fixed_base_mul`].

use cuzk_field::{Field, Fr, G1Affine, G1Projective, G2Affine, G2Projective, Group};
use cuzk_gpu::DeviceCopy;

use crate::{MsmCurve, MsmError, Projective};

#[cfg(feature = "cuda")]
mod device;
#[allow(unsafe_code)]
mod ffi;
mod fixed_base;
#[allow(unsafe_code)]
mod fixed_base_ffi;

#[cfg(feature = "cuda")]
mod streamed;
#[cfg(feature = "cuda")]
pub use device::GpuBases;
#[cfg(feature = "cuda")]
pub use fixed_base::{fixed_base_mul, GpuFixedBase};
pub use fixed_base::{
    fixed_base_table, fixed_base_table_len, fixed_base_window, fixed_base_windows,
    FIXED_BASE_CHUNK, FIXED_BASE_WINDOWS,
};
#[cfg(feature = "cuda")]
pub use streamed::{StreamStats, StreamedBases};

/// A curve the GPU pipeline is instantiated for: [`G1Affine`], [`G2Affine`].
pub trait GpuPoint: MsmCurve + DeviceCopy {
    /// `CUZK_MSM_G1` / `CUZK_MSM_G2` of `cuda/cuzk_msm.h`.
    const GPU_CURVE: i32;

    /// The pipeline's XYZZ point (X, Y, ZZ, ZZZ: x = X/ZZ, y = Y/ZZZ; ZZ = 0
    /// is infinity) stored as two affine-sized slots (X, Y) and (ZZ, ZZZ),
    /// as Jacobian coordinates without an inversion: (X·ZZ², Y·ZZ³, ZZZ)
    /// (with ZZ = z², ZZZ = z³ that is (X·z⁴, Y·z⁶, z³), the same point).
    fn xyzz_to_curve(xy: &Self, zz: &Self) -> Projective<Self>;
}

impl GpuPoint for G1Affine {
    const GPU_CURVE: i32 = crate::sys::CUZK_MSM_G1 as i32;

    fn xyzz_to_curve(xy: &Self, zz: &Self) -> G1Projective {
        jacobian(xy.x(), xy.y(), zz.x(), zz.y()).map_or_else(G1Projective::identity, |(x, y, z)| {
            G1Projective::from_raw_unchecked(x, y, z)
        })
    }
}

impl GpuPoint for G2Affine {
    const GPU_CURVE: i32 = crate::sys::CUZK_MSM_G2 as i32;

    fn xyzz_to_curve(xy: &Self, zz: &Self) -> G2Projective {
        jacobian(xy.x(), xy.y(), zz.x(), zz.y()).map_or_else(G2Projective::identity, |(x, y, z)| {
            G2Projective::from_raw_unchecked(x, y, z)
        })
    }
}

/// Jacobian (X·ZZ², Y·ZZ³, ZZZ) of an XYZZ point; `None` for infinity (ZZ = 0).
fn jacobian<F: Field>(x: F, y: F, zz: F, zzz: F) -> Option<(F, F, F)> {
    if bool::from(zz.is_zero()) {
        return None;
    }
    let sq = zz.square();
    Some((x * sq, y * sq * zz, zzz))
}

/// Σ_j 2^(c·j)·win_j (Horner) from the W = [`windows`]`(c)` window sums the
/// pipeline writes, two slots per XYZZ point (see
/// [`GpuPoint::xyzz_to_curve`]). ~256 doublings: ~0.1 ms on a CPU core
/// (G1), where one GPU thread took ~10 ms.
pub(crate) fn combine_windows<C: GpuPoint>(slots: &[C], c: u32) -> Projective<C> {
    let mut acc = Projective::<C>::identity();
    for pair in slots.chunks_exact(2).rev() {
        for _ in 0..c {
            acc = acc.double();
        }
        acc += C::xyzz_to_curve(&pair[0], &pair[1]);
    }
    // Tests only (cuzk-gpu's `fault-injection`): a wrong result on the
    // curve, which the prover's self-check must catch.
    if cuzk_gpu::fault::take(cuzk_gpu::fault::Fault::CorruptMsm) {
        acc += Projective::<C>::generator();
    }
    acc
}

/// Slots of the window-sum output of an MSM at width `c` against `copies`
/// shifted copies (two per bucket window; 1 copy: two per window).
pub(crate) fn bucket_slots(c: u32, copies: u32) -> usize {
    2 * windows(c).div_ceil(copies) as usize
}

/// Slots of a streamed MSM's bucket accumulator at width `c`: every bucket
/// of every window ([`windows`]`(c)` · 2^(c−1)), two slots per XYZZ point.
pub(crate) fn accumulator_slots(c: u32) -> usize {
    2 * ((windows(c) as usize) << (c - 1))
}

/// Smallest and largest window widths the pipeline supports.
pub const WINDOWS: std::ops::RangeInclusive<u32> = 2..=24;

/// Number of signed windows for width `c`: `ceil(256 / c)` (one bit more
/// than the 255-bit scalars, so the top window never carries out).
pub fn windows(c: u32) -> u32 {
    256u32.div_ceil(c)
}

/// Whether `n` points can run with window `c` (u32 offsets in the sort).
pub(crate) fn args_ok(n: usize, c: u32) -> bool {
    WINDOWS.contains(&c) && (windows(c) as u64) * (n as u64) < (1u64 << 32)
}

/// Per-bucket cost of the bucket phase in units of one bucket-accumulation
/// mixed addition. Fitted to the H200 window sweeps of the `gpu_msm` bench
/// (with the parallel reduction): w13 best at 2^20 (51 ms
/// vs 60 at w16), w16 best at 2^24 (398 ms vs 567 at w20), i.e. ~20–27 per
/// bucket, far above the 4 that two XYZZ additions would cost: the
/// one-block scans, the per-segment binary searches and the launch per
/// level scale with the bucket count too.
const BUCKET_COST: f64 = 24.0;

/// [`BUCKET_COST`] for [`Precomputed::for_points`], fitted to the H200
/// sweeps of precomputed sets at the proof's shape (`gpu_msm` with
/// `CUZK_MSM_BENCH_PROOF_SHAPE=1`): best c = 20 at 2^24 − 1 with 13 copies (202 ms;
/// 18x15 224, 21x13 219) and at 2^27 − 1 with 5 (1497 ms; 21x5 1620), and
/// 22 bits with 4 copies gave a 2177 ms H MSM in a proof where 20 bits
/// with 4 take 1518. At 24 the model picked c = 22 there: with few bucket
/// windows the one-block scan and the per-bucket work at 2^21 buckets per
/// window cost more than the plain sweeps showed at ≤ 2^19.
const PRE_BUCKET_COST: f64 = 48.0;

/// The window width for `n` points: minimises
/// `windows(c) · (n + BUCKET_COST · 2^(c−1))`, the additions of the
/// accumulation plus the bucket work, over the supported widths.
/// E.g. 2^16 → 10, 2^20 → 13, 2^24 → 16, 2^26 → 19, 2^27 → 20. Above
/// ~3.9·10^8 points no width fits (calls then fail with
/// [`MsmError::GpuShape`]; split the MSM).
pub fn window_for(n: usize) -> u32 {
    let mut best = (f64::INFINITY, *WINDOWS.start());
    for c in WINDOWS {
        if !args_ok(n, c) {
            continue;
        }
        let cost = windows(c) as f64 * (n as f64 + BUCKET_COST * (1u64 << (c - 1)) as f64);
        if cost < best.0 {
            best = (cost, c);
        }
    }
    best.1
}

/// Precomputed shifted bases: a base set held as `copies` copies, copy `t`
/// being `2^(window·vw·t)·bases` (`vw` = [`Precomputed::bucket_windows`]),
/// so that digit `j` of a scalar goes to bucket window `j mod vw` against
/// copy `j / vw`. The accumulation does the same additions; the bucket work
/// (levels, reduction, combination) shrinks by `W / vw`, and the width can
/// grow without multiplying the buckets by W. Costs `copies − 1` extra
/// base sets of device memory and ≈ 256 doublings per base to build
/// (once per loaded set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Precomputed {
    /// Window width `c` of every MSM against the set.
    pub window: u32,
    /// Copies held (1 = the bases alone).
    pub copies: u32,
}

impl Precomputed {
    /// Checks `window` and `copies` (1 ≤ copies ≤ [`windows`]`(window)`).
    pub fn new(window: u32, copies: u32) -> Result<Self, MsmError> {
        if !WINDOWS.contains(&window) || copies == 0 || copies > windows(window) {
            return Err(MsmError::Gpu(cuzk_gpu::GpuError::InvalidArgument(format!(
                "precomputed bases: window {window} with {copies} copies (window {}..={}, 1 ≤ copies ≤ windows)",
                WINDOWS.start(),
                WINDOWS.end()
            ))));
        }
        Ok(Precomputed { window, copies })
    }

    /// Bucket windows per MSM: `ceil(windows / copies)`.
    pub fn bucket_windows(&self) -> u32 {
        windows(self.window).div_ceil(self.copies)
    }

    /// Doublings between neighbouring copies: `window · bucket_windows`.
    pub fn shift(&self) -> u32 {
        self.window * self.bucket_windows()
    }

    /// The width and copy count for `n` points with at most `max_copies`
    /// copies (fewer than 2: the plain [`window_for`] width, one copy):
    /// minimises `windows(c)·n + PRE_BUCKET_COST·vw·2^(c−1)` over the
    /// supported widths, each with the fewest copies that reach its `vw`.
    pub fn for_points(n: usize, max_copies: u32) -> Self {
        let plain = Precomputed {
            window: window_for(n),
            copies: 1,
        };
        if max_copies < 2 {
            return plain;
        }
        let mut best = (f64::INFINITY, plain);
        for c in WINDOWS {
            if !args_ok(n, c) {
                continue;
            }
            let w = windows(c);
            let vw = w.div_ceil(max_copies.min(w));
            let copies = w.div_ceil(vw); // the fewest copies giving this vw
            let cost = w as f64 * n as f64 + PRE_BUCKET_COST * vw as f64 * (1u64 << (c - 1)) as f64;
            if cost < best.0 {
                best = (cost, Precomputed { window: c, copies });
            }
        }
        best.1
    }
}

/// Peak device memory one GPU MSM of `n` points (at [`window_for`]`(n)`)
/// allocates for its temporaries, besides the bases and scalars: what a
/// caller must leave free. Computed by running the pipeline's own driver
/// with an executor that only counts, so it is what the device allocates.
/// G1 at 2^27: ≈ 22 GB.
pub fn scratch_bytes<C: GpuPoint>(n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    ffi::dev_scratch_bytes::<C>(n, window_for(n), 1)
}

/// The window of a streamed pass in chunks of `chunk` bases: every MSM
/// part of the pass adds into one bucket accumulator of this width, chosen
/// as [`window_for`] a chunk, because each chunk pays the per-bucket work
/// of the sort and the levels (only the reduction runs once a pass).
pub fn stream_window(chunk: usize) -> u32 {
    window_for(chunk.max(1))
}

/// Peak device memory of a streamed pass's MSM work in chunks of `chunk`
/// bases, besides the chunk buffers and the input slots: the bucket
/// accumulator at [`stream_window`], one chunk's accumulation (or the
/// final reduction) and a chunk's bitmap-sum partials.
pub fn stream_scratch_bytes<C: GpuPoint>(chunk: usize) -> u64 {
    let c = stream_window(chunk);
    let point = std::mem::size_of::<C>() as u64;
    let acc = accumulator_slots(c) as u64 * point;
    // bitmap_sum_run: one XYZZ partial per 256 bases, then levels of 1/16.
    let bitmap = (chunk as u64).div_ceil(256) * 2 * point * 17 / 16;
    acc + ffi::dev_accumulate_scratch_bytes::<C>(chunk, c).max(bitmap)
}

/// Device bytes of a streamed pass's host inputs at `chunk` bases a chunk:
/// three input slots (the streamed pass, `StreamedBases`, stages them two
/// chunks ahead), each of one scalar and one gather index per base and a
/// bitmap word per 64 bases for each of up to four ops
/// ([`crate::chunks::Plan::input_layout`]).
pub fn stream_input_bytes(chunk: usize) -> u64 {
    let per = chunk as u64 * (32 + 4) + 4 * (chunk as u64).div_ceil(64) * 8;
    3 * per
}

/// Hands back to `device` the MSM scratch its stream-ordered pool keeps
/// between MSMs (up to the largest an MSM of this process needed), so that
/// buffers of the caller's can use that memory until the next MSM, which
/// maps its scratch again (20–27 ms for a G1 MSM of 2^27 points on the
/// H200). Call it once every MSM on the
/// device has finished: a streamed placement does, between a partition's
/// MSM passes and the next partition's H step, which time-share the device.
#[cfg(feature = "cuda")]
pub fn release_scratch(device: &cuzk_gpu::Device) -> Result<(), MsmError> {
    ffi::dev_release_scratch(device)
}

/// [`scratch_bytes`] for an MSM of `n` points against precomputed bases.
pub fn scratch_bytes_precomputed<C: GpuPoint>(n: usize, pre: Precomputed) -> u64 {
    if n == 0 {
        return 0;
    }
    ffi::dev_scratch_bytes::<C>(n, pre.window, pre.copies)
}

/// The host C++ twin of the GPU pipeline (same driver, loops instead of
/// kernels). For tests: it is single-threaded and unoptimised.
pub mod host {
    use cuzk_field::Bitmap;

    use super::*;

    /// `idx[i]` −= `sub` (mod 2^32): a streamed pass's gather indices
    /// made chunk-local, as the device does after their upload.
    pub fn index_sub(idx: &mut [u32], sub: u32) -> Result<(), MsmError> {
        ffi::host_index_sub(idx, sub)
    }

    /// Σ `scalars[i]` · `bases[i]` with window `window` (None: [`window_for`]).
    pub fn msm<C: GpuPoint>(
        bases: &[C],
        scalars: &[Fr],
        window: Option<u32>,
    ) -> Result<Projective<C>, MsmError> {
        let c = window.unwrap_or_else(|| window_for(scalars.len()));
        ffi::host_run(bases, None, scalars, c, 1, 0)
    }

    /// The shifted table of `bases` for `pre` (copy `t` at `t·bases.len()`:
    /// `2^(pre.shift()·t)·bases`), built by the host twin of the device
    /// kernels.
    pub fn shift_table<C: GpuPoint>(bases: &[C], pre: Precomputed) -> Result<Vec<C>, MsmError> {
        let mut table = Vec::new();
        table
            .try_reserve_exact(bases.len().saturating_mul(pre.copies as usize))
            .map_err(|_| MsmError::TooManyPoints(bases.len()))?;
        table.extend_from_slice(bases);
        table.resize(bases.len() * pre.copies as usize, C::identity());
        super::fixed_base_ffi::host_shift(&mut table, bases.len(), pre)?;
        Ok(table)
    }

    /// Σ `scalars[k]` · `bases[start + k]` through a shifted `table` of a
    /// base set of `stride` points ([`shift_table`]).
    pub fn msm_precomputed<C: GpuPoint>(
        table: &[C],
        stride: usize,
        start: usize,
        scalars: &[Fr],
        pre: Precomputed,
    ) -> Result<Projective<C>, MsmError> {
        if stride.saturating_mul(pre.copies as usize) != table.len()
            || start.saturating_add(scalars.len()) > stride
        {
            return Err(MsmError::TooFewBases {
                have: stride.saturating_sub(start),
                need: scalars.len(),
            });
        }
        let end = start + (pre.copies as usize - 1) * stride + scalars.len();
        ffi::host_run(
            &table[start..end],
            None,
            scalars,
            pre.window,
            pre.copies,
            stride,
        )
    }

    /// Σ `scalars[k]` · `bases[indices[k]]` (the tail shape).
    pub fn msm_gather<C: GpuPoint>(
        bases: &[C],
        indices: &[u32],
        scalars: &[Fr],
        window: Option<u32>,
    ) -> Result<Projective<C>, MsmError> {
        let c = window.unwrap_or_else(|| window_for(scalars.len()));
        ffi::host_run(bases, Some(indices), scalars, c, 1, 0)
    }

    /// A streamed MSM's bucket accumulator at one window: MSMs added one
    /// chunk at a time keep their bucket sums here, and [`Buckets::sum`]
    /// reduces them once (the host twin of the device's).
    #[derive(Debug)]
    pub struct Buckets<C> {
        window: u32,
        acc: Vec<C>,
    }

    impl<C: GpuPoint> Buckets<C> {
        /// Empty buckets of width `window`.
        pub fn new(window: u32) -> Result<Self, MsmError> {
            if !args_ok(0, window) {
                return Err(MsmError::GpuShape { n: 0, window });
            }
            let mut acc = vec![C::identity(); accumulator_slots(window)];
            ffi::host_buckets_clear(&mut acc, window)?;
            Ok(Buckets { window, acc })
        }

        /// Adds Σ `scalars[k]` · `bases[indices[k]]` (`bases[k]` without
        /// indices) to the buckets.
        pub fn add(
            &mut self,
            bases: &[C],
            indices: Option<&[u32]>,
            scalars: &[Fr],
        ) -> Result<(), MsmError> {
            ffi::host_accumulate(bases, indices, scalars, self.window, &mut self.acc)
        }

        /// The sum of every MSM added so far.
        pub fn sum(&mut self) -> Result<Projective<C>, MsmError> {
            ffi::host_buckets_reduce(&mut self.acc, self.window)
        }
    }

    /// Σ `bases[j]` over the set bits `j` of `ones`.
    pub fn bitmap_sum<C: GpuPoint>(bases: &[C], ones: &Bitmap) -> Result<Projective<C>, MsmError> {
        Ok(ffi::host_bitmap_sum(bases, ones.as_words(), ones.len())?.to_curve())
    }

    /// The signed digits of every scalar, window-major: entry `j·n + i` is
    /// digit `j` of scalar `i` as `|d| | sign << 31` (0: no bucket).
    pub fn digits(scalars: &[Fr], window: u32) -> Result<Vec<u32>, MsmError> {
        ffi::host_digits(scalars, window)
    }

    /// The per-window counting sort: bucket offsets (`windows · 2^(c−1) + 1`
    /// of them; bucket `j·2^(c−1) + m − 1` holds digit magnitude `m` of
    /// window `j`) and the sorted entries `point | sign << 31`.
    pub fn sort(scalars: &[Fr], window: u32) -> Result<(Vec<u32>, Vec<u32>), MsmError> {
        ffi::host_sort(scalars, window)
    }

    /// `scalars[i]·base` for all i, affine, through the host build of the
    /// fixed-base kernels, with window `window` (None: [`fixed_base_window`]).
    pub fn fixed_base_mul<C: GpuPoint>(
        base: &C,
        scalars: &[Fr],
        window: Option<u32>,
    ) -> Result<Vec<C>, MsmError> {
        super::fixed_base::host_fixed_base_mul(base, scalars, window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_256_bits() {
        for c in WINDOWS {
            let w = windows(c);
            assert!(w * c >= 256 && (w - 1) * c < 256, "c {c}");
        }
    }

    #[test]
    fn window_choice_grows_and_stays_valid() {
        let mut last = 0;
        for log in 0..=28 {
            let n = 1usize << log;
            let c = window_for(n);
            assert!(args_ok(n, c), "2^{log}: {c}");
            assert!(c >= last, "2^{log}: {c} < {last}");
            last = c;
        }
        assert_eq!(window_for(1 << 16), 10);
        assert_eq!(window_for(1 << 20), 13);
        assert_eq!(window_for(1 << 24), 16);
        assert_eq!(window_for(1 << 27), 20);
        // Beyond ~3.9e8 points no width keeps the u32 offsets: the MSM then
        // fails with MsmError::GpuShape instead of overflowing.
        assert!(!args_ok(1 << 29, window_for(1 << 29)));
        assert!(!args_ok(10, 1) && !args_ok(10, 25));
    }

    #[test]
    fn scratch_counts_what_the_driver_allocates() {
        use cuzk_field::{G1Affine, G2Affine};
        assert_eq!(scratch_bytes::<G1Affine>(0), 0);
        for log in [16u32, 20, 24, 27] {
            let n = (1usize << log) - 1;
            let c = window_for(n);
            let entries = u64::from(windows(c)) * n as u64;
            let g1 = scratch_bytes::<G1Affine>(n);
            let g2 = scratch_bytes::<G2Affine>(n);
            // G2 has no rounds: the digits and the sorted entries (4 bytes
            // each) are live together during the sort's scatter.
            assert!(g2 >= 8 * entries, "G2 2^{log}: {g2} < {}", 8 * entries);
            // G1's rounds keep the sorted entries (≥ one per digit) and
            // their output blocks (≥ entries / 2^6 affine points) at once.
            assert!(g1 >= 4 * entries + entries / 64 * 96, "G1 2^{log}: {g1}");
            // And nothing wildly beyond: under 200 bytes per entry.
            assert!(g1 < 200 * entries && g2 < 200 * entries, "2^{log}");
        }
        // Monotone in n, and about 22 GB at the PoRep H MSM.
        let h = scratch_bytes::<G1Affine>((1 << 27) - 1);
        assert!(h > scratch_bytes::<G1Affine>((1 << 26) - 1));
        assert!((15e9..30e9).contains(&(h as f64)), "{h}");
    }
}
