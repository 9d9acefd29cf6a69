//! [`Registered`]: page-lock existing memory for the lifetime of a borrow;
//! [`SharedRegistration`]: the same for a slice inside an `Arc`, held.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use cuzk_gpu::{DeviceCopy, GpuError};

use crate::Result;

/// Memory you already own (a `Vec`, a slice of an mmap'd file), page-locked
/// with `cudaHostRegister` while this value lives, unregistered on drop.
///
/// Safety contract (enforced by the borrow, documented for FFI users):
/// - the memory stays mapped and is not freed while registered: `'a`
///   borrows it, so the owner (Vec, `memmap2::Mmap`) cannot drop first;
/// - an mmap'd file mapped read-only must use [`Registered::new_read_only`]
///   (the driver cannot pin it for writing), and must not be truncated by
///   another process while registered (that is SIGBUS territory with or
///   without CUDA);
/// - no device copy may still be reading or writing the range when this
///   drops: cuzk-gpu only offers asynchronous copies as `unsafe` functions
///   whose callers promise to synchronise first;
/// - overlapping registrations of the same pages fail with a CUDA error
///   (cudaErrorHostMemoryAlreadyRegistered), which is returned, not hidden.
///
/// When pinning is unavailable (no `cuda` feature or no GPU) this is a
/// plain borrow and [`Registered::is_registered`] is false.
pub struct Registered<'a, T: DeviceCopy> {
    data: Data<'a, T>,
    registered: bool,
}

enum Data<'a, T> {
    Mut(&'a mut [T]),
    Ref(&'a [T]),
}

impl<T> Data<'_, T> {
    fn as_slice(&self) -> &[T] {
        match self {
            Data::Mut(s) => s,
            Data::Ref(s) => s,
        }
    }
}

impl<'a, T: DeviceCopy> Registered<'a, T> {
    /// Registers `data` for reads and writes by the device.
    pub fn new(data: &'a mut [T]) -> Result<Self> {
        Self::register(Data::Mut(data), false)
    }

    /// Registers read-only memory (e.g. a read-only mmap) for device reads.
    pub fn new_read_only(data: &'a [T]) -> Result<Self> {
        Self::register(Data::Ref(data), true)
    }

    fn register(data: Data<'a, T>, read_only: bool) -> Result<Self> {
        // SAFETY: `data` is live for 'a, which outlives self; drop
        // unregisters the same pointer.
        let registered = unsafe { pin(data.as_slice(), read_only)? };
        Ok(Registered { data, registered })
    }

    /// The memory, writable, when registered with [`Registered::new`]
    /// (None for read-only registrations).
    pub fn as_mut_slice(&mut self) -> Option<&mut [T]> {
        match &mut self.data {
            Data::Mut(s) => Some(s),
            Data::Ref(_) => None,
        }
    }

    /// True when the range is really page-locked.
    pub fn is_registered(&self) -> bool {
        self.registered
    }

    /// Unregisters now, reporting a CUDA error instead of ignoring it.
    pub fn unregister(mut self) -> Result<(), GpuError> {
        let r = self.do_unregister();
        std::mem::forget(self);
        r
    }

    fn do_unregister(&mut self) -> Result<(), GpuError> {
        if !self.registered {
            return Ok(());
        }
        self.registered = false;
        // SAFETY: we registered exactly this pointer; no copy is pending
        // (contract above).
        unsafe { cuzk_gpu::host::unregister(self.data.as_slice().as_ptr() as *mut _) }
    }
}

/// Page-locks `data`; Ok(false) when pinning is unavailable or `data` is
/// empty.
///
/// # Safety
/// `data` must stay mapped and unmoved until it is unregistered.
unsafe fn pin<T>(data: &[T], read_only: bool) -> Result<bool> {
    let bytes = std::mem::size_of_val(data);
    if bytes == 0 {
        return Ok(false);
    }
    // The pointer is only cast to *mut for the C signature: CUDA does not
    // write through it during registration, and read_only registration
    // never lets the device write.
    let ptr = data.as_ptr() as *mut std::ffi::c_void;
    // SAFETY: forwarded contract.
    match unsafe { cuzk_gpu::host::register(ptr, bytes, read_only) } {
        Ok(()) => Ok(true),
        Err(e) if e.is_unavailable() => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// A slice inside shared, immutable data (`Arc<P>`, e.g. one query of a
/// parameter set), page-locked read-only for as long as this value holds
/// its clone of the `Arc`: the GPU prover's transient residency streams
/// bases from memory pinned this way once, at preload, instead of pinning
/// per partition or copying from pageable memory (~8 GB/s instead of ~55).
///
/// Why it is sound without a borrow: the `Arc` clone held here keeps `P`
/// alive and never uniquely owned (so `Arc::get_mut` elsewhere fails), and
/// the slice comes from `&P` through `project`, so safe code cannot move
/// or free it while this value lives. As with [`Registered`], no device
/// copy may be reading the range when this drops.
pub struct SharedRegistration<P> {
    owner: Arc<P>,
    ptr: *const u8,
    bytes: usize,
    registered: bool,
}

// SAFETY: the raw pointer only names memory owned by `owner` (Send + Sync
// when P is) and is used for nothing but unregistering.
unsafe impl<P: Send + Sync> Send for SharedRegistration<P> {}
// SAFETY: as above; no method mutates through the pointer.
unsafe impl<P: Send + Sync> Sync for SharedRegistration<P> {}

impl<P> SharedRegistration<P> {
    /// Registers `project(&owner)` read-only for device reads.
    pub fn new<T: DeviceCopy>(
        owner: Arc<P>,
        project: impl for<'p> FnOnce(&'p P) -> &'p [T],
    ) -> Result<Self> {
        let slice = project(&owner);
        let (ptr, bytes) = (slice.as_ptr().cast::<u8>(), std::mem::size_of_val(slice));
        // SAFETY: the slice lives in `owner`, held by the value returned,
        // which unregisters this pointer on drop (see the type's docs).
        let registered = unsafe { pin(slice, true)? };
        Ok(Self {
            owner,
            ptr,
            bytes,
            registered,
        })
    }

    /// True when the range is really page-locked.
    pub fn is_registered(&self) -> bool {
        self.registered
    }

    /// Bytes registered (0 when not registered).
    pub fn bytes(&self) -> usize {
        if self.registered {
            self.bytes
        } else {
            0
        }
    }

    /// The shared owner.
    pub fn owner(&self) -> &Arc<P> {
        &self.owner
    }
}

impl<P> Drop for SharedRegistration<P> {
    fn drop(&mut self) {
        if self.registered {
            self.registered = false;
            // SAFETY: we registered exactly this pointer, still owned by
            // `self.owner`; no copy is pending (type docs).
            let _ = unsafe { cuzk_gpu::host::unregister(self.ptr as *mut _) };
        }
    }
}

impl<P> fmt::Debug for SharedRegistration<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedRegistration")
            .field("bytes", &self.bytes)
            .field("registered", &self.registered)
            .finish()
    }
}

impl<T: DeviceCopy> Deref for Registered<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.data.as_slice()
    }
}

impl<T: DeviceCopy> Drop for Registered<'_, T> {
    fn drop(&mut self) {
        let _ = self.do_unregister();
    }
}

impl<T: DeviceCopy> fmt::Debug for Registered<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registered")
            .field("len", &self.data.as_slice().len())
            .field("registered", &self.registered)
            .finish()
    }
}
