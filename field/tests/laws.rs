//! Algebraic laws, generated for every field and group we use, with
//! proptest over fixed-seed random elements plus the edge values.

use cuzk_field::{Fp, Fp2, Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ff::Field;
use group::{Curve, Group};
use proptest::prelude::*;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn config() -> ProptestConfig {
    // Fixed seed: failures reproduce; 64 cases per law keeps the suite fast.
    ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_c0de),
        ..ProptestConfig::default()
    }
}

/// Elements drawn from a seed, with the edge values 0, 1 and −1 mixed in.
fn field_elem<F: Field>(seed: u64) -> F {
    match seed % 8 {
        0 => F::ZERO,
        1 => F::ONE,
        2 => -F::ONE,
        _ => F::random(ChaCha8Rng::seed_from_u64(seed)),
    }
}

macro_rules! field_laws {
    ($name:ident, $F:ty) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(config())]
                #[test]
                fn ring_laws(s1 in any::<u64>(), s2 in any::<u64>(), s3 in any::<u64>()) {
                    let (a, b, c): ($F, $F, $F) = (field_elem(s1), field_elem(s2), field_elem(s3));
                    prop_assert_eq!(a + b, b + a);
                    prop_assert_eq!(a * b, b * a);
                    prop_assert_eq!((a + b) + c, a + (b + c));
                    prop_assert_eq!((a * b) * c, a * (b * c));
                    prop_assert_eq!(a * (b + c), a * b + a * c);
                    prop_assert_eq!(a + <$F>::ZERO, a);
                    prop_assert_eq!(a * <$F>::ONE, a);
                    prop_assert_eq!(a - a, <$F>::ZERO);
                    prop_assert_eq!(a + (-a), <$F>::ZERO);
                    prop_assert_eq!(a - b, a + (-b));
                    prop_assert_eq!(a.square(), a * a);
                    prop_assert_eq!(a.double(), a + a);
                }

                #[test]
                fn inverse(s in any::<u64>()) {
                    let a: $F = field_elem(s);
                    let inv = Option::<$F>::from(a.invert());
                    if bool::from(a.is_zero()) {
                        prop_assert!(inv.is_none());
                    } else {
                        prop_assert_eq!(a * inv.unwrap(), <$F>::ONE);
                    }
                }

                #[test]
                fn pow_matches_repeated_multiplication(s in any::<u64>(), e in 0u64..40) {
                    let a: $F = field_elem(s);
                    let mut acc = <$F>::ONE;
                    for _ in 0..e { acc *= a; }
                    prop_assert_eq!(a.pow_vartime([e]), acc);
                }
            }
        }
    };
}

field_laws!(fr, Fr);
field_laws!(fp, Fp);
field_laws!(fp2, Fp2);

macro_rules! group_laws {
    ($name:ident, $G:ty, $A:ty) => {
        mod $name {
            use super::*;
            fn elem(seed: u64) -> $G {
                match seed % 6 {
                    0 => <$G>::identity(),
                    1 => <$G>::generator(),
                    _ => <$G>::random(ChaCha8Rng::seed_from_u64(seed)),
                }
            }
            proptest! {
                #![proptest_config(config())]
                #[test]
                fn group_laws(s1 in any::<u64>(), s2 in any::<u64>(), s3 in any::<u64>()) {
                    let (p, q, r) = (elem(s1), elem(s2), elem(s3));
                    prop_assert_eq!(p + q, q + p);
                    prop_assert_eq!((p + q) + r, p + (q + r));
                    prop_assert_eq!(p + <$G>::identity(), p);
                    prop_assert_eq!(p - p, <$G>::identity());
                    prop_assert_eq!(p + (-p), <$G>::identity());
                    prop_assert_eq!(p.double(), p + p);
                    // Mixed (projective + affine) addition agrees with projective.
                    let qa: $A = q.to_affine();
                    prop_assert_eq!(p + qa, p + q);
                    prop_assert_eq!(<$G>::from(qa), q);
                    // The affine round trip keeps the subgroup and the curve.
                    prop_assert!(bool::from(qa.is_on_curve()));
                    prop_assert!(bool::from(qa.is_torsion_free()));
                }

                #[test]
                fn scalar_laws(s in any::<u64>(), k1 in any::<u64>(), k2 in any::<u64>()) {
                    let p = elem(s);
                    let (a, b): (Fr, Fr) = (field_elem(k1), field_elem(k2));
                    prop_assert_eq!(p * (a + b), p * a + p * b);
                    prop_assert_eq!(p * (a * b), (p * a) * b);
                    prop_assert_eq!(p * Fr::ONE, p);
                    prop_assert_eq!(p * Fr::ZERO, <$G>::identity());
                    prop_assert_eq!(p * (-Fr::ONE), -p);
                    // The group order is r: (r − 1)·P + P = O.
                    prop_assert_eq!(p * (-Fr::ONE) + p, <$G>::identity());
                }

                #[test]
                fn encodings_roundtrip(s in any::<u64>()) {
                    let a: $A = elem(s).to_affine();
                    prop_assert_eq!(<$A>::from_compressed(&a.to_compressed()).unwrap(), a);
                    prop_assert_eq!(<$A>::from_uncompressed(&a.to_uncompressed()).unwrap(), a);
                }
            }
        }
    };
}

group_laws!(g1, G1Projective, G1Affine);
group_laws!(g2, G2Projective, G2Affine);
