//! [`PinnedPool`]: reusable page-locked buffers under a byte budget.
//!
//! Pinning is expensive (cudaHostAlloc of 1 GiB costs hundreds of
//! milliseconds: the driver locks and maps every page), and a prover asks
//! for the same few sizes over and over, so blocks are kept and reused.
//!
//! Policy: a request of `b` bytes is served by the smallest idle block of
//! `b..=2b` bytes (a hit); otherwise a new block of `b` rounded up to
//! [`GRANULE`] is allocated (a miss), first freeing idle blocks, largest
//! first, while the budget would be exceeded (evictions). When even an
//! empty idle list leaves no room, the request fails with
//! [`PinnedError::OverBudget`] rather than silently using pageable memory.

use std::fmt;
use std::ops::{Deref, DerefMut};

use cuzk_gpu::DeviceCopy;
use parking_lot::Mutex;

use crate::raw::{byte_len, slice_mut, RawBlock, ALIGN};
use crate::{PinnedError, Result};

/// Allocation granule: blocks are multiples of 64 KiB, so nearby sizes
/// share blocks without wasting more than a sliver of small requests.
pub const GRANULE: usize = 64 << 10;

/// Counters of a pool, in bytes and events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes currently allocated (in use + idle).
    pub allocated_bytes: usize,
    /// Bytes currently handed out.
    pub in_use_bytes: usize,
    /// Highest `allocated_bytes` seen.
    pub peak_allocated_bytes: usize,
    /// Highest `in_use_bytes` seen.
    pub peak_in_use_bytes: usize,
    /// Requests served from an idle block.
    pub hits: u64,
    /// Requests that allocated a new block.
    pub misses: u64,
    /// Idle blocks freed to make room under the budget (or by trim).
    pub evictions: u64,
    /// Whether the pool's blocks are page-locked.
    pub pinned: bool,
}

#[derive(Debug, Default)]
struct Inner {
    idle: Vec<RawBlock>,
    stats: PoolStats,
}

/// A thread-safe pool of page-locked (or, as fallback, pageable) buffers.
pub struct PinnedPool {
    budget: usize,
    try_pin: bool,
    inner: Mutex<Inner>,
}

impl PinnedPool {
    /// A pool of at most `budget_bytes`, pinned when a GPU is available.
    pub fn new(budget_bytes: usize) -> Self {
        Self::with_mode(budget_bytes, crate::pinning_available())
    }

    /// A pool of ordinary heap memory (same API; for CPU-only runs and tests).
    pub fn pageable(budget_bytes: usize) -> Self {
        Self::with_mode(budget_bytes, false)
    }

    fn with_mode(budget: usize, try_pin: bool) -> Self {
        PinnedPool {
            budget,
            try_pin,
            inner: Mutex::new(Inner {
                idle: Vec::new(),
                stats: PoolStats {
                    pinned: try_pin,
                    ..PoolStats::default()
                },
            }),
        }
    }

    /// The byte budget.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> PoolStats {
        self.inner.lock().stats
    }

    /// Frees every idle block (counted as evictions).
    pub fn trim(&self) {
        let freed: Vec<RawBlock> = {
            let mut g = self.inner.lock();
            let blocks: Vec<RawBlock> = g.idle.drain(..).collect();
            for b in &blocks {
                g.stats.allocated_bytes -= b.bytes();
                g.stats.evictions += 1;
            }
            blocks
        };
        drop(freed); // outside the lock: freeing pinned memory is slow
    }

    /// A buffer of `len` elements. Contents are unspecified (zero when
    /// fresh, old data when reused) but always valid `T` (see DeviceCopy).
    pub fn take<T: DeviceCopy>(&self, len: usize) -> Result<PooledBuffer<'_, T>> {
        assert!(
            std::mem::align_of::<T>() <= ALIGN,
            "over-aligned element type"
        );
        let need = byte_len::<T>(len)?;
        if need == 0 {
            return Ok(PooledBuffer {
                pool: self,
                block: None,
                len,
                _t: std::marker::PhantomData,
            });
        }
        let size = need
            .div_ceil(GRANULE)
            .checked_mul(GRANULE)
            .ok_or(PinnedError::TooLarge {
                len,
                elem_size: std::mem::size_of::<T>(),
            })?;
        let mut evicted = Vec::new();
        {
            let mut g = self.inner.lock();
            // best fit among idle blocks of need..=2·need bytes
            let best = g
                .idle
                .iter()
                .enumerate()
                .filter(|(_, b)| b.bytes() >= need && b.bytes() / 2 <= need)
                .min_by_key(|(_, b)| b.bytes())
                .map(|(i, _)| i);
            if let Some(i) = best {
                let block = g.idle.swap_remove(i);
                g.stats.hits += 1;
                g.stats.in_use_bytes += block.bytes();
                g.stats.peak_in_use_bytes = g.stats.peak_in_use_bytes.max(g.stats.in_use_bytes);
                return Ok(PooledBuffer {
                    pool: self,
                    block: Some(block),
                    len,
                    _t: std::marker::PhantomData,
                });
            }
            if size > self.budget.saturating_sub(g.stats.in_use_bytes) {
                return Err(PinnedError::OverBudget {
                    requested: size,
                    budget: self.budget,
                    in_use: g.stats.in_use_bytes,
                });
            }
            // make room: free idle blocks, largest first
            g.idle.sort_by_key(|b| b.bytes());
            while g.stats.allocated_bytes + size > self.budget {
                let b = g
                    .idle
                    .pop()
                    .expect("in_use + size ≤ budget, so idle blocks exist");
                g.stats.allocated_bytes -= b.bytes();
                g.stats.evictions += 1;
                evicted.push(b);
            }
            // reserve the bytes before allocating outside the lock
            g.stats.misses += 1;
            g.stats.allocated_bytes += size;
            g.stats.in_use_bytes += size;
            g.stats.peak_allocated_bytes =
                g.stats.peak_allocated_bytes.max(g.stats.allocated_bytes);
            g.stats.peak_in_use_bytes = g.stats.peak_in_use_bytes.max(g.stats.in_use_bytes);
        }
        drop(evicted);
        match RawBlock::new(size, self.try_pin) {
            Ok(block) => Ok(PooledBuffer {
                pool: self,
                block: Some(block),
                len,
                _t: std::marker::PhantomData,
            }),
            Err(e) => {
                let mut g = self.inner.lock();
                g.stats.allocated_bytes -= size;
                g.stats.in_use_bytes -= size;
                Err(e)
            }
        }
    }

    fn give_back(&self, block: RawBlock) {
        let mut g = self.inner.lock();
        g.stats.in_use_bytes -= block.bytes();
        g.idle.push(block);
    }
}

impl fmt::Debug for PinnedPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedPool")
            .field("budget", &self.budget)
            .field("stats", &self.stats())
            .finish()
    }
}

/// A buffer lent by a [`PinnedPool`]; returns to the pool on drop.
pub struct PooledBuffer<'p, T: DeviceCopy> {
    pool: &'p PinnedPool,
    block: Option<RawBlock>,
    len: usize,
    _t: std::marker::PhantomData<T>,
}

impl<T: DeviceCopy> PooledBuffer<'_, T> {
    /// True when page-locked.
    pub fn is_pinned(&self) -> bool {
        self.block.as_ref().is_some_and(RawBlock::is_pinned)
    }

    /// Bytes of the underlying block (≥ len · size_of::<T>()).
    pub fn capacity_bytes(&self) -> usize {
        self.block.as_ref().map_or(0, RawBlock::bytes)
    }
}

impl<T: DeviceCopy> Deref for PooledBuffer<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the block holds ≥ len·size_of::<T>() initialised bytes
        // (zeroed when fresh), 4096-aligned, owned by self until drop.
        unsafe { slice_mut::<T>(self.block.as_ref(), self.len) }
    }
}

impl<T: DeviceCopy> DerefMut for PooledBuffer<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in deref, with the exclusive borrow of self.
        unsafe { slice_mut::<T>(self.block.as_ref(), self.len) }
    }
}

impl<T: DeviceCopy> Drop for PooledBuffer<'_, T> {
    fn drop(&mut self) {
        if let Some(b) = self.block.take() {
            self.pool.give_back(b);
        }
    }
}

impl<T: DeviceCopy> fmt::Debug for PooledBuffer<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PooledBuffer")
            .field("len", &self.len)
            .field("pinned", &self.is_pinned())
            .finish()
    }
}
