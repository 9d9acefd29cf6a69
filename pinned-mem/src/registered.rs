//! [`Registered`]: page-lock existing memory for the lifetime of a borrow.

use std::fmt;
use std::ops::Deref;

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
        let bytes = std::mem::size_of_val(data.as_slice());
        let ptr = data.as_slice().as_ptr() as *mut std::ffi::c_void;
        if bytes == 0 {
            return Ok(Registered {
                data,
                registered: false,
            });
        }
        // SAFETY: `data` is live for 'a, which outlives self; drop
        // unregisters the same pointer. The pointer is only cast to *mut for
        // the C signature: CUDA does not write through it during
        // registration, and read_only registration never lets the device
        // write.
        let r = unsafe { cuzk_gpu::host::register(ptr, bytes, read_only) };
        match r {
            Ok(()) => Ok(Registered {
                data,
                registered: true,
            }),
            Err(e) if e.is_unavailable() => Ok(Registered {
                data,
                registered: false,
            }),
            Err(e) => Err(e.into()),
        }
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
