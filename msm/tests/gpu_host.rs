//! The GPU MSM pipeline's host C++ twin (same driver and step functors as
//! the device, loops instead of kernels) against the CPU MSM, on any CPU:
//! signed digits, the per-window counting sort, full MSMs at awkward sizes
//! and every window width, edge scalars, awkward bases, gathers, bitmap
//! sums, and typed errors.

mod gpu_common;

use cuzk_field::{Bitmap, Field, Fr, G1Affine, G2Affine, Group};
use cuzk_msm::gpu::{host, window_for, windows, GpuPoint, Precomputed, WINDOWS};
use cuzk_msm::{bitmap_sum, msm, msm_gather, MsmError};
use gpu_common::*;
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Σ_j d_j · 2^(c·j) in Fr from the encoded digits of scalar i.
fn recompose(d: &[u32], n: usize, i: usize, c: u32) -> Fr {
    let w = windows(c) as usize;
    let shift = Fr::from(2u64).pow_vartime([c as u64]);
    let mut acc = Fr::ZERO;
    for j in (0..w).rev() {
        let e = d[j * n + i];
        let mag = Fr::from((e & 0x7fff_ffff) as u64);
        acc = acc * shift + if e >> 31 == 1 { -mag } else { mag };
    }
    acc
}

fn digit_inputs(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut s = edge_scalars(n, &mut rng);
    // every power of two and 2^k − 1 up to 2^254: carries through windows
    for k in 0..255u64 {
        let p = Fr::from(2u64).pow_vartime([k]);
        s.push(p);
        s.push(p - Fr::ONE);
        s.push(-p);
    }
    s
}

#[test]
fn digits_recompose_every_window() {
    let s = digit_inputs(60, 1);
    let n = s.len();
    for c in WINDOWS {
        let d = host::digits(&s, c).unwrap();
        assert_eq!(d.len(), windows(c) as usize * n);
        let half = 1u32 << (c - 1);
        for (k, &e) in d.iter().enumerate() {
            let mag = e & 0x7fff_ffff;
            assert!(mag <= half, "c {c}: digit {k} magnitude {mag}");
            assert!(e != 0x8000_0000, "c {c}: negative zero at {k}");
            if e >> 31 == 1 {
                assert!(mag < half, "c {c}: −2^(c−1) never appears");
            }
        }
        for (i, x) in s.iter().enumerate() {
            assert_eq!(recompose(&d, n, i, c), *x, "c {c}, scalar {i}");
        }
    }
    // r − 1 = 0x73ed…5bfe_ffffffff_00000000 with c = 16: two zero windows,
    // then 0xffff = −1 + carry, and the carry ripples through the next 0xffff
    // (0xffff + 1 = 2^16: digit 0, carry on); the top window 0x73ed takes
    // the carry of the negative digit below it.
    let d = host::digits(&[r_minus_1()], 16).unwrap();
    assert_eq!(&d[..5], &[0, 0, 0x8000_0001, 0, 0x5bfe + 1], "{d:x?}");
    assert_eq!(d[14], 0x8000_58ad, "{d:x?}");
    assert_eq!(d[15], 0x73ee, "{d:x?}");
    // 0 has no digits at all; 1 has exactly one
    assert!(host::digits(&[Fr::ZERO], 7)
        .unwrap()
        .iter()
        .all(|&e| e == 0));
    let one = host::digits(&[Fr::ONE], 7).unwrap();
    assert_eq!(one[0], 1);
    assert!(one[1..].iter().all(|&e| e == 0));
}

#[test]
fn digits_detect_a_wrong_scalar() {
    // The check above can fail: a digit vector of 2 does not recompose to 3.
    let d = host::digits(&[Fr::from(2u64)], 5).unwrap();
    assert_ne!(recompose(&d, 1, 0, 5), Fr::from(3u64));
}

#[test]
fn counting_sort_groups_every_digit_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for (n, c) in [
        (1usize, 2u32),
        (33, 3),
        (100, 5),
        (257, 8),
        (1000, 13),
        (64, 17),
    ] {
        let mut s = edge_scalars(n, &mut rng);
        s[n / 2] = Fr::ONE;
        let d = host::digits(&s, c).unwrap();
        let (off, sorted) = host::sort(&s, c).unwrap();
        let nb = 1usize << (c - 1);
        let w = windows(c) as usize;
        assert_eq!(off.len(), w * nb + 1);
        assert_eq!(off[0], 0);
        assert!(off.windows(2).all(|p| p[0] <= p[1]), "offsets monotone");
        let nonzero = d.iter().filter(|&&e| e != 0).count();
        assert_eq!(off[w * nb] as usize, nonzero);
        assert_eq!(sorted.len(), nonzero);
        let mut seen = vec![false; w * n];
        for b in 0..w * nb {
            let (j, m) = (b / nb, (b % nb) as u32 + 1);
            for &e in &sorted[off[b] as usize..off[b + 1] as usize] {
                let i = (e & 0x7fff_ffff) as usize;
                assert!(i < n);
                let want = d[j * n + i];
                assert_eq!(want & 0x7fff_ffff, m, "bucket {b} holds a wrong digit");
                assert_eq!(want >> 31, e >> 31, "sign travels with the entry");
                assert!(!seen[j * n + i], "digit ({j}, {i}) sorted twice");
                seen[j * n + i] = true;
            }
        }
        for (k, &e) in d.iter().enumerate() {
            assert_eq!(seen[k], e != 0, "digit {k}");
        }
    }
}

fn check_sizes<C: Pool>(sizes: &[usize], seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for &n in sizes {
        let bases = bases_of::<C>(n);
        for (kind, s) in [
            ("random", random_scalars(n, seed + n as u64)),
            ("edge", edge_scalars(n, &mut rng)),
        ] {
            let want = msm(&bases, &s).unwrap();
            let got = host::msm(&bases, &s, None).unwrap();
            assert_eq!(got, want, "{} {kind} n={n} c={}", C::NAME, window_for(n));
        }
    }
}

#[test]
fn g1_sizes_match_cpu() {
    check_sizes::<G1Affine>(&[0, 1, 2, 31, 32, 33, 1000], 3);
}

#[test]
fn g2_sizes_match_cpu() {
    check_sizes::<G2Affine>(&[0, 1, 2, 33, 200], 4);
}

fn check_windows<C: Pool>(n: usize, ws: &[u32]) {
    let bases = bases_of::<C>(n);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let s = edge_scalars(n, &mut rng);
    let want = msm(&bases, &s).unwrap();
    for &c in ws {
        assert_eq!(
            host::msm(&bases, &s, Some(c)).unwrap(),
            want,
            "{} c={c}",
            C::NAME
        );
    }
}

#[test]
fn g1_every_window_width() {
    // Up to 16: wider windows are valid (the digit test covers them) but
    // their 2^23 empty buckets make the host twin's reduction take minutes.
    check_windows::<G1Affine>(70, &(2..=16).collect::<Vec<_>>());
}

#[test]
fn g2_some_window_widths() {
    check_windows::<G2Affine>(40, &[2, 5, 9, 12]);
}

fn check_uniform<C: Pool>() {
    // n = 1100 > 64·16: a single bucket needs three accumulation levels.
    let n = C::pool().len();
    let bases = bases_of::<C>(n);
    for s in [
        Fr::ZERO,
        Fr::ONE,
        r_minus_1(),
        Fr::from(2u64),
        Fr::from(3u64),
    ] {
        for m in [1, 2, 65, n] {
            let v = vec![s; m];
            assert_eq!(
                host::msm(&bases[..m], &v, None).unwrap(),
                msm(&bases[..m], &v).unwrap(),
                "{} scalar {s:?} m={m}",
                C::NAME
            );
        }
    }
}

#[test]
fn g1_all_equal_scalars() {
    check_uniform::<G1Affine>();
}

#[test]
fn g2_all_equal_scalars() {
    check_uniform::<G2Affine>();
}

fn check_awkward<C: Pool>() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for n in [1, 2, 5, 33, 300] {
        let bases = awkward_bases::<C>(n, &mut rng);
        let s = random_scalars(n, 7 + n as u64);
        assert_eq!(
            host::msm(&bases, &s, None).unwrap(),
            msm(&bases, &s).unwrap(),
            "n={n}"
        );
        let ones = vec![Fr::ONE; n];
        assert_eq!(
            host::msm(&bases, &ones, None).unwrap(),
            msm(&bases, &ones).unwrap()
        );
        // P and −P with equal scalars cancel; the same point n times is n·P.
        let p = C::pool()[3];
        let even = n / 2 * 2;
        let pair: Vec<C> = (0..even).map(|i| if i % 2 == 0 { p } else { -p }).collect();
        let same_s = vec![Fr::random(&mut rng); even];
        assert_eq!(host::msm(&pair, &same_s, None).unwrap(), P::<C>::identity());
        let rep = vec![p; n];
        assert_eq!(
            host::bitmap_sum(&rep, &Bitmap::ones(n)).unwrap(),
            p.to_curve() * Fr::from(n as u64)
        );
        assert_eq!(
            host::msm(&rep, &vec![Fr::from(5u64); n], Some(3)).unwrap(),
            p.to_curve() * Fr::from(5 * n as u64)
        );
    }
    let inf = vec![C::identity(); 100];
    let s = random_scalars(100, 8);
    assert_eq!(host::msm(&inf, &s, None).unwrap(), P::<C>::identity());
    assert_eq!(
        host::bitmap_sum(&inf, &Bitmap::ones(100)).unwrap(),
        P::<C>::identity()
    );
}

#[test]
fn g1_awkward_bases() {
    check_awkward::<G1Affine>();
}

#[test]
fn g2_awkward_bases() {
    check_awkward::<G2Affine>();
}

/// Buckets of hundreds of entries: the affine rounds (msm_rounds.cuh) run
/// (up to 6 of them, over several of the host twin's 4096-entry chunks),
/// with padding, doublings (a point repeated in one bucket), P + (−P),
/// infinity, and gathered bases.
fn check_rounds<C: Pool>(n: usize, cs: &[u32]) {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let random = bases_of::<C>(n);
    let awkward = awkward_bases::<C>(n, &mut rng);
    let p = C::pool()[5];
    let rep = vec![p; n];
    for &c in cs {
        for (kind, bases) in [
            ("random", &random),
            ("awkward", &awkward),
            ("repeated", &rep),
        ] {
            for (skind, s) in [
                ("random", random_scalars(n, 10 + c as u64)),
                ("edge", edge_scalars(n, &mut rng)),
                ("equal", vec![Fr::from(7u64); n]),
            ] {
                assert_eq!(
                    host::msm(bases, &s, Some(c)).unwrap(),
                    msm(bases, &s).unwrap(),
                    "{} {kind} bases, {skind} scalars, n={n} c={c}",
                    C::NAME
                );
            }
        }
        let idx: Vec<u32> = (0..n as u32).map(|i| (i * 7 + 3) % n as u32).collect();
        let s = random_scalars(n, 20 + c as u64);
        assert_eq!(
            host::msm_gather(&awkward, &idx, &s, Some(c)).unwrap(),
            msm_gather(&awkward, &idx, &s).unwrap(),
            "{} gather c={c}",
            C::NAME
        );
    }
}

#[test]
fn g1_affine_rounds() {
    // mean bucket n/2^(c−1): 1024 (6 rounds), 256 (5), 64 (3), 16 (1)
    check_rounds::<G1Affine>(2048, &[2, 4, 6, 8]);
}

#[test]
fn g2_affine_rounds() {
    check_rounds::<G2Affine>(600, &[2, 4]);
}

fn check_bitmap<C: Pool>(sizes: &[usize]) {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for &n in sizes {
        let bases = bases_of::<C>(n + 3);
        for pct in [0u32, 20, 50, 80, 100] {
            let ones = Bitmap::from_bools((0..n).map(|_| rng.next_u32() % 100 < pct));
            assert_eq!(
                host::bitmap_sum(&bases, &ones).unwrap(),
                bitmap_sum(&bases, &ones).unwrap(),
                "{} n={n} {pct}%",
                C::NAME
            );
        }
    }
}

#[test]
fn g1_bitmap_sums() {
    // 5000 bits: 20 segments of 256, so one merge level runs.
    check_bitmap::<G1Affine>(&[0, 1, 63, 64, 65, 1000, 5000]);
}

#[test]
fn g2_bitmap_sums() {
    check_bitmap::<G2Affine>(&[0, 1, 65, 300]);
}

fn check_gather<C: Pool>() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let bases = bases_of::<C>(200);
    for m in [0, 1, 2, 33, 150] {
        let idx: Vec<u32> = (0..m).map(|_| rng.next_u32() % 200).collect();
        let s = edge_scalars(m, &mut rng);
        assert_eq!(
            host::msm_gather(&bases, &idx, &s, None).unwrap(),
            msm_gather(&bases, &idx, &s).unwrap(),
            "{} m={m}",
            C::NAME
        );
    }
}

#[test]
fn g1_gather() {
    check_gather::<G1Affine>();
}

#[test]
fn g2_gather() {
    check_gather::<G2Affine>();
}

#[test]
fn bad_input_is_a_typed_error() {
    let b = bases_of::<G1Affine>(10);
    let s = random_scalars(10, 11);
    assert!(matches!(
        host::msm(&b[..9], &s, None),
        Err(MsmError::LengthMismatch {
            bases: 9,
            scalars: 10
        })
    ));
    for c in [0, 1, 25, 64] {
        assert_eq!(
            host::msm(&b, &s, Some(c)).unwrap_err(),
            MsmError::GpuShape { n: 10, window: c }
        );
    }
    assert!(matches!(
        host::msm_gather(&b, &[0, 10], &s[..2], None),
        Err(MsmError::IndexOutOfRange {
            index: 10,
            bases: 10
        })
    ));
    assert!(matches!(
        host::msm_gather(&b, &[0], &s[..2], None),
        Err(MsmError::LengthMismatch { .. })
    ));
    assert!(matches!(
        host::bitmap_sum(&b, &Bitmap::ones(11)),
        Err(MsmError::TooFewBases { need: 11, .. })
    ));
    assert!(host::digits(&s, 1).is_err() && host::sort(&s, 25).is_err());
}

#[test]
fn result_is_not_trivially_identity() {
    // Guards the comparisons above: a random MSM is not the identity, and a
    // changed scalar changes the twin's result.
    let b = bases_of::<G1Affine>(40);
    let mut s = random_scalars(40, 12);
    let r1 = host::msm(&b, &s, None).unwrap();
    assert_ne!(r1, P::<G1Affine>::identity());
    s[7] += Fr::ONE;
    assert_ne!(host::msm(&b, &s, None).unwrap(), r1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn random_small_g1(n in 0usize..80, c in 2u32..=14, seed in any::<u64>(), edge in any::<bool>()) {
        let bases = bases_of::<G1Affine>(n);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = if edge { edge_scalars(n, &mut rng) } else { random_scalars(n, seed) };
        prop_assert_eq!(host::msm(&bases, &s, Some(c)).unwrap(), msm(&bases, &s).unwrap());
    }
}

/// 2^k·p by k doublings.
fn shifted<C: GpuPoint>(p: &C, k: u32) -> P<C> {
    let mut q = p.to_curve();
    for _ in 0..k {
        q = q.double();
    }
    q
}

fn check_shift_table<C: Pool>(pre: Precomputed) {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let bases = awkward_bases::<C>(37, &mut rng);
    let table = host::shift_table(&bases, pre).unwrap();
    assert_eq!(table.len(), bases.len() * pre.copies as usize);
    for t in 0..pre.copies as usize {
        for (i, b) in bases.iter().enumerate() {
            let want = shifted(b, pre.shift() * t as u32);
            assert!(
                table[t * bases.len() + i].to_curve() == want,
                "{} copy {t} point {i}",
                C::NAME
            );
        }
    }
}

#[test]
fn shift_tables_hold_shifted_copies() {
    // W = 52 at c = 5: 3 copies give 18 bucket windows, shift 90
    check_shift_table::<G1Affine>(Precomputed::new(5, 3).unwrap());
    check_shift_table::<G2Affine>(Precomputed::new(9, 2).unwrap());
}

fn check_precomputed<C: Pool>(n: usize, pres: &[(u32, u32)]) {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let bases = awkward_bases::<C>(n, &mut rng);
    let s = edge_scalars(n, &mut rng);
    for &(c, copies) in pres {
        let pre = Precomputed::new(c, copies).unwrap();
        let table = host::shift_table(&bases, pre).unwrap();
        for start in [0, 3] {
            let want = msm(&bases[start..], &s[start..]).unwrap();
            let got = host::msm_precomputed(&table, n, start, &s[start..], pre).unwrap();
            assert_eq!(got, want, "{} c={c} copies={copies} start={start}", C::NAME);
        }
        // A prefix of the scalars against the same table (the H MSM shape).
        let got = host::msm_precomputed(&table, n, 0, &s[..n - 1], pre).unwrap();
        assert_eq!(got, msm(&bases[..n - 1], &s[..n - 1]).unwrap());
    }
}

#[test]
fn g1_precomputed_bases_match_cpu() {
    // every window in one bucket window (64 copies), uneven splits (W = 64
    // into 7 or 3 copies: the last copy's windows run past 256 bits), wide
    // windows with affine rounds (1100 points over 2^7 buckets at c = 8)
    check_precomputed::<G1Affine>(70, &[(4, 1), (4, 64), (4, 7), (6, 3), (13, 20)]);
    check_precomputed::<G1Affine>(1100, &[(8, 32), (8, 4)]);
}

#[test]
fn g2_precomputed_bases_match_cpu() {
    check_precomputed::<G2Affine>(40, &[(5, 52), (9, 3)]);
}

#[test]
fn precomputed_shapes_are_checked() {
    assert!(Precomputed::new(16, 0).is_err());
    assert!(Precomputed::new(16, 17).is_err()); // W = 16
    assert!(Precomputed::new(1, 1).is_err() && Precomputed::new(25, 1).is_err());
    let pre = Precomputed::new(8, 4).unwrap();
    assert_eq!((pre.bucket_windows(), pre.shift()), (8, 64));
    let bases = bases_of::<G1Affine>(10);
    let table = host::shift_table(&bases, pre).unwrap();
    let s = random_scalars(10, 1);
    // the table must be copies × stride, the range inside one copy
    assert!(host::msm_precomputed(&table[1..], 10, 0, &s, pre).is_err());
    assert!(host::msm_precomputed(&table, 10, 1, &s, pre).is_err());
    assert!(host::msm_precomputed(&table, 9, 0, &s, pre).is_err());
}

#[test]
fn precomputed_choice_follows_the_copies() {
    for log in [16u32, 20, 24, 27] {
        let n = 1usize << log;
        // one copy: the plain choice
        assert_eq!(
            Precomputed::for_points(n, 1),
            Precomputed::new(window_for(n), 1).unwrap()
        );
        for max in [2u32, 4, 8, 32] {
            let p = Precomputed::for_points(n, max);
            assert!(
                p.copies <= max && p.copies <= windows(p.window),
                "2^{log} {max}: {p:?}"
            );
            assert!(p.window >= window_for(n), "2^{log} {max}: {p:?}");
            // the fewest copies for its bucket windows
            assert_eq!(windows(p.window).div_ceil(p.bucket_windows()), p.copies);
        }
    }
    // The measured best on the H200 (2^k − 1 points): 20 bits with one
    // bucket window at 2^24, 20 bits with as many copies as fit at 2^27
    let n24 = (1 << 24) - 1;
    assert_eq!(
        Precomputed::for_points(n24, 16),
        Precomputed::new(20, 13).unwrap()
    );
    let n27 = (1 << 27) - 1;
    for max in [2u32, 4, 5] {
        let p = Precomputed::for_points(n27, max);
        assert_eq!(p.window, 20, "2^27 with {max} copies: {p:?}");
        assert_eq!(
            p.bucket_windows(),
            13u32.div_ceil(max),
            "2^27 with {max}: {p:?}"
        );
    }
}
