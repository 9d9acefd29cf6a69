//! CPU tests: the pool's bookkeeping (against a model, with proptest), the
//! pageable fallback of every type, and registration of a Vec and an mmap.

use cuzk_pinned_mem::{
    pinning_available, PinnedBuffer, PinnedError, PinnedPool, Registered, SharedRegistration,
};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

const MIB: usize = 1 << 20;
const G: usize = cuzk_pinned_mem::GRANULE;

#[test]
fn buffers_fall_back_without_a_gpu_and_hold_data() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for n in [0usize, 1, 2, 31, 32, 33, 1000, (1 << 16) + 1] {
        let mut b = PinnedBuffer::<u64>::new(n).unwrap();
        assert_eq!(b.len(), n);
        assert!(b.iter().all(|&x| x == 0), "fresh buffers are zeroed");
        assert_eq!(b.is_pinned(), pinning_available() && n > 0);
        let data: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        b.copy_from_slice(&data);
        assert_eq!(&b[..], &data[..]);
        assert_eq!(
            b.as_ptr() as usize % 4096,
            if n == 0 {
                b.as_ptr() as usize % 4096
            } else {
                0
            }
        );
        let p = PinnedBuffer::<u64>::pageable(n).unwrap();
        assert!(!p.is_pinned());
        let c = PinnedBuffer::from_slice(&data).unwrap();
        assert_eq!(&c[..], &data[..]);
    }
}

#[test]
fn too_large_is_a_typed_error() {
    let e = PinnedBuffer::<u64>::new(usize::MAX / 4).unwrap_err();
    assert!(matches!(e, PinnedError::TooLarge { .. }), "{e}");
    let pool = PinnedPool::pageable(MIB);
    assert!(matches!(
        pool.take::<u64>(usize::MAX / 4),
        Err(PinnedError::TooLarge { .. })
    ));
}

#[test]
fn registered_vec_and_mmap_without_gpu() {
    let mut v: Vec<u32> = (0..10_000).collect();
    {
        let mut r = Registered::new(&mut v).unwrap();
        assert_eq!(r.is_registered(), pinning_available());
        assert_eq!(r[9_999], 9_999);
        r.as_mut_slice().unwrap()[0] = 77;
    }
    assert_eq!(v[0], 77, "writes through the registration reach the Vec");
    let empty: &mut [u8] = &mut [];
    assert!(!Registered::new(empty).unwrap().is_registered());

    let mut f = tempfile::tempfile().unwrap();
    use std::io::Write;
    f.write_all(
        &(0..8192u32)
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    // SAFETY: the temp file is private to this process and not resized
    // while mapped.
    let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
    let r = Registered::new_read_only(&map[..]).unwrap();
    assert!(r.as_ref().len() == 8192 * 4);
    assert_eq!(&r[4..8], &1u32.to_le_bytes());
    r.unregister().unwrap();
}

/// A registration inside an `Arc` holds the owner (no `get_mut` while it
/// lives), reports its bytes, skips empty slices, and a second
/// registration of the same pages is an error where pinning exists (a
/// no-op registration where it does not).
#[test]
fn shared_registration_holds_its_owner() {
    struct Set {
        a: Vec<u64>,
        b: Vec<u32>,
    }
    let mut set = std::sync::Arc::new(Set {
        a: (0..5000).collect(),
        b: Vec::new(),
    });
    let ra = SharedRegistration::new(std::sync::Arc::clone(&set), |s| &s.a[..]).unwrap();
    let rb = SharedRegistration::new(std::sync::Arc::clone(&set), |s| &s.b[..]).unwrap();
    assert_eq!(ra.is_registered(), pinning_available());
    assert_eq!(ra.bytes(), if pinning_available() { 5000 * 8 } else { 0 });
    assert!(!rb.is_registered() && rb.bytes() == 0, "empty slice");
    assert_eq!(ra.owner().a[4999], 4999);
    let again = SharedRegistration::new(std::sync::Arc::clone(&set), |s| &s.a[..]);
    assert_eq!(again.is_err(), pinning_available(), "{again:?}");
    drop(again);
    assert!(std::sync::Arc::get_mut(&mut set).is_none());
    drop((ra, rb));
    assert!(std::sync::Arc::get_mut(&mut set).is_some());
}

#[test]
fn pool_hits_misses_peak_and_budget() {
    let pool = PinnedPool::pageable(8 * MIB);
    assert!(!pool.stats().pinned);
    {
        let mut a = pool.take::<u8>(MIB).unwrap();
        a[0] = 9;
        let s = pool.stats();
        assert_eq!(
            (s.misses, s.hits, s.in_use_bytes, s.allocated_bytes),
            (1, 0, MIB, MIB)
        );
    }
    assert_eq!(pool.stats().in_use_bytes, 0);
    assert_eq!(pool.stats().allocated_bytes, MIB);
    {
        // same size, and a slightly smaller one, reuse the idle block
        let b = pool.take::<u8>(MIB - 100).unwrap();
        assert_eq!(b.capacity_bytes(), MIB);
        assert_eq!(pool.stats().hits, 1);
        // a request under half the block does not waste it
        let c = pool.take::<u8>(1000).unwrap();
        assert_eq!(c.capacity_bytes(), G);
        assert_eq!(pool.stats().misses, 2);
        let s = pool.stats();
        assert_eq!(s.in_use_bytes, MIB + G);
        assert_eq!(s.peak_in_use_bytes, MIB + G);
    }
    // over budget while everything is in use
    let big = pool.take::<u8>(7 * MIB).unwrap(); // evicts idle blocks to fit
    let s = pool.stats();
    assert!(s.evictions >= 1, "{s:?}");
    assert!(s.allocated_bytes <= 8 * MIB);
    let e = pool.take::<u8>(2 * MIB).unwrap_err();
    assert!(
        matches!(e, PinnedError::OverBudget { in_use, .. } if in_use == 7 * MIB),
        "{e}"
    );
    drop(big);
    assert_eq!(pool.stats().in_use_bytes, 0);
    assert!(pool.stats().peak_allocated_bytes <= 8 * MIB);
    pool.trim();
    assert_eq!(pool.stats().allocated_bytes, 0);
    // zero-length buffers cost nothing
    let z = pool.take::<u64>(0).unwrap();
    assert!(z.is_empty());
    assert_eq!(pool.stats().misses + pool.stats().hits, 3 + 1);
}

#[test]
fn pool_is_shared_across_threads() {
    let pool = PinnedPool::pageable(64 * MIB);
    std::thread::scope(|sc| {
        for t in 0..4u64 {
            let pool = &pool;
            sc.spawn(move || {
                for i in 0..50u64 {
                    let mut b = pool.take::<u64>(1000 + (i as usize % 7) * 5000).unwrap();
                    b.fill(t * 1000 + i);
                    assert!(b.iter().all(|&x| x == t * 1000 + i));
                }
            });
        }
    });
    let s = pool.stats();
    assert_eq!(s.in_use_bytes, 0);
    assert_eq!(s.hits + s.misses, 200);
    assert!(s.hits > 100, "reuse must dominate: {s:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Random take/drop sequences keep the counters equal to a simple model.
    #[test]
    fn pool_counters_follow_a_model(ops in prop::collection::vec((0usize..6, 1usize..(3 * MIB)), 1..40)) {
        let budget = 8 * MIB;
        let pool = PinnedPool::pageable(budget);
        let mut held = Vec::new();
        let mut model_in_use = 0usize;
        for (kind, bytes) in ops {
            if kind == 0 && !held.is_empty() {
                let b: cuzk_pinned_mem::PooledBuffer<'_, u8> = held.swap_remove(bytes % held.len());
                model_in_use -= b.capacity_bytes();
                drop(b);
            } else {
                match pool.take::<u8>(bytes) {
                    Ok(mut b) => {
                        prop_assert!(b.capacity_bytes() >= bytes);
                        prop_assert!(b.capacity_bytes() <= 2 * bytes.div_ceil(G) * G);
                        b[bytes - 1] = 1;
                        model_in_use += b.capacity_bytes();
                        held.push(b);
                    }
                    Err(PinnedError::OverBudget { in_use, .. }) => {
                        prop_assert_eq!(in_use, model_in_use);
                        prop_assert!(model_in_use + bytes.div_ceil(G) * G > budget);
                    }
                    Err(e) => return Err(TestCaseError::fail(e.to_string())),
                }
            }
            let s = pool.stats();
            prop_assert_eq!(s.in_use_bytes, model_in_use);
            prop_assert!(s.in_use_bytes <= s.allocated_bytes);
            prop_assert!(s.allocated_bytes <= budget);
            prop_assert!(s.peak_allocated_bytes <= budget);
        }
    }
}
