//! Native witness generators for the Filecoin hash gadgets, over
//! `cuzk_synth::native`: what filecoin-hashers' circuit functions
//! allocate, from field elements and bits, in their order.
//!
//! - [`sha256_hash`]: `Sha256Function::hash_circuit` (SHA-256 of the
//!   bits, the digest's bytes reversed to little-endian bit order, the
//!   first 254 packed into one field element: `multipack::pack_bits`);
//! - [`sha256_hash2`]: `Sha256Function::hash2_circuit`, the SHA-256
//!   Merkle node (both children unpacked to 255 allocated bits each by
//!   `AllocatedNum::to_bits_le`, byte-reversed, hashed as above).
//!
//! Not yet used by a proof kind's witness; `tests/native.rs` checks them
//! value for value against witness-only synthesis of the gadgets.

use cuzk_synth::native::{sha256, Aux, Bit};
use ff::{Field, PrimeField};

type Fr = blstrs::Scalar;

/// `multipack::pack_bits`: the first 254 bits (little-endian) as one
/// allocated field element.
fn pack(aux: &mut impl Aux, le_bits: &[Bit]) -> Fr {
    let mut v = Fr::ZERO;
    let mut coeff = Fr::ONE;
    for b in le_bits.iter().take(Fr::CAPACITY as usize) {
        if b.value() {
            v += coeff;
        }
        coeff = coeff.double();
    }
    aux.push_fr(v);
    v
}

/// `Sha256Function::hash_circuit`: the packed digest, allocated.
pub fn sha256_hash(aux: &mut impl Aux, bits: &[Bit]) -> Fr {
    let be = sha256::sha256(aux, bits);
    let le: Vec<Bit> = be
        .chunks(8)
        .flat_map(|c| c.iter().rev())
        .take(Fr::CAPACITY as usize)
        .copied()
        .collect();
    pack(aux, &le)
}

/// `AllocatedNum::to_bits_le`: 255 allocated bits, least significant
/// first.
fn to_bits_le(aux: &mut impl Aux, v: &Fr) -> Vec<Bit> {
    let repr = v.to_repr();
    let bytes = repr.as_ref();
    (0..Fr::NUM_BITS as usize)
        .map(|i| aux.bit((bytes[i / 8] >> (i % 8)) & 1 == 1))
        .collect()
}

/// The children's bits as `hash2_circuit` lays them out: padded with
/// constant zeros to whole bytes, each byte's bits reversed.
fn byte_reversed(bits: Vec<Bit>, out: &mut Vec<Bit>) {
    let mut padded = bits;
    while padded.len() % 8 != 0 {
        padded.push(Bit::Constant(false));
    }
    out.extend(padded.chunks_exact(8).flat_map(|c| c.iter().rev()).copied());
}

/// `Sha256Function::hash2_circuit`: the node over two allocated
/// children, allocated.
pub fn sha256_hash2(aux: &mut impl Aux, a: &Fr, b: &Fr) -> Fr {
    let a_bits = to_bits_le(aux, a);
    let b_bits = to_bits_le(aux, b);
    let mut preimage = Vec::with_capacity(512);
    byte_reversed(a_bits, &mut preimage);
    byte_reversed(b_bits, &mut preimage);
    sha256_hash(aux, &preimage)
}
