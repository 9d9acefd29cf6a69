//! Differential tests of the CPU MSMs against naive Σ sᵢ·Pᵢ (one blst scalar
//! multiplication per term, an independent code path), generated for G1 and
//! G2 from the same generic functions.

use std::sync::OnceLock;

use cuzk_field::{Bitmap, Curve, Field, Fr, G1Affine, G2Affine, Group};
use cuzk_msm::cpu::tuning;
use cuzk_msm::{
    bitmap_sum, classify, msm, msm_batch, msm_density, msm_gather, MsmCurve, MsmError, Projective,
};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

type P<C> = Projective<C>;

/// Random points of each group, generated once per test binary.
trait Pool: MsmCurve {
    fn pool() -> &'static [Self];
}

fn make_pool<C: MsmCurve>(n: usize, seed: u64) -> Vec<C> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let proj: Vec<P<C>> = (0..n).map(|_| P::<C>::random(&mut rng)).collect();
    let mut out = vec![C::identity(); n];
    P::<C>::batch_normalize(&proj, &mut out);
    out
}

impl Pool for G1Affine {
    fn pool() -> &'static [Self] {
        static POOL: OnceLock<Vec<G1Affine>> = OnceLock::new();
        POOL.get_or_init(|| make_pool(1100, 1))
    }
}

impl Pool for G2Affine {
    fn pool() -> &'static [Self] {
        static POOL: OnceLock<Vec<G2Affine>> = OnceLock::new();
        POOL.get_or_init(|| make_pool(300, 2))
    }
}

fn naive<C: MsmCurve>(bases: &[C], scalars: &[Fr]) -> P<C> {
    assert_eq!(bases.len(), scalars.len());
    bases
        .iter()
        .zip(scalars)
        .fold(P::<C>::identity(), |acc, (b, s)| acc + b.to_curve() * s)
}

fn naive_density<C: MsmCurve>(bases: &[C], scalars: &[Fr], density: Option<&Bitmap>) -> P<C> {
    let mut acc = P::<C>::identity();
    let mut j = 0;
    for (i, s) in scalars.iter().enumerate() {
        if density.map_or(true, |d| d.get(i)) {
            acc += bases[j].to_curve() * s;
            j += 1;
        }
    }
    acc
}

fn random_scalars(n: usize, rng: &mut ChaCha8Rng) -> Vec<Fr> {
    (0..n).map(|_| Fr::random(&mut *rng)).collect()
}

/// Edge scalars cycling with random ones: 0, 1, −1 (bit 254 set), 2, −2,
/// 2^254, a random value.
fn edge_scalars(n: usize, rng: &mut ChaCha8Rng) -> Vec<Fr> {
    let two_254 = Fr::from(2u64).pow_vartime([254]);
    (0..n)
        .map(|i| match i % 7 {
            0 => Fr::ZERO,
            1 => Fr::ONE,
            2 => -Fr::ONE,
            3 => Fr::from(2u64),
            4 => -Fr::from(2u64),
            5 => two_254,
            _ => Fr::random(&mut *rng),
        })
        .collect()
}

/// Filecoin-like witness: 70% zeros, 25% ones, 5% random.
fn boolean_heavy(n: usize, rng: &mut ChaCha8Rng) -> Vec<Fr> {
    (0..n)
        .map(|_| match rng.next_u32() % 100 {
            0..=69 => Fr::ZERO,
            70..=94 => Fr::ONE,
            _ => Fr::random(&mut *rng),
        })
        .collect()
}

fn random_bitmap(n: usize, percent: u32, rng: &mut ChaCha8Rng) -> Bitmap {
    Bitmap::from_bools((0..n).map(|_| rng.next_u32() % 100 < percent))
}

fn bases_of<C: Pool>(n: usize) -> Vec<C> {
    C::pool().iter().copied().cycle().take(n).collect()
}

fn check_sizes<C: Pool>(sizes: &[usize]) {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    for &n in sizes {
        // Distinct bases as long as the pool lasts.
        let bases = bases_of::<C>(n);
        let scalars = random_scalars(n, &mut rng);
        assert_eq!(
            msm(&bases, &scalars).unwrap(),
            naive(&bases, &scalars),
            "{} n={n}",
            C::NAME
        );
        let scalars = edge_scalars(n, &mut rng);
        assert_eq!(
            msm(&bases, &scalars).unwrap(),
            naive(&bases, &scalars),
            "{} edge n={n}",
            C::NAME
        );
    }
}

fn check_uniform_scalars<C: Pool>() {
    let n = 200;
    let bases = bases_of::<C>(n);
    let two_254 = Fr::from(2u64).pow_vartime([254]);
    for s in [
        Fr::ZERO,
        Fr::ONE,
        -Fr::ONE,
        Fr::from(2u64),
        two_254,
        -two_254,
    ] {
        for m in [1, 2, 33, n] {
            let scalars = vec![s; m];
            assert_eq!(
                msm(&bases[..m], &scalars).unwrap(),
                naive(&bases[..m], &scalars),
                "m={m}"
            );
        }
    }
}

/// Identity bases, repeated bases, and P next to −P.
fn awkward_bases<C: Pool>(n: usize, rng: &mut ChaCha8Rng) -> Vec<C> {
    let pool = C::pool();
    (0..n)
        .map(|i| {
            let p = pool[(rng.next_u32() as usize) % 8];
            match i % 5 {
                0 => C::identity(),
                1 | 2 => p,
                3 => -p,
                _ => pool[i % pool.len()],
            }
        })
        .collect()
}

fn check_awkward_bases<C: Pool>() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for n in [1, 2, 5, 31, 64, 65, 300] {
        let bases = awkward_bases::<C>(n, &mut rng);
        let scalars = random_scalars(n, &mut rng);
        assert_eq!(
            msm(&bases, &scalars).unwrap(),
            naive(&bases, &scalars),
            "n={n}"
        );
        let ones = vec![Fr::ONE; n];
        assert_eq!(
            msm(&bases, &ones).unwrap(),
            naive(&bases, &ones),
            "ones n={n}"
        );
        // P and −P with equal scalars cancel exactly.
        let p = C::pool()[3];
        let pair: Vec<C> = (0..n.max(2))
            .map(|i| if i % 2 == 0 { p } else { -p })
            .collect();
        let s = Fr::random(&mut rng);
        let even = pair.len() / 2 * 2;
        let same = vec![s; even];
        assert_eq!(
            msm(&pair[..even], &same).unwrap(),
            P::<C>::identity(),
            "n={n}"
        );
        let all = Bitmap::ones(even);
        assert_eq!(bitmap_sum(&pair[..even], &all).unwrap(), P::<C>::identity());
        // The same point many times: n·P.
        let rep = vec![p; n];
        assert_eq!(
            bitmap_sum(&rep, &Bitmap::ones(n)).unwrap(),
            p.to_curve() * Fr::from(n as u64)
        );
    }
    // All bases at infinity.
    let inf = vec![C::identity(); 100];
    let scalars = random_scalars(100, &mut rng);
    assert_eq!(msm(&inf, &scalars).unwrap(), P::<C>::identity());
    assert_eq!(
        bitmap_sum(&inf, &Bitmap::ones(100)).unwrap(),
        P::<C>::identity()
    );
}

/// Every usable window and a few chunkings: exercises the tile split and
/// the partial top window (−1 has bit 254 set).
fn check_all_windows<C: Pool>(n: usize, max_window: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let bases = bases_of::<C>(n);
    let scalars = edge_scalars(n, &mut rng);
    let want = naive(&bases, &scalars);
    for w in (2..=max_window).filter(|w| 255 % w != 0) {
        // Wide windows cost 2^w bucket additions per tile whatever the
        // input size: one chunking each keeps the test fast.
        let chunkings: &[usize] = if w <= 12 { &[1, 3] } else { &[1] };
        for &chunks in chunkings {
            let got = tuning::msm_with_plan(&bases, &scalars, w, chunks);
            assert_eq!(got, want, "{} window {w} chunks {chunks}", C::NAME);
        }
    }
}

fn check_density<C: Pool>(n: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for (dens_pct, mix) in [(50, 0), (50, 1), (100, 1), (0, 1), (80, 2), (30, 3)] {
        let scalars = match mix {
            0 => random_scalars(n, &mut rng),
            1 => boolean_heavy(n, &mut rng),
            2 => edge_scalars(n, &mut rng),
            _ => vec![Fr::ONE; n],
        };
        let density = random_bitmap(n, dens_pct, &mut rng);
        let need = density.count_ones();
        // Bases longer than needed are allowed (extra ignored).
        let bases = bases_of::<C>(need + 3);
        let want = naive_density(&bases, &scalars, Some(&density));
        let msg = format!("{} n={n} density={dens_pct}% mix={mix}", C::NAME);
        assert_eq!(
            msm_density(&bases, &scalars, Some(&density)).unwrap(),
            want,
            "{msg}"
        );
        assert_eq!(
            tuning::msm_density_split(&bases, &scalars, Some(&density)).unwrap(),
            want,
            "{msg} split"
        );
        assert_eq!(
            tuning::msm_density_full(&bases, &scalars, Some(&density)).unwrap(),
            want,
            "{msg} full"
        );
        // Exact-length bases and the dense form.
        assert_eq!(
            msm_density(&bases[..need], &scalars, Some(&density)).unwrap(),
            want,
            "{msg}"
        );
        let dense_bases = bases_of::<C>(n);
        let want = naive(&dense_bases, &scalars);
        assert_eq!(
            msm_density(&dense_bases, &scalars, None).unwrap(),
            want,
            "{msg} dense"
        );
        assert_eq!(
            tuning::msm_density_split(&dense_bases, &scalars, None).unwrap(),
            want,
            "{msg} dense split"
        );
        assert_eq!(
            tuning::msm_density_full(&dense_bases, &scalars, None).unwrap(),
            want,
            "{msg} dense full"
        );
    }
}

fn check_bitmap_sum<C: Pool>(sizes: &[usize]) {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    for &n in sizes {
        let bases = bases_of::<C>(n);
        for pct in [0, 3, 50, 100] {
            let ones = random_bitmap(n, pct, &mut rng);
            let want = ones
                .iter_ones()
                .fold(P::<C>::identity(), |acc, i| acc + bases[i]);
            assert_eq!(
                bitmap_sum(&bases, &ones).unwrap(),
                want,
                "{} n={n} pct={pct}",
                C::NAME
            );
        }
    }
}

fn check_gather<C: Pool>() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let bases = bases_of::<C>(200);
    for m in [0, 1, 2, 40, 64, 65, 500] {
        // Unsorted, with repeats.
        let idx: Vec<u32> = (0..m).map(|_| rng.next_u32() % 200).collect();
        let scalars = edge_scalars(m, &mut rng);
        let gathered: Vec<C> = idx.iter().map(|&i| bases[i as usize]).collect();
        assert_eq!(
            msm_gather(&bases, &idx, &scalars).unwrap(),
            naive(&gathered, &scalars),
            "m={m}"
        );
    }
    assert_eq!(
        msm_gather(&bases, &[0, 200], &[Fr::ONE, Fr::ONE]),
        Err(MsmError::IndexOutOfRange {
            index: 200,
            bases: 200
        })
    );
}

fn check_batch<C: Pool>() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    for n in [0, 1, 40, 300] {
        let bases = bases_of::<C>(n);
        let sets = [
            random_scalars(n, &mut rng),
            edge_scalars(n, &mut rng),
            boolean_heavy(n, &mut rng),
        ];
        let got = msm_batch(&bases, &sets).unwrap();
        assert_eq!(got.len(), 3);
        for (g, s) in got.iter().zip(&sets) {
            assert_eq!(*g, naive(&bases, s), "n={n}");
        }
    }
    let bases = bases_of::<C>(10);
    assert!(msm_batch::<C, Vec<Fr>>(&bases, &[]).unwrap().is_empty());
    assert_eq!(
        msm_batch(&bases, &[vec![Fr::ONE; 10], vec![Fr::ONE; 9]]),
        Err(MsmError::LengthMismatch {
            bases: 10,
            scalars: 9
        })
    );
}

fn check_errors<C: Pool>() {
    let bases = bases_of::<C>(10);
    let s = vec![Fr::ONE; 11];
    assert_eq!(
        msm(&bases, &s),
        Err(MsmError::LengthMismatch {
            bases: 10,
            scalars: 11
        })
    );
    assert_eq!(
        msm(&bases, &s[..9]),
        Err(MsmError::LengthMismatch {
            bases: 10,
            scalars: 9
        })
    );
    assert_eq!(
        msm_density(&bases, &s, None),
        Err(MsmError::TooFewBases { have: 10, need: 11 })
    );
    let d = Bitmap::ones(10);
    assert_eq!(
        msm_density(&bases, &s, Some(&d)),
        Err(MsmError::DensityLength {
            density: 10,
            scalars: 11
        })
    );
    let d = Bitmap::ones(11);
    assert_eq!(
        msm_density(&bases, &s, Some(&d)),
        Err(MsmError::TooFewBases { have: 10, need: 11 })
    );
    assert_eq!(
        bitmap_sum(&bases, &d),
        Err(MsmError::TooFewBases { have: 10, need: 11 })
    );
    assert_eq!(
        msm_gather(&bases, &[1, 2], &s[..1]),
        Err(MsmError::LengthMismatch {
            bases: 2,
            scalars: 1
        })
    );
    // Empty inputs are fine everywhere.
    let none: [C; 0] = [];
    assert_eq!(msm(&none, &[]).unwrap(), P::<C>::identity());
    assert_eq!(msm_density(&none, &[], None).unwrap(), P::<C>::identity());
    assert_eq!(
        bitmap_sum(&none, &Bitmap::new()).unwrap(),
        P::<C>::identity()
    );
    assert_eq!(msm_gather(&none, &[], &[]).unwrap(), P::<C>::identity());
}

/// Random small cases: bases drawn (with repeats) from the pool or infinity,
/// scalars from {0, 1, −1, 2, random}, random density.
fn prop_case<C: Pool>(n: usize, seed: u64, kinds: &[u8], picks: &[u16], dens: &[bool]) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pool = C::pool();
    let scalars: Vec<Fr> = kinds[..n]
        .iter()
        .map(|k| match k % 5 {
            0 => Fr::ZERO,
            1 => Fr::ONE,
            2 => -Fr::ONE,
            3 => Fr::from(2u64),
            _ => Fr::random(&mut rng),
        })
        .collect();
    let density = Bitmap::from_bools(dens[..n].iter().copied());
    let need = density.count_ones();
    let bases: Vec<C> = picks[..n]
        .iter()
        .map(|&p| {
            if p % 17 == 0 {
                C::identity()
            } else {
                pool[p as usize % 40]
            }
        })
        .collect();
    assert_eq!(msm(&bases, &scalars).unwrap(), naive(&bases, &scalars));
    let want = naive_density(&bases, &scalars, Some(&density));
    assert_eq!(
        msm_density(&bases[..need], &scalars, Some(&density)).unwrap(),
        want
    );
    assert_eq!(
        tuning::msm_density_split(&bases, &scalars, Some(&density)).unwrap(),
        want
    );
    let c = classify(&scalars, Some(&density)).unwrap();
    assert_eq!(c.selected(), need);
    assert_eq!(c.zeros + c.ones.count_ones() + c.tail_indices.len(), need);
}

fn prop_config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        rng_seed: RngSeed::Fixed(0x6d73_6d5f_6375_7a6b),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

macro_rules! curve_tests {
    ($name:ident, $c:ty, $sizes:expr, $bitmap_sizes:expr, $window_n:expr, $max_window:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn sizes_vs_naive() {
                check_sizes::<$c>(&$sizes);
            }
            #[test]
            fn uniform_scalars() {
                check_uniform_scalars::<$c>();
            }
            #[test]
            fn awkward_bases() {
                check_awkward_bases::<$c>();
            }
            #[test]
            fn every_window() {
                check_all_windows::<$c>($window_n, $max_window);
            }
            #[test]
            fn density() {
                check_density::<$c>(300);
                check_density::<$c>(70);
                check_density::<$c>(1);
            }
            #[test]
            fn bitmap_sums() {
                check_bitmap_sum::<$c>(&$bitmap_sizes);
            }
            #[test]
            fn gather() {
                check_gather::<$c>();
            }
            #[test]
            fn batch() {
                check_batch::<$c>();
            }
            #[test]
            fn errors() {
                check_errors::<$c>();
            }

            proptest! {
                #![proptest_config(prop_config())]
                #[test]
                fn random_small(
                    n in 0usize..70,
                    seed in any::<u64>(),
                    kinds in proptest::collection::vec(any::<u8>(), 70),
                    picks in proptest::collection::vec(any::<u16>(), 70),
                    dens in proptest::collection::vec(any::<bool>(), 70),
                ) {
                    prop_case::<$c>(n, seed, &kinds, &picks, &dens);
                }
            }
        }
    };
}

curve_tests!(
    g1,
    G1Affine,
    [0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 100, 1000, 1023, 1024, 1025],
    [0, 1, 63, 64, 65, 1000, 16384, 16385, 40000],
    300,
    18
);
curve_tests!(
    g2,
    G2Affine,
    [0, 1, 2, 31, 32, 33, 64, 65, 257],
    [0, 1, 64, 65, 1000, 16385],
    100,
    17
);

#[test]
fn classify_matches_naive() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for n in [0, 1, 64, 65, 1000, 40000] {
        let mut scalars = boolean_heavy(n, &mut rng);
        for s in scalars.iter_mut().step_by(7) {
            *s = -Fr::ONE;
        }
        for density in [None, Some(random_bitmap(n, 60, &mut rng))] {
            let c = classify(&scalars, density.as_ref()).unwrap();
            let selected: Vec<Fr> = (0..n)
                .filter(|&i| density.as_ref().map_or(true, |d| d.get(i)))
                .map(|i| scalars[i])
                .collect();
            assert_eq!(c.selected(), selected.len());
            assert_eq!(c.zeros, selected.iter().filter(|s| **s == Fr::ZERO).count());
            let ones: Vec<usize> = (0..selected.len())
                .filter(|&j| selected[j] == Fr::ONE)
                .collect();
            assert_eq!(c.ones.iter_ones().collect::<Vec<_>>(), ones);
            let tail: Vec<(u32, Fr)> = selected
                .iter()
                .enumerate()
                .filter(|(_, s)| **s != Fr::ZERO && **s != Fr::ONE)
                .map(|(j, s)| (j as u32, *s))
                .collect();
            assert_eq!(c.tail_indices, tail.iter().map(|t| t.0).collect::<Vec<_>>());
            assert_eq!(c.tail_scalars, tail.iter().map(|t| t.1).collect::<Vec<_>>());
        }
    }
    assert_eq!(
        classify(&[Fr::ONE; 3], Some(&Bitmap::ones(2))),
        Err(MsmError::DensityLength {
            density: 2,
            scalars: 3
        })
    );
}
