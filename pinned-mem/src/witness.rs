//! [`WitnessPool`]: page-locked buffers that witness synthesis writes into
//! directly, so the GPU reads a partition's witness by DMA with no CPU
//! copy on the way (a 32 GiB PoRep partition's aux assignment is 4.2 GB;
//! staged through a pinned ring by a CPU memcpy it took 1.83 s per
//! partition while ~30 syntheses competed for memory bandwidth).
//!
//! Each buffer is an ordinary heap `Vec<Fr>` page-locked once with
//! `cudaHostRegister` when the pool first makes it, then handed out as a
//! pooled [`FrVec`] and reused across partitions: registering costs about
//! 0.3 s per 4 GB, paid once per buffer instead of once per partition.
//! A pooled `FrVec` never reallocates (it moves to the heap instead), so a
//! registration always covers exactly the memory it was made for, and
//! every buffer is unregistered before it is freed.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Weak};

use cuzk_field::{AllocCounts, Fr, FrAlloc, FrVec, VecHome};
use parking_lot::Mutex;

/// Counters of a [`WitnessPool`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WitnessPoolStats {
    /// Bytes of buffers handed out now.
    pub in_use_bytes: u64,
    /// Bytes of buffers kept idle for reuse.
    pub idle_bytes: u64,
    /// Buffers made (each registered once).
    pub made: u64,
    /// Requests served by an idle buffer.
    pub reused: u64,
    /// Idle buffers freed (over the idle limit, or trimmed).
    pub freed: u64,
    /// Whether the buffers are page-locked (false without a GPU, or when
    /// the first registration failed).
    pub page_locked: bool,
}

struct Buffer {
    v: Vec<Fr>,
    /// Registered with `cudaHostRegister` (unregistered before the free).
    registered: bool,
}

#[derive(Default)]
struct Inner {
    idle: Vec<Buffer>,
    /// Buffers handed out: address → whether registered.
    out: HashMap<usize, bool>,
    stats: WitnessPoolStats,
    /// Page-locking is off for good after a registration failed (limits,
    /// no GPU): buffers are then plain heap memory, still reused.
    no_pin: bool,
}

/// A pool of page-locked `Fr` buffers (see the module doc). Shared
/// (`Arc`): every buffer it hands out holds a reference and comes back
/// when dropped.
pub struct WitnessPool {
    /// The pool itself, for the buffers it hands out to hold.
    me: Weak<WitnessPool>,
    inner: Mutex<Inner>,
    /// Idle buffers are freed beyond this many bytes.
    max_idle_bytes: u64,
}

impl fmt::Debug for WitnessPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WitnessPool")
            .field("stats", &self.stats())
            .field("max_idle_bytes", &self.max_idle_bytes)
            .finish()
    }
}

fn bytes_of(v: &Vec<Fr>) -> u64 {
    (v.capacity() * std::mem::size_of::<Fr>()) as u64
}

impl WitnessPool {
    /// A pool that keeps at most `max_idle_bytes` of idle buffers.
    pub fn new(max_idle_bytes: u64) -> Arc<Self> {
        Arc::new_cyclic(|me| WitnessPool {
            me: me.clone(),
            inner: Mutex::new(Inner {
                no_pin: !crate::pinning_available(),
                ..Inner::default()
            }),
            max_idle_bytes,
        })
    }

    /// A buffer with room for `len` elements: the smallest idle one that
    /// fits (and is at most twice as large), else a new one, page-locked.
    pub fn take(&self, len: usize) -> FrVec {
        let mut g = self.inner.lock();
        let best = fit(&g.idle, len);
        let buf = match best {
            Some(i) => {
                let b = g.idle.swap_remove(i);
                g.stats.idle_bytes -= bytes_of(&b.v);
                g.stats.reused += 1;
                b
            }
            None => {
                let no_pin = g.no_pin;
                // Registering 4 GB takes ~0.3 s: not under the lock.
                drop(g);
                let v = Vec::with_capacity(len);
                let registered = !no_pin && len > 0 && register(&v);
                g = self.inner.lock();
                if !registered && !no_pin && len > 0 {
                    g.no_pin = true;
                }
                g.stats.made += 1;
                Buffer { v, registered }
            }
        };
        g.stats.in_use_bytes += bytes_of(&buf.v);
        g.stats.page_locked = !g.no_pin;
        g.out.insert(buf.v.as_ptr() as usize, buf.registered);
        drop(g);
        match self.me.upgrade() {
            Some(me) => {
                let home: Arc<dyn VecHome> = me;
                FrVec::pooled(buf.v, home)
            }
            // Only while the pool is being dropped, which needs every
            // reference gone: unreachable through `&self`.
            None => FrVec::from(buf.v),
        }
    }

    /// The counters now.
    pub fn stats(&self) -> WitnessPoolStats {
        self.inner.lock().stats
    }

    /// Bytes of idle buffers (host memory the pool holds for reuse).
    pub fn idle_bytes(&self) -> u64 {
        self.inner.lock().stats.idle_bytes
    }

    /// Frees every idle buffer (unregistered first).
    pub fn trim(&self) {
        self.trim_to(0);
    }

    /// Frees idle buffers, largest first, until at most `max_idle` bytes
    /// stay idle.
    pub fn trim_to(&self, max_idle: u64) {
        self.trim_keeping(max_idle, None);
    }

    /// [`WitnessPool::trim_to`], sparing the buffer `take(len)` would reuse
    /// for `next_len = Some(len)`: its bytes do not count against
    /// `max_idle`.
    pub fn trim_keeping(&self, max_idle: u64, next_len: Option<usize>) {
        let freed = {
            let mut g = self.inner.lock();
            let spared = next_len
                .and_then(|len| fit(&g.idle, len))
                .map(|i| g.idle.swap_remove(i));
            let spared_bytes = spared.as_ref().map_or(0, |b| bytes_of(&b.v));
            g.idle.sort_by_key(|b| b.v.capacity());
            let mut freed = Vec::new();
            while g.stats.idle_bytes - spared_bytes > max_idle {
                let Some(b) = g.idle.pop() else { break };
                g.stats.idle_bytes -= bytes_of(&b.v);
                g.stats.freed += 1;
                freed.push(b);
            }
            g.idle.extend(spared);
            freed
        };
        freed.into_iter().for_each(release);
    }
}

/// The idle buffer `take(len)` reuses: the smallest with room for `len`
/// elements and at most twice that.
fn fit(idle: &[Buffer], len: usize) -> Option<usize> {
    idle.iter()
        .enumerate()
        .filter(|(_, b)| b.v.capacity() >= len && b.v.capacity() / 2 <= len.max(1))
        .min_by_key(|(_, b)| b.v.capacity())
        .map(|(i, _)| i)
}

impl FrAlloc for WitnessPool {
    fn alloc(&self, len: usize) -> FrVec {
        self.take(len)
    }

    fn idle_bytes(&self) -> u64 {
        WitnessPool::idle_bytes(self)
    }

    fn trim_keeping(&self, max_idle: u64, next_len: Option<usize>) {
        WitnessPool::trim_keeping(self, max_idle, next_len);
    }

    fn counts(&self) -> AllocCounts {
        let s = self.stats();
        AllocCounts {
            made: s.made,
            reused: s.reused,
            freed: s.freed,
        }
    }
}

impl VecHome for WitnessPool {
    fn give_back(&self, mut v: Vec<Fr>) {
        v.clear();
        let mut g = self.inner.lock();
        let Some(registered) = g.out.remove(&(v.as_ptr() as usize)) else {
            // Not one of ours: plain heap memory, freed as usual.
            return;
        };
        let bytes = bytes_of(&v);
        g.stats.in_use_bytes -= bytes;
        let buf = Buffer { v, registered };
        if g.stats.idle_bytes + bytes <= self.max_idle_bytes {
            g.stats.idle_bytes += bytes;
            g.idle.push(buf);
        } else {
            g.stats.freed += 1;
            drop(g);
            release(buf);
        }
    }

    fn page_locked(&self) -> bool {
        !self.inner.lock().no_pin
    }
}

impl Drop for WitnessPool {
    fn drop(&mut self) {
        // Buffers handed out hold an `Arc` of the pool, so none is out.
        std::mem::take(&mut self.inner.get_mut().idle)
            .into_iter()
            .for_each(release);
    }
}

/// Page-locks `v`'s whole allocation; false when that is unavailable.
fn register(v: &Vec<Fr>) -> bool {
    let bytes = v.capacity() * std::mem::size_of::<Fr>();
    // SAFETY: the allocation `v` owns stays mapped and unmoved until
    // `release` unregisters it: the pool keeps the Vec idle or hands it out
    // inside a pooled FrVec, which never reallocates and comes back here
    // on drop (see the module doc).
    unsafe { cuzk_gpu::host::register(v.as_ptr() as *mut std::ffi::c_void, bytes, false) }.is_ok()
}

/// Unregisters (when registered) and frees a buffer.
fn release(b: Buffer) {
    if b.registered {
        // SAFETY: registered by `register` on this exact pointer; no copy
        // is pending (buffers come back only when their FrVec drops, after
        // the device read them).
        let _ = unsafe { cuzk_gpu::host::unregister(b.v.as_ptr() as *mut std::ffi::c_void) };
    }
    drop(b.v);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_kept_within_the_idle_limit_and_trimmed() {
        let fr = std::mem::size_of::<Fr>() as u64;
        let pool = WitnessPool::new(3 * 1000 * fr);
        let mut a = pool.take(1000);
        assert!(a.is_pooled() && a.capacity() >= 1000);
        a.extend_from_slice(&vec![Fr::from(3u64); 1000]);
        let addr = a.as_ptr() as usize;
        let s = pool.stats();
        assert_eq!((s.made, s.in_use_bytes, s.idle_bytes), (1, 1000 * fr, 0));
        drop(a);
        assert_eq!(pool.idle_bytes(), 1000 * fr);
        // Reused (cleared), for a request it fits without waste.
        let b = pool.take(900);
        assert_eq!(b.as_ptr() as usize, addr);
        assert!(b.is_empty());
        assert_eq!(pool.stats().reused, 1);
        // Too large for a small request: a new buffer instead.
        let c = pool.take(100);
        assert_ne!(c.as_ptr() as usize, addr);
        assert_eq!(pool.stats().made, 2);
        // Four buffers back, the limit keeps three buffers' bytes.
        let d = pool.take(1000);
        let e = pool.take(1000);
        drop((b, c, d, e));
        let s = pool.stats();
        assert_eq!(s.in_use_bytes, 0);
        assert!(s.idle_bytes <= 3 * 1000 * fr, "{s:?}");
        assert!(s.freed >= 1, "{s:?}");
        pool.trim();
        assert_eq!(pool.idle_bytes(), 0);
        // Without a GPU nothing is page-locked, and buffers say so.
        if !crate::pinning_available() {
            assert!(!pool.take(10).is_page_locked());
            assert!(!pool.stats().page_locked);
        }
    }

    #[test]
    fn trimming_spares_the_buffer_the_next_request_takes() {
        let fr = std::mem::size_of::<Fr>() as u64;
        let pool = WitnessPool::new(1 << 30);
        let (a, b, c) = (pool.take(1000), pool.take(4000), pool.take(1000));
        let small = [a.as_ptr() as usize, c.as_ptr() as usize];
        drop((a, b, c));
        assert_eq!(pool.idle_bytes(), 6000 * fr);
        // No room at all: everything goes but one buffer a request for 900
        // elements reuses (a 1000 one; 4000 is over twice the request).
        pool.trim_keeping(0, Some(900));
        let s = pool.stats();
        assert_eq!((s.idle_bytes, s.freed), (1000 * fr, 2));
        let kept = pool.take(900);
        assert!(small.contains(&(kept.as_ptr() as usize)));
        assert_eq!(pool.stats().reused, 1);
        drop(kept);
        // A request nothing fits spares nothing; room beyond the spared
        // buffer keeps others, largest freed first.
        pool.trim_keeping(0, Some(10));
        assert_eq!(pool.idle_bytes(), 0);
        let (d, e) = (pool.take(1000), pool.take(4000));
        drop((d, e));
        pool.trim_keeping(1000 * fr, Some(4000));
        assert_eq!(pool.idle_bytes(), 5000 * fr);
        pool.trim_keeping(0, Some(4000));
        assert_eq!(pool.idle_bytes(), 4000 * fr);
    }

    #[test]
    fn a_buffer_that_outgrows_its_capacity_goes_home_at_once() {
        let pool = WitnessPool::new(1 << 20);
        let mut v = pool.take(4);
        for i in 0..10u64 {
            v.push(Fr::from(i));
        }
        assert!(!v.is_pooled());
        let s = pool.stats();
        assert_eq!(s.in_use_bytes, 0);
        assert!(s.idle_bytes > 0);
        assert_eq!(v[9], Fr::from(9u64));
        drop(v);
        assert_eq!(pool.stats().made, 1);
    }
}
