//! CUDA NTT benchmark: single transforms at 2^20, 2^24, 2^26, 2^27, 2^28 and
//! the whole H step at 2^24 and 2^27 on the device, each with its floors.
//!
//! `cargo bench -p cuzk-ntt --features cuda --bench gpu_ntt` (runs in the GPU
//! bundle). Times: CUDA events around the enqueued work, median of 5 after a
//! warm-up. Each size is then checked by a forward + inverse round trip
//! (exact equality).
//!
//! Floors (H200):
//! - memory: every pass reads and writes all `n` elements (32 B each), the
//!   bit reversal too; the H step's fused operands (a·b read by the
//!   last transform's first pass, c's result subtracted by its last) read
//!   2 more vectors;
//!   bytes / 4.30e12 B/s (measured device-to-device copy, read + write);
//! - multiply: Fr products (one per non-trivial butterfly, one or two per
//!   fused twiddle, two per scaled element) / 3.33e10 products/s (the PTX Fr
//!   multiplier measured by cuzk-gpu's field_mul bench on the H200).
//!
//! The ratio is time / max(floors). Prints a table; CSV to CUZK_BENCH_OUT.
//! Without a GPU it says why and exits 0 (1 under CUZK_EXPECT_GPU).

use cuzk_field::{random_vec, Fr};
use cuzk_gpu::{Device, DeviceBuffer, Event, Stream};
use cuzk_ntt::gpu::GpuNtt;
use cuzk_ntt::twin::{Kind, Order};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::fmt::Write as _;

const COPY_BPS: f64 = 4.30e12;
const FR_MUL_PS: f64 = 3.33e10;
const ELEM: f64 = 32.0;

/// Levels of each pass of the kernels' plan: ceil(L/10) passes, balanced
/// (2^27 = 9+9+9), as `make_plan` in `cuda/ntt.cuh`.
fn pass_levels(log_n: u32) -> Vec<u32> {
    let np = log_n.div_ceil(10);
    (0..np)
        .map(|j| log_n / np + u32::from(j < log_n % np))
        .collect()
}

/// (bytes, Fr products) of one transform run (no bit reversal).
fn run_cost(log_n: u32, scaled: bool) -> (f64, f64) {
    let n = (1u64 << log_n) as f64;
    let levels = pass_levels(log_n);
    let p = levels.len() as f64;
    let bytes = p * 2.0 * n * ELEM;
    // Butterflies: n/2 per level minus the trivial j = 0 ones (about n/2
    // per pass); fused twiddles at each pass boundary: one product per
    // element, plus one to combine the two-level table's lookups where the
    // sub-problem has more than 2^18 points; scaling: 2 per element.
    let butterflies = n / 2.0 * f64::from(log_n) - p * n / 2.0;
    let mut fused = 0.0;
    let mut sub = log_n;
    for &l in &levels[..levels.len() - 1] {
        fused += n * if sub > 18 { 2.0 } else { 1.0 };
        sub -= l;
    }
    let scale = if scaled { 2.0 * n } else { 0.0 };
    (bytes, butterflies.max(0.0) + fused + scale)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median milliseconds of `f` enqueued on `s` (1 warm-up, 5 timed).
fn time_ms(dev: &Device, s: &Stream, mut f: impl FnMut()) -> f64 {
    f();
    s.synchronize().unwrap();
    let mut t = Vec::new();
    for _ in 0..5 {
        let (a, b) = (Event::new(dev).unwrap(), Event::new(dev).unwrap());
        a.record(s).unwrap();
        f();
        b.record(s).unwrap();
        b.synchronize().unwrap();
        t.push(f64::from(a.elapsed_ms(&b).unwrap()));
    }
    median(t)
}

/// A buffer of 2^log_n non-trivial elements: 2^16 random values tiled.
fn filled(s: &Stream, log_n: u32) -> DeviceBuffer<Fr> {
    let n = 1usize << log_n;
    let tile = random_vec(
        n.min(1 << 16),
        &mut ChaCha8Rng::seed_from_u64(u64::from(log_n)),
    );
    let mut b = DeviceBuffer::<Fr>::alloc(&s.device(), n).unwrap();
    let host: Vec<Fr> = tile.iter().copied().cycle().take(n).collect();
    b.upload(s, &host).unwrap();
    b
}

struct Row {
    what: String,
    ms: f64,
    mem_ms: f64,
    mul_ms: f64,
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            println!("gpu_ntt: no GPU ({e}); nothing to measure");
            // The bundle's run.sh sets this: there, no GPU is a failure.
            if std::env::var_os("CUZK_EXPECT_GPU").is_some() {
                std::process::exit(1);
            }
            return;
        }
    };
    let s = Stream::new(&dev).unwrap();
    let g = GpuNtt::for_device(&dev).unwrap();
    let mut rows = Vec::new();
    for log_n in [20u32, 24, 26, 27, 28] {
        let mut b = filled(&s, log_n);
        let orig = b.to_vec(&s).unwrap();
        let n = (1u64 << log_n) as f64;
        // DIF natural → bit-reversed: the H step's building block.
        let ms = time_ms(&dev, &s, || {
            g.transform(&s, &mut b, Kind::Fft, Order::Natural, Order::BitReversed)
                .unwrap()
        });
        let (by, mu) = run_cost(log_n, false);
        rows.push(Row {
            what: format!("ntt 2^{log_n} nat→bitrev"),
            ms,
            mem_ms: by / COPY_BPS * 1e3,
            mul_ms: mu / FR_MUL_PS * 1e3,
        });
        // Natural → natural (plus the bit-reversal kernel).
        let ms = time_ms(&dev, &s, || {
            g.transform(&s, &mut b, Kind::Fft, Order::Natural, Order::Natural)
                .unwrap()
        });
        rows.push(Row {
            what: format!("ntt 2^{log_n} nat→nat"),
            ms,
            mem_ms: (by + 2.0 * n * ELEM) / COPY_BPS * 1e3,
            mul_ms: mu / FR_MUL_PS * 1e3,
        });
        // Correctness of what was timed: a fresh forward + inverse round trip.
        b.upload(&s, &orig).unwrap();
        g.transform(&s, &mut b, Kind::Fft, Order::Natural, Order::BitReversed)
            .unwrap();
        g.transform(&s, &mut b, Kind::Ifft, Order::BitReversed, Order::Natural)
            .unwrap();
        assert!(
            b.to_vec(&s).unwrap() == orig,
            "2^{log_n}: round trip failed"
        );
    }
    for log_n in [24u32, 27] {
        let n = (1u64 << log_n) as f64;
        let mut a = filled(&s, log_n);
        let mut b = filled(&s, log_n);
        let mut c = filled(&s, log_n);
        let ms = time_ms(&dev, &s, || {
            g.h_step_device(&s, &mut a, &mut b, &mut c).unwrap()
        });
        // a, b: 2 × (scaled inverse DIF + DIT); c: scaled inverse DIF; the
        // last: scaled inverse DIF reading a·b and subtracting c's result
        // (2 more vectors, one product), bitrev.
        let (b1, m1) = run_cost(log_n, true);
        let (b2, m2) = run_cost(log_n, false);
        let bytes = 2.0 * (b1 + b2) + b1 + b1 + 2.0 * n * ELEM + 2.0 * n * ELEM;
        let muls = 2.0 * (m1 + m2) + m1 + m1 + n;
        rows.push(Row {
            what: format!("h_step 2^{log_n} (device inputs)"),
            ms,
            mem_ms: bytes / COPY_BPS * 1e3,
            mul_ms: muls / FR_MUL_PS * 1e3,
        });
        drop((a, b, c));
        if log_n == 24 {
            // Host inputs (uploads from pageable memory included).
            let v = random_vec(1 << log_n, &mut ChaCha8Rng::seed_from_u64(1));
            let ms = time_ms(&dev, &s, || drop(g.h_step(&s, &v, &v, &v).unwrap()));
            rows.push(Row {
                what: format!("h_step 2^{log_n} (host inputs)"),
                ms,
                mem_ms: bytes / COPY_BPS * 1e3,
                mul_ms: muls / FR_MUL_PS * 1e3,
            });
        }
    }
    let mut csv = String::from("what,ms,mem_floor_ms,mul_floor_ms,ratio\n");
    println!(
        "{:<34} {:>10} {:>12} {:>12} {:>7}",
        "what", "ms", "mem floor", "mul floor", "ratio"
    );
    for r in &rows {
        let ratio = r.ms / r.mem_ms.max(r.mul_ms);
        println!(
            "{:<34} {:>10.3} {:>12.3} {:>12.3} {:>7.2}",
            r.what, r.ms, r.mem_ms, r.mul_ms, ratio
        );
        let _ = writeln!(
            csv,
            "{},{:.4},{:.4},{:.4},{:.3}",
            r.what, r.ms, r.mem_ms, r.mul_ms, ratio
        );
    }
    if let Some(p) = std::env::var_os("CUZK_BENCH_OUT") {
        let _ = std::fs::write(p, csv);
    }
}
