//! The runtime layer in whatever environment the test runs:
//! - built without `cuda`: every entry point says NotBuilt, device_count is 0;
//! - with `cuda` but no GPU (CI): NoDevice;
//! - with a GPU (CUZK_EXPECT_GPU=1, set by gpu-bundle/run.sh): the ignored
//!   tests below exercise memory, streams and events for real.

use cuzk_gpu::{
    describe_devices, device_count, try_device_count, BufferPool, Device, DeviceBuffer, Event,
    GpuError, Stream,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

fn expect_gpu() -> bool {
    std::env::var_os("CUZK_EXPECT_GPU").is_some_and(|v| v == "1")
}

#[test]
fn availability_matches_the_build() {
    let r = try_device_count();
    if !cfg!(feature = "cuda") {
        assert_eq!(r, Err(GpuError::NotBuilt));
        assert_eq!(device_count(), 0);
        assert!(!cuzk_gpu::built_with_cuda());
        assert!(describe_devices().contains("without CUDA"));
        assert_eq!(Device::new(0).unwrap_err(), GpuError::NotBuilt);
        assert!(cuzk_gpu::host::alloc_pinned(4096)
            .unwrap_err()
            .is_unavailable());
        return;
    }
    assert!(cuzk_gpu::built_with_cuda());
    match r {
        Ok(n) => {
            assert!(n >= 1);
            assert_eq!(device_count(), n);
            assert!(describe_devices().contains("device(s)"));
            let e = Device::new(n).unwrap_err();
            assert_eq!(
                e,
                GpuError::InvalidDevice {
                    ordinal: n,
                    count: n
                }
            );
        }
        Err(e) => {
            assert!(!expect_gpu(), "CUZK_EXPECT_GPU=1 but: {e}");
            assert!(matches!(e, GpuError::NoDevice(_)), "{e:?}");
            assert_eq!(device_count(), 0);
            assert!(
                describe_devices().contains("none usable"),
                "{}",
                describe_devices()
            );
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_buffers_roundtrip_with_awkward_sizes() {
    let dev = Device::new(0).unwrap();
    let s = Stream::new(&dev).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for n in [
        0usize,
        1,
        2,
        31,
        32,
        33,
        1000,
        (1 << 16) - 1,
        (1 << 16) + 1,
        1 << 22,
    ] {
        let host: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        let mut d = DeviceBuffer::<u64>::alloc(&dev, n).unwrap();
        d.memset(&s, 0xA5).unwrap();
        assert!(d
            .to_vec(&s)
            .unwrap()
            .iter()
            .all(|&x| x == 0xA5A5_A5A5_A5A5_A5A5));
        d.upload(&s, &host).unwrap();
        assert_eq!(d.to_vec(&s).unwrap(), host, "n={n}");
        let mut e = DeviceBuffer::<u64>::alloc(&dev, n).unwrap();
        e.copy_from(&s, &d).unwrap();
        let mut back = vec![0u64; n];
        e.download(&s, &mut back).unwrap();
        assert_eq!(back, host);
        // wrong host length is a typed error
        if n > 0 {
            let err = d.upload(&s, &host[1..]).unwrap_err();
            assert!(matches!(err, GpuError::InvalidArgument(_)));
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_events_time_and_props_are_sane() {
    let dev = Device::new(0).unwrap();
    let p = dev.props().unwrap();
    assert!(
        p.sm_count > 0 && p.total_mem > 0 && !p.name.is_empty(),
        "{p:?}"
    );
    let (free, total) = dev.mem_info().unwrap();
    assert!(free <= total && total > 0);
    let s = Stream::new(&dev).unwrap();
    let (a, b) = (Event::new(&dev).unwrap(), Event::new(&dev).unwrap());
    let mut buf = DeviceBuffer::<u8>::alloc(&dev, 256 << 20).unwrap();
    a.record(&s).unwrap();
    for i in 0..8 {
        buf.memset(&s, i).unwrap();
    }
    b.record(&s).unwrap();
    b.synchronize().unwrap();
    assert!(b.is_done().unwrap());
    let ms = a.elapsed_ms(&b).unwrap();
    assert!(ms > 0.0 && ms.is_finite(), "{ms}");
    println!("{}", describe_devices());
    // an absurd allocation fails with a typed out-of-memory, not a crash
    let err = DeviceBuffer::<u8>::alloc(&dev, usize::MAX / 2).unwrap_err();
    assert!(
        matches!(err, GpuError::OutOfMemory { requested: Some(r), free: Some(_) } if r == (usize::MAX / 2) as u64),
        "{err:?}"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_pool_reuses_by_length_within_its_limit_in_stream_order() {
    let dev = Device::new(0).unwrap();
    let (s1, s2) = (Stream::new(&dev).unwrap(), Stream::new(&dev).unwrap());
    let pool = BufferPool::<u64>::new(&dev);
    const N: usize = 1 << 24; // 128 MiB: the memset below takes a while
    let bytes = N * 8;

    // Limit 0 (the default): nothing is kept.
    let b = pool.take(N, &s1).unwrap();
    pool.put(b, &s1);
    assert_eq!(pool.held_bytes(), 0);

    // A returned buffer comes back for the same length, on another
    // stream, after the first stream's work on it (no host sync between).
    pool.set_limit(2 * bytes);
    let mut a = pool.take(N, &s1).unwrap();
    let ptr = a.as_ptr();
    a.memset(&s1, 0x5A).unwrap();
    pool.put(a, &s1);
    assert_eq!(pool.held_bytes(), bytes);
    let a = pool.take(N, &s2).unwrap();
    assert_eq!(a.as_ptr(), ptr, "the same allocation");
    assert_eq!(pool.held_bytes(), 0);
    assert!(a
        .to_vec(&s2)
        .unwrap()
        .iter()
        .all(|&x| x == 0x5A5A_5A5A_5A5A_5A5A));

    // Another length is another allocation.
    let c = pool.take(N / 2, &s2).unwrap();
    assert_ne!(c.as_ptr(), ptr);
    pool.put(a, &s2);
    pool.put(c, &s2);
    assert_eq!(pool.held_bytes(), bytes + bytes / 2);

    // Past the limit, buffers of other lengths go first: a second N
    // buffer evicts the N/2 one and is kept.
    let d = DeviceBuffer::<u64>::alloc(&dev, N).unwrap();
    pool.put(d, &s1);
    assert_eq!(pool.held_bytes(), 2 * bytes);
    // A third N buffer does not fit and is freed.
    let e = DeviceBuffer::<u64>::alloc(&dev, N).unwrap();
    pool.put(e, &s1);
    assert_eq!(pool.held_bytes(), 2 * bytes);
    // Lowering the limit frees the oldest; clear frees all.
    pool.set_limit(bytes);
    assert_eq!(pool.held_bytes(), bytes);
    let (free_before, _) = dev.mem_info().unwrap();
    pool.clear();
    assert_eq!(pool.held_bytes(), 0);
    let (free_after, _) = dev.mem_info().unwrap();
    assert!(free_after >= free_before + bytes as u64 - (2 << 20));
    // After clear the limit is 0 again.
    let f = pool.take(N, &s1).unwrap();
    pool.put(f, &s1);
    assert_eq!(pool.held_bytes(), 0);
}
