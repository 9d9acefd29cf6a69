//! # cuzk-gpu
//!
//! A small, safe layer over the CUDA runtime for cuzk, in the manner of
//! cudarc but through our own C shim (`cuda/runtime.cu`), so the only CUDA
//! library linked is the static runtime (`cudart_static`) and the binaries
//! need nothing but the NVIDIA driver.
//!
//! Layers:
//! - [`sys`]: raw bindgen output for `cuda/include/cuzk_gpu.h` (committed;
//!   regenerate with `cargo xtask bindgen`). Every C function returns a
//!   `cuzk_error` by value; no C++ exception or Rust panic crosses the boundary.
//! - [`GpuError`] / [`Result`]: the typed error (CUDA error name and text).
//! - RAII types: [`Device`] (enumeration, properties, memory), [`Stream`],
//!   [`Event`] (elapsed time), [`DeviceBuffer`] (alloc, upload, download,
//!   memset; freed on drop), [`BufferPool`] (buffers kept for reuse,
//!   stream-ordered), and [`host`] (page-locked allocation and
//!   registration, used by cuzk-pinned-mem).
//! - [`describe_devices`]: the text `cuzk info` prints.
//! - [`fault`]: test-only fault injection (feature `fault-injection`).
//! - [`tuning`]: the measurement settings read from the environment once
//!   ([`tuning::Tuning::get`]), passed to the C++ side as arguments.
//! - `field_test` (feature `field-test`): differential-test and benchmark
//!   hooks for the BLS12-381 CUDA headers in `field/cuda` (host C++ twin;
//!   device kernels with `cuda` too).
//!
//! Features:
//! - `cuda`: compile the shim and kernels with nvcc (found by
//!   cuzk-cuda-build; `cargo xtask cuda` installs one). Without it every
//!   entry point returns [`GpuError::NotBuilt`] and [`device_count`] is 0.
//!   With it on a machine without a GPU or driver: [`GpuError::NoDevice`].
//! - `fault-injection`: tests can make device allocations, copies and
//!   kernel launches fail and MSM results wrong ([`fault`]).
//! - `field-test`: builds `field_test` and the field/curve test kernels
//!   (this crate's own tests and benches turn it on).

mod device;
mod error;
pub mod fault;
#[cfg(feature = "field-test")]
pub mod field_sys;
#[cfg(feature = "field-test")]
pub mod field_test;
pub mod host;
mod memory;
mod pool;
mod stream;
pub mod sys;
pub mod tuning;

pub use device::{
    built_with_cuda, describe_devices, device_count, try_device_count, versions, Device,
    DeviceProps,
};
pub use error::{GpuError, Result};
pub use memory::{DeviceBuffer, DeviceCopy};
pub use pool::BufferPool;
pub use stream::{Event, Stream};

/// Converts the `cuzk_error` that a shim function returned into a `Result`,
/// freeing its message. For other crates' `.cu` files that follow the same
/// convention (cuzk-ntt, cuzk-msm), so the code mapping lives in one place.
///
/// # Safety
/// `e` must be exactly the value a shim function returned, with its message
/// neither freed nor handed to this function before.
pub unsafe fn check_shim_error(e: sys::cuzk_error) -> Result<()> {
    check(e)?;
    // The other crates' shim functions are kernel entry points: an
    // injected launch failure (tests only, see `fault`) is raised here.
    fault::hit(fault::Fault::Launch)
}

/// Converts the `cuzk_error` that a host twin's entry point (the same C++
/// pipeline run on the CPU, for tests) returned into a `Result`, freeing its
/// message. Unlike [`check_shim_error`] it raises no injected launch fault:
/// a host twin launches nothing.
///
/// # Safety
/// As for [`check_shim_error`].
pub unsafe fn check_twin_error(e: sys::cuzk_error) -> Result<()> {
    check(e)
}

/// Turns a shim result into a `Result`, freeing the message.
pub(crate) fn check(e: sys::cuzk_error) -> Result<()> {
    if e.code == 0 && e.msg.is_null() {
        return Ok(());
    }
    let msg = if e.msg.is_null() {
        String::new()
    } else {
        // SAFETY: a non-null msg is a NUL-terminated string malloc'd by the
        // shim (cuzk_gpu.h contract) and not yet freed.
        unsafe { std::ffi::CStr::from_ptr(e.msg) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: frees exactly the message we were handed, once.
    unsafe { sys::cuzk_error_free(e) };
    if e.code == 0 {
        return Ok(());
    }
    Err(GpuError::from_code(e.code, msg))
}
