//! The only unsafe code besides `cpu::blst_ops`: safe wrappers over the
//! generated bindings of `cuda/cuzk_ntt.h` (`crate::sys`) that check
//! lengths before crossing.
#![allow(unsafe_code)]

use crate::sys;
use crate::NttError;
use cuzk_field::Fr;
use cuzk_gpu::sys::cuzk_error;
use std::ffi::c_void;

/// Length of the twiddle table (see `cuda/ntt.cuh`).
pub(crate) const TW_LEN: usize = 2 * 1024 + 2 * (1 << 14) + (1 << 18);
/// Length of a scale table.
pub(crate) const SC_LEN: usize = 2 << 14;

/// The host twin's result: its entry points return a `cuzk_error` like the
/// kernels; a failure becomes [`NttError::Twin`] with `what`.
fn host_status(e: cuzk_error, what: &'static str) -> Result<(), NttError> {
    // SAFETY: every caller passes the value a host twin entry point just returned.
    unsafe { cuzk_gpu::check_twin_error(e) }.map_err(|_| NttError::Twin(what))
}

fn log2_exact(len: usize) -> Result<u32, NttError> {
    if !len.is_power_of_two() {
        return Err(NttError::NotPowerOfTwo(len));
    }
    let log_n = len.trailing_zeros();
    if log_n > crate::MAX_LOG_SIZE {
        return Err(NttError::DomainTooLarge {
            log_size: log_n,
            max_log_size: crate::MAX_LOG_SIZE,
        });
    }
    Ok(log_n)
}

fn scale_ptr(sc: Option<&[Fr]>) -> Result<*const c_void, NttError> {
    match sc {
        None => Ok(std::ptr::null()),
        Some(s) if s.len() == SC_LEN => Ok(s.as_ptr().cast()),
        Some(s) => Err(NttError::LengthMismatch {
            expected: SC_LEN,
            got: s.len(),
        }),
    }
}

/// Operands fused into a transform: `mul` multiplies input `i` in the
/// first pass (`F_MUL_IN`), `sub` is subtracted from output `i` in the last
/// (`F_SUB_OUT`, after any output scaling); both indexed by position, as
/// long as the data. [`Fused::NONE`]: a plain transform.
#[derive(Debug)]
pub struct Fused<'a, B: ?Sized> {
    /// Factors for the inputs.
    pub mul: Option<&'a B>,
    /// Subtrahends for the outputs.
    pub sub: Option<&'a B>,
}

impl<B: ?Sized> Fused<'_, B> {
    /// No fused operands.
    pub const NONE: Self = Fused {
        mul: None,
        sub: None,
    };

    /// True without operands.
    pub fn is_none(&self) -> bool {
        self.mul.is_none() && self.sub.is_none()
    }

    /// `flags` with `F_MUL_IN` / `F_SUB_OUT` set exactly when their
    /// operand is given.
    pub(crate) fn flags(&self, flags: u32) -> u32 {
        let set = |f: u32, bit: u32, on: bool| if on { f | bit } else { f & !bit };
        let f = set(flags, sys::CUZK_NTT_MUL_IN, self.mul.is_some());
        set(f, sys::CUZK_NTT_SUB_OUT, self.sub.is_some())
    }
}

// Two shared references: copyable whatever B is (derive would ask B: Copy).
impl<B: ?Sized> Clone for Fused<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: ?Sized> Copy for Fused<'_, B> {}

/// Fused operands must be as long as the data.
pub(crate) fn check_fused_lens(
    len: usize,
    mul: Option<usize>,
    sub: Option<usize>,
) -> Result<(), NttError> {
    match mul.into_iter().chain(sub).find(|&l| l != len) {
        Some(got) => Err(NttError::LengthMismatch { expected: len, got }),
        None => Ok(()),
    }
}

/// The host twin of one device transform (`flags` as in `cuzk_ntt.h`, with
/// `F_MUL_IN` / `F_SUB_OUT` set exactly when `fused` gives their operand).
pub(crate) fn host_run(
    data: &mut [Fr],
    flags: u32,
    tw: &[Fr],
    sc: Option<&[Fr]>,
    fused: Fused<'_, [Fr]>,
) -> Result<(), NttError> {
    let log_n = log2_exact(data.len())?;
    if tw.len() != TW_LEN {
        return Err(NttError::LengthMismatch {
            expected: TW_LEN,
            got: tw.len(),
        });
    }
    let sp = scale_ptr(sc)?;
    check_fused_lens(
        data.len(),
        fused.mul.map(<[Fr]>::len),
        fused.sub.map(<[Fr]>::len),
    )?;
    let ptr = |o: Option<&[Fr]>| o.map_or(std::ptr::null(), |v| v.as_ptr().cast::<c_void>());
    let (mp, up) = (ptr(fused.mul), ptr(fused.sub));
    // SAFETY: data holds 2^log_n Fr (checked), tw TW_LEN and sc SC_LEN (or
    // null, which the C side rejects when a scale flag asks for it), mul
    // and sub (when given) data.len() each (checked); Fr is blst_fr, the
    // layout fr_t expects; the call reads and writes only those.
    let rc = unsafe {
        sys::cuzk_ntt_host_run(
            data.as_mut_ptr().cast(),
            log_n,
            fused.flags(flags),
            tw.as_ptr().cast(),
            sp,
            mp,
            up,
        )
    };
    host_status(rc, "host twin rejected the transform arguments")
}

/// The host twin of the bit-reversal kernel.
pub(crate) fn host_bitrev(data: &mut [Fr]) -> Result<(), NttError> {
    let log_n = log2_exact(data.len())?;
    // SAFETY: data holds exactly 2^log_n elements.
    let rc = unsafe { sys::cuzk_ntt_host_bitrev(data.as_mut_ptr().cast(), log_n) };
    host_status(rc, "host twin rejected the permutation arguments")
}

/// The host twin of the pointwise kernel: `a[i] = op(a[i], b[i], k)`.
pub(crate) fn host_pointwise(
    op: i32,
    a: &mut [Fr],
    b: Option<&[Fr]>,
    k: Fr,
) -> Result<(), NttError> {
    let bp = match b {
        Some(b) if b.len() == a.len() => b.as_ptr().cast(),
        Some(b) => {
            return Err(NttError::LengthMismatch {
                expected: a.len(),
                got: b.len(),
            })
        }
        None => std::ptr::null(),
    };
    let k = [k];
    // SAFETY: a and b (if any) hold a.len() elements; k one.
    let rc = unsafe {
        sys::cuzk_ntt_host_pointwise(op, a.as_mut_ptr().cast(), bp, k.as_ptr().cast(), a.len())
    };
    host_status(rc, "host twin rejected the pointwise arguments")
}

#[cfg(feature = "cuda")]
pub(crate) mod device {
    //! The device entry points, on raw device pointers.
    use super::*;
    use cuzk_gpu::{DeviceBuffer, Stream};

    /// Turns a shim result into a `Result` (the mapping of cuzk-gpu's
    /// `check`, which is crate-private there), freeing the message.
    fn check(e: cuzk_error) -> Result<(), NttError> {
        // SAFETY: every caller passes the value a shim function just returned.
        unsafe { cuzk_gpu::check_shim_error(e) }.map_err(NttError::Gpu)
    }

    /// Makes the stream's device current on this thread: a kernel launched
    /// onto another device's stream fails (matters with several GPUs).
    fn bind(stream: &Stream) -> Result<(), NttError> {
        stream.device().bind().map_err(NttError::Gpu)
    }

    /// Enqueues one transform on `stream`, with the `fused` operands.
    /// The buffers' lengths are checked; all device work on them is ordered
    /// by `stream`.
    pub(crate) fn run(
        stream: &Stream,
        data: &mut DeviceBuffer<Fr>,
        flags: u32,
        tw: &DeviceBuffer<Fr>,
        sc: Option<&DeviceBuffer<Fr>>,
        fused: Fused<'_, DeviceBuffer<Fr>>,
    ) -> Result<(), NttError> {
        let log_n = log2_exact(data.len())?;
        bind(stream)?;
        if tw.len() != TW_LEN || sc.is_some_and(|s| s.len() != SC_LEN) {
            return Err(NttError::Twin("device tables of the wrong length"));
        }
        check_fused_lens(
            data.len(),
            fused.mul.map(DeviceBuffer::len),
            fused.sub.map(DeviceBuffer::len),
        )?;
        let sp = sc.map_or(std::ptr::null(), |s| s.as_ptr());
        let ptr = |o: Option<&DeviceBuffer<Fr>>| o.map_or(std::ptr::null(), |v| v.as_ptr());
        let (mp, up) = (ptr(fused.mul), ptr(fused.sub));
        // SAFETY: device pointers of live buffers with the lengths the
        // kernels index (2^log_n, TW_LEN, SC_LEN, and 2^log_n for mul and
        // sub, checked); the launch is ordered on `stream`, and the buffers
        // are freed only after cudaFree, which waits for pending work.
        check(unsafe {
            sys::cuzk_ntt_gpu_run(
                data.as_mut_ptr(),
                log_n,
                fused.flags(flags),
                tw.as_ptr(),
                sp,
                mp,
                up,
                stream.raw(),
            )
        })
    }

    /// Enqueues the in-place bit-reversal permutation.
    pub(crate) fn bitrev(stream: &Stream, data: &mut DeviceBuffer<Fr>) -> Result<(), NttError> {
        let log_n = log2_exact(data.len())?;
        bind(stream)?;
        // SAFETY: a live device buffer of exactly 2^log_n elements.
        check(unsafe { sys::cuzk_ntt_gpu_bitrev(data.as_mut_ptr(), log_n, stream.raw()) })
    }

    /// Enqueues `a[i] = op(a[i], b[i], k)`.
    pub(crate) fn pointwise(
        stream: &Stream,
        op: i32,
        a: &mut DeviceBuffer<Fr>,
        b: Option<&DeviceBuffer<Fr>>,
        k: Fr,
    ) -> Result<(), NttError> {
        if let Some(b) = b {
            if b.len() != a.len() {
                return Err(NttError::LengthMismatch {
                    expected: a.len(),
                    got: b.len(),
                });
            }
        }
        bind(stream)?;
        let bp = b.map_or(std::ptr::null(), |b| b.as_ptr());
        let k = [k];
        // SAFETY: live device buffers of a.len() elements; `k` is a host
        // value the C side copies into the launch before returning.
        check(unsafe {
            sys::cuzk_ntt_gpu_pointwise(
                op,
                a.as_mut_ptr(),
                bp,
                k.as_ptr().cast(),
                a.len(),
                stream.raw(),
            )
        })
    }

    /// Copies `src` into the first `src.len()` elements of `dst` and zeroes
    /// the rest, on `stream`, waiting for the copy (src is pageable).
    pub(crate) fn upload_padded(
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
        // The fill is enqueued first so that the upload's wait covers both
        // (the ranges are disjoint, so the order does not matter).
        dst.memset_range(stream, src.len(), dst.len() - src.len(), 0)?;
        dst.upload_range(stream, 0, src)?;
        Ok(())
    }
}
