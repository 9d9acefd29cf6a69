//! [`PinnedBuffer<T>`]: an owned page-locked buffer (or its pageable twin).

use std::fmt;
use std::ops::{Deref, DerefMut};

use cuzk_gpu::DeviceCopy;

use crate::raw::{byte_len, slice_mut, RawBlock, ALIGN};
use crate::Result;

/// `len` elements of `T` in page-locked host memory (zero-initialised),
/// or in ordinary heap memory when pinning is unavailable. Derefs to `[T]`.
pub struct PinnedBuffer<T: DeviceCopy> {
    block: Option<RawBlock>,
    len: usize,
    _t: std::marker::PhantomData<T>,
}

impl<T: DeviceCopy> PinnedBuffer<T> {
    /// Pinned if possible, else pageable (check with [`Self::is_pinned`]).
    pub fn new(len: usize) -> Result<Self> {
        Self::build(len, true)
    }

    /// Always the pageable fallback (for comparisons and tests).
    pub fn pageable(len: usize) -> Result<Self> {
        Self::build(len, false)
    }

    fn build(len: usize, try_pin: bool) -> Result<Self> {
        assert!(
            std::mem::align_of::<T>() <= ALIGN,
            "over-aligned element type"
        );
        let bytes = byte_len::<T>(len)?;
        let block = if bytes == 0 {
            None
        } else {
            Some(RawBlock::new(bytes, try_pin)?)
        };
        Ok(PinnedBuffer {
            block,
            len,
            _t: std::marker::PhantomData,
        })
    }

    /// A pinned (if possible) copy of `src`.
    pub fn from_slice(src: &[T]) -> Result<Self> {
        let mut b = Self::new(src.len())?;
        b.copy_from_slice(src);
        Ok(b)
    }

    /// True when the memory is page-locked.
    pub fn is_pinned(&self) -> bool {
        self.block.as_ref().is_some_and(RawBlock::is_pinned)
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.block.as_ref().map_or(0, RawBlock::bytes)
    }
}

impl<T: DeviceCopy> Deref for PinnedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the block holds len·size_of::<T>() zero-initialised (or
        // since written) bytes, 4096-aligned, owned by self; the shared
        // borrow of self keeps it alive and unaliased by &mut.
        unsafe { slice_mut::<T>(self.block.as_ref(), self.len) }
    }
}

impl<T: DeviceCopy> DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in deref, with the exclusive borrow of self.
        unsafe { slice_mut::<T>(self.block.as_ref(), self.len) }
    }
}

impl<T: DeviceCopy> fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("len", &self.len)
            .field("pinned", &self.is_pinned())
            .finish()
    }
}
