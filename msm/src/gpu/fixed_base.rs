//! Fixed-base scalar multiplication: `scalars[i]·base` for one base and
//! millions of scalars, as affine points (test parameter generation:
//! cuzk-groth16's `parameters_from_record_gpu`). The kernels are
//! `cuda/fixed_base.cuh`, host+device C++ like the MSM pipeline, so
//! [`super::host::fixed_base_mul`] runs the very same steps on the CPU.
//!
//! Method, for a window of `w` bits (`W = ceil(256/w)` windows,
//! `h = 2^(w−1)`): a table of the base,
//! `table[j·h + m − 1] = m·2^(w·j)·base` for `m = 1..=h` ([`fixed_base_table`],
//! W·h affine points: 2^19 at w = 16, 48 MiB in G1, 96 MiB in G2), is built
//! once on the device from the W row bases `2^(w·j)·base` (the host
//! doubles): runs of consecutive multiples by mixed additions, then the
//! batch-affine step below. Then one thread per scalar takes the scalar's
//! signed w-bit digits and sums one table entry per non-zero digit into an
//! XYZZ accumulator (mixed additions); then one thread per group of 32
//! points converts them to affine with one shared inversion (Montgomery's
//! trick).
//! The affine result is unique, so it is bit-identical to blstrs'
//! `(base * s).to_affine()`, and `s = 0` gives blst's all-zero identity.
//!
//! Floor (w = 16, W = 16, Fp products; the Fp2 ones of G2 cost 3 (mul) or
//! 2 (square) Fp products):
//! - G1: 15 mixed additions × (8M + 2S) = 150, the batch-affine step 8
//!   plus 613/32 ≈ 19 for the shared Fermat inversion (384 squarings, 229
//!   products), the scalar's conversion out of Montgomery form ≈ 1: about
//!   **178 Fp products per point**. At the ~1.6·10^10 Fp products/s measured
//!   on the H200 (portable multiplier, docs/GPU.md) 2^27 G1 points take
//!   ≈ 2^27 · 178 / 1.6·10^10 ≈ **1.5 s** of kernel time.
//! - G2: 15 × 28 + 24 + 19 ≈ **463 Fp products per point**, ≈ 3.9 s for 2^27.
//!
//! Not yet measured. ptxas (sm_90): the G1 accumulation kernel takes 162
//! registers (one 256-thread block per SM), G2's 255 with some spilling;
//! if the H200 run falls well short of the floor, occupancy is the first
//! suspect.
//!
//! The copies cost as much as the kernels: 32 bytes of scalar up and 96
//! (G1) or 192 (G2) bytes of point down per scalar, ≈ 17 GB for 2^27 G1
//! points, ~2 s at the ~8 GB/s of pageable memory. The table (2^19 points
//! at w = 16, ~14 Fp products each plus the batch-affine step) takes
//! milliseconds on the device.
//!
//! Scalars are processed in chunks ([`FIXED_BASE_CHUNK`], fewer when the
//! device has less free memory), so device memory stays bounded: per point
//! 32 bytes of scalar, two point-sized slots of XYZZ scratch and one point
//! of output (320 bytes in G1, 608 in G2; 1.3 / 2.5 GB per 2^22 chunk).

use std::ops::RangeInclusive;

use cuzk_field::{Curve, Fr, Group};
use cuzk_gpu::GpuError;

use super::{fixed_base_ffi as ffi, GpuPoint};
use crate::MsmError;

/// The window widths the fixed-base kernels support.
pub const FIXED_BASE_WINDOWS: RangeInclusive<u32> = 2..=16;

/// Scalars per device chunk (at most; see the module docs).
pub const FIXED_BASE_CHUNK: usize = 1 << 22;

/// Cost of one table point in units of one mixed addition per scalar. On
/// the device a table point costs about 3 (an addition plus its batch-
/// affine share), but the host twin (CI) builds tables on one CPU core, and
/// small inputs gain nothing from wide windows: 64 keeps small calls on
/// small tables and still picks w = 16 from 2^24 scalars on.
const TABLE_COST: f64 = 64.0;

/// Number of windows for width `w`: `ceil(256 / w)`.
pub fn fixed_base_windows(w: u32) -> u32 {
    256u32.div_ceil(w)
}

/// The table length for width `w`: `ceil(256/w) · 2^(w−1)`.
pub fn fixed_base_table_len(w: u32) -> usize {
    (fixed_base_windows(w) as usize) << (w - 1)
}

/// The window width for `n` scalars: minimises
/// `W(w) · (n + TABLE_COST · 2^(w−1))`, the mixed additions of the
/// scalars plus the table's cost, over [`FIXED_BASE_WINDOWS`]. E.g. 1 → 2, 1000 → 4,
/// 2^16 → 8, 2^20 → 12, 2^22 → 13, 2^24 and above → 16.
pub fn fixed_base_window(n: usize) -> u32 {
    let mut best = (f64::INFINITY, *FIXED_BASE_WINDOWS.start());
    for w in FIXED_BASE_WINDOWS {
        let cost =
            fixed_base_windows(w) as f64 * (n as f64 + TABLE_COST * (1u64 << (w - 1)) as f64);
        if cost < best.0 {
            best = (cost, w);
        }
    }
    best.1
}

pub(crate) fn check_window(w: u32) -> Result<(), MsmError> {
    if FIXED_BASE_WINDOWS.contains(&w) {
        Ok(())
    } else {
        Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
            "fixed-base window must be {}..={}, got {w}",
            FIXED_BASE_WINDOWS.start(),
            FIXED_BASE_WINDOWS.end()
        ))))
    }
}

/// The W = ceil(256/w) row bases `2^(w·j)·base`, affine (w doublings
/// apart; W ≤ 128 single inversions).
fn row_bases<C: GpuPoint>(base: &C, w: u32) -> Vec<C> {
    let windows = fixed_base_windows(w) as usize;
    let mut rows = Vec::with_capacity(windows);
    let mut b = base.to_curve();
    for _ in 0..windows {
        rows.push(b.to_affine());
        for _ in 0..w {
            b = b.double();
        }
    }
    rows
}

/// The table of `base` for window `w` (see the module docs):
/// `table[j·2^(w−1) + m − 1] = m·2^(w·j)·base`, affine, built by the host
/// twin of the table kernel (runs of consecutive multiples by mixed
/// additions, then the batch-affine step). `GpuFixedBase` (feature `cuda`)
/// builds the same table on the device.
pub fn fixed_base_table<C: GpuPoint>(base: &C, w: u32) -> Result<Vec<C>, MsmError> {
    check_window(w)?;
    let rows = row_bases(base, w);
    let mut table = vec![C::identity(); fixed_base_table_len(w)];
    ffi::host_table(&rows, w, &mut table)?;
    Ok(table)
}

/// Host twin: `scalars[i]·base` through the C++ build of the kernels.
pub(crate) fn host_fixed_base_mul<C: GpuPoint>(
    base: &C,
    scalars: &[Fr],
    window: Option<u32>,
) -> Result<Vec<C>, MsmError> {
    let w = window.unwrap_or_else(|| fixed_base_window(scalars.len()));
    let table = fixed_base_table(base, w)?;
    let mut out = vec![C::identity(); scalars.len()];
    for (s, o) in scalars
        .chunks(FIXED_BASE_CHUNK)
        .zip(out.chunks_mut(FIXED_BASE_CHUNK))
    {
        ffi::host_run(&table, w, s, o)?;
    }
    Ok(out)
}

#[cfg(feature = "cuda")]
pub use device::{fixed_base_mul, GpuFixedBase};

#[cfg(feature = "cuda")]
mod device {
    use cuzk_field::Fr;
    use cuzk_gpu::{Device, DeviceBuffer, Stream};
    use rayon::prelude::*;

    use super::{
        check_window, fixed_base_table_len, fixed_base_window, row_bases, FIXED_BASE_CHUNK,
    };
    use crate::gpu::fixed_base_ffi as ffi;
    use crate::gpu::GpuPoint;
    use crate::MsmError;

    /// Device memory left to others when sizing chunks.
    const RESERVE: u64 = 512 << 20;

    /// A base's table resident on one device, for many fixed-base
    /// multiplications against it (setup multiplies the same generator for
    /// H, IC, L, A and B). Calls run one at a time on the table's stream.
    #[derive(Debug)]
    pub struct GpuFixedBase<C: GpuPoint> {
        table: DeviceBuffer<C>,
        window: u32,
        stream: Stream,
        device: Device,
    }

    impl<C: GpuPoint> GpuFixedBase<C> {
        /// Builds the table of `base` for window `window` on `device` (pick
        /// the window with [`fixed_base_window`] for the largest scalar
        /// count expected): the host computes the row bases, the device
        /// the W·2^(w−1) multiples (the same kernels as
        /// [`super::fixed_base_table`]'s host twin).
        pub fn new(device: &Device, base: &C, window: u32) -> Result<Self, MsmError> {
            check_window(window)?;
            let stream = Stream::new(device)?;
            let rows = DeviceBuffer::from_slice(&stream, &row_bases(base, window))?;
            let len = fixed_base_table_len(window);
            let mut table = DeviceBuffer::alloc(device, len)?;
            let mut scratch = DeviceBuffer::<C>::alloc(device, 2 * len)?;
            ffi::dev_table(&rows, window, &mut scratch, &mut table, &stream)?;
            // rows and scratch are freed when dropped: wait for the kernels.
            stream.synchronize()?;
            Ok(Self {
                table,
                window,
                stream,
                device: *device,
            })
        }

        /// The window width of the table.
        pub fn window(&self) -> u32 {
            self.window
        }

        /// `scalars[i]·base` for all i, affine.
        pub fn mul(&self, scalars: &[Fr]) -> Result<Vec<C>, MsmError> {
            self.mul_chunked(scalars, FIXED_BASE_CHUNK, &|_| {})
        }

        /// As [`GpuFixedBase::mul`], calling `progress(k)` after each chunk
        /// of `k` points is back on the host.
        pub fn mul_with_progress(
            &self,
            scalars: &[Fr],
            progress: &dyn Fn(usize),
        ) -> Result<Vec<C>, MsmError> {
            self.mul_chunked(scalars, FIXED_BASE_CHUNK, progress)
        }

        /// [`GpuFixedBase::mul`] with at most `chunk` scalars per device
        /// launch (tests: several chunks and a short last one).
        #[doc(hidden)]
        pub fn mul_chunked(
            &self,
            scalars: &[Fr],
            chunk: usize,
            progress: &dyn Fn(usize),
        ) -> Result<Vec<C>, MsmError> {
            let n = scalars.len();
            if n == 0 {
                return Ok(Vec::new());
            }
            let chunk = self.fit_chunk(chunk.clamp(1, n))?;
            let mut out: Vec<C> = (0..n).into_par_iter().map(|_| C::identity()).collect();
            let mut bufs = Buffers::<C>::new(&self.device, chunk)?;
            for (s, o) in scalars.chunks(chunk).zip(out.chunks_mut(chunk)) {
                if s.len() != bufs.scalars.len() {
                    drop(bufs); // the short last chunk: free before allocating
                    bufs = Buffers::new(&self.device, s.len())?;
                }
                bufs.scalars.upload(&self.stream, s)?;
                ffi::dev_run(
                    &self.table,
                    self.window,
                    &bufs.scalars,
                    &mut bufs.scratch,
                    &mut bufs.out,
                    &self.stream,
                )?;
                bufs.out.download(&self.stream, o)?; // synchronises
                progress(s.len());
            }
            Ok(out)
        }

        /// `chunk`, reduced so that one chunk's buffers take at most half
        /// of the device's free memory (less a reserve); at least 2^16
        /// (a smaller fit fails later with CUDA's out-of-memory error).
        fn fit_chunk(&self, chunk: usize) -> Result<usize, MsmError> {
            let (free, _) = self.device.mem_info()?;
            let per_point = (size_of::<Fr>() + 3 * size_of::<C>()) as u64;
            let fit = (free.saturating_sub(RESERVE) / 2 / per_point).max(1 << 16);
            Ok(chunk.min(usize::try_from(fit).unwrap_or(usize::MAX)))
        }
    }

    /// One chunk's device buffers: scalars, XYZZ scratch (two point-sized
    /// slots per point: an XYZZ point is twice an affine one), output.
    struct Buffers<C: GpuPoint> {
        scalars: DeviceBuffer<Fr>,
        scratch: DeviceBuffer<C>,
        out: DeviceBuffer<C>,
    }

    impl<C: GpuPoint> Buffers<C> {
        fn new(device: &Device, len: usize) -> Result<Self, MsmError> {
            Ok(Self {
                scalars: DeviceBuffer::alloc(device, len)?,
                scratch: DeviceBuffer::alloc(device, 2 * len)?,
                out: DeviceBuffer::alloc(device, len)?,
            })
        }
    }

    /// `scalars[i]·base` for all i on `device`, as affine points,
    /// bit-identical to `(base * s).to_affine()` (scalar 0 → the identity).
    /// Builds and uploads the table for [`fixed_base_window`]`(n)`, then
    /// runs chunks of at most [`FIXED_BASE_CHUNK`] scalars. For several
    /// vectors against one base keep a [`GpuFixedBase`] instead.
    pub fn fixed_base_mul<C: GpuPoint>(
        device: &Device,
        base: &C,
        scalars: &[Fr],
    ) -> Result<Vec<C>, MsmError> {
        if scalars.is_empty() {
            return Ok(Vec::new());
        }
        GpuFixedBase::new(device, base, fixed_base_window(scalars.len()))?.mul(scalars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_field::{Field, G1Affine, G2Affine, PrimeCurveAffine};

    #[test]
    fn window_choice() {
        let mut last = 0;
        for log in 0..=30 {
            let w = fixed_base_window(1 << log);
            assert!(FIXED_BASE_WINDOWS.contains(&w));
            assert!(w >= last, "2^{log}: {w} < {last}");
            last = w;
        }
        assert_eq!(fixed_base_window(1), 2);
        assert_eq!(fixed_base_window(1000), 4);
        assert_eq!(fixed_base_window(1 << 16), 8);
        assert_eq!(fixed_base_window(1 << 20), 12);
        assert_eq!(fixed_base_window(1 << 24), 16);
        assert_eq!(fixed_base_window(1 << 27), 16);
        assert_eq!(fixed_base_table_len(16), 16 << 15);
        assert_eq!(fixed_base_table_len(2), 128 * 2);
    }

    #[test]
    fn table_entries() {
        let base = G1Affine::generator();
        for w in [2, 5, 8] {
            let t = fixed_base_table(&base, w).unwrap();
            assert_eq!(t.len(), fixed_base_table_len(w));
            let half = 1usize << (w - 1);
            for (j, m) in [
                (0, 1),
                (0, half),
                (1, half.min(3)),
                (fixed_base_windows(w) as usize - 1, half),
            ] {
                let e = Fr::from(2u64).pow_vartime([(w as usize * j) as u64]) * Fr::from(m as u64);
                assert_eq!(
                    t[j * half + m - 1],
                    (base * e).to_affine(),
                    "w {w} j {j} m {m}"
                );
            }
        }
        let t2 = fixed_base_table(&G2Affine::generator(), 3).unwrap();
        assert_eq!(
            t2[4 + 2],
            (G2Affine::generator() * Fr::from(3u64 * 8)).to_affine()
        );
        assert!(fixed_base_table(&base, 1).is_err());
        assert!(fixed_base_table(&base, 17).is_err());
    }
}
