//! Differential tests of the CPU transforms against naive O(n²) DFTs and
//! bellperson 0.26, with fixed seeds, edge vectors and proptest.

use cuzk_field::{random_vec, Field, Fr, PrimeField};
use cuzk_ntt::reference::{evaluate, naive_coset_dft, naive_dft, naive_h_step};
use cuzk_ntt::{bit_reverse_permute, coset_generator, h_step, Domain, NttError, Tuning};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Tunings that force several recursion levels, column passes with one or
/// several columns per group, and leaves of 1, 2 and 4 points at small sizes.
fn tunings() -> Vec<Tuning> {
    vec![
        Tuning::default(),
        Tuning {
            leaf_log: 0,
            split_log: 1,
            group_log: 0,
        },
        Tuning {
            leaf_log: 1,
            split_log: 2,
            group_log: 3,
        },
        Tuning {
            leaf_log: 2,
            split_log: 3,
            group_log: 2,
        },
        Tuning {
            leaf_log: 3,
            split_log: 1,
            group_log: 6,
        },
    ]
}

fn edge_vectors(n: usize, seed: u64) -> Vec<Vec<Fr>> {
    let minus_one = -Fr::ONE;
    let mut out = vec![
        random_vec(n, &mut rng(seed)),
        vec![Fr::ZERO; n],
        vec![Fr::ONE; n],
        vec![minus_one; n],
    ];
    for pos in [0, 1, n / 2 + 1, n - 1] {
        if pos < n {
            let mut d = vec![Fr::ZERO; n];
            d[pos] = Fr::ONE;
            out.push(d);
        }
    }
    out.push(
        (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    minus_one
                } else {
                    Fr::from(i as u64)
                }
            })
            .collect(),
    );
    out
}

fn permuted(v: &[Fr]) -> Vec<Fr> {
    let mut p = v.to_vec();
    bit_reverse_permute(&mut p).unwrap();
    p
}

/// Every transform of `d` on `x` against its naive definition.
fn check_all_transforms(d: &Domain, x: &[Fr], shift: Fr) {
    let n = d.size();
    let omega = d.omega();
    let n_inv = d.size_inv();
    let g = coset_generator();
    let evals = naive_dft(x, omega);
    let inv: Vec<Fr> = naive_dft(x, d.omega_inv())
        .iter()
        .map(|y| *y * n_inv)
        .collect();
    let ctx = format!("n = {n}, {d:?}");

    let mut v = x.to_vec();
    d.fft(&mut v).unwrap();
    assert_eq!(v, evals, "fft {ctx}");

    let mut v = x.to_vec();
    d.ifft(&mut v).unwrap();
    assert_eq!(v, inv, "ifft {ctx}");

    let mut v = x.to_vec();
    d.fft_to_bitrev(&mut v).unwrap();
    assert_eq!(v, permuted(&evals), "fft_to_bitrev {ctx}");

    let mut v = permuted(x);
    d.fft_from_bitrev(&mut v).unwrap();
    assert_eq!(v, evals, "fft_from_bitrev {ctx}");

    let mut v = x.to_vec();
    d.ifft_to_bitrev(&mut v).unwrap();
    assert_eq!(v, permuted(&inv), "ifft_to_bitrev {ctx}");

    let mut v = permuted(x);
    d.ifft_from_bitrev(&mut v).unwrap();
    assert_eq!(v, inv, "ifft_from_bitrev {ctx}");

    let mut v = x.to_vec();
    d.coset_fft(&mut v).unwrap();
    assert_eq!(v, naive_coset_dft(x, omega, g), "coset_fft {ctx}");

    // icoset: ifft, then coefficient i times g^{-i}.
    let mut v = x.to_vec();
    d.icoset_fft(&mut v).unwrap();
    let g_inv = g.invert().unwrap();
    let expect: Vec<Fr> = inv
        .iter()
        .enumerate()
        .map(|(i, y)| *y * g_inv.pow_vartime([i as u64]))
        .collect();
    assert_eq!(v, expect, "icoset_fft {ctx}");

    let mut v = x.to_vec();
    d.coset_fft_with(&mut v, shift).unwrap();
    assert_eq!(v, naive_coset_dft(x, omega, shift), "coset_fft_with {ctx}");

    let s_inv = shift.invert().unwrap();
    let mut v = x.to_vec();
    d.icoset_fft_with(&mut v, shift).unwrap();
    let expect: Vec<Fr> = inv
        .iter()
        .enumerate()
        .map(|(i, y)| *y * s_inv.pow_vartime([i as u64]))
        .collect();
    assert_eq!(v, expect, "icoset_fft_with {ctx}");
}

#[test]
fn all_transforms_match_naive_for_every_size_up_to_2_pow_10() {
    for log_n in 0..=10u32 {
        let n = 1usize << log_n;
        let d = Domain::new(log_n).unwrap();
        let shift = Fr::from(5u64) + Fr::from(log_n as u64);
        for x in edge_vectors(n, 100 + log_n as u64) {
            check_all_transforms(&d, &x, shift);
        }
    }
}

#[test]
fn multi_pass_code_paths_match_naive() {
    // Tiny leaves make 2^6..2^9 run two to nine recursion levels.
    for t in tunings().into_iter().skip(1) {
        for log_n in 0..=9u32 {
            let d = Domain::with_tuning(log_n, t).unwrap();
            let n = d.size();
            let x = random_vec(n, &mut rng(200 + log_n as u64));
            check_all_transforms(&d, &x, Fr::from(11u64));
        }
    }
}

#[test]
fn coset_with_zero_shift_evaluates_at_zero() {
    let d = Domain::new(5).unwrap();
    let x = random_vec(32, &mut rng(3));
    let mut v = x.clone();
    d.coset_fft_with(&mut v, Fr::ZERO).unwrap();
    assert!(v.iter().all(|y| *y == x[0]));
    assert_eq!(
        d.icoset_fft_with(&mut v, Fr::ZERO),
        Err(NttError::ZeroShift)
    );
}

#[test]
fn round_trips_up_to_2_pow_16() {
    for log_n in 0..=16u32 {
        round_trip(log_n, Tuning::default());
    }
    // A deeper recursion (leaf 2^4, 3 levels per pass) on a mid size.
    round_trip(
        14,
        Tuning {
            leaf_log: 4,
            split_log: 3,
            group_log: 5,
        },
    );
}

#[test]
fn round_trip_2_pow_20() {
    round_trip(20, Tuning::default());
}

fn round_trip(log_n: u32, t: Tuning) {
    let d = Domain::with_tuning(log_n, t).unwrap();
    let x = random_vec(d.size(), &mut rng(300 + log_n as u64));
    let mut v = x.clone();
    d.fft(&mut v).unwrap();
    if log_n > 0 {
        assert_ne!(v, x);
    }
    d.ifft(&mut v).unwrap();
    assert_eq!(v, x, "ifft(fft(x)) 2^{log_n}");
    d.coset_fft(&mut v).unwrap();
    d.icoset_fft(&mut v).unwrap();
    assert_eq!(v, x, "icoset(coset(x)) 2^{log_n}");
    d.fft_to_bitrev(&mut v).unwrap();
    d.ifft_from_bitrev(&mut v).unwrap();
    assert_eq!(v, x, "bitrev pair 2^{log_n}");
    // Spot-check the forward transform against direct evaluation.
    let mut e = x.clone();
    d.fft(&mut e).unwrap();
    for j in [0, d.size() / 3, d.size() - 1] {
        assert_eq!(
            e[j],
            evaluate(&x, d.omega().pow_vartime([j as u64])),
            "2^{log_n} at {j}"
        );
    }
}

const H_LENGTHS: [usize; 9] = [0, 1, 2, 3, 31, 32, 33, 100, 1000];

#[test]
fn h_step_matches_naive_bellperson_transcription() {
    for (k, len) in H_LENGTHS.into_iter().enumerate() {
        let mut r = rng(400 + k as u64);
        let (a, b, c) = (
            random_vec(len, &mut r),
            random_vec(len, &mut r),
            random_vec(len, &mut r),
        );
        let expect = naive_h_step(&a, &b, &c);
        assert_eq!(expect.len(), len.max(1).next_power_of_two() - 1);
        assert_eq!(
            h_step(a.clone(), b.clone(), c.clone()).unwrap(),
            expect,
            "len {len}"
        );
        if len > 1 {
            for t in tunings().into_iter().skip(1) {
                let d = Domain::with_tuning(len.next_power_of_two().trailing_zeros(), t).unwrap();
                let h = d.h_step(a.clone(), b.clone(), c.clone()).unwrap();
                assert_eq!(h, expect, "len {len} {t:?}");
            }
        }
    }
}

#[test]
fn h_step_edge_values() {
    let len = 33;
    let m1 = -Fr::ONE;
    let cases = [
        (
            vec![Fr::ZERO; len],
            vec![Fr::ZERO; len],
            vec![Fr::ZERO; len],
        ),
        (vec![Fr::ONE; len], vec![m1; len], vec![Fr::ONE; len]),
        (vec![m1; len], vec![m1; len], vec![m1; len]),
    ];
    for (a, b, c) in cases {
        let expect = naive_h_step(&a, &b, &c);
        assert_eq!(h_step(a, b, c).unwrap(), expect);
    }
}

/// For a satisfied system (`a_i·b_i = c_i`), `A·B − C = H·(x^m − 1)` as
/// polynomials, where `A = ifft(a)` etc.: checked at random points, and the
/// full quotient's top coefficient must be zero (degree < m − 1).
#[test]
fn h_step_divides_satisfied_system() {
    for (k, len) in [3usize, 33, 1000, 3000].into_iter().enumerate() {
        let mut r = rng(500 + k as u64);
        let a = random_vec(len, &mut r);
        let b = random_vec(len, &mut r);
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
        let d = Domain::for_len(len).unwrap();
        let m = d.size();
        let full = d.h_step_full(a.clone(), b.clone(), c.clone()).unwrap();
        assert_eq!(full.len(), m);
        assert_eq!(
            full[m - 1],
            Fr::ZERO,
            "len {len}: degree of H must be < m − 1"
        );
        let h = h_step(a.clone(), b.clone(), c.clone()).unwrap();
        assert_eq!(h[..], full[..m - 1]);
        assert!(h.iter().any(|x| *x != Fr::ZERO));
        let poly = |v: &[Fr]| {
            let mut p = v.to_vec();
            p.resize(m, Fr::ZERO);
            d.ifft(&mut p).unwrap();
            p
        };
        let (pa, pb, pc) = (poly(&a), poly(&b), poly(&c));
        for _ in 0..3 {
            let x = Fr::random(&mut r);
            let lhs = evaluate(&pa, x) * evaluate(&pb, x) - evaluate(&pc, x);
            let rhs = evaluate(&h, x) * (x.pow_vartime([m as u64]) - Fr::ONE);
            assert_eq!(lhs, rhs, "len {len}");
        }
        // An unsatisfied system must not divide: break one constraint.
        let mut c_bad = c.clone();
        c_bad[len / 2] += Fr::ONE;
        let full_bad = d.h_step_full(a, b, c_bad).unwrap();
        assert_ne!(full_bad[m - 1], Fr::ZERO);
    }
}

/// bellperson's own `EvaluationDomain` as the oracle at sizes where its
/// parallel FFT path runs.
#[test]
fn matches_bellperson_evaluation_domain() {
    use bellperson::domain::EvaluationDomain;
    use ec_gpu_gen::threadpool::Worker;
    let worker = Worker::new();
    for (k, len) in [1usize << 12, 5000, 1 << 14].into_iter().enumerate() {
        let mut r = rng(600 + k as u64);
        let (a, b, c) = (
            random_vec(len, &mut r),
            random_vec(len, &mut r),
            random_vec(len, &mut r),
        );

        let mut da = EvaluationDomain::from_coeffs(a.clone()).unwrap();
        da.fft(&worker, &mut None).unwrap();
        let ours = Domain::for_len(len).unwrap();
        let mut v = a.clone();
        v.resize(ours.size(), Fr::ZERO);
        ours.fft(&mut v).unwrap();
        assert_eq!(v, da.into_coeffs(), "fft len {len}");

        let mut da = EvaluationDomain::from_coeffs(a.clone()).unwrap();
        let mut db = EvaluationDomain::from_coeffs(b.clone()).unwrap();
        let mut dc = EvaluationDomain::from_coeffs(c.clone()).unwrap();
        EvaluationDomain::ifft_many(&mut [&mut da, &mut db, &mut dc], &worker, &mut None).unwrap();
        EvaluationDomain::coset_fft_many(&mut [&mut da, &mut db, &mut dc], &worker, &mut None)
            .unwrap();
        da.mul_assign(&worker, &db);
        da.sub_assign(&worker, &dc);
        da.divide_by_z_on_coset(&worker);
        da.icoset_fft(&worker, &mut None).unwrap();
        let mut expect = da.into_coeffs();
        expect.truncate(expect.len() - 1);
        assert_eq!(h_step(a, b, c).unwrap(), expect, "h_step len {len}");
    }
}

#[test]
fn errors_are_typed() {
    assert!(matches!(
        Domain::new(29),
        Err(NttError::DomainTooLarge {
            log_size: 29,
            max_log_size: 28
        })
    ));
    assert!(matches!(
        Domain::for_len((1 << 28) + 1),
        Err(NttError::DomainTooLarge { log_size: 29, .. })
    ));
    assert!(matches!(
        Domain::for_len(usize::MAX),
        Err(NttError::DomainTooLarge { .. })
    ));
    assert_eq!(Domain::for_len(0).unwrap().size(), 1);
    assert_eq!(Domain::for_len(1).unwrap().size(), 1);
    assert_eq!(Domain::for_len(33).unwrap().log_size(), 6);
    assert_eq!(Domain::for_len(64).unwrap().log_size(), 6);

    let d = Domain::new(4).unwrap();
    let mut short = vec![Fr::ONE; 15];
    let want = Err(NttError::LengthMismatch {
        expected: 16,
        got: 15,
    });
    assert_eq!(d.fft(&mut short), want);
    assert_eq!(d.ifft(&mut short), want);
    assert_eq!(d.coset_fft(&mut short), want);
    assert_eq!(d.icoset_fft(&mut short), want);
    assert_eq!(d.fft_to_bitrev(&mut short), want);
    assert_eq!(d.ifft_from_bitrev(&mut short), want);
    assert_eq!(d.coset_fft_with(&mut short, Fr::ONE), want);
    assert_eq!(short, vec![Fr::ONE; 15], "input untouched on error");

    let v = |n| vec![Fr::ONE; n];
    assert_eq!(
        h_step(v(3), v(4), v(3)),
        Err(NttError::UnequalLengths { a: 3, b: 4, c: 3 })
    );
    assert_eq!(
        h_step(v(3), v(3), v(2)),
        Err(NttError::UnequalLengths { a: 3, b: 3, c: 2 })
    );
    // Lengths 9..=16 belong to the 2^4 domain, nothing else does.
    assert_eq!(
        d.h_step(v(8), v(8), v(8)),
        Err(NttError::WrongDomain { len: 8, size: 16 })
    );
    assert_eq!(
        d.h_step(v(17), v(17), v(17)),
        Err(NttError::WrongDomain { len: 17, size: 16 })
    );
    assert_eq!(d.h_step(v(9), v(9), v(9)).unwrap().len(), 15);
    assert!(matches!(
        Domain::with_tuning(
            4,
            Tuning {
                leaf_log: 2,
                split_log: 0,
                group_log: 2
            }
        ),
        Err(NttError::InvalidTuning(_))
    ));
}

#[test]
fn domain_constants() {
    for log_n in [0u32, 1, 5, 16] {
        let d = Domain::new(log_n).unwrap();
        let n = d.size() as u64;
        assert_eq!(d.omega().pow_vartime([n]), Fr::ONE);
        if n > 1 {
            assert_eq!(d.omega().pow_vartime([n / 2]), -Fr::ONE, "primitive");
        }
        assert_eq!(d.omega() * d.omega_inv(), Fr::ONE);
        assert_eq!(d.size_inv() * Fr::from(n), Fr::ONE);
    }
    assert_eq!(coset_generator(), Fr::from(7u64));
    assert_eq!(
        Domain::new(32).err(),
        Some(NttError::DomainTooLarge {
            log_size: 32,
            max_log_size: 28
        })
    );
    assert_eq!(cuzk_ntt::root_of_unity(32).unwrap(), Fr::ROOT_OF_UNITY);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn prop_h_step_matches_naive(len in 0usize..300, seed in any::<u64>(), t in 0usize..5) {
        let mut r = rng(seed);
        let (a, b, c) = (random_vec(len, &mut r), random_vec(len, &mut r), random_vec(len, &mut r));
        let expect = naive_h_step(&a, &b, &c);
        let d = Domain::with_tuning(len.max(1).next_power_of_two().trailing_zeros(), tunings()[t]).unwrap();
        prop_assert_eq!(d.h_step(a, b, c).unwrap(), expect);
    }

    #[test]
    fn prop_fft_matches_naive(log_n in 0u32..9, seed in any::<u64>(), t in 0usize..5) {
        let d = Domain::with_tuning(log_n, tunings()[t]).unwrap();
        let x = random_vec(d.size(), &mut rng(seed));
        let mut v = x.clone();
        d.coset_fft(&mut v).unwrap();
        prop_assert_eq!(&v, &naive_coset_dft(&x, d.omega(), coset_generator()));
        d.icoset_fft(&mut v).unwrap();
        prop_assert_eq!(v, x);
    }
}
