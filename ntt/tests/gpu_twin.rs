//! The CUDA NTT's code run on the CPU (the host twin of `cuda/ntt.cuh`:
//! the kernels' per-thread functions in host loops over blocks and threads)
//! against the CPU NTT: every mode and order pair at 2^0..2^12 (one pass),
//! 2^11..2^16 and 2^21 (two and three passes), 2^18..2^20 (the fused
//! twiddles' switch between the direct and the two-level table), round trips, the H step
//! against `Domain::h_step_full`, the tables, bad arguments, and a check
//! that a wrong transform is caught.

mod common;

use common::*;
use cuzk_field::{random_vec, Field, Fr, PrimeField};
use cuzk_ntt::twin::{
    self, host_h_step, host_pointwise, host_run, host_transform, scale_table, twiddle_table, Fused,
    Kind, Order, F_DIT, F_INVERSE, F_SCALE_IN, F_SCALE_OUT, PW_MUL, PW_SCALE,
};
use cuzk_ntt::{root_of_unity, Domain, NttError};
use proptest::prelude::*;

fn check_mode(d: &Domain, kind: Kind, x: &[Fr], input: Order, output: Order) {
    let want = cpu_natural(d, kind, x);
    let (mut v, want) = arrange(x, &want, input, output);
    host_transform(&mut v, kind, input, output).unwrap();
    if let Some((i, g, w)) = first_diff(&v, &want) {
        panic!(
            "2^{} {kind:?} {input:?}→{output:?}: position {i} got {g:?} want {w:?}",
            d.log_size()
        );
    }
}

#[test]
fn every_mode_one_pass_sizes() {
    for log_n in 0..=12 {
        let d = Domain::new(log_n).unwrap();
        for (k, x) in inputs(1 << log_n, 100 + u64::from(log_n))
            .iter()
            .enumerate()
        {
            // Random input: every kind and order; edge inputs: every kind, natural.
            let orders: &[(Order, Order)] = if k == 0 { &ORDERS } else { &ORDERS[..1] };
            for kind in kinds(u64::from(log_n)) {
                for &(i, o) in orders {
                    check_mode(&d, kind, x, i, o);
                }
            }
        }
    }
}

#[test]
fn every_mode_two_passes() {
    // 2^11..2^16: two passes of 6+5 .. 8+8 levels with fused twiddles.
    for log_n in 11..=16 {
        let d = Domain::new(log_n).unwrap();
        let x = random_vec(1 << log_n, &mut rng(200 + u64::from(log_n)));
        let ks = kinds(7);
        // All kinds natural→natural; the order pairs on two kinds.
        for kind in &ks {
            check_mode(&d, *kind, &x, Order::Natural, Order::Natural);
        }
        for &(i, o) in &ORDERS[1..] {
            check_mode(&d, ks[0], &x, i, o);
            check_mode(&d, ks[5], &x, i, o);
        }
    }
}

#[test]
fn three_passes_2_21() {
    // 21 levels = 7+7+7: the smallest size with three passes (2^27 is 9+9+9).
    let log_n = 21;
    let d = Domain::new(log_n).unwrap();
    let x = random_vec(1 << log_n, &mut rng(321));
    check_mode(&d, Kind::Fft, &x, Order::Natural, Order::BitReversed);
    check_mode(&d, Kind::icoset(), &x, Order::BitReversed, Order::Natural);
}

#[test]
fn fused_twiddle_table_boundary() {
    // Sub-problems of ≤ 2^18 points take their fused twiddles from the
    // direct ω_{2^18} table, larger ones from the two-level table: 2^18 is
    // 9+9 (first pass over S = 18, direct), 2^19 10+9 (S = 19, two-level),
    // 2^20 10+10 (S = 20); forward and inverse, both directions.
    for log_n in 18..=20 {
        let d = Domain::new(log_n).unwrap();
        let x = random_vec(1 << log_n, &mut rng(400 + u64::from(log_n)));
        check_mode(&d, Kind::Fft, &x, Order::Natural, Order::BitReversed);
        check_mode(&d, Kind::Ifft, &x, Order::BitReversed, Order::Natural);
        check_mode(&d, Kind::icoset(), &x, Order::Natural, Order::BitReversed);
    }
}

#[test]
fn round_trips() {
    for log_n in [1u32, 5, 10, 11, 14] {
        let x = random_vec(1 << log_n, &mut rng(log_n.into()));
        let s = Fr::from(12345u64);
        for (f, i) in [
            (Kind::Fft, Kind::Ifft),
            (Kind::coset(), Kind::icoset()),
            (Kind::CosetFft(s), Kind::ICosetFft(s)),
        ] {
            for (a, b) in [
                (Order::Natural, Order::BitReversed),
                (Order::BitReversed, Order::Natural),
                (Order::Natural, Order::Natural),
            ] {
                let mut v = x.clone();
                host_transform(&mut v, f, a, b).unwrap();
                assert_ne!(v, x, "2^{log_n} {f:?} did nothing");
                host_transform(&mut v, i, b, a).unwrap();
                assert_eq!(v, x, "2^{log_n} {f:?}/{i:?} {a:?}↔{b:?}");
            }
        }
    }
}

#[test]
fn coset_shift_zero() {
    // Forward with s = 0 evaluates at 0: every output is x_0.
    let x = random_vec(64, &mut rng(9));
    let mut v = x.clone();
    host_transform(
        &mut v,
        Kind::CosetFft(Fr::ZERO),
        Order::Natural,
        Order::Natural,
    )
    .unwrap();
    assert!(v.iter().all(|y| *y == x[0]));
    assert_eq!(
        host_transform(
            &mut v,
            Kind::ICosetFft(Fr::ZERO),
            Order::Natural,
            Order::Natural
        ),
        Err(NttError::ZeroShift)
    );
}

fn h_inputs(len: usize, seed: u64, satisfied: bool) -> (Vec<Fr>, Vec<Fr>, Vec<Fr>) {
    let mut r = rng(seed);
    let a = random_vec(len, &mut r);
    let b = random_vec(len, &mut r);
    let c = if satisfied {
        a.iter().zip(&b).map(|(x, y)| *x * y).collect()
    } else {
        random_vec(len, &mut r)
    };
    (a, b, c)
}

#[test]
fn h_step_matches_cpu() {
    for (k, len) in [0usize, 1, 2, 3, 31, 32, 33, 1000, 1024, 1025, 4095, 1 << 13]
        .into_iter()
        .enumerate()
    {
        for satisfied in [true, false] {
            let (a, b, c) = h_inputs(len, 50 + k as u64, satisfied);
            let d = Domain::for_len(len).unwrap();
            let want = d.h_step_full(a.clone(), b.clone(), c.clone()).unwrap();
            let got = host_h_step(a, b, c).unwrap();
            if let Some((i, g, w)) = first_diff(&got, &want) {
                panic!("len {len} satisfied={satisfied}: coefficient {i} got {g:?} want {w:?}");
            }
            if satisfied && len > 1 {
                assert_eq!(got[got.len() - 1], Fr::ZERO, "len {len}: top coefficient");
            }
        }
    }
    assert!(matches!(
        host_h_step(vec![Fr::ONE; 3], vec![Fr::ONE; 2], vec![Fr::ONE; 3]),
        Err(NttError::UnequalLengths { .. })
    ));
}

#[test]
fn tables() {
    let t = twiddle_table();
    assert_eq!(t.len(), twin::TWIDDLE_TABLE_LEN);
    // Inner levels: ω_{2h}^x and its inverse.
    for (h, x) in [(1usize, 0u64), (2, 1), (64, 33), (512, 511)] {
        let w = root_of_unity(h.trailing_zeros() + 1).unwrap();
        assert_eq!(t[h + x as usize], w.pow_vartime([x]));
        assert_eq!(t[1024 + h + x as usize] * w.pow_vartime([x]), Fr::ONE);
    }
    // Two-level table: ω_{2^28}^e = lo[e mod 2^14]·hi[e / 2^14].
    let w28 = root_of_unity(28).unwrap();
    for e in [0u64, 1, 16383, 16384, 123_456_789, (1 << 28) - 1] {
        let lo = t[2048 + (e & 16383) as usize];
        let hi = t[2048 + 16384 + (e >> 14) as usize];
        assert_eq!(lo * hi, w28.pow_vartime([e]), "e = {e}");
    }
    let s = Fr::from(7u64);
    let k = Fr::from(11u64);
    let sc = scale_table(s, k);
    assert_eq!(sc.len(), twin::SCALE_TABLE_LEN);
    for e in [0u64, 5, 16384, 99_999_999] {
        let f = sc[(e & 16383) as usize] * sc[16384 + (e >> 14) as usize];
        assert_eq!(f, k * s.pow_vartime([e]), "e = {e}");
    }
    // bellperson's ω for 2^k is ROOT_OF_UNITY squared 32 − k times.
    assert_eq!(root_of_unity(Fr::S).unwrap(), Fr::ROOT_OF_UNITY);
}

#[test]
fn bad_arguments_are_errors() {
    let mut v = vec![Fr::ONE; 3];
    assert_eq!(
        host_transform(&mut v, Kind::Fft, Order::Natural, Order::Natural),
        Err(NttError::NotPowerOfTwo(3))
    );
    let mut v = vec![Fr::ONE; 4];
    assert!(matches!(
        host_run(&mut v, F_SCALE_IN, None, Fused::NONE),
        Err(NttError::Twin(_))
    ));
    assert!(matches!(
        host_run(&mut v, 99, None, Fused::NONE),
        Err(NttError::Twin(_))
    ));
    let short = vec![Fr::ONE; 5];
    assert!(matches!(
        host_run(&mut v, F_SCALE_IN, Some(&short), Fused::NONE),
        Err(NttError::LengthMismatch { .. })
    ));
    assert!(matches!(
        host_pointwise(PW_MUL, &mut v, Some(&short), Fr::ONE),
        Err(NttError::LengthMismatch { .. })
    ));
    assert!(matches!(
        host_pointwise(PW_MUL, &mut v, None, Fr::ONE),
        Err(NttError::Twin(_))
    ));
    assert!(matches!(
        host_pointwise(7, &mut v, None, Fr::ONE),
        Err(NttError::Twin(_))
    ));
}

#[test]
fn pointwise_ops() {
    let mut r = rng(3);
    let a = random_vec(33, &mut r);
    let b = random_vec(33, &mut r);
    let k = Fr::random(&mut r);
    let mut v = a.clone();
    host_pointwise(PW_MUL, &mut v, Some(&b), Fr::ZERO).unwrap();
    assert!(v
        .iter()
        .zip(a.iter().zip(&b))
        .all(|(v, (a, b))| *v == *a * b));
    let mut v = a.clone();
    host_pointwise(PW_SCALE, &mut v, None, k).unwrap();
    assert!(v.iter().zip(&a).all(|(v, a)| *v == *a * k));
}

/// The fused operands (`F_MUL_IN`, `F_SUB_OUT`) equal the pointwise
/// product, the plain transform and the pointwise difference run one after
/// the other, in every direction and at every size class (one point, one
/// pass, several passes), alone and together.
#[test]
fn fused_operands_equal_the_separate_steps() {
    let mut r = rng(4);
    let sc = scale_table(Fr::random(&mut r), Fr::random(&mut r));
    for log_n in [0u32, 1, 2, 5, 11, 13] {
        let n = 1usize << log_n;
        let (x, b, c) = (
            random_vec(n, &mut r),
            random_vec(n, &mut r),
            random_vec(n, &mut r),
        );
        for flags in [0, F_DIT, F_INVERSE | F_SCALE_OUT, F_DIT | F_SCALE_IN] {
            for (mul, sub) in [
                (Some(&b[..]), Some(&c[..])),
                (Some(&b[..]), None),
                (None, Some(&c[..])),
            ] {
                let mut want: Vec<Fr> = (0..n).map(|i| mul.map_or(x[i], |m| x[i] * m[i])).collect();
                host_run(&mut want, flags, Some(&sc), Fused::NONE).unwrap();
                if let Some(sub) = sub {
                    want.iter_mut().zip(sub).for_each(|(w, s)| *w -= s);
                }
                let mut got = x.clone();
                host_run(&mut got, flags, Some(&sc), Fused { mul, sub }).unwrap();
                assert_eq!(
                    got,
                    want,
                    "2^{log_n} flags {flags} mul {} sub {}",
                    mul.is_some(),
                    sub.is_some()
                );
            }
        }
    }
    let mut v = vec![Fr::ONE; 4];
    let short = [Fr::ONE; 3];
    for f in [
        Fused {
            mul: None,
            sub: Some(&short[..]),
        },
        Fused {
            mul: Some(&short[..]),
            sub: None,
        },
    ] {
        assert!(matches!(
            host_run(&mut v, 0, None, f),
            Err(NttError::LengthMismatch { .. })
        ));
    }
}

#[test]
fn wrong_transforms_are_caught() {
    // The comparison is not vacuous: DIT on natural input, or the inverse
    // table for a forward transform, gives a different answer.
    let log_n = 12;
    let d = Domain::new(log_n).unwrap();
    let x = random_vec(1 << log_n, &mut rng(77));
    let mut want = x.clone();
    d.fft_to_bitrev(&mut want).unwrap();
    for flags in [F_DIT, F_INVERSE] {
        let mut v = x.clone();
        host_run(&mut v, flags, None, Fused::NONE).unwrap();
        assert_ne!(v, want, "flags {flags}");
    }
    let mut v = x.clone();
    host_run(&mut v, 0, None, Fused::NONE).unwrap();
    assert_eq!(v, want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_modes(log_n in 0u32..=13, seed in any::<u64>(), k in 0usize..6, o in 0usize..4) {
        let d = Domain::new(log_n).unwrap();
        let x = random_vec(1 << log_n, &mut rng(seed));
        let (i, out) = ORDERS[o];
        check_mode(&d, kinds(seed)[k], &x, i, out);
    }
}
