//! Byte and limb views of field elements.
//!
//! *Canonical* means the integer value in `[0, p)`; *Montgomery* means
//! `value · R mod p` with `R = 2^256` (Fr) or `2^384` (Fp), stored as
//! little-endian `u64` limbs exactly as blst keeps them in memory. The GPU
//! kernels use the same bytes viewed as little-endian `u32` limbs, which is
//! why a `&[Fr]` can be copied to the device without conversion.

use crate::{Fp, Fr};

/// Montgomery limbs of an `Fr` (what blst stores).
pub fn fr_to_mont(x: &Fr) -> [u64; 4] {
    blst::blst_fr::from(*x).l
}

/// `Fr` from Montgomery limbs. `None` when the limbs are not reduced (≥ r).
pub fn fr_from_mont(l: [u64; 4]) -> Option<Fr> {
    // Montgomery form is reduced iff the limbs are < r: check through the
    // canonical conversion of the same integer.
    let candidate = Fr::from(blst::blst_fr { l });
    let as_int = Fr::from_u64s_le(&l);
    if bool::from(as_int.is_some()) {
        Some(candidate)
    } else {
        None
    }
}

/// Canonical little-endian bytes (the `to_repr` form bellperson writes).
pub fn fr_to_canonical_le(x: &Fr) -> [u8; 32] {
    x.to_bytes_le()
}

/// `Fr` from canonical little-endian bytes; `None` when ≥ r.
pub fn fr_from_canonical_le(b: &[u8; 32]) -> Option<Fr> {
    Option::from(Fr::from_bytes_le(b))
}

/// Montgomery limbs of an `Fp`.
pub fn fp_to_mont(x: &Fp) -> [u64; 6] {
    blst::blst_fp::from(*x).l
}

/// `Fp` from Montgomery limbs; `None` when the limbs are ≥ p.
pub fn fp_from_mont(l: [u64; 6]) -> Option<Fp> {
    let candidate = Fp::from(blst::blst_fp { l });
    if bool::from(Fp::from_u64s_le(&l).is_some()) {
        Some(candidate)
    } else {
        None
    }
}

/// Montgomery limbs of many `Fr` as one flat `u64` vector (GPU upload order).
pub fn fr_slice_to_mont(xs: &[Fr]) -> Vec<u64> {
    xs.iter().flat_map(fr_to_mont).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::{Field, PrimeField};
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn montgomery_roundtrip_and_meaning() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        // R mod r in Montgomery form is R^2; ONE's Montgomery limbs are R mod r.
        let one = fr_to_mont(&Fr::ONE);
        assert_ne!(one, [1, 0, 0, 0]);
        for _ in 0..1000 {
            let x = Fr::random(&mut rng);
            assert_eq!(fr_from_mont(fr_to_mont(&x)), Some(x));
            assert_eq!(fr_from_canonical_le(&fr_to_canonical_le(&x)), Some(x));
            assert_eq!(fr_to_canonical_le(&x), x.to_repr());
            let y = Fp::random(&mut rng);
            assert_eq!(fp_from_mont(fp_to_mont(&y)), Some(y));
        }
        // r - 1 is reduced, r is not.
        let r_minus_1 = -Fr::ONE;
        assert_eq!(fr_from_mont(fr_to_mont(&r_minus_1)), Some(r_minus_1));
        let modulus = [
            0xffff_ffff_0000_0001u64,
            0x53bd_a402_fffe_5bfe,
            0x3339_d808_09a1_d805,
            0x73ed_a753_299d_7d48,
        ];
        assert_eq!(fr_from_mont(modulus), None);
        assert_eq!(fr_from_mont([u64::MAX; 4]), None);
    }
}
