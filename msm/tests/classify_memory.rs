//! `classify` stays within `classified_bytes_bound`, measured by a counting
//! allocator: the engine reserves that bound per partition in the MSMs
//! before it knows the witness, so an allocation beyond it is memory the
//! budget never counted (a 32 GiB WindowPoSt partition, nearly all tail,
//! once took a 125 GiB host past its memory that way).
//!
//! Its own test binary: the allocator counts every thread of the process,
//! and the one test here runs its cases one after another.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use cuzk_field::{Bitmap, Field, Fr};
use cuzk_msm::{classified_bytes_bound, classify};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are only read, never used to decide an allocation.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `layout` is passed on as is.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes allocated above what was live before `f`, at its peak.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - before)
}

/// `n` scalars: a fraction `tail` of them random field elements, the rest
/// zero or one in equal parts.
fn scalars(n: usize, tail: f64, seed: u64) -> Vec<Fr> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let u = rng.next_u64() as f64 / u64::MAX as f64;
            if u < tail {
                Fr::random(&mut rng)
            } else if u < tail + (1.0 - tail) / 2.0 {
                Fr::ZERO
            } else {
                Fr::ONE
            }
        })
        .collect()
}

#[test]
fn classify_stays_within_its_bound() {
    // Warm rayon's pool first: its threads' stacks and queues are not
    // classify's, and would otherwise land in the first case's peak.
    rayon::broadcast(|_| ());
    let n = 1 << 20;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let half = Bitmap::from_bools((0..n).map(|_| rng.next_u32() & 1 == 1));
    for (tail, density) in [(1.0, None), (0.5, None), (0.0, None), (1.0, Some(&half))] {
        let s = scalars(n, tail, 3);
        let selected = density.map_or(n, Bitmap::count_ones);
        let (c, peak) = peak_during(|| classify(&s, density).unwrap());
        let bound = classified_bytes_bound(n, selected) as usize;
        assert!(
            peak <= bound,
            "tail {tail}, density {}: classify peaked at {peak} bytes, bound {bound}",
            density.is_some()
        );
        // The bound is tight where everything is tail: within the bitmap
        // and the per-span bookkeeping.
        let held = c.tail_indices.capacity() * 4 + c.tail_scalars.capacity() * 32;
        assert_eq!(
            c.tail_indices.len() + c.ones.count_ones() + c.zeros,
            selected
        );
        if tail == 1.0 {
            assert_eq!(c.tail_indices.len(), c.tail_indices.capacity());
            assert!(bound - held < selected / 4, "bound {bound}, held {held}");
        }
    }
}
