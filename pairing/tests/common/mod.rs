//! Seeded random pairs and the reference products (blstrs' pairing, one
//! pair at a time).
#![allow(dead_code)]

use cuzk_field::{Fr, G1Affine, G1Projective, G2Affine, G2Projective, Gt};
use ff::Field;
use group::{Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// `n` random G1 and G2 points; every `identity_every`-th pair (if not 0)
/// has the point at infinity on one side.
pub fn random_pairs(
    rng: &mut ChaCha20Rng,
    n: usize,
    identity_every: usize,
) -> (Vec<G1Affine>, Vec<G2Affine>) {
    let g1: Vec<G1Projective> = (0..n)
        .map(|_| G1Projective::generator() * Fr::random(&mut *rng))
        .collect();
    let g2: Vec<G2Projective> = (0..n)
        .map(|_| G2Projective::generator() * Fr::random(&mut *rng))
        .collect();
    let mut p = vec![G1Affine::default(); n];
    let mut q = vec![G2Affine::default(); n];
    G1Projective::batch_normalize(&g1, &mut p);
    G2Projective::batch_normalize(&g2, &mut q);
    if identity_every > 0 {
        for i in (0..n).step_by(identity_every) {
            if i % 2 == 0 {
                p[i] = G1Projective::identity().to_affine();
            } else {
                q[i] = G2Projective::identity().to_affine();
            }
        }
    }
    (p, q)
}

/// Π e(pᵢ, qᵢ) from blstrs' single pairings (Gt is written additively).
pub fn reference(p: &[G1Affine], q: &[G2Affine]) -> Gt {
    p.iter()
        .zip(q)
        .map(|(p, q)| blstrs::pairing(p, q))
        .fold(Gt::identity(), |a, b| a + b)
}
