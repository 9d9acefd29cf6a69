//! The GPU MSM ON THE GPU against the CPU MSM (and, for the largest sizes,
//! against bases with known discrete logs): G1 at 1, 2, 31, 32, 33, 1000,
//! 2^16, 2^20, 2^24 (CPU MSM) and a 2^26 spot check; edge scalars (0, 1,
//! r − 1, all-zero, all-one), infinity and repeated bases; sub-ranges,
//! device scalars, batches, gathers, bitmap sums, the density split and the
//! streaming path; G2 at the small sizes and 2^20.
//!
//! Needs an NVIDIA GPU: `#[ignore]`d; gpu-bundle/run.sh runs them with
//! `--include-ignored`. Built only with the `cuda` feature.
#![cfg(feature = "cuda")]

mod gpu_common;

use cuzk_field::{Bitmap, Field, Fr, G1Affine, G2Affine, Group};
use cuzk_gpu::{Device, DeviceBuffer};
use cuzk_msm::gpu::{host, window_for, GpuBases, GpuPoint, Precomputed};
use cuzk_msm::{bitmap_sum, msm, msm_density, msm_gather, MsmError};
use gpu_common::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

fn device() -> Device {
    Device::new(0).expect("a CUDA device")
}

fn check_against_cpu<C: Pool>(bases: &[C], seed: u64, label: &str) {
    let n = bases.len();
    let g = GpuBases::upload(&device(), bases).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for (kind, s) in [
        ("random", random_scalars(n, seed)),
        ("edge", edge_scalars(n, &mut rng)),
    ] {
        let t = std::time::Instant::now();
        let got = g.msm(0, &s).unwrap();
        let gpu_s = t.elapsed().as_secs_f64();
        let want = msm(bases, &s).unwrap();
        assert!(
            same::<C>(got, want),
            "{} {label} {kind} n={n} (window {})",
            C::NAME,
            window_for(n)
        );
        eprintln!(
            "{} {label} {kind} n={n}: matches the CPU ({gpu_s:.3} s incl. upload)",
            C::NAME
        );
    }
}

fn sizes<C: Pool>(seed: u64) {
    for n in [1usize, 2, 31, 32, 33, 1000] {
        check_against_cpu(&bases_of::<C>(n), seed + n as u64, "pool");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g1_small_sizes() {
    sizes::<G1Affine>(100);
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g2_small_sizes() {
    sizes::<G2Affine>(200);
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g1_large_sizes_vs_cpu() {
    let (bases, _, _) = known_log_bases::<G1Affine>(1 << 24, 300);
    for log in [16usize, 20, 24] {
        check_against_cpu(&bases[..1 << log], 300 + log as u64, "known-log");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g2_2_20_vs_cpu() {
    let (bases, _, _) = known_log_bases::<G2Affine>(1 << 20, 400);
    check_against_cpu(&bases, 401, "known-log");
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g1_2_26_spot() {
    // Σ sᵢ·(a + i·d)·G is checked in Fr: no 2^26 CPU MSM needed.
    let n = 1 << 26;
    let (bases, a, d) = known_log_bases::<G1Affine>(n, 500);
    let g = GpuBases::upload(&device(), &bases).unwrap();
    drop(bases);
    let s = random_scalars(n, 501);
    let got = g.msm(0, &s).unwrap();
    assert!(same::<G1Affine>(
        got,
        known_log_msm::<G1Affine>(&s, a, d, 0)
    ));
    // and a sub-range of the same resident set, scalars from the device
    let (start, len) = (12_345, (1 << 20) + 7);
    let ds = DeviceBuffer::from_slice(g.stream(), &s[..len]).unwrap();
    let got = g.msm_device(start, &ds).unwrap();
    assert!(same::<G1Affine>(
        got,
        known_log_msm::<G1Affine>(&s[..len], a, d, start)
    ));
}

fn edge_sets<C: Pool>() {
    let dev = device();
    for n in [1000usize, 1 << 16] {
        let (bases, a, d) = known_log_bases::<C>(n, 600 + n as u64);
        let g = GpuBases::upload(&dev, &bases).unwrap();
        for (kind, s) in [
            ("all-zero", vec![Fr::ZERO; n]),
            ("all-one", vec![Fr::ONE; n]),
            ("all r-1", vec![r_minus_1(); n]),
            ("all 2", vec![Fr::from(2u64); n]),
        ] {
            let got = g.msm(0, &s).unwrap();
            assert!(
                same::<C>(got, known_log_msm::<C>(&s, a, d, 0)),
                "{} {kind} n={n}",
                C::NAME
            );
        }
        let got = g.msm(0, &vec![Fr::ZERO; n]).unwrap();
        assert_eq!(got, P::<C>::identity());
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g1_edge_scalar_sets() {
    edge_sets::<G1Affine>();
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g2_edge_scalar_sets() {
    edge_sets::<G2Affine>();
}

fn awkward<C: Pool>() {
    let dev = device();
    let mut rng = ChaCha8Rng::seed_from_u64(700);
    for n in [1usize, 2, 33, 1000, 5000] {
        let bases = awkward_bases::<C>(n, &mut rng);
        let g = GpuBases::upload(&dev, &bases).unwrap();
        let s = random_scalars(n, 701 + n as u64);
        assert!(
            same::<C>(g.msm(0, &s).unwrap(), msm(&bases, &s).unwrap()),
            "n={n}"
        );
        let ones = vec![Fr::ONE; n];
        assert!(same::<C>(
            g.msm(0, &ones).unwrap(),
            msm(&bases, &ones).unwrap()
        ));
        assert!(same::<C>(
            g.bitmap_sum(0, &Bitmap::ones(n)).unwrap(),
            bitmap_sum(&bases, &Bitmap::ones(n)).unwrap()
        ));
    }
    // one point repeated: n·s·P
    let p = C::pool()[5];
    let rep = vec![p; 4096];
    let g = GpuBases::upload(&dev, &rep).unwrap();
    let s = Fr::random(&mut rng);
    assert_eq!(
        g.msm(0, &vec![s; 4096]).unwrap(),
        p.to_curve() * (s * Fr::from(4096u64))
    );
    // all at infinity
    let inf = vec![C::identity(); 3000];
    let g = GpuBases::upload(&dev, &inf).unwrap();
    assert_eq!(
        g.msm(0, &random_scalars(3000, 702)).unwrap(),
        P::<C>::identity()
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g1_infinity_and_repeated_bases() {
    awkward::<G1Affine>();
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g2_infinity_and_repeated_bases() {
    awkward::<G2Affine>();
}

fn shapes<C: Pool>() {
    let dev = device();
    let n = 1 << 16;
    let (bases, _, _) = known_log_bases::<C>(n, 800);
    let g = GpuBases::upload(&dev, &bases).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(801);

    // sub-ranges, scalars from host and from device
    for (start, len) in [(0usize, 1usize), (5, 100), (n - 33, 33), (1000, 40_000)] {
        let s = random_scalars(len, 802 + start as u64);
        let want = msm(&bases[start..start + len], &s).unwrap();
        assert!(
            same::<C>(g.msm(start, &s).unwrap(), want),
            "range {start}+{len}"
        );
        let ds = DeviceBuffer::from_slice(g.stream(), &s).unwrap();
        assert!(same::<C>(g.msm_device(start, &ds).unwrap(), want));
    }
    // batch
    let sets: Vec<Vec<Fr>> = (0..3).map(|k| random_scalars(5000, 810 + k)).collect();
    let got = g.msm_batch(7, &sets).unwrap();
    for (k, s) in sets.iter().enumerate() {
        assert!(
            same::<C>(got[k], msm(&bases[7..5007], s).unwrap()),
            "batch {k}"
        );
    }
    // gather (tail), with repeats
    let idx: Vec<u32> = (0..20_000).map(|_| rng.next_u32() % 30_000).collect();
    let s = edge_scalars(idx.len(), &mut rng);
    assert!(same::<C>(
        g.msm_gather(100, &idx, &s).unwrap(),
        msm_gather(&bases[100..], &idx, &s).unwrap()
    ));
    // bitmap sums
    for pct in [0u32, 20, 50, 80, 100] {
        let ones = Bitmap::from_bools((0..50_001).map(|_| rng.next_u32() % 100 < pct));
        assert!(
            same::<C>(
                g.bitmap_sum(3, &ones).unwrap(),
                bitmap_sum(&bases[3..], &ones).unwrap()
            ),
            "bitmap {pct}%"
        );
    }
    // density split: 70 % zeros, 25 % ones, 5 % random, half the positions selected
    let m = 100_000;
    let s: Vec<Fr> = (0..m)
        .map(|_| match rng.next_u32() % 100 {
            0..=69 => Fr::ZERO,
            70..=94 => Fr::ONE,
            _ => Fr::random(&mut rng),
        })
        .collect();
    let density = Bitmap::from_bools((0..m).map(|_| rng.next_u32() % 2 == 0));
    assert!(same::<C>(
        g.msm_density(0, &s, Some(&density)).unwrap(),
        msm_density(&bases, &s, Some(&density)).unwrap()
    ));
    assert!(same::<C>(
        g.msm_density(0, &s[..n], None).unwrap(),
        msm_density(&bases, &s[..n], None).unwrap()
    ));
    // typed errors, no panics
    assert!(matches!(
        g.msm(n - 1, &s[..2]),
        Err(MsmError::TooFewBases { .. })
    ));
    assert!(matches!(
        g.msm_gather(0, &[n as u32], &s[..1]),
        Err(MsmError::IndexOutOfRange { .. })
    ));
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g1_groth16_shapes() {
    shapes::<G1Affine>();
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g2_groth16_shapes() {
    shapes::<G2Affine>();
}

/// `StreamedBases` against the CPU MSM: each op kind alone (dense host
/// scalars, dense device scalars, bitmap sum, gathered tails unsorted and
/// ascending), then all in one pass (their MSM parts sharing the pass's
/// buckets), at chunk sizes from the whole set down to 4096 bases.
fn streamed<C: GpuPoint + Pool>(n: usize, seed: u64) {
    use cuzk_msm::chunks::StreamOp;
    use cuzk_msm::gpu::StreamedBases;
    let dev = device();
    let bases: Vec<C> = bases_of(n);
    let s = random_scalars(n - 10, seed);
    let ones = Bitmap::from_bools((0..n / 2).map(|i| (i * 7 + 3) % 5 < 2));
    let idx: Vec<u32> = (0..n as u32 / 3)
        .rev()
        .map(|i| (i * 37) % (n as u32 - 20))
        .collect();
    let isc = random_scalars(idx.len(), seed + 1);
    // Ascending with repeats, as a proof's tails (uploaded without a copy,
    // made local on the device), from a start inside the first chunk.
    let mut asc: Vec<u32> = (0..n as u32 / 4)
        .map(|i| (i * 3) % (n as u32 - 5))
        .collect();
    asc.sort_unstable();
    let asc_sc = random_scalars(asc.len(), seed + 2);
    let stream = cuzk_gpu::Stream::new(&dev).unwrap();
    let ds = cuzk_gpu::DeviceBuffer::from_slice(&stream, &s).unwrap();
    let ops = [
        StreamOp::Dense {
            start: 10,
            scalars: &s[..1000],
        },
        StreamOp::DenseDevice {
            start: 10,
            len: s.len(),
        },
        StreamOp::Bitmap {
            start: n / 2,
            ones: &ones,
        },
        StreamOp::Gather {
            start: 20,
            indices: &idx,
            scalars: &isc,
        },
        StreamOp::Gather {
            start: 5,
            indices: &asc,
            scalars: &asc_sc,
        },
    ];
    let want = [
        msm(&bases[10..1010], &s[..1000]).unwrap(),
        msm(&bases[10..], &s).unwrap(),
        bitmap_sum(&bases[n / 2..], &ones).unwrap(),
        msm_gather(&bases[20..], &idx, &isc).unwrap(),
        msm_gather(&bases[5..], &asc, &asc_sc).unwrap(),
    ];
    for chunk in [n, 30_000, 4096] {
        let sb = StreamedBases::new(&dev, &bases, chunk);
        for (o, w) in want.iter().enumerate() {
            let (got, _) = sb.run(&ops[o..=o], Some(&ds)).unwrap();
            assert!(same::<C>(got, *w), "chunk {chunk}, op {o}");
        }
        let (got, stats) = sb.run(&ops, Some(&ds)).unwrap();
        let all = want.iter().fold(C::Curve::identity(), |a, w| a + w);
        assert!(same::<C>(got, all), "chunk {chunk}, all ops");
        assert_eq!(stats.chunks, n.div_ceil(chunk));
        assert_eq!(stats.bytes, (n * std::mem::size_of::<C>()) as u64);
    }
    // No work, no pass; a dense device op without its scalars is refused.
    let sb = StreamedBases::new(&dev, &bases, 4096);
    assert_eq!(sb.run(&[], None).unwrap().1.chunks, 0);
    assert!(sb.run(&ops[1..2], None).is_err());
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_streamed_matches_cpu() {
    streamed::<G1Affine>(100_003, 900);
    streamed::<G2Affine>(20_011, 902);
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_every_window_width() {
    // Forced widths over a small input, including the widest (2^23 buckets).
    let dev = device();
    let (bases, a, d) = known_log_bases::<G1Affine>(3000, 950);
    let g = GpuBases::upload(&dev, &bases).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(951);
    let s = edge_scalars(3000, &mut rng);
    let want = known_log_msm::<G1Affine>(&s, a, d, 0);
    let ds = DeviceBuffer::from_slice(g.stream(), &s).unwrap();
    for c in cuzk_msm::gpu::WINDOWS {
        assert!(
            same::<G1Affine>(g.msm_device_window(0, &ds, c).unwrap(), want),
            "window {c}"
        );
    }
}

/// Precomputed shifted bases on the device: every dense MSM (full, sub-range,
/// prefix, device scalars) equals the CPU MSM and the host twin's table
/// gives the same result; gathers, bitmap sums and the density split still
/// read the first copy.
fn precomputed<C: Pool>(n: usize, pres: &[(u32, u32)]) {
    let dev = device();
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let bases = awkward_bases::<C>(n, &mut rng);
    let s = edge_scalars(n, &mut rng);
    for &(c, copies) in pres {
        let pre = Precomputed::new(c, copies).unwrap();
        let t = std::time::Instant::now();
        let g = GpuBases::upload_precomputed(&dev, &bases, pre).unwrap();
        let built = t.elapsed().as_secs_f64();
        assert_eq!((g.len(), g.precomputed()), (n, Some(pre)));
        assert_eq!(
            g.device_bytes(),
            (n * copies as usize * std::mem::size_of::<C>()) as u64
        );
        let want = msm(&bases, &s).unwrap();
        assert!(
            same::<C>(g.msm(0, &s).unwrap(), want),
            "{} {pre:?} full",
            C::NAME
        );
        let sub = 5..n - 7;
        let want_sub = msm(&bases[sub.clone()], &s[sub.clone()]).unwrap();
        assert!(
            same::<C>(g.msm(sub.start, &s[sub]).unwrap(), want_sub),
            "{} {pre:?} sub-range",
            C::NAME
        );
        let ds = DeviceBuffer::from_slice(g.stream(), &s).unwrap();
        let want_pre = msm(&bases[..n - 1], &s[..n - 1]).unwrap();
        assert!(
            same::<C>(g.msm_device_prefix(0, &ds, n - 1).unwrap(), want_pre),
            "{} {pre:?} prefix",
            C::NAME
        );
        if n <= 1 << 12 {
            let table = host::shift_table(&bases, pre).unwrap();
            assert_eq!(host::msm_precomputed(&table, n, 0, &s, pre).unwrap(), want);
        }
        let idx: Vec<u32> = (0..n as u32).rev().step_by(3).collect();
        let gs: Vec<Fr> = idx.iter().map(|&i| s[i as usize]).collect();
        let gb: Vec<C> = idx.iter().map(|&i| bases[i as usize]).collect();
        assert!(same::<C>(
            g.msm_gather(0, &idx, &gs).unwrap(),
            msm(&gb, &gs).unwrap()
        ));
        let ones = Bitmap::ones(n);
        assert!(same::<C>(
            g.bitmap_sum(0, &ones).unwrap(),
            bitmap_sum(&bases, &ones).unwrap()
        ));
        // a range past the bases (into the copies) is refused
        assert!(g.msm(1, &s).is_err());
        eprintln!(
            "{} n={n} {pre:?}: built in {built:.3} s, matches the CPU",
            C::NAME
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g1_precomputed_bases() {
    precomputed::<G1Affine>(1000, &[(4, 64), (6, 5), (9, 1)]);
    // 2^16 points: affine rounds on one bucket window (c = 10, 26 copies),
    // several chunks of the shift kernel are not reached (2^20 per chunk)
    precomputed::<G1Affine>(1 << 16, &[(10, 26), (12, 4), (16, 16)]);
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g1_precomputed_bases_large() {
    // past one 2^20-point shift chunk, at the 2^24 bench's widths
    let n = (1 << 21) + 3;
    precomputed::<G1Affine>(n, &[(16, 16), (20, 13)]);
}

#[test]
#[ignore = "needs an NVIDIA GPU (gpu-bundle/run.sh)"]
fn gpu_g2_precomputed_bases() {
    precomputed::<G2Affine>(300, &[(5, 52), (9, 3)]);
}
