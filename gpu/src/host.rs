//! Page-locked host memory through the CUDA runtime: the raw operations
//! behind cuzk-pinned-mem, which owns the safe buffer types. This module
//! owns the FFI; pinned-mem owns the policy (pooling, fallback, RAII).

use std::ffi::c_void;

use crate::{check, sys, GpuError, Result};

/// Allocates `bytes` of page-locked, portable (visible to every device)
/// host memory with `cudaHostAlloc`.
pub fn alloc_pinned(bytes: usize) -> Result<*mut c_void> {
    let mut p: *mut c_void = std::ptr::null_mut();
    crate::fault::hit(crate::fault::Fault::Alloc)
        .and_then(|()| {
            // SAFETY: `p` is a valid out-pointer.
            check(unsafe { sys::cuzk_host_alloc(bytes, sys::CUZK_HOST_ALLOC_PORTABLE, &mut p) })
        })
        .map_err(|e| match e {
            // The runtime reports a failed page-locked host allocation with
            // the device's out-of-memory code: it is host memory here.
            GpuError::OutOfMemory { .. } => {
                GpuError::HostAlloc(format!("{bytes} bytes of page-locked host memory"))
            }
            e => e,
        })?;
    Ok(p)
}

/// Frees memory from [`alloc_pinned`].
///
/// # Safety
/// `ptr` must come from [`alloc_pinned`], be freed once, and no copy using
/// it may still be pending.
pub unsafe fn free_pinned(ptr: *mut c_void) -> Result<()> {
    // SAFETY: forwarded contract.
    check(unsafe { sys::cuzk_host_free(ptr) })
}

/// Page-locks `bytes` at `ptr` (`cudaHostRegister`, portable; `read_only`
/// adds cudaHostRegisterReadOnly for memory the device only reads, such as
/// a read-only mmap of a parameter file).
///
/// # Safety
/// `ptr..ptr+bytes` must be a live mapping that stays mapped and is not
/// freed until [`unregister`] is called on `ptr`.
pub unsafe fn register(ptr: *mut c_void, bytes: usize, read_only: bool) -> Result<()> {
    let mut flags = sys::CUZK_HOST_REGISTER_PORTABLE;
    if read_only {
        flags |= sys::CUZK_HOST_REGISTER_READ_ONLY;
    }
    // SAFETY: forwarded contract.
    check(unsafe { sys::cuzk_host_register(ptr, bytes, flags) })
}

/// Undoes [`register`].
///
/// # Safety
/// `ptr` must have been registered and no copy using it may be pending.
pub unsafe fn unregister(ptr: *mut c_void) -> Result<()> {
    // SAFETY: forwarded contract.
    check(unsafe { sys::cuzk_host_unregister(ptr) })
}
