//! Batch operations over `Fr` that the prover and setup need.

use crate::Fr;
use ff::Field;
use rand_core::RngCore;
use rayon::prelude::*;

/// Inverts every element in place with Montgomery's trick (one inversion per
/// chunk, three multiplications per element), in parallel chunks.
/// Zeros stay zero (they have no inverse and are skipped), so callers that
/// must not see a zero check for it themselves.
pub fn batch_inverse(values: &mut [Fr]) {
    const CHUNK: usize = 1 << 12;
    values.par_chunks_mut(CHUNK).for_each(batch_inverse_serial);
}

fn batch_inverse_serial(values: &mut [Fr]) {
    let mut prefix = Vec::with_capacity(values.len());
    let mut acc = Fr::ONE;
    for v in values.iter() {
        prefix.push(acc);
        if !bool::from(v.is_zero()) {
            acc *= v;
        }
    }
    // acc is a product of non-zero elements: invertible.
    let mut inv = acc.invert().unwrap_or(Fr::ZERO);
    for (v, p) in values.iter_mut().zip(prefix).rev() {
        if bool::from(v.is_zero()) {
            continue;
        }
        let next = inv * *v;
        *v = inv * p;
        inv = next;
    }
}

/// `n` uniformly random scalars.
pub fn random_vec(n: usize, rng: &mut impl RngCore) -> Vec<Fr> {
    (0..n).map(|_| Fr::random(&mut *rng)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn batch_inverse_matches_single() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for n in [0usize, 1, 2, 33, 4095, 4096, 4097, 10_000] {
            let mut v = random_vec(n, &mut rng);
            if n > 3 {
                v[1] = Fr::ZERO;
                v[n - 1] = Fr::ONE;
            }
            let expect: Vec<Fr> = v.iter().map(|x| x.invert().unwrap_or(Fr::ZERO)).collect();
            batch_inverse(&mut v);
            assert_eq!(v, expect, "n = {n}");
        }
    }
}
