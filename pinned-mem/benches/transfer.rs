//! Host↔device copy bandwidth: pinned (cudaHostAlloc) vs pageable (Vec) vs
//! registered (cudaHostRegister'd Vec), 64 MiB to 4 GiB; and the link's
//! ceiling with both copy engines busy: pinned H2D split over two streams
//! ("pinned 2s", one host thread each) and H2D beside a D2H of the same
//! size ("pinned ‖", the H2D column; D2H the other engine's rate). Needs a GPU; built
//! without `cuda` (or run without a GPU) it says so and exits 0.
//!
//! Each figure is the median of 5 timed copies after one warm-up, timed on
//! the host clock around enqueue + stream synchronise (the honest number
//! for a caller: for pageable memory CUDA stages through a driver buffer on
//! the calling thread). Sizes: CUZK_BENCH_SIZES_MIB (default 64,256,1024,4096).
//! Output: a table on stdout and, if CUZK_BENCH_OUT is set, CSV there.

use std::time::{Duration, Instant};

use cuzk_gpu::{Device, DeviceBuffer, Stream};
use cuzk_pinned_mem::{PinnedBuffer, Registered};

const REPS: usize = 5;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn gbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e9
}

fn time<F: FnMut()>(mut f: F) -> Duration {
    f(); // warm-up
    median(
        (0..REPS)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn fill(buf: &mut [u8], salt: u8) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(31).wrapping_add(salt) ^ ((i >> 12) as u8);
    }
}

fn main() {
    // `cargo bench` passes --bench; nothing to parse.
    if !cuzk_pinned_mem::pinning_available() {
        println!(
            "transfer bench skipped: {}",
            cuzk_gpu::describe_devices().trim()
        );
        return;
    }
    let sizes: Vec<usize> = std::env::var("CUZK_BENCH_SIZES_MIB")
        .unwrap_or_else(|_| "64,256,1024,4096".into())
        .split(',')
        .filter_map(|s| s.trim().parse::<usize>().ok())
        .map(|m| m << 20)
        .collect();
    let dev = Device::new(0).expect("device 0");
    let s = Stream::new(&dev).expect("stream");
    println!("{}", cuzk_gpu::describe_devices().trim_end());
    println!(
        "{:>9} {:>11} {:>9} {:>9} {:>10}",
        "size", "mode", "H2D GB/s", "D2H GB/s", "setup ms"
    );
    let mut csv = String::from("bytes,mode,h2d_gbps,d2h_gbps,setup_ms\n");
    for &bytes in &sizes {
        let mut d = DeviceBuffer::<u8>::alloc(&dev, bytes).expect("device alloc");

        let t = Instant::now();
        let mut pinned = PinnedBuffer::<u8>::new(bytes).expect("pinned alloc");
        let pin_setup = t.elapsed();
        assert!(pinned.is_pinned());
        fill(&mut pinned, 1);
        let mut pageable = vec![0u8; bytes];
        fill(&mut pageable, 2);
        let mut reg_vec = vec![0u8; bytes];
        fill(&mut reg_vec, 3);

        let mut rows = Vec::new();
        {
            let h2d = time(|| d.upload(&s, &pinned).unwrap());
            let d2h = time(|| d.download(&s, &mut pinned).unwrap());
            rows.push(("pinned", h2d, d2h, pin_setup));
        }
        {
            let h2d = time(|| d.upload(&s, &pageable).unwrap());
            let d2h = time(|| d.download(&s, &mut pageable).unwrap());
            rows.push(("pageable", h2d, d2h, Duration::ZERO));
        }
        {
            let t = Instant::now();
            let mut reg = Registered::new(&mut reg_vec).expect("register");
            let reg_setup = t.elapsed();
            assert!(reg.is_registered());
            let h2d = time(|| d.upload(&s, &reg).unwrap());
            let target = reg.as_mut_slice().unwrap();
            let d2h = time(|| d.download(&s, target).unwrap());
            rows.push(("registered", h2d, d2h, reg_setup));
        }
        {
            // Two streams, one thread each, each copying half: what two
            // copies in flight at once get (the same link, one direction).
            let half = bytes / 2;
            let (lo, hi) = pinned.split_at(half);
            let mut da = DeviceBuffer::<u8>::alloc(&dev, half).expect("device alloc");
            let mut db = DeviceBuffer::<u8>::alloc(&dev, bytes - half).expect("device alloc");
            let s2 = Stream::new(&dev).expect("stream");
            let h2d = time(|| {
                std::thread::scope(|sc| {
                    let a = sc.spawn(|| da.upload(&s, lo).unwrap());
                    db.upload(&s2, hi).unwrap();
                    a.join().unwrap();
                })
            });
            drop((da, db));
            rows.push(("pinned 2s", h2d, Duration::ZERO, Duration::ZERO));
            // H2D and D2H at once, each the full size, on the two engines.
            let mut back = PinnedBuffer::<u8>::new(bytes).expect("pinned alloc");
            let mut src = DeviceBuffer::<u8>::alloc(&dev, bytes).expect("device alloc");
            src.upload(&s2, &pinned).unwrap();
            let mut d2h = Duration::ZERO;
            let h2d = time(|| {
                std::thread::scope(|sc| {
                    let b = sc.spawn(|| {
                        let t = Instant::now();
                        src.download(&s2, &mut back).unwrap();
                        t.elapsed()
                    });
                    d.upload(&s, &pinned).unwrap();
                    d2h = b.join().unwrap();
                })
            });
            rows.push(("pinned ‖", h2d, d2h, Duration::ZERO));
        }
        // the last D2H wrote the device contents (from the registered
        // upload) into reg_vec; check a copy really happened
        let mut expect = vec![0u8; bytes.min(1 << 20)];
        fill(&mut expect, 3);
        assert_eq!(
            &reg_vec[..expect.len()],
            &expect[..],
            "round trip corrupted data"
        );

        for (mode, h2d, d2h, setup) in rows {
            // "pinned 2s" measures one direction only: no D2H figure.
            let (a, b) = (gbps(bytes, h2d), gbps(bytes, d2h));
            let b = if d2h.is_zero() { f64::NAN } else { b };
            println!(
                "{:>6} MiB {:>11} {:>9.1} {:>9.1} {:>10.1}",
                bytes >> 20,
                mode,
                a,
                b,
                setup.as_secs_f64() * 1e3
            );
            csv.push_str(&format!(
                "{bytes},{mode},{a:.2},{b:.2},{:.1}\n",
                setup.as_secs_f64() * 1e3
            ));
        }
    }
    if let Ok(p) = std::env::var("CUZK_BENCH_OUT") {
        std::fs::write(&p, csv).expect("write CSV");
    }
}
