//! Random proofs for the aggregation tests: the prover never checks
//! their validity, so random group elements exercise every step.

use cuzk_field::{Bls12, Curve, G1Projective, G2Projective, Group};
use cuzk_snarkpack::Proof;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

pub fn proofs(n: usize, seed: u64) -> Vec<Proof<Bls12>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| Proof {
            a: G1Projective::random(&mut rng).to_affine(),
            b: G2Projective::random(&mut rng).to_affine(),
            c: G1Projective::random(&mut rng).to_affine(),
        })
        .collect()
}
