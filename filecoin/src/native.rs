//! Native witness generators for the Filecoin hash gadgets, over
//! `cuzk_synth::native`: what filecoin-hashers' circuit functions
//! allocate, from field elements and bits, in their order.
//!
//! - [`sha256_hash`]: `Sha256Function::hash_circuit` (SHA-256 of the
//!   bits, the digest's bytes reversed to little-endian bit order, the
//!   first 254 packed into one field element: `multipack::pack_bits`);
//! - [`sha256_hash2`]: `Sha256Function::hash2_circuit`, the SHA-256
//!   Merkle node (both children unpacked to 255 allocated bits each by
//!   `AllocatedNum::to_bits_le`, byte-reversed, hashed as above);
//! - [`poseidon_hash`], for `PoseidonFunction::hash_multi_leaf_circuit`
//!   (neptune 11's optimized circuit: the S-boxes' l, l², l⁴, l⁵).
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

/// A Poseidon state element as neptune's circuit holds it: a linear
/// combination not yet allocated (`Elt::Num`) or an allocated number.
#[derive(Clone, Copy)]
enum Elt {
    Num(Fr),
    Allocated(Fr),
}

impl Elt {
    fn value(self) -> Fr {
        match self {
            Elt::Num(v) | Elt::Allocated(v) => v,
        }
    }

    /// `Elt::ensure_allocated`: a linear combination is allocated.
    fn allocated(self, aux: &mut impl Aux) -> Fr {
        if let Elt::Num(v) = self {
            aux.push_fr(v);
        }
        self.value()
    }
}

/// neptune 11's `quintic_s_box`: l, l², l⁴ allocated, then l⁴·l plus the
/// round key.
fn s_box(aux: &mut impl Aux, e: Elt, post: Option<Fr>) -> Elt {
    let l = e.allocated(aux);
    let l2 = l.square();
    aux.push_fr(l2);
    let l4 = l2.square();
    aux.push_fr(l4);
    let l5 = l4 * l + post.unwrap_or(Fr::ZERO);
    aux.push_fr(l5);
    Elt::Allocated(l5)
}

/// neptune 11's `quintic_s_box_pre_add` (the first round): (l + pre)²,
/// its square, then l⁴·(l + pre) + post.
fn s_box_pre_add(aux: &mut impl Aux, e: Elt, pre: Fr, post: Fr) -> Elt {
    let l = e.allocated(aux) + pre;
    let l2 = l.square();
    aux.push_fr(l2);
    let l4 = l2.square();
    aux.push_fr(l4);
    let l5 = l4 * l + post;
    aux.push_fr(l5);
    Elt::Allocated(l5)
}

/// `PoseidonFunction::hash_multi_leaf_circuit::<A>` (neptune 11's
/// `circuit::poseidon_hash`): the hash of `leaves`, already allocated,
/// with the allocations of the optimized rounds (full rounds with their
/// compressed round keys, partial rounds through the sparse matrices;
/// the matrix products themselves allocate nothing).
pub fn poseidon_hash<A: filecoin_hashers::PoseidonArity>(aux: &mut impl Aux, leaves: &[Fr]) -> Fr {
    let c = A::PARAMETERS();
    let width = c.width();
    assert_eq!(leaves.len() + 1, width, "one leaf per arity");
    let mut el: Vec<Elt> = std::iter::once(Elt::Num(c.domain_tag))
        .chain(leaves.iter().map(|&l| Elt::Allocated(l)))
        .collect();
    let mut offset = 0;
    let mut round = 0;
    let keys = &c.compressed_round_constants;
    let sparse_offset = c.half_full_rounds - 1;

    let product = |el: &mut Vec<Elt>, round: &mut usize| {
        let dense = |el: &[Elt], m: &[Vec<Fr>]| -> Vec<Elt> {
            (0..width)
                .map(|j| Elt::Num((0..width).map(|i| el[i].value() * m[i][j]).sum()))
                .collect()
        };
        *el = if *round == sparse_offset {
            dense(el, &c.pre_sparse_matrix)
        } else if *round > sparse_offset && *round < c.half_full_rounds + c.partial_rounds {
            let s = &c.sparse_matrixes[*round - sparse_offset - 1];
            let first: Fr = (0..width).map(|i| el[i].value() * s.w_hat[i]).sum();
            std::iter::once(Elt::Num(first))
                .chain(
                    (1..width).map(|j| Elt::Num(el[j].value() + el[0].value() * s.v_rest[j - 1])),
                )
                .collect()
        } else {
            dense(el, &c.mds_matrices.m)
        };
        *round += 1;
    };

    // First full round: keys before and after each S-box; the domain tag's
    // S-box is a constant.
    let pre: Vec<Fr> = keys[offset..offset + width].to_vec();
    let post: Vec<Fr> = keys[offset + width..offset + 2 * width].to_vec();
    offset += 2 * width;
    for i in 0..width {
        el[i] = if i == 0 {
            let t = el[0].value() + pre[0];
            Elt::Num(t.square().square() * t + post[0])
        } else {
            s_box_pre_add(aux, el[i], pre[i], post[i])
        };
    }
    product(&mut el, &mut round);
    for _ in 1..c.full_rounds / 2 {
        for i in 0..width {
            el[i] = s_box(aux, el[i], Some(keys[offset + i]));
        }
        offset += width;
        product(&mut el, &mut round);
    }
    for _ in 0..c.partial_rounds {
        el[0] = s_box(aux, el[0], Some(keys[offset]));
        offset += 1;
        product(&mut el, &mut round);
    }
    for _ in 0..c.full_rounds / 2 - 1 {
        for i in 0..width {
            el[i] = s_box(aux, el[i], Some(keys[offset + i]));
        }
        offset += width;
        product(&mut el, &mut round);
    }
    // The terminal full round has no keys after its S-boxes.
    for i in 0..width {
        el[i] = s_box(aux, el[i], None);
    }
    product(&mut el, &mut round);
    el[1].allocated(aux)
}
