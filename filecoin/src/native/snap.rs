//! storage-proofs-update's `EmptySectorUpdateCircuit` (SnapDeals) as a
//! native witness generator: the same allocations, in the same order, as
//! its `synthesize` and gadgets (`gen_challenge_bits`,
//! `get_challenge_high_bits`, `label_r_new`, `apex_por`), computed from
//! the circuit's own inputs.

use super::{
    insert, pack, poseidon_hash, poseidon_hash_any, poseidon_with, select, sha256_hash2,
    sha256_hash_multi_leaf, Fr, TreeHash,
};
use cuzk_synth::native::{Aux, Bit};
use ff::{Field, PrimeField};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::constants::{hs, TreeRHasher, POSEIDON_CONSTANTS_GEN_RANDOMNESS};
use storage_proofs_update::EmptySectorUpdateCircuit;

/// A circuit value that must be present (a blank circuit has none).
fn value(v: Option<Fr>, what: &str) -> Result<Fr, String> {
    v.ok_or_else(|| format!("{what} is missing"))
}

/// Each row's siblings, all present.
fn rows(path: &[Vec<Option<Fr>>], what: &str) -> Result<Vec<Vec<Fr>>, String> {
    path.iter()
        .map(|row| row.iter().map(|&s| value(s, what)).collect())
        .collect()
}

/// `field_into_allocated_bits_le`: 255 allocated bits, least significant
/// first, as allocated bits (`Bit::Is`).
fn allocated_bits(aux: &mut impl Aux, v: Fr) -> Vec<Bit> {
    super::to_bits_le(aux, &v)
}

/// storage-proofs' `por_no_challenge_input`: per row, the node inserted
/// among its (already allocated) siblings at the index the next
/// challenge bits give, and their hash at the row's arity. Returns the
/// computed root.
fn por_no_challenge_input(
    aux: &mut impl Aux,
    hash: TreeHash,
    bits: &[Bit],
    leaf: Fr,
    path: &[Vec<Fr>],
) -> Fr {
    let mut cur = leaf;
    let mut at = 0;
    for siblings in path {
        let n = (siblings.len() + 1).trailing_zeros() as usize;
        let row = insert(aux, cur, &bits[at..at + n], siblings);
        at += n;
        cur = match hash {
            TreeHash::Sha256 => sha256_hash_multi_leaf(aux, &row),
            TreeHash::Poseidon => poseidon_hash_any(aux, &row),
        };
    }
    cur
}

/// One SnapDeals partition's aux assignment, appended to `aux`.
pub fn snap_partition<TreeR: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    aux: &mut impl Aux,
    c: &EmptySectorUpdateCircuit<TreeR>,
) -> Result<(), String> {
    let pp = &c.pub_params;
    let pi = &c.pub_inputs;
    let priv_in = &c.priv_inputs;
    let hs = hs(pp.sector_nodes);
    let first = priv_in
        .challenge_proofs
        .first()
        .ok_or("no challenge proofs")?;
    let partition_path = first
        .path_d_new
        .get(pp.challenge_bit_len - pp.partition_bit_len..)
        .ok_or("path_d_new is shorter than the partition path")?;

    // `k_and_h_select`, then its low bits, allocated.
    let k_and_h = value(pi.k_and_h_select, "k_and_h_select")?;
    aux.push_fr(k_and_h);
    let repr = k_and_h.to_repr();
    let bytes = repr.as_ref();
    let kh_bits: Vec<Bit> = (0..pp.partition_bit_len + hs.len())
        .map(|i| aux.bit((bytes[i / 8] >> (i % 8)) & 1 == 1))
        .collect();
    let (partition_bits, h_select_bits) = kh_bits.split_at(pp.partition_bit_len);
    let partition = pack(aux, partition_bits);

    let comm_r_old = value(pi.comm_r_old, "comm_r_old")?;
    let comm_d_new = value(pi.comm_d_new, "comm_d_new")?;
    let comm_r_new = value(pi.comm_r_new, "comm_r_new")?;
    for v in [comm_r_old, comm_d_new, comm_r_new] {
        aux.push_fr(v);
    }
    let gen = &*POSEIDON_CONSTANTS_GEN_RANDOMNESS;
    let phi = poseidon_with(aux, gen, &[comm_d_new, comm_r_old]);

    let comm_c = value(priv_in.comm_c, "comm_c")?;
    let root_r_old = value(priv_in.root_r_old, "root_r_old")?;
    let root_r_new = value(priv_in.root_r_new, "root_r_new")?;
    for v in [comm_c, root_r_old, root_r_new] {
        aux.push_fr(v);
    }
    let apex_leafs: Vec<Fr> = priv_in
        .apex_leafs
        .iter()
        .map(|&l| value(l, "apex leaf"))
        .collect::<Result<_, _>>()?;
    for &l in &apex_leafs {
        aux.push_fr(l);
    }
    let partition_path = rows(partition_path, "partition path sibling")?;
    for row in &partition_path {
        aux.push_fr(*row.first().ok_or("an empty partition path row")?);
    }
    use typenum::U2;
    poseidon_hash::<U2>(aux, &[comm_c, root_r_old]);
    poseidon_hash::<U2>(aux, &[comm_c, root_r_new]);

    // `apex_por`: the apex tree (tree D: binary SHA-256) over the apex
    // leafs, then its root's path to comm_d_new along the partition's bits.
    let mut row = apex_leafs.clone();
    while row.len() > 1 {
        row = row
            .chunks(2)
            .map(|p| sha256_hash2(aux, &p[0], &p[1]))
            .collect();
    }
    por_no_challenge_input(
        aux,
        TreeHash::Sha256,
        partition_bits,
        row[0],
        &partition_path,
    );

    // `gen_challenge_bits`: digests of comm_r_new and a digest index, each
    // split into challenges' low bits.
    let per_challenge = pp.challenge_bit_len - pp.partition_bit_len;
    let per_digest = Fr::CAPACITY as usize / per_challenge;
    let digests = pp.challenge_count.div_ceil(per_digest);
    let mut generated: Vec<Vec<Bit>> = Vec::with_capacity(pp.challenge_count);
    for j in 0..digests {
        let index = partition * Fr::from(digests as u64) + Fr::from(j as u64);
        aux.push_fr(index);
        let digest = poseidon_with(aux, gen, &[comm_r_new, index]);
        let bits = allocated_bits(aux, digest);
        let take = if j == digests - 1 {
            pp.challenge_count - generated.len()
        } else {
            per_digest
        };
        generated.extend(bits.chunks(per_challenge).take(take).map(<[Bit]>::to_vec));
    }

    for (ci, (low, proof)) in generated.iter().zip(&priv_in.challenge_proofs).enumerate() {
        let c_bits: Vec<Bit> = low.iter().chain(partition_bits).copied().collect();
        // `get_challenge_high_bits`: each h's high bits packed and scaled by
        // its h_select bit, then their sum.
        let mut selected = Fr::ZERO;
        for (&h, sel) in hs.iter().zip(h_select_bits) {
            let high = pack(aux, &c_bits[c_bits.len() - h..]);
            let scaled = if sel.value() { high } else { Fr::ZERO };
            aux.push_fr(scaled);
            selected += scaled;
        }
        aux.push_fr(selected);
        let rho = poseidon_with(aux, gen, &[phi, selected]);

        let what = |s: &str| format!("challenge {ci}: {s}");
        let leaf_r_old = value(proof.leaf_r_old, &what("leaf_r_old"))?;
        let leaf_d_new = value(proof.leaf_d_new, &what("leaf_d_new"))?;
        aux.push_fr(leaf_r_old);
        aux.push_fr(leaf_d_new);
        // `label_r_new`: leaf_d_new · rho, then leaf_r_old plus it.
        let product = leaf_d_new * rho;
        aux.push_fr(product);
        let leaf_r_new = leaf_r_old + product;
        aux.push_fr(leaf_r_new);

        for (leaf, path, name) in [
            (leaf_r_old, &proof.path_r_old, "path_r_old"),
            (leaf_r_new, &proof.path_r_new, "path_r_new"),
        ] {
            let path = rows(path, &what(name))?;
            for s in path.iter().flatten() {
                aux.push_fr(*s);
            }
            por_no_challenge_input(aux, TreeHash::Poseidon, &c_bits, leaf, &path);
        }

        let to_apex = pp.challenge_bit_len - pp.partition_bit_len - pp.apex_leaf_bit_len;
        let apex_leaf = select(
            aux,
            &apex_leafs,
            &c_bits[to_apex..to_apex + pp.apex_leaf_bit_len],
        );
        let path = rows(
            proof
                .path_d_new
                .get(..to_apex)
                .ok_or_else(|| what("path_d_new is short"))?,
            &what("path_d_new"),
        )?;
        for row in &path {
            aux.push_fr(*row.first().ok_or_else(|| what("an empty path_d_new row"))?);
        }
        let root =
            por_no_challenge_input(aux, TreeHash::Sha256, &c_bits[..to_apex], leaf_d_new, &path);
        // The computed root is only compared with `apex_leaf` (no value).
        let _ = (root, apex_leaf);
    }
    Ok(())
}
