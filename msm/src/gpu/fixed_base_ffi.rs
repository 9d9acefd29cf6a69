//! The fixed-base kernels' only `unsafe` code: safe wrappers over the
//! generated bindings of `cuda/cuzk_fixed_base.h` (`crate::sys`) that check
//! every length before crossing.
//! Layout facts as in `ffi.rs`: blstrs' affine points equal
//! `affine_t<fp_t>` / `affine_t<fp2_t>`, `Fr` equals `fr_t`, Montgomery.

use cuzk_field::Fr;
use cuzk_gpu::sys::cuzk_error;
use cuzk_gpu::GpuError;

use super::fixed_base::{check_window, fixed_base_table_len, fixed_base_windows};
use super::{GpuPoint, Precomputed};
use crate::sys;
use crate::MsmError;

/// Checks a shifted table of `len` points for `n` bases and `pre`.
fn check_shift(len: usize, n: usize, pre: Precomputed) -> Result<u32, MsmError> {
    if n.checked_mul(pre.copies as usize) != Some(len) {
        return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
            "shifted table of {len} points for {n} bases in {} copies",
            pre.copies
        ))));
    }
    count(n)
}

/// Host twin of the shifted copies: fills `table[t·n ..]` (t ≥ 1) with
/// `2^(pre.shift()·t)·table[..n]`.
pub(crate) fn host_shift<C: GpuPoint>(
    table: &mut [C],
    n: usize,
    pre: Precomputed,
) -> Result<(), MsmError> {
    let n32 = check_shift(table.len(), n, pre)?;
    // SAFETY: `table` holds copies·n points (checked), the C side reads the
    // first n and writes the rest; synchronous, no pointer kept.
    let e = unsafe {
        sys::cuzk_fixed_base_host_shift(
            C::GPU_CURVE,
            table.as_mut_ptr().cast(),
            n32,
            pre.shift(),
            pre.copies,
        )
    };
    host_status(e)
}

fn check_table(len: usize, w: u32) -> Result<(), MsmError> {
    check_window(w)?;
    let need = fixed_base_table_len(w);
    if len != need {
        return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
            "fixed-base table of {len} points for window {w} (needs {need})"
        ))));
    }
    Ok(())
}

fn check_rows(len: usize, w: u32) -> Result<(), MsmError> {
    check_window(w)?;
    let need = fixed_base_windows(w) as usize;
    if len != need {
        return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
            "{len} row bases for window {w} (needs {need})"
        ))));
    }
    Ok(())
}

/// A host twin's result (the arguments were checked before the call).
fn host_status(e: cuzk_error) -> Result<(), MsmError> {
    // SAFETY: every caller passes the value a host twin entry point just returned.
    unsafe { cuzk_gpu::check_twin_error(e) }.map_err(MsmError::Gpu)
}

/// Host twin of the table: `table[j·h + m − 1] = m·rows[j]` (h = 2^(w−1)).
pub(crate) fn host_table<C: GpuPoint>(rows: &[C], w: u32, table: &mut [C]) -> Result<(), MsmError> {
    check_rows(rows.len(), w)?;
    check_table(table.len(), w)?;
    // SAFETY: `rows` holds the W row bases and `table` the W·h points the
    // C side reads and writes (both checked for w); layouts as in the module
    // docs; synchronous, no pointer kept.
    let e = unsafe {
        sys::cuzk_fixed_base_host_table(
            C::GPU_CURVE,
            rows.as_ptr().cast(),
            w,
            table.as_mut_ptr().cast(),
        )
    };
    host_status(e)
}

fn count(n: usize) -> Result<u32, MsmError> {
    u32::try_from(n).map_err(|_| MsmError::TooManyPoints(n))
}

/// Host twin: `out[i] = scalars[i]·G` from G's table for window `w`.
pub(crate) fn host_run<C: GpuPoint>(
    table: &[C],
    w: u32,
    scalars: &[Fr],
    out: &mut [C],
) -> Result<(), MsmError> {
    check_table(table.len(), w)?;
    if out.len() != scalars.len() {
        return Err(MsmError::LengthMismatch {
            bases: out.len(),
            scalars: scalars.len(),
        });
    }
    let n = count(scalars.len())?;
    // SAFETY: `table` holds the W·2^(w−1) points the kernels index (checked;
    // digit magnitudes are 1..=2^(w−1)), `scalars` and `out` n elements each;
    // the types match the C layouts (module docs). Synchronous; the C side
    // keeps no pointer.
    let e = unsafe {
        sys::cuzk_fixed_base_host_run(
            C::GPU_CURVE,
            table.as_ptr().cast(),
            w,
            scalars.as_ptr().cast(),
            n,
            out.as_mut_ptr().cast(),
        )
    };
    host_status(e)
}

#[cfg(feature = "cuda")]
pub(crate) use device::{dev_run, dev_shift, dev_table};

#[cfg(feature = "cuda")]
mod device {
    use cuzk_field::Fr;
    use cuzk_gpu::sys::cuzk_error;
    use cuzk_gpu::{DeviceBuffer, GpuError, Stream};

    use super::{check_rows, check_shift, check_table, count, GpuPoint, Precomputed};
    use crate::sys;
    use crate::MsmError;

    /// The cuzk_gpu mapping of a shim error (same codes, see cuzk_gpu.h).
    fn check(e: cuzk_error) -> Result<(), MsmError> {
        // SAFETY: every caller passes the value a shim function just returned.
        unsafe { cuzk_gpu::check_shim_error(e) }.map_err(MsmError::Gpu)
    }

    /// Enqueues the table build: `table[j·h + m − 1] ← m·rows[j]`, with
    /// `scratch` holding two point-sized slots per table entry.
    /// Asynchronous, as [`dev_run`].
    pub(crate) fn dev_table<C: GpuPoint>(
        rows: &DeviceBuffer<C>,
        w: u32,
        scratch: &mut DeviceBuffer<C>,
        table: &mut DeviceBuffer<C>,
        stream: &Stream,
    ) -> Result<(), MsmError> {
        check_rows(rows.len(), w)?;
        check_table(table.len(), w)?;
        if scratch.len() / 2 < table.len() {
            return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
                "table scratch of {} slots, needs {}",
                scratch.len(),
                2 * table.len()
            ))));
        }
        stream.device().bind()?;
        // SAFETY: device allocations owned by live DeviceBuffers: the
        // kernels read the W row bases (checked) and write W·h XYZZ points
        // (2·W·h slots, checked) to `scratch` and W·h points to `table`
        // (checked). Enqueued on `stream`; the caller keeps the buffers
        // alive until it synchronises.
        check(unsafe {
            sys::cuzk_fixed_base_dev_table(
                C::GPU_CURVE,
                rows.as_ptr(),
                w,
                scratch.as_mut_ptr(),
                table.as_mut_ptr(),
                stream.raw(),
            )
        })
    }

    /// Enqueues `out[i] ← scalars[i]·G` for every scalar of `scalars` on
    /// `stream` (G's table for window `w` in `table`; `scratch` holds two
    /// point-sized slots per scalar). Asynchronous: the caller synchronises
    /// `stream` (e.g. by downloading `out`) before dropping or reusing the
    /// buffers.
    pub(crate) fn dev_run<C: GpuPoint>(
        table: &DeviceBuffer<C>,
        w: u32,
        scalars: &DeviceBuffer<Fr>,
        scratch: &mut DeviceBuffer<C>,
        out: &mut DeviceBuffer<C>,
        stream: &Stream,
    ) -> Result<(), MsmError> {
        check_table(table.len(), w)?;
        let len = scalars.len();
        let n = count(len)?;
        if out.len() < len || scratch.len() / 2 < len {
            return Err(MsmError::Gpu(GpuError::InvalidArgument(format!(
                "{len} scalars need {len} output and {} scratch slots, got {} and {}",
                2 * len,
                out.len(),
                scratch.len()
            ))));
        }
        // Kernels must launch on the current device: make the stream's current.
        stream.device().bind()?;
        // SAFETY: all pointers are device allocations owned by live
        // DeviceBuffers; the kernels read the whole table (length checked
        // for w) and n scalars, write n XYZZ points (2n point slots, checked)
        // to `scratch` and n points to `out` (checked). The work is enqueued
        // on `stream`; the caller keeps the buffers alive until it
        // synchronises.
        check(unsafe {
            sys::cuzk_fixed_base_dev_run(
                C::GPU_CURVE,
                table.as_ptr(),
                w,
                scalars.as_ptr(),
                n,
                scratch.as_mut_ptr(),
                out.as_mut_ptr(),
                stream.raw(),
            )
        })
    }

    /// Enqueues the shifted copies: `table[t·n ..] ← 2^(pre.shift()·t)·
    /// table[..n]` for 1 ≤ t < copies, `scratch.len() / 2` points at a time
    /// (two point-sized slots per XYZZ point). Asynchronous, as [`dev_run`].
    pub(crate) fn dev_shift<C: GpuPoint>(
        table: &mut DeviceBuffer<C>,
        n: usize,
        pre: Precomputed,
        scratch: &mut DeviceBuffer<C>,
        stream: &Stream,
    ) -> Result<(), MsmError> {
        let n32 = check_shift(table.len(), n, pre)?;
        let chunk = u32::try_from(scratch.len() / 2).unwrap_or(u32::MAX);
        if chunk == 0 {
            return Err(MsmError::Gpu(GpuError::InvalidArgument(
                "shift scratch below one XYZZ point".into(),
            )));
        }
        stream.device().bind()?;
        // SAFETY: device allocations owned by live DeviceBuffers: the
        // kernels read and write the copies·n points of `table` (checked)
        // and `chunk` XYZZ points (2·chunk slots ≤ scratch.len()) of
        // `scratch`. Enqueued on `stream`; the caller keeps the buffers
        // alive until it synchronises.
        check(unsafe {
            sys::cuzk_fixed_base_dev_shift(
                C::GPU_CURVE,
                table.as_mut_ptr(),
                n32,
                pre.shift(),
                pre.copies,
                scratch.as_mut_ptr(),
                chunk,
                stream.raw(),
            )
        })
    }
}
