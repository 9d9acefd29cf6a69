//! Raw blocks: the only module here that touches pointers. A block is
//! either page-locked (cuzk_gpu::host) or a 4 KiB-aligned heap allocation,
//! always zero-filled when fresh.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

use crate::{PinnedError, Result};

/// Page size alignment for the pageable fallback: the same alignment
/// cudaHostAlloc gives, so code never depends on which one it got.
pub(crate) const ALIGN: usize = 4096;

#[derive(Debug)]
pub(crate) struct RawBlock {
    ptr: NonNull<u8>,
    bytes: usize,
    pinned: bool,
}

// SAFETY: the block exclusively owns its allocation; moving it between
// threads moves that ownership. It is plain memory with no thread affinity.
unsafe impl Send for RawBlock {}
// SAFETY: &RawBlock only exposes the pointer value and metadata.
unsafe impl Sync for RawBlock {}

impl RawBlock {
    /// A zero-filled block of `bytes` (> 0). Pinned when `try_pin` and the
    /// runtime has a device; pageable otherwise. Pinning errors other than
    /// "unavailable" are returned.
    pub(crate) fn new(bytes: usize, try_pin: bool) -> Result<RawBlock> {
        assert!(bytes > 0, "RawBlock::new(0)");
        if try_pin {
            match cuzk_gpu::host::alloc_pinned(bytes) {
                Ok(p) => {
                    let ptr =
                        NonNull::new(p.cast::<u8>()).ok_or(PinnedError::HostAlloc { bytes })?;
                    // SAFETY: cudaHostAlloc returned `bytes` writable bytes.
                    // Zeroing makes every byte initialised for Rust.
                    unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, bytes) };
                    return Ok(RawBlock {
                        ptr,
                        bytes,
                        pinned: true,
                    });
                }
                Err(e) if e.is_unavailable() => {}
                Err(e) => return Err(e.into()),
            }
        }
        let layout =
            Layout::from_size_align(bytes, ALIGN).map_err(|_| PinnedError::HostAlloc { bytes })?;
        // SAFETY: layout has non-zero size (asserted above).
        let p = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(p).ok_or(PinnedError::HostAlloc { bytes })?;
        Ok(RawBlock {
            ptr,
            bytes,
            pinned: false,
        })
    }

    pub(crate) fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn is_pinned(&self) -> bool {
        self.pinned
    }
}

impl Drop for RawBlock {
    fn drop(&mut self) {
        if self.pinned {
            // SAFETY: ptr came from alloc_pinned and is freed once. Safe
            // code cannot leave an async copy pending on it (cuzk-gpu's
            // async copies are unsafe and require the caller to wait).
            let _ = unsafe { cuzk_gpu::host::free_pinned(self.ptr.as_ptr().cast()) };
        } else {
            // SAFETY: allocated in new() with this exact layout.
            unsafe {
                dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.bytes, ALIGN),
                )
            };
        }
    }
}

/// `len · size_of::<T>()` or TooLarge.
pub(crate) fn byte_len<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or(PinnedError::TooLarge {
            len,
            elem_size: std::mem::size_of::<T>(),
        })
}

/// Views `len` elements of `T` at the start of `block` (or a dangling
/// pointer for zero bytes).
///
/// # Safety
/// `block` (if any) must hold at least `len · size_of::<T>()` initialised
/// bytes, be aligned for T (blocks are 4096-aligned; T's alignment must not
/// exceed that), and outlive the returned slice, with no other live
/// reference to those bytes.
pub(crate) unsafe fn slice_mut<'a, T>(block: Option<&RawBlock>, len: usize) -> &'a mut [T] {
    match block {
        // SAFETY: caller's contract; T: DeviceCopy accepts any bytes.
        Some(b) => unsafe { std::slice::from_raw_parts_mut(b.ptr().as_ptr().cast::<T>(), len) },
        None => {
            debug_assert!(len == 0 || std::mem::size_of::<T>() == 0);
            // SAFETY: a dangling, aligned pointer is valid for zero bytes.
            unsafe { std::slice::from_raw_parts_mut(NonNull::<T>::dangling().as_ptr(), len) }
        }
    }
}
