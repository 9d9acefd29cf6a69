//! The GPU MSM's only `unsafe` code: safe wrappers over the generated
//! bindings of `cuda/cuzk_msm.h` (`crate::sys`) that check every length and
//! index before crossing.
//!
//! Layout facts relied on: blstrs' `G1Affine`/`G2Affine` are transparent
//! over `blst_p1_affine`/`blst_p2_affine` (checked in `crate::ffi`), which
//! equal `affine_t<fp_t>` / `affine_t<fp2_t>` (static_asserts in
//! field/cuda/bls12_381.cuh); `Fr` is `blst_fr` = `fr_t`; all Montgomery.

use cuzk_field::Fr;
use cuzk_gpu::sys::cuzk_error;
use cuzk_gpu::GpuError;

use super::{accumulator_slots, args_ok, bucket_slots, combine_windows, GpuPoint};
use crate::sys;
use crate::{MsmError, Projective};

/// A host twin's result: an argument it rejected is a shape the pipeline
/// does not support.
fn host_status(e: cuzk_error, n: usize, window: u32) -> Result<(), MsmError> {
    // SAFETY: every caller passes the value a host twin entry point just returned.
    match unsafe { cuzk_gpu::check_twin_error(e) } {
        Ok(()) => Ok(()),
        Err(GpuError::InvalidArgument(_)) => Err(MsmError::GpuShape { n, window }),
        Err(e) => Err(MsmError::Gpu(e)),
    }
}

/// Peak device scratch of one device MSM of `n` points at `window` against
/// `copies` shifted copies (0 for a shape the pipeline rejects; `u64::MAX`,
/// "too much", when the count itself fails).
pub(crate) fn dev_scratch_bytes<C: GpuPoint>(n: usize, window: u32, copies: u32) -> u64 {
    let Ok(n32) = shape(n, window) else {
        return 0;
    };
    let mut bytes = 0;
    // SAFETY: a size computation on the host; `bytes` is a valid out-pointer.
    let e =
        unsafe { sys::cuzk_msm_dev_scratch_bytes(C::GPU_CURVE, n32, window, copies, &mut bytes) };
    // SAFETY: `e` is the value the entry point just returned.
    match unsafe { cuzk_gpu::check_twin_error(e) } {
        Ok(()) => bytes,
        Err(GpuError::InvalidArgument(_)) => 0,
        Err(_) => u64::MAX,
    }
}

/// The points an MSM of `n` points reads against `copies` copies `stride`
/// apart (copies > 1: n ≤ stride, and the index of the last point of the
/// last copy must stay below 2^31 with its sign bit).
fn table_need(n: usize, copies: u32, stride: usize, window: u32) -> Result<(usize, u32), MsmError> {
    if copies <= 1 {
        return Ok((n, 0));
    }
    let total = stride.checked_mul(copies as usize);
    match total {
        Some(t) if n <= stride && t < (1 << 31) => {
            Ok(((copies as usize - 1) * stride + n, stride as u32))
        }
        _ => Err(MsmError::GpuShape { n, window }),
    }
}

fn shape(n: usize, window: u32) -> Result<u32, MsmError> {
    if !args_ok(n, window) {
        return Err(MsmError::GpuShape { n, window });
    }
    Ok(n as u32) // args_ok bounds n below 2^32
}

/// Checks an MSM's inputs against its bases: `n` scalars, and `idx` (when
/// given) `n` indices below `bases`, else `n` bases.
fn check_gather(bases: usize, idx: Option<&[u32]>, n: usize) -> Result<(), MsmError> {
    match idx {
        None if bases != n => Err(MsmError::LengthMismatch { bases, scalars: n }),
        Some(ix) if ix.len() != n => Err(MsmError::LengthMismatch {
            bases: ix.len(),
            scalars: n,
        }),
        Some(ix) => match ix.iter().find(|&&i| i as usize >= bases) {
            Some(&bad) => Err(MsmError::IndexOutOfRange {
                index: bad.into(),
                bases,
            }),
            None => Ok(()),
        },
        None => Ok(()),
    }
}

/// Host twin: every bucket of `acc` (an accumulator of width `window`) set
/// to infinity.
pub(crate) fn host_buckets_clear<C: GpuPoint>(acc: &mut [C], window: u32) -> Result<(), MsmError> {
    shape(0, window)?;
    check_accumulator(acc.len(), window)?;
    // SAFETY: `acc` holds the accumulator's slots (checked); synchronous.
    let e =
        unsafe { sys::cuzk_msm_host_buckets_clear(C::GPU_CURVE, window, acc.as_mut_ptr().cast()) };
    host_status(e, 0, window)
}

/// Host twin: `acc` += the buckets of Σ scalars[k] · bases[idx[k] or k].
pub(crate) fn host_accumulate<C: GpuPoint>(
    bases: &[C],
    idx: Option<&[u32]>,
    scalars: &[Fr],
    window: u32,
    acc: &mut [C],
) -> Result<(), MsmError> {
    let n = scalars.len();
    check_gather(bases.len(), idx, n)?;
    let n32 = shape(n, window)?;
    check_accumulator(acc.len(), window)?;
    // SAFETY: the pipeline reads n bases (or the checked idx entries, all
    // below bases.len()), n scalars and idx (n entries when given), and
    // updates the accumulator's slots in `acc` (checked); synchronous.
    let e = unsafe {
        sys::cuzk_msm_host_accumulate(
            C::GPU_CURVE,
            bases.as_ptr().cast(),
            idx.map_or(std::ptr::null(), <[u32]>::as_ptr),
            scalars.as_ptr().cast(),
            n32,
            window,
            acc.as_mut_ptr().cast(),
        )
    };
    host_status(e, n, window)
}

/// Host twin: the sum the buckets of `acc` hold.
pub(crate) fn host_buckets_reduce<C: GpuPoint>(
    acc: &mut [C],
    window: u32,
) -> Result<Projective<C>, MsmError> {
    shape(0, window)?;
    check_accumulator(acc.len(), window)?;
    let mut out = vec![C::identity(); bucket_slots(window, 1)];
    // SAFETY: `acc` holds the accumulator's slots (checked), `out` the
    // window sums (bucket_slots); synchronous.
    let e = unsafe {
        sys::cuzk_msm_host_buckets_reduce(
            C::GPU_CURVE,
            window,
            acc.as_mut_ptr().cast(),
            out.as_mut_ptr().cast(),
        )
    };
    host_status(e, 0, window)?;
    Ok(combine_windows(&out, window))
}

/// An accumulator of `slots` slots fits width `window`.
fn check_accumulator(slots: usize, window: u32) -> Result<(), MsmError> {
    let need = accumulator_slots(window);
    if slots < need {
        return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
            "a bucket accumulator of {slots} slots, window {window} needs {need}"
        ))));
    }
    Ok(())
}

/// Peak device scratch of one chunk's accumulation of `n` points at
/// `window`, or of the final reduction (0 for a shape the pipeline
/// rejects; `u64::MAX` when the count itself fails).
pub(crate) fn dev_accumulate_scratch_bytes<C: GpuPoint>(n: usize, window: u32) -> u64 {
    let Ok(n32) = shape(n, window) else {
        return 0;
    };
    let mut bytes = 0;
    // SAFETY: a size computation on the host; `bytes` is a valid out-pointer.
    let e = unsafe {
        sys::cuzk_msm_dev_accumulate_scratch_bytes(C::GPU_CURVE, n32, window, &mut bytes)
    };
    // SAFETY: `e` is the value the entry point just returned.
    match unsafe { cuzk_gpu::check_twin_error(e) } {
        Ok(()) => bytes,
        Err(GpuError::InvalidArgument(_)) => 0,
        Err(_) => u64::MAX,
    }
}

/// Host twin: Σ scalars[k] · bases[idx[k]] (or bases[k] without idx); the
/// window sums come back and are combined here, as on the device path.
/// With `copies` > 1, `bases` is a shifted table whose copies are `stride`
/// points apart (no idx).
pub(crate) fn host_run<C: GpuPoint>(
    bases: &[C],
    idx: Option<&[u32]>,
    scalars: &[Fr],
    window: u32,
    copies: u32,
    stride: usize,
) -> Result<Projective<C>, MsmError> {
    let n = scalars.len();
    let (need, stride32) = table_need(n, copies, stride, window)?;
    if copies > 1 {
        if idx.is_some() || bases.len() < need {
            return Err(MsmError::TooFewBases {
                have: bases.len(),
                need,
            });
        }
    } else {
        check_gather(bases.len(), idx, n)?;
    }
    let n32 = shape(n, window)?;
    let mut out = vec![C::identity(); bucket_slots(window, copies.max(1))];
    // SAFETY: `bases` holds every index the pipeline reads (n contiguous
    // points, the checked `idx` entries, or with copies the points
    // t·stride + i < (copies − 1)·stride + n ≤ len, checked), `scalars` n
    // elements, `idx` (when given) n entries, `out` the window sums (two
    // affine-sized slots per XYZZ point, bucket_slots); the types match the
    // C layouts (module docs). The call is synchronous and keeps no pointer.
    let e = unsafe {
        sys::cuzk_msm_host_run(
            C::GPU_CURVE,
            bases.as_ptr().cast(),
            idx.map_or(std::ptr::null(), <[u32]>::as_ptr),
            scalars.as_ptr().cast(),
            n32,
            window,
            copies.max(1),
            stride32,
            out.as_mut_ptr().cast(),
        )
    };
    host_status(e, n, window)?;
    Ok(combine_windows(&out, window))
}

/// Host twin of the bitmap sum: Σ bases[j] over set bits j < nbits.
pub(crate) fn host_bitmap_sum<C: GpuPoint>(
    bases: &[C],
    words: &[u64],
    nbits: usize,
) -> Result<C, MsmError> {
    if nbits > bases.len() || nbits > words.len() * 64 {
        return Err(MsmError::TooFewBases {
            have: bases.len().min(words.len() * 64),
            need: nbits,
        });
    }
    let nb = u32::try_from(nbits).map_err(|_| MsmError::TooManyPoints(nbits))?;
    let mut out = C::identity();
    // SAFETY: bits j < nbits are read from `words` (≥ nbits bits) and
    // select bases[j] (nbits ≤ bases.len()); `out` is one point; synchronous.
    let e = unsafe {
        sys::cuzk_msm_host_bitmap_sum(
            C::GPU_CURVE,
            bases.as_ptr().cast(),
            words.as_ptr(),
            nb,
            (&mut out as *mut C).cast(),
        )
    };
    host_status(e, nbits, 0)?;
    Ok(out)
}

/// Host twin of the digit step: `W·n` digits, window-major.
pub(crate) fn host_digits(scalars: &[Fr], window: u32) -> Result<Vec<u32>, MsmError> {
    let n = shape(scalars.len(), window)?;
    let mut d = vec![0u32; super::windows(window) as usize * scalars.len()];
    // SAFETY: `d` holds W·n digits, `scalars` n elements; synchronous.
    let e =
        unsafe { sys::cuzk_msm_host_digits(scalars.as_ptr().cast(), n, window, d.as_mut_ptr()) };
    host_status(e, scalars.len(), window)?;
    Ok(d)
}

/// Host twin of the streamed pass's index shift: `idx[i]` −= `sub` (mod
/// 2^32).
pub(crate) fn host_index_sub(idx: &mut [u32], sub: u32) -> Result<(), MsmError> {
    let n = u32::try_from(idx.len()).map_err(|_| MsmError::TooManyPoints(idx.len()))?;
    // SAFETY: `idx` holds n elements, written in place; synchronous.
    let e = unsafe { sys::cuzk_msm_host_index_sub(idx.as_mut_ptr(), n, sub) };
    host_status(e, idx.len(), 0)
}

/// Host twin of the counting sort: (bucket offsets `B + 1`, sorted entries).
pub(crate) fn host_sort(scalars: &[Fr], window: u32) -> Result<(Vec<u32>, Vec<u32>), MsmError> {
    let n = shape(scalars.len(), window)?;
    let w = super::windows(window) as usize;
    let buckets = w << (window - 1);
    let mut off = vec![0u32; buckets + 1];
    let mut sorted = vec![0u32; w * scalars.len()];
    // SAFETY: `off` holds B + 1 offsets, `sorted` W·n entries (at most one
    // per digit), `scalars` n elements; synchronous.
    let e = unsafe {
        sys::cuzk_msm_host_sort(
            scalars.as_ptr().cast(),
            n,
            window,
            off.as_mut_ptr(),
            sorted.as_mut_ptr(),
        )
    };
    host_status(e, scalars.len(), window)?;
    sorted.truncate(off[buckets] as usize);
    Ok((off, sorted))
}

#[cfg(feature = "cuda")]
pub(crate) use device::*;

#[cfg(feature = "cuda")]
mod device {
    use std::mem::size_of;

    use cuzk_field::Fr;
    use cuzk_gpu::sys::cuzk_error;
    use cuzk_gpu::tuning::{MsmOccupancy, Tuning};
    use cuzk_gpu::{DeviceBuffer, GpuError, Stream};

    use super::super::{bucket_slots, GpuPoint};
    use super::{shape, table_need};
    use crate::sys;
    use crate::MsmError;

    /// The process's measurement settings ([`Tuning::get`]) as the device
    /// entry points take them.
    fn tuning() -> sys::cuzk_msm_tuning {
        let t = Tuning::get();
        let occupancy = match t.msm_occupancy {
            MsmOccupancy::TwoBlocks => sys::CUZK_MSM_OCC_TWO_BLOCKS,
            MsmOccupancy::OneBlock => sys::CUZK_MSM_OCC_ONE_BLOCK,
            MsmOccupancy::Block128 => sys::CUZK_MSM_OCC_BLOCK128,
        };
        sys::cuzk_msm_tuning {
            occupancy: occupancy as i32,
            profile: i32::from(t.msm_profile),
            // Tuning::parse admits 0..=6 only.
            max_rounds: t.msm_max_rounds.map_or(-1, |r| r as i32),
        }
    }

    /// The cuzk_gpu mapping of a shim error (same codes, see cuzk_gpu.h).
    fn check(e: cuzk_error) -> Result<(), MsmError> {
        // SAFETY: every caller passes the value a shim function just returned.
        unsafe { cuzk_gpu::check_shim_error(e) }.map_err(MsmError::Gpu)
    }

    /// Device gather indices whose every entry was checked, on the host
    /// before its upload, against `bound`: the only way indices reach
    /// [`dev_run`], so its kernels never read past `bound` bases.
    #[derive(Debug)]
    pub(crate) struct IndexArena {
        buf: DeviceBuffer<u32>,
        /// Every index written is below this.
        bound: usize,
    }

    /// `len` indices of an [`IndexArena`] from `start`, written by one
    /// checked upload.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct IndexRange {
        start: usize,
        len: usize,
    }

    impl IndexArena {
        /// `indices` checked against `bases` and uploaded (synchronously):
        /// an arena of exactly them.
        pub(crate) fn from_slice(
            stream: &Stream,
            indices: &[u32],
            bases: usize,
        ) -> Result<(Self, IndexRange), MsmError> {
            check_indices(indices, bases)?;
            let arena = IndexArena {
                buf: DeviceBuffer::from_slice(stream, indices)?,
                bound: bases,
            };
            let all = IndexRange {
                start: 0,
                len: indices.len(),
            };
            Ok((arena, all))
        }

        /// Room for `len` indices, each to be below `bound`. The buffer is
        /// zeroed before this returns (index 0 is below any bound ≥ 1), so
        /// it never holds an unchecked index; a kernel that reads a range
        /// runs after the range's [`IndexArena::stage`] copy (the caller
        /// orders its streams so).
        pub(crate) fn zeroed(
            device: &cuzk_gpu::Device,
            stream: &Stream,
            len: usize,
            bound: usize,
        ) -> Result<Self, MsmError> {
            let mut buf = DeviceBuffer::alloc(device, len.max(1))?;
            buf.memset(stream, 0)?;
            stream.synchronize()?;
            Ok(IndexArena {
                buf,
                bound: bound.max(1),
            })
        }

        /// Checks `src` less `shift` (mod 2^32) against the arena's bound
        /// and enqueues, on `stream`, its copy to index `at` (covered by
        /// `sync`, which ties `src` to the copy's completion) and then the
        /// subtraction on the device: the caller uploads its indices
        /// straight from where they are, with no shifted host copy.
        pub(crate) fn stage<'a>(
            &mut self,
            at: usize,
            src: &'a [u32],
            shift: u32,
            stream: &Stream,
            sync: &SyncOnDrop<'a>,
        ) -> Result<IndexRange, MsmError> {
            check_shifted(src, shift, self.bound)?;
            upload_at(&mut self.buf, at, src, stream, sync)?;
            if shift != 0 && !src.is_empty() {
                let n = u32::try_from(src.len()).map_err(|_| MsmError::TooManyPoints(src.len()))?;
                stream.device().bind()?;
                // SAFETY: writes elements at..at + n of the arena's buffer
                // (in bounds: upload_at just wrote them); enqueued on
                // `stream` after that copy, the arena kept alive by the
                // caller until its streams synchronise.
                check(unsafe {
                    sys::cuzk_msm_dev_index_sub(
                        self.buf.as_mut_ptr().cast::<u32>().add(at),
                        n,
                        shift,
                        stream.raw(),
                    )
                })?;
            }
            Ok(IndexRange {
                start: at,
                len: src.len(),
            })
        }
    }

    fn check_indices(indices: &[u32], bases: usize) -> Result<(), MsmError> {
        check_shifted(indices, 0, bases)
    }

    /// Every `i − shift` (mod 2^32) of `indices` below `bases`, checked on
    /// all cores (127 M tails in one pass of a 32 GiB WindowPoSt).
    fn check_shifted(indices: &[u32], shift: u32, bases: usize) -> Result<(), MsmError> {
        use rayon::prelude::*;
        let bad = indices
            .par_iter()
            .map(|&i| i.wrapping_sub(shift))
            .find_first(|&l| l as usize >= bases);
        match bad {
            Some(bad) => Err(MsmError::IndexOutOfRange {
                index: bad.into(),
                bases,
            }),
            None => Ok(()),
        }
    }

    /// An output buffer of `len` slots holds the window sums at `window`
    /// against `copies` copies.
    fn check_window_sums(len: usize, window: u32, copies: u32) -> Result<(), MsmError> {
        let slots = bucket_slots(window, copies);
        if len < slots {
            return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
                "output buffer of {len} slots, the window sums need {slots}"
            ))));
        }
        Ok(())
    }

    /// An MSM's device inputs, checked ([`msm_inputs`]).
    struct MsmInputs {
        bases: *const std::ffi::c_void,
        idx: *const u32,
        scalars: *const std::ffi::c_void,
        n: u32,
        stride: u32,
    }

    /// Checks the inputs of an MSM of `n` scalars from element
    /// `scalar_start` of `scalars` against `bases` from `start` (gathered
    /// through `idx`, or against `copies` shifted copies) at `window`, and
    /// returns the pointers the entry points take.
    #[allow(clippy::too_many_arguments)] // mirrors the C signature
    fn msm_inputs<C: GpuPoint>(
        bases: &DeviceBuffer<C>,
        start: usize,
        idx: Option<(&IndexArena, IndexRange)>,
        scalars: &DeviceBuffer<Fr>,
        scalar_start: usize,
        n: usize,
        window: u32,
        copies: u32,
    ) -> Result<MsmInputs, MsmError> {
        let stride = bases.len() / copies as usize;
        if copies > 1 && (idx.is_some() || bases.len() % copies as usize != 0 || start > stride) {
            return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
                "shifted table of {} points in {copies} copies from {start}, gathered: {}",
                bases.len(),
                idx.is_some()
            ))));
        }
        // copies > 1: start + n ≤ stride and copies·stride < 2^31
        table_need(start.saturating_add(n), copies, stride, window)?;
        let avail = if copies > 1 {
            stride - start
        } else {
            bases.len().saturating_sub(start)
        };
        let need = match idx {
            Some((arena, r)) => {
                if r.len != n {
                    return Err(MsmError::LengthMismatch {
                        bases: r.len,
                        scalars: n,
                    });
                }
                if r.start.saturating_add(r.len) > arena.buf.len() {
                    return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
                        "indices {}..{} of an arena of {}",
                        r.start,
                        r.start.saturating_add(r.len),
                        arena.buf.len()
                    ))));
                }
                arena.bound
            }
            None => n,
        };
        if start > bases.len() || need > avail {
            return Err(MsmError::TooFewBases { have: avail, need });
        }
        if scalars.len() < scalar_start.saturating_add(n) {
            return Err(MsmError::LengthMismatch {
                bases: n,
                scalars: scalars.len().saturating_sub(scalar_start),
            });
        }
        let n32 = shape(n, window)?;
        Ok(MsmInputs {
            bases: bases
                .as_ptr()
                .cast::<u8>()
                .wrapping_add(start * size_of::<C>())
                .cast(),
            idx: idx.map_or(std::ptr::null(), |(a, r)| {
                a.buf.as_ptr().cast::<u32>().wrapping_add(r.start)
            }),
            scalars: scalars
                .as_ptr()
                .cast::<u8>()
                .wrapping_add(scalar_start * size_of::<Fr>())
                .cast(),
            n: n32,
            stride: if copies > 1 { stride as u32 } else { 0 },
        })
    }

    /// Enqueues the window sums of `Σ scalars[k] · bases[start + (idx[k] or
    /// k)]` into `out` (≥ `bucket_slots(window, copies)` slots; combine
    /// them with `combine_windows` after the download) on `stream`. With
    /// `copies` > 1, `bases` is a shifted table of `copies` equal copies
    /// (no idx). Asynchronous: the caller synchronises `stream` (e.g. by
    /// downloading `out`) before dropping or reusing the buffers. The
    /// scalars start at element `scalar_start` of `scalars` (0, or a
    /// streamed chunk's share of the H coefficients).
    #[allow(clippy::too_many_arguments)] // mirrors the C signature
    pub(crate) fn dev_run<C: GpuPoint>(
        bases: &DeviceBuffer<C>,
        start: usize,
        idx: Option<(&IndexArena, IndexRange)>,
        scalars: &DeviceBuffer<Fr>,
        scalar_start: usize,
        n: usize,
        window: u32,
        copies: u32,
        out: &mut DeviceBuffer<C>,
        stream: &Stream,
    ) -> Result<(), MsmError> {
        let copies = copies.max(1);
        let m = msm_inputs(bases, start, idx, scalars, scalar_start, n, window, copies)?;
        check_window_sums(out.len(), window, copies)?;
        // Kernels must launch on the current device: make the stream's current.
        stream.device().bind()?;
        // SAFETY: all pointers are device allocations owned by live
        // DeviceBuffers; the kernels read bases[start .. start + need)
        // (checked by msm_inputs: need ≤ avail, and gather indices < bound
        // = need: an arena holds only checked indices, and the range lies
        // in it), or with copies bases[start + t·stride + i] for i < n ≤
        // stride − start (checked), n scalars from scalar_start (checked),
        // n indices (checked) and write the window sums, bucket_slots(window, copies) slots, to
        // `out` (checked). The work is enqueued on `stream`; the caller
        // keeps the buffers alive until it synchronises.
        check(unsafe {
            sys::cuzk_msm_dev_run(
                C::GPU_CURVE,
                m.bases,
                m.idx,
                m.scalars,
                m.n,
                window,
                copies,
                m.stride,
                out.as_mut_ptr(),
                tuning(),
                stream.raw(),
            )
        })
    }

    /// Enqueues `acc` += the buckets of `Σ scalars[k] · bases[start +
    /// (idx[k] or k)]` at `window` on `stream` (arguments as [`dev_run`]'s
    /// without copies; `acc` an accumulator of that width). Asynchronous.
    #[allow(clippy::too_many_arguments)] // mirrors the C signature
    pub(crate) fn dev_accumulate<C: GpuPoint>(
        bases: &DeviceBuffer<C>,
        start: usize,
        idx: Option<(&IndexArena, IndexRange)>,
        scalars: &DeviceBuffer<Fr>,
        scalar_start: usize,
        n: usize,
        window: u32,
        acc: &mut DeviceBuffer<C>,
        stream: &Stream,
    ) -> Result<(), MsmError> {
        let m = msm_inputs(bases, start, idx, scalars, scalar_start, n, window, 1)?;
        super::check_accumulator(acc.len(), window)?;
        stream.device().bind()?;
        // SAFETY: as dev_run's reads (checked by msm_inputs); the kernels
        // update the accumulator's slots of `acc` (checked). Enqueued on
        // `stream`; the caller keeps the buffers alive until it
        // synchronises.
        check(unsafe {
            sys::cuzk_msm_dev_accumulate(
                C::GPU_CURVE,
                m.bases,
                m.idx,
                m.scalars,
                m.n,
                window,
                acc.as_mut_ptr().cast(),
                tuning(),
                stream.raw(),
            )
        })
    }

    /// Hands the MSM scratch that `device`'s stream-ordered pool keeps
    /// between MSMs back to the device.
    pub(crate) fn dev_release_scratch(device: &cuzk_gpu::Device) -> Result<(), MsmError> {
        device.bind()?;
        // SAFETY: no arguments; changes only the bound device's pool
        // settings and frees memory no allocation holds.
        check(unsafe { sys::cuzk_msm_dev_release_scratch() })
    }

    /// Enqueues every bucket of the accumulator `acc` (width `window`) set
    /// to infinity.
    pub(crate) fn dev_buckets_clear<C: GpuPoint>(
        acc: &mut DeviceBuffer<C>,
        window: u32,
        stream: &Stream,
    ) -> Result<(), MsmError> {
        shape(0, window)?;
        super::check_accumulator(acc.len(), window)?;
        stream.device().bind()?;
        // SAFETY: writes the accumulator's slots of `acc` (checked);
        // enqueued on `stream`, `acc` kept alive by the caller until it
        // synchronises.
        check(unsafe {
            sys::cuzk_msm_dev_buckets_clear(
                C::GPU_CURVE,
                window,
                acc.as_mut_ptr().cast(),
                stream.raw(),
            )
        })
    }

    /// Enqueues the window sums of the accumulator `acc` (width `window`)
    /// into `out` (≥ `bucket_slots(window, 1)` slots, as [`dev_run`]'s).
    pub(crate) fn dev_buckets_reduce<C: GpuPoint>(
        acc: &mut DeviceBuffer<C>,
        window: u32,
        out: &mut DeviceBuffer<C>,
        stream: &Stream,
    ) -> Result<(), MsmError> {
        shape(0, window)?;
        super::check_accumulator(acc.len(), window)?;
        check_window_sums(out.len(), window, 1)?;
        stream.device().bind()?;
        // SAFETY: reads the accumulator's slots of `acc` (checked) and
        // writes bucket_slots(window, 1) slots to `out` (checked); enqueued on `stream`,
        // the buffers kept alive by the caller until it synchronises.
        check(unsafe {
            sys::cuzk_msm_dev_buckets_reduce(
                C::GPU_CURVE,
                window,
                acc.as_mut_ptr().cast(),
                out.as_mut_ptr().cast(),
                tuning(),
                stream.raw(),
            )
        })
    }

    /// Enqueues `out[0] ← Σ bases[start + j]` over set bits j < nbits of
    /// the bitmap in `words` from word `word_start`.
    pub(crate) fn dev_bitmap_sum<C: GpuPoint>(
        bases: &DeviceBuffer<C>,
        start: usize,
        words: &DeviceBuffer<u64>,
        word_start: usize,
        nbits: usize,
        out: &mut DeviceBuffer<C>,
        stream: &Stream,
    ) -> Result<(), MsmError> {
        let avail = bases.len().saturating_sub(start);
        if start > bases.len() || nbits > avail {
            return Err(MsmError::TooFewBases {
                have: avail,
                need: nbits,
            });
        }
        if words.len().saturating_sub(word_start) * 64 < nbits || out.is_empty() {
            return Err(MsmError::Gpu(GpuError::InvalidArgument(
                "bitmap or output buffer too short".into(),
            )));
        }
        let nb = u32::try_from(nbits).map_err(|_| MsmError::TooManyPoints(nbits))?;
        stream.device().bind()?;
        let base_ptr = bases
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(start * size_of::<C>());
        // SAFETY: bits j < nbits of `words` from `word_start` (≥ nbits bits) select
        // bases[start + j] with nbits ≤ len − start (checked); one point is
        // written to `out`; enqueued on `stream`, buffers kept alive by the
        // caller until it synchronises.
        check(unsafe {
            sys::cuzk_msm_dev_bitmap_sum(
                C::GPU_CURVE,
                base_ptr.cast(),
                words.as_ptr().cast::<u64>().wrapping_add(word_start).cast(),
                nb,
                out.as_mut_ptr(),
                tuning(),
                stream.raw(),
            )
        })
    }

    /// Synchronises its streams when dropped: host memory that streamed
    /// copies read is borrowed only for the enclosing call, so every exit
    /// (errors included) must wait for the copies to finish.
    pub(crate) struct SyncOnDrop<'a>(pub(crate) &'a [Stream]);

    impl Drop for SyncOnDrop<'_> {
        fn drop(&mut self) {
            for s in self.0 {
                let _ = s.synchronize();
            }
        }
    }

    /// Enqueues a copy of `src` into elements `at ..` of `dst`. The guard's
    /// lifetime ties `src` to a synchronisation of `stream`: the copy may
    /// read `src` until then.
    pub(crate) fn upload_at<'a, T: cuzk_gpu::DeviceCopy>(
        dst: &mut DeviceBuffer<T>,
        at: usize,
        src: &'a [T],
        stream: &Stream,
        sync: &SyncOnDrop<'a>,
    ) -> Result<(), MsmError> {
        if !sync.0.iter().any(|s| s.raw() == stream.raw()) {
            return Err(MsmError::Gpu(GpuError::InvalidArgument(
                "stream not covered by the synchronisation guard".into(),
            )));
        }
        if at.saturating_add(src.len()) > dst.len() {
            return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
                "{} elements at {at} into a buffer of {}",
                src.len(),
                dst.len()
            ))));
        }
        // SAFETY: `src` is borrowed for 'a, and the `SyncOnDrop<'a>` guard
        // (which lists this stream, checked above) synchronises the stream
        // before 'a ends, so the asynchronous copy never reads freed memory;
        // the check above keeps the copy inside the buffer.
        unsafe { dst.upload_range_async(stream, at, src.as_ptr(), src.len()) }
            .map_err(MsmError::Gpu)
    }
}
