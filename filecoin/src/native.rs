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
//!   (neptune 11's optimized circuit: the S-boxes' l, l², l⁴, l⁵);
//! - [`insert`], for storage-proofs' `insertion::insert`: a Merkle
//!   level's node put among its siblings by its index bits;
//! - [`merkle_level`]: one level of storage-proofs' PoR circuit (index
//!   bits, siblings, insert, the tree's hash; [`sha256_hash_multi_leaf`]
//!   for SHA-256 trees); [`por_poseidon`]: a whole path in a Poseidon
//!   tree of any shape;
//! - [`post_sector`]: one sector of the fallback PoSt circuit (WinningPoSt
//!   and WindowPoSt).
//!
//! Not yet used by a proof kind's witness (the engine still runs the
//! gadgets); `tests/native.rs` checks them value for value against
//! witness-only synthesis of the gadgets and of PoSt sectors of the 2 KiB,
//! 32 GiB and 64 GiB tree shapes.

pub mod snap;

use cuzk_synth::native::{sha256, Aux, Bit};
use ff::{Field, PrimeField};

type Fr = blstrs::Scalar;

/// `multipack::pack_bits`: the first 254 bits (little-endian) as one
/// allocated field element.
pub fn pack(aux: &mut impl Aux, le_bits: &[Bit]) -> Fr {
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
pub fn to_bits_le(aux: &mut impl Aux, v: &Fr) -> Vec<Bit> {
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
/// children, allocated; the same layout as [`sha256_hash_multi_leaf`]
/// over two leaves.
pub fn sha256_hash2(aux: &mut impl Aux, a: &Fr, b: &Fr) -> Fr {
    sha256_hash_multi_leaf(aux, &[*a, *b])
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

/// neptune 11's `quintic_s_box` (`pre` zero) and `quintic_s_box_pre_add`
/// (the first round): the input allocated if it is not yet, then
/// (l + pre)², its square, and (l + pre)⁵ + post.
fn s_box(aux: &mut impl Aux, e: Elt, pre: Fr, post: Fr) -> Elt {
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
    poseidon_with(aux, A::PARAMETERS(), leaves)
}

/// [`poseidon_hash`] with other constants (SnapDeals' randomness hash).
pub fn poseidon_with<A: neptune::Arity<Fr>>(
    aux: &mut impl Aux,
    c: &neptune::poseidon::PoseidonConstants<Fr, A>,
    leaves: &[Fr],
) -> Fr {
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
    let (pre, post) = keys[..2 * width].split_at(width);
    offset += 2 * width;
    for i in 0..width {
        el[i] = if i == 0 {
            let t = el[0].value() + pre[0];
            Elt::Num(t.square().square() * t + post[0])
        } else {
            s_box(aux, el[i], pre[i], post[i])
        };
    }
    product(&mut el, &mut round);
    // The other full rounds of each half (the terminal one apart) around
    // the partial rounds, which key only their first element's S-box.
    let halves = c.full_rounds / 2 - 1;
    for r in 0..2 * halves + c.partial_rounds {
        let n = if (halves..halves + c.partial_rounds).contains(&r) {
            1
        } else {
            width
        };
        for i in 0..n {
            el[i] = s_box(aux, el[i], Fr::ZERO, keys[offset + i]);
        }
        offset += n;
        product(&mut el, &mut round);
    }
    // The terminal full round has no keys after its S-boxes.
    for i in 0..width {
        el[i] = s_box(aux, el[i], Fr::ZERO, Fr::ZERO);
    }
    product(&mut el, &mut round);
    el[1].allocated(aux)
}

/// storage-proofs' `insertion::pick`: one allocation.
fn pick(aux: &mut impl Aux, cond: Bit, a: Fr, b: Fr) -> Fr {
    let v = if cond.value() { a } else { b };
    aux.push_fr(v);
    v
}

/// storage-proofs' `insertion::insert`: `element` put among `elements`
/// at the position `bits` spell (least significant first), the node's
/// children as a Merkle path's level sees them. Sizes 2, 4 and 8 take the
/// gadget's hand-made pick sequences (size 8 allocates ¬b0 ∧ ¬b1 and
/// b0 ∧ b1 first); other sizes a `select` per position.
pub fn insert(aux: &mut impl Aux, element: Fr, bits: &[Bit], elements: &[Fr]) -> Vec<Fr> {
    let size = elements.len() + 1;
    assert_eq!(1 << bits.len(), size);
    let a = element;
    let e = elements;
    match size {
        2 => vec![pick(aux, bits[0], e[0], a), pick(aux, bits[0], a, e[0])],
        4 => {
            let (b0, b1) = (bits[0], bits[1]);
            let (b, c, d) = (e[0], e[1], e[2]);
            let p0_x0 = pick(aux, b0, b, a);
            let p0 = pick(aux, b1, b, p0_x0);
            let p1_x0 = pick(aux, b0, a, b);
            let p1 = pick(aux, b1, c, p1_x0);
            let p2_x1 = pick(aux, b0, d, a);
            let p2 = pick(aux, b1, p2_x1, c);
            let p3_x1 = pick(aux, b0, a, d);
            let p3 = pick(aux, b1, p3_x1, d);
            vec![p0, p1, p2, p3]
        }
        8 => {
            let (b0, b1, b2) = (bits[0], bits[1], bits[2]);
            assert!(
                matches!((b0, b1), (Bit::Is(_), Bit::Is(_))),
                "bits must be allocated and unnegated"
            );
            let (b, c, d, e_, f, g, h) = (e[0], e[1], e[2], e[3], e[4], e[5], e[6]);
            let nor = aux.bit(!b0.value() & !b1.value());
            let and = aux.bit(b0.value() & b1.value());
            let p0_xx0 = pick(aux, nor, a, b);
            let p0 = pick(aux, b2, b, p0_xx0);
            let p1_x00 = pick(aux, b0, a, b);
            let p1_xx0 = pick(aux, b1, c, p1_x00);
            let p1 = pick(aux, b2, c, p1_xx0);
            let p2_x10 = pick(aux, b0, d, a);
            let p2_xx0 = pick(aux, b1, p2_x10, c);
            let p2 = pick(aux, b2, d, p2_xx0);
            let p3_xx0 = pick(aux, and, a, d);
            let p3 = pick(aux, b2, e_, p3_xx0);
            let p4_xx1 = pick(aux, nor, a, f);
            let p4 = pick(aux, b2, p4_xx1, e_);
            let p5_x01 = pick(aux, b0, a, f);
            let p5_xx1 = pick(aux, b1, g, p5_x01);
            let p5 = pick(aux, b2, p5_xx1, f);
            let p6_x11 = pick(aux, b0, h, a);
            let p6_xx1 = pick(aux, b1, p6_x11, g);
            let p6 = pick(aux, b2, p6_xx1, g);
            let p7_xx1 = pick(aux, and, a, h);
            let p7 = pick(aux, b2, p7_xx1, h);
            vec![p0, p1, p2, p3, p4, p5, p6, p7]
        }
        _ => {
            let potential = |at: usize, pos: usize| -> Fr {
                match pos.cmp(&at) {
                    std::cmp::Ordering::Less => e[pos],
                    std::cmp::Ordering::Equal => a,
                    std::cmp::Ordering::Greater => e[pos - 1],
                }
            };
            (0..size)
                .map(|pos| {
                    let from: Vec<Fr> = (0..size).map(|at| potential(at, pos)).collect();
                    select(aux, &from, bits)
                })
                .collect()
        }
    }
}

/// storage-proofs' `insertion::select`: `from[index]` by halving, the most
/// significant bit first, one pick per pair.
pub fn select(aux: &mut impl Aux, from: &[Fr], bits: &[Bit]) -> Fr {
    assert_eq!(1 << bits.len(), from.len());
    let mut state = from.to_vec();
    let mut half = from.len() / 2;
    for &bit in bits.iter().rev() {
        state = (0..half)
            .map(|j| pick(aux, bit, state[half + j], state[j]))
            .collect();
        half /= 2;
    }
    state[0]
}

/// `Sha256Function::hash_multi_leaf_circuit`: each leaf unpacked to 255
/// allocated bits, padded and byte-reversed, all hashed as one message.
pub fn sha256_hash_multi_leaf(aux: &mut impl Aux, leaves: &[Fr]) -> Fr {
    let mut preimage = Vec::with_capacity(256 * leaves.len());
    for l in leaves {
        let bits = to_bits_le(aux, l);
        byte_reversed(bits, &mut preimage);
    }
    sha256_hash(aux, &preimage)
}

/// The hash a Merkle level's circuit uses: Filecoin's trees are SHA-256
/// (comm_d) or Poseidon (comm_c, comm_r_last) over the node's children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeHash {
    /// `Sha256Function::hash_multi_leaf_circuit`.
    Sha256,
    /// `PoseidonFunction::hash_multi_leaf_circuit`.
    Poseidon,
}

/// A Merkle path as the PoR circuit takes it: per level, from the leaf
/// up, the siblings and the node's index among the level's children.
pub type Path = Vec<(Vec<Fr>, usize)>;

/// One level of storage-proofs' PoR circuit (`SubPath::synthesize`): the
/// node's index bits and siblings allocated, the node inserted among its
/// siblings, and their hash at the level's arity, which is the next
/// level's node.
pub fn merkle_level(
    aux: &mut impl Aux,
    hash: TreeHash,
    cur: Fr,
    index: usize,
    siblings: &[Fr],
) -> Fr {
    let bits: Vec<Bit> = (0..(siblings.len() + 1).trailing_zeros())
        .map(|i| aux.bit((index >> i) & 1 == 1))
        .collect();
    for s in siblings {
        aux.push_fr(*s);
    }
    let row = insert(aux, cur, &bits, siblings);
    match hash {
        TreeHash::Sha256 => sha256_hash_multi_leaf(aux, &row),
        TreeHash::Poseidon => poseidon_hash_any(aux, &row),
    }
}

/// [`poseidon_hash`] at the arity `leaves.len()` picks (one of the
/// arities filecoin-hashers defines).
pub fn poseidon_hash_any(aux: &mut impl Aux, leaves: &[Fr]) -> Fr {
    use typenum::{U11, U16, U2, U24, U36, U4, U8};
    match leaves.len() {
        2 => poseidon_hash::<U2>(aux, leaves),
        4 => poseidon_hash::<U4>(aux, leaves),
        8 => poseidon_hash::<U8>(aux, leaves),
        11 => poseidon_hash::<U11>(aux, leaves),
        16 => poseidon_hash::<U16>(aux, leaves),
        24 => poseidon_hash::<U24>(aux, leaves),
        36 => poseidon_hash::<U36>(aux, leaves),
        n => panic!("no Poseidon constants for arity {n}"),
    }
}

/// storage-proofs' PoR circuit over a Poseidon tree (`PoRCircuit::
/// synthesize` with the leaf given, the root already allocated, private):
/// the leaf, then each level of `path` (its siblings and the node's index
/// there: base, sub and top levels alike, each at its own arity). Returns
/// the computed root. The path bits go to public inputs, not here.
pub fn por_poseidon(aux: &mut impl Aux, leaf: Fr, path: &Path) -> Fr {
    aux.push_fr(leaf);
    por_path(aux, TreeHash::Poseidon, leaf, path)
}

/// storage-proofs' PoR circuit from an already allocated leaf (`Root::Var`,
/// as the PoRep circuit's `enforce_inclusion` passes it): only the levels.
/// Returns the computed root.
pub fn por_path(aux: &mut impl Aux, hash: TreeHash, leaf: Fr, path: &Path) -> Fr {
    let mut cur = leaf;
    for (siblings, index) in path {
        cur = merkle_level(aux, hash, cur, *index, siblings);
    }
    cur
}

/// storage-proofs' `reverse_bit_numbering`: padded with constant zeros to
/// whole bytes, each byte's bits reversed.
fn reverse_bit_numbering(bits: Vec<Bit>) -> Vec<Bit> {
    let mut out = Vec::with_capacity(bits.len().next_multiple_of(8));
    byte_reversed(bits, &mut out);
    out
}

/// One challenge of storage-proofs-porep's stacked circuit, as its
/// `Proof::synthesize` takes it.
#[derive(Clone, Debug)]
pub struct PorepChallenge {
    /// The challenged node's data (comm_d's leaf).
    pub data_leaf: Fr,
    /// Its path in the data tree (binary SHA-256).
    pub comm_d_path: Path,
    /// The challenged node's index.
    pub node: u64,
    /// The replica's path in tree R (Poseidon).
    pub comm_r_last_path: Path,
    /// The challenged column's path in tree C (Poseidon).
    pub comm_c_path: Path,
    /// The base (DRG) parents: each column (one label per layer) and its
    /// path in tree C.
    pub drg_parents: Vec<(Vec<Fr>, Path)>,
    /// The expander parents, likewise.
    pub exp_parents: Vec<(Vec<Fr>, Path)>,
}

/// The head of storage-proofs-porep's stacked circuit (`StackedCircuit::
/// synthesize` up to its challenges): replica_id and its bits, comm_d,
/// comm_r, comm_r_last, comm_c, and H(comm_c, comm_r_last). Returns the
/// replica id's bits as the labels hash them.
pub fn porep_head(aux: &mut impl Aux, replica_id: Fr, comms: [Fr; 4]) -> Vec<Bit> {
    let [comm_d, comm_r, comm_r_last, comm_c] = comms;
    aux.push_fr(replica_id);
    let id_bits = reverse_bit_numbering(to_bits_le(aux, &replica_id));
    for c in [comm_d, comm_r, comm_r_last, comm_c] {
        aux.push_fr(c);
    }
    poseidon_hash::<typenum::U2>(aux, &[comm_c, comm_r_last]);
    id_bits
}

/// One challenge of the stacked circuit (`Proof::synthesize`): the data
/// leaf and its inclusion in comm_d; each parent's column, its hash and
/// inclusion in comm_c; the challenge's bits; each layer's label
/// recomputed from the parents' labels (`create_label_circuit`); the
/// encoded node and its inclusion in comm_r_last; the challenged column's
/// hash and its inclusion in comm_c. Every challenge of a partition
/// appends the same number of values.
pub fn porep_challenge(aux: &mut impl Aux, id_bits: &[Bit], ch: &PorepChallenge) {
    aux.push_fr(ch.data_leaf);
    por_path(aux, TreeHash::Sha256, ch.data_leaf, &ch.comm_d_path);
    for (column, path) in ch.drg_parents.iter().chain(&ch.exp_parents) {
        for v in column {
            aux.push_fr(*v);
        }
        let h = poseidon_hash_any(aux, column);
        por_path(aux, TreeHash::Poseidon, h, path);
    }
    // `UInt64::alloc`: 64 allocated bits, least significant first.
    let node: Vec<Bit> = (0..64).map(|i| aux.bit((ch.node >> i) & 1 == 1)).collect();
    let layers = ch.drg_parents.first().map_or(0, |(c, _)| c.len());
    let mut labels = Vec::with_capacity(layers);
    for layer in 1..=layers {
        let mut parents: Vec<Vec<Bit>> = Vec::with_capacity(14);
        for (column, _) in &ch.drg_parents {
            parents.push(reverse_bit_numbering(to_bits_le(aux, &column[layer - 1])));
        }
        // The expander columns hold no first layer: shifted by one.
        if layer > 1 {
            for (column, _) in &ch.exp_parents {
                parents.push(reverse_bit_numbering(to_bits_le(aux, &column[layer - 2])));
            }
        }
        // The hashing order repeats the parents to 37 (TOTAL_PARENTS).
        let mut expanded = parents.clone();
        if layer > 1 {
            expanded.extend_from_slice(&parents);
            expanded.extend_from_slice(&parents[..9]);
        } else {
            for _ in 0..5 {
                expanded.extend_from_slice(&parents);
            }
            expanded.push(parents[0].clone());
        }
        labels.push(create_label(aux, id_bits, &expanded, layer as u32, &node));
    }
    // `encode`: key (the last layer's label) + data, allocated.
    let encoded = labels.last().copied().unwrap_or(Fr::ZERO) + ch.data_leaf;
    aux.push_fr(encoded);
    por_path(aux, TreeHash::Poseidon, encoded, &ch.comm_r_last_path);
    let h = poseidon_hash_any(aux, &labels);
    por_path(aux, TreeHash::Poseidon, h, &ch.comm_c_path);
}

/// `create_label_circuit`: SHA-256 of replica id | layer | node | the
/// parents, each part padded with constant zeros to 32 bytes (64 for
/// layer and node together), packed as `hash_circuit` packs.
fn create_label(
    aux: &mut impl Aux,
    id_bits: &[Bit],
    parents: &[Vec<Bit>],
    layer: u32,
    node_le: &[Bit],
) -> Fr {
    let pad = |m: &mut Vec<Bit>, to: usize| {
        while m.len() % to != 0 {
            m.push(Bit::Constant(false));
        }
    };
    let mut msg = Vec::with_capacity((2 + parents.len()) * 256);
    msg.extend_from_slice(id_bits);
    pad(&mut msg, 256);
    msg.extend((0..32).rev().map(|i| Bit::Constant((layer >> i) & 1 == 1)));
    msg.extend(node_le.iter().rev());
    pad(&mut msg, 512);
    for p in parents {
        msg.extend_from_slice(p);
        pad(&mut msg, 256);
    }
    sha256_hash(aux, &msg)
}

/// One sector of storage-proofs-post's fallback PoSt circuit (`Sector::
/// synthesize`): comm_r_last, comm_c and comm_r allocated, comm_c and
/// comm_r_last hashed (Poseidon, arity 2), then one PoR path per
/// challenge, `(leaf, path)`.
pub fn post_sector(
    aux: &mut impl Aux,
    comm_r: Fr,
    comm_c: Fr,
    comm_r_last: Fr,
    challenges: &[(Fr, Path)],
) {
    aux.push_fr(comm_r_last);
    aux.push_fr(comm_c);
    aux.push_fr(comm_r);
    poseidon_hash::<typenum::U2>(aux, &[comm_c, comm_r_last]);
    for (leaf, path) in challenges {
        por_poseidon(aux, *leaf, path);
    }
}
