//! GPU MSM benchmark (H200): G1 at 2^16 … 2^27 over one resident base set
//! (scalars already on the device, and from the host including their
//! upload), G2 at 2^20 … 2^25, the bitmap sum over 130 M G1 bases at 20 /
//! 50 / 80 % ones, and a window sweep at 2^20 and 2^24 (is `window_for`'s
//! choice the measured best?).
//!
//! Each figure comes with its floor: the field multiplications the
//! additions need (G1 mixed add 8M + 2S = 10 Fp products, general add
//! 12M + 2S = 14; G2 in Fp2 with Karatsuba: 3 Fp products per M, 2 per S,
//! so 28 and 40), times the SM-clocks one Fp product needs at 64 low-half
//! and 32 high-half IMADs per SM per clock (sm_90's integer-multiply rates,
//! as in cuzk-gpu's field_mul bench). The IMAD counts per product are the
//! SASS counts of the H200 build's multiplier (PTX path lo 362, hi 288,
//! from `cuobjdump -sass` of the field_mul bench; override with
//! CUZK_FP_MUL_IMAD=lo,hi). Additions counted: n·W·(1 − 2^−c) mixed adds
//! for the buckets plus 2·W·2^(c−1) general adds for the reduction; the
//! bitmap sum: one mixed add per set bit. ratio = floor / time.
//!
//! Every timed result is checked: the bases have known discrete logs
//! (bases[i] = (a + i·d)·G), so Σ sᵢ·basesᵢ is checked in Fr.
//! Median of 3 runs after a warm-up (1 run at 2^27 and G2 2^25).
//! Needs a GPU; otherwise prints why and exits 0. CSV to CUZK_BENCH_OUT.
//! CUZK_MSM_BENCH_QUICK=1 stops at 2^24 (G1) and 2^20 (G2);
//! CUZK_MSM_BENCH_FOCUS=1 runs G1 2^20 and 2^24 only (launch variants);
//! CUZK_MSM_BENCH_LOGS="24,27;24" runs G1 2^24 and 2^27, G2 2^24 only;
//! CUZK_MSM_BENCH_PROOF_SHAPE=1 measures 2^k − 1 points instead of 2^k
//! (a proof's H MSM). CUZK_MSM_BENCH_PRECOMPUTE="24=16x16,20x13;27=20x4"
//! also times G1 at 2^24 against precomputed sets of 16 copies at c = 16 and
//! 13 at c = 20, and at 2^27 of 4 copies at c = 20 (`cxk`: width c, k
//! copies; one row for the build, one for the MSM; the plain set stays
//! resident beside them). Each size also reports its first call (the warm-up)
//! on its own row. CUZK_MSM_BENCH_BUSY_HOST=1 adds a row timed while every
//! core copies memory. CUZK_MSM_PROFILE=1 and CUZK_MSM_OCC (the library's,
//! `cuzk_gpu::tuning`) print each MSM's device time per phase to stderr and
//! select the launch shape of the register-bound G1 kernels.

#[path = "../tests/gpu_common/mod.rs"]
mod gpu_common;

use std::time::Instant;

use cuzk_field::{Bitmap, Field, Fr, G1Affine, G2Affine, Group};
use cuzk_gpu::{Device, DeviceBuffer};
use cuzk_msm::gpu::{window_for, windows, GpuBases, GpuPoint, Precomputed};
use gpu_common::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Fp products per mixed add and per general add, for each curve.
fn mults<C: GpuPoint>() -> (f64, f64) {
    if C::GPU_CURVE == 0 {
        (10.0, 14.0)
    } else {
        (28.0, 40.0)
    }
}

struct Machine {
    sms: f64,
    clock_hz: f64,
    /// SM-clocks per Fp product: lo/64 + hi/32.
    clocks_per_mul: f64,
}

impl Machine {
    fn seconds_for(&self, fp_mults: f64) -> f64 {
        fp_mults * self.clocks_per_mul / (self.sms * self.clock_hz)
    }
}

struct Row {
    what: String,
    n: usize,
    window: u32,
    ms: f64,
    floor_ms: f64,
    /// The same additions with batch-affine bucket accumulation.
    affine_floor_ms: f64,
}

fn msm_floor<C: GpuPoint>(m: &Machine, n: usize, c: u32) -> f64 {
    msm_floor_with::<C>(m, n, c, mults::<C>().0)
}

/// The floor when the bucket additions are affine with simultaneous
/// inversion (msm_rounds.cuh): 5M + 1S per add (G1 6 Fp products, G2 17).
fn msm_floor_affine<C: GpuPoint>(m: &Machine, n: usize, c: u32) -> f64 {
    msm_floor_with::<C>(m, n, c, if C::GPU_CURVE == 0 { 6.0 } else { 17.0 })
}

fn msm_floor_with<C: GpuPoint>(m: &Machine, n: usize, c: u32, madd: f64) -> f64 {
    let add = mults::<C>().1;
    let w = windows(c) as f64;
    let nb = (1u64 << (c - 1)) as f64;
    let adds = n as f64 * w * (1.0 - 1.0 / (2.0 * nb));
    m.seconds_for(adds * madd + 2.0 * w * nb * add) * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `f` (ms): a warm-up, then `runs` runs; returns the median.
fn time<R>(runs: usize, f: impl FnMut() -> R) -> (f64, R) {
    let (ms, _, r) = time_first(runs, f);
    (ms, r)
}

/// [`time`], also returning the warm-up's own time (the first call at a
/// size pays whatever a warm call does not, e.g. growing the scratch pool).
fn time_first<R>(runs: usize, mut f: impl FnMut() -> R) -> (f64, f64, R) {
    let t = Instant::now();
    let mut r = f();
    let first = t.elapsed().as_secs_f64() * 1e3;
    let mut ms = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        r = f();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    (median(ms), first, r)
}

fn curve_msms<C: GpuPoint>(
    dev: &Device,
    m: &Machine,
    logs: &[usize],
    seed: u64,
    rows: &mut Vec<Row>,
) -> Option<(GpuBases<C>, Fr, Fr)> {
    let max = 1usize << *logs.iter().max()?;
    let t = Instant::now();
    let (bases, a, d) = known_log_bases::<C>(max, seed);
    let scalars = random_scalars(max, seed + 1);
    eprintln!(
        "{}: 2^{} bases and scalars generated in {:.1} s",
        C::NAME,
        max.trailing_zeros(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let g = GpuBases::upload(dev, &bases).expect("upload");
    let pre = if C::GPU_CURVE == 0 {
        precompute_configs()
    } else {
        Vec::new()
    };
    let bases = if pre.is_empty() {
        drop(bases);
        Vec::new()
    } else {
        bases
    };
    eprintln!(
        "{}: uploaded in {:.1} s",
        C::NAME,
        t.elapsed().as_secs_f64()
    );
    // The H MSM of a proof has 2^k − 1 points (the H query's length).
    let short = usize::from(std::env::var_os("CUZK_MSM_BENCH_PROOF_SHAPE").is_some());
    for &log in logs {
        let n = (1usize << log) - short;
        let c = window_for(n);
        let runs = if n >= 1 << 25 { 1 } else { 3 };
        let want = known_log_msm::<C>(&scalars[..n], a, d, 0);
        let ds = DeviceBuffer::from_slice(g.stream(), &scalars[..n]).expect("scalars");
        let (ms, first, got) = time_first(runs, || g.msm_device(0, &ds).expect("msm"));
        assert!(same::<C>(got, want), "{} 2^{log} wrong", C::NAME);
        for &(_, p) in pre.iter().filter(|(l, _)| *l == log) {
            let t = Instant::now();
            let gp = match GpuBases::upload_precomputed(dev, &bases[..n], p) {
                Ok(gp) => gp,
                // 4 copies of 2^27 bases (52 GB) beside the bench's own set
                // do not fit an 80 GB card: the other shapes still run.
                Err(cuzk_msm::MsmError::Gpu(e)) if e.is_out_of_memory() => {
                    eprintln!(
                        "{} 2^{log} {p:?}: skipped, the device cannot hold it",
                        C::NAME
                    );
                    continue;
                }
                Err(e) => panic!("precomputed set: {e}"),
            };
            let build = t.elapsed().as_secs_f64() * 1e3;
            let (ms, first, got) = time_first(runs, || gp.msm_device(0, &ds).expect("msm"));
            assert!(same::<C>(got, want), "{} 2^{log} {p:?} wrong", C::NAME);
            let tag = format!(
                "precomputed {}x{} vw{}",
                p.window,
                p.copies,
                p.bucket_windows()
            );
            for (what, ms) in [
                (format!("{tag} build+upload"), build),
                (format!("{tag} first call"), first),
                (tag.clone(), ms),
            ] {
                rows.push(Row {
                    what: format!("{} msm, {what}", C::NAME),
                    n,
                    window: p.window,
                    ms,
                    floor_ms: msm_floor::<C>(m, n, p.window),
                    affine_floor_ms: msm_floor_affine::<C>(m, n, p.window),
                });
                print_row(rows.last().unwrap());
            }
        }
        let floor = msm_floor::<C>(m, n, c);
        let affine = msm_floor_affine::<C>(m, n, c);
        let mut row = |what: &str, ms: f64| {
            rows.push(Row {
                what: format!("{} msm, {what}", C::NAME),
                n,
                window: c,
                ms,
                floor_ms: floor,
                affine_floor_ms: affine,
            });
            print_row(rows.last().unwrap());
        };
        row("device scalars, first call", first);
        row("device scalars", ms);
        if std::env::var_os("CUZK_MSM_BENCH_BUSY_HOST").is_some() {
            let (ms, got) = busy_host(|| time(runs, || g.msm_device(0, &ds).expect("msm")));
            assert!(
                same::<C>(got, want),
                "{} 2^{log} (host busy) wrong",
                C::NAME
            );
            row("device scalars, host busy", ms);
        }
        drop(ds);
        let (ms, got) = time(runs, || g.msm(0, &scalars[..n]).expect("msm"));
        assert!(
            same::<C>(got, want),
            "{} 2^{log} (host scalars) wrong",
            C::NAME
        );
        row("host scalars", ms);
    }
    Some((g, a, d))
}

/// CUZK_MSM_BENCH_PRECOMPUTE ("log=cxk,cxk;log=cxk"): (log, set) pairs.
fn precompute_configs() -> Vec<(usize, Precomputed)> {
    let Ok(v) = std::env::var("CUZK_MSM_BENCH_PRECOMPUTE") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for part in v.split(';').filter(|p| !p.trim().is_empty()) {
        let (log, sets) = part.split_once('=').expect("log=cxk,...");
        let log: usize = log.trim().parse().expect("log");
        for s in sets.split(',') {
            let (c, k) = s.trim().split_once('x').expect("cxk");
            let p = Precomputed::new(c.parse().expect("c"), k.parse().expect("k"))
                .expect("precomputed shape");
            out.push((log, p));
        }
    }
    out
}

/// Runs `f` while every core copies memory (64 MiB buffers, as a proof's
/// classification and staging do beside its H MSM): does the MSM slow down
/// when its launching thread and the host's memory are contended?
fn busy_host<R>(f: impl FnOnce() -> R) -> R {
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = AtomicBool::new(false);
    let cores = std::thread::available_parallelism().map_or(4, |c| c.get());
    std::thread::scope(|sc| {
        for _ in 0..cores {
            sc.spawn(|| {
                let mut a = vec![1u8; 64 << 20];
                let mut b = vec![2u8; 64 << 20];
                while !stop.load(Ordering::Relaxed) {
                    b.copy_from_slice(&a);
                    std::mem::swap(&mut a, &mut b);
                }
                std::hint::black_box(&a);
            });
        }
        let r = f();
        stop.store(true, Ordering::Relaxed);
        r
    })
}

fn sweep(g: &GpuBases<G1Affine>, m: &Machine, log: usize, rows: &mut Vec<Row>) {
    let n = 1usize << log;
    let s = random_scalars(n, 77);
    let ds = DeviceBuffer::from_slice(g.stream(), &s).expect("scalars");
    let chosen = window_for(n);
    let mut best = (f64::INFINITY, 0);
    for c in chosen.saturating_sub(5).max(2)..=(chosen + 2).min(24) {
        let (ms, _) = time(2, || g.msm_device_window(0, &ds, c).expect("msm"));
        if ms < best.0 {
            best = (ms, c);
        }
        rows.push(Row {
            what: format!(
                "G1 window sweep{}",
                if c == chosen { " (chosen)" } else { "" }
            ),
            n,
            window: c,
            ms,
            floor_ms: msm_floor::<G1Affine>(m, n, c),
            affine_floor_ms: msm_floor_affine::<G1Affine>(m, n, c),
        });
        print_row(rows.last().unwrap());
    }
    println!(
        "2^{log}: window_for chose {chosen}, measured best {} ({:.2} ms)",
        best.1, best.0
    );
}

fn bitmap_sums(g: &GpuBases<G1Affine>, a: Fr, d: Fr, m: &Machine, rows: &mut Vec<Row>) {
    // A 32 GiB PoRep partition's aux count, so its L and A bitmap length.
    let n = 130_278_541.min(g.len());
    for pct in [20u32, 50, 80] {
        let mut rng = ChaCha8Rng::seed_from_u64(pct as u64);
        let ones = Bitmap::from_bools((0..n).map(|_| rng.next_u32() % 100 < pct));
        let (ms, got) = time(3, || g.bitmap_sum(0, &ones).expect("bitmap sum"));
        // Σ over set bits i of (a + i·d)·G = (count·a + d·Σi)·G
        let idx_sum: u128 = ones.iter_ones().map(|i| i as u128).sum();
        let e = a * Fr::from(ones.count_ones() as u64)
            + d * (Fr::from((idx_sum >> 64) as u64) * Fr::from(2u64).pow_vartime([64])
                + Fr::from(idx_sum as u64));
        assert!(
            same::<G1Affine>(got, cuzk_msm::Projective::<G1Affine>::generator() * e),
            "bitmap sum {pct}% wrong"
        );
        let floor = m.seconds_for(ones.count_ones() as f64 * mults::<G1Affine>().0) * 1e3;
        rows.push(Row {
            what: format!("G1 bitmap sum {pct}% ones"),
            n,
            window: 0,
            ms,
            floor_ms: floor,
            affine_floor_ms: floor,
        });
        print_row(rows.last().unwrap());
    }
}

fn print_row(r: &Row) {
    println!(
        "{:<32} 2^{:<5.2} w{:<3} {:>10.2} ms  floor {:>9.2} ms  ratio {:.2}  affine floor {:>9.2} ms  ratio {:.2}",
        r.what,
        (r.n as f64).log2(),
        r.window,
        r.ms,
        r.floor_ms,
        r.floor_ms / r.ms,
        r.affine_floor_ms,
        r.affine_floor_ms / r.ms
    );
}

fn main() {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            println!("gpu_msm bench skipped: {e}");
            return;
        }
    };
    let p = dev.props().expect("props");
    let (lo, hi) = std::env::var("CUZK_FP_MUL_IMAD")
        .ok()
        .and_then(|v| {
            let (a, b) = v.split_once(',')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        })
        .unwrap_or((362.0f64, 288.0f64));
    let m = Machine {
        sms: p.sm_count as f64,
        clock_hz: p.clock_khz as f64 * 1e3,
        clocks_per_mul: lo / 64.0 + hi / 32.0,
    };
    println!(
        "{} ({} SMs, {} MHz); Fp product = {lo} lo + {hi} hi IMAD = {:.2} SM-clocks",
        p.name,
        p.sm_count,
        p.clock_khz / 1000,
        m.clocks_per_mul
    );
    let quick = std::env::var_os("CUZK_MSM_BENCH_QUICK").is_some();
    // Focus: G1 at 2^20 and 2^24 (chosen window) only, ~15 s — for
    // comparing kernel launch variants (CUZK_MSM_OCC) in one device call.
    let focus = std::env::var_os("CUZK_MSM_BENCH_FOCUS").is_some();
    let mut rows = Vec::new();

    // CUZK_MSM_BENCH_LOGS=g1[;g2] (e.g. "24,27;24"): these sizes only, no
    // sweeps or bitmap sums, for A/B runs at the sizes that matter.
    let logs = std::env::var("CUZK_MSM_BENCH_LOGS").ok().map(|v| {
        let parse = |p: &str| -> Vec<usize> {
            p.split(',').filter_map(|x| x.trim().parse().ok()).collect()
        };
        let (g1, g2) = v.split_once(';').unwrap_or((v.as_str(), ""));
        (parse(g1), parse(g2))
    });
    let focus = focus || logs.is_some();
    let g1_logs: &[usize] = if let Some((g1, _)) = &logs {
        g1
    } else if focus {
        &[20, 24]
    } else if quick {
        &[16, 20, 24]
    } else {
        &[16, 20, 24, 26, 27]
    };
    if let Some((g, a, d)) = curve_msms::<G1Affine>(&dev, &m, g1_logs, 1, &mut rows) {
        if !focus {
            sweep(&g, &m, 20, &mut rows);
            sweep(&g, &m, 24, &mut rows);
        }
        if !quick && !focus {
            bitmap_sums(&g, a, d, &m, &mut rows);
        }
    }
    if let Some((_, g2)) = &logs {
        if !g2.is_empty() {
            let _ = curve_msms::<G2Affine>(&dev, &m, g2, 2, &mut rows);
        }
    } else if !focus {
        let g2_logs: &[usize] = if quick { &[20] } else { &[20, 24, 25] };
        let _ = curve_msms::<G2Affine>(&dev, &m, g2_logs, 2, &mut rows);
    }

    let mut csv = String::from("what,n,window,ms,floor_ms,ratio,affine_floor_ms,affine_ratio\n");
    for r in &rows {
        csv.push_str(&format!(
            "{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3}\n",
            r.what,
            r.n,
            r.window,
            r.ms,
            r.floor_ms,
            r.floor_ms / r.ms,
            r.affine_floor_ms,
            r.affine_floor_ms / r.ms
        ));
    }
    if let Ok(path) = std::env::var("CUZK_BENCH_OUT") {
        std::fs::write(path, csv).expect("writing CUZK_BENCH_OUT");
    } else {
        print!("{csv}");
    }
}
