//! Benchmark C1 outputs: vanilla proofs of the exact shape of a real
//! sector of any registered size, filled with random values. The circuits
//! they give have the real constraint count and the real mix of bits and
//! full field elements, so synthesis and proving cost what a real C2 costs —
//! but the proofs do not verify (the random paths hash to nothing). This is
//! how a 32 GiB C2 (10 × ~130 M constraints) is measured without sealing
//! 32 GiB.
//!
//! Shape facts used (filecoin-proofs 19): one proof per challenge; a
//! binary SHA-256 data-tree path of log2(nodes) levels; Poseidon replica and
//! column trees with the sector's LC-tree arities (8 base; 8 sub for 32 GiB;
//! 8 sub + 2 top for 64 GiB); a column of `layers` labels at the challenge,
//! 6 DRG and 8 expander parent columns.

use cuzk_filecoin::c1::{C1Output, C1Public, SealProofKind};
use cuzk_filecoin::{with_tree, FilecoinError, Result};
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::{
    parameters::public_params, DefaultPieceHasher, PoRepConfig, VanillaSealProof,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{json, Value};
use storage_proofs_core::{drgraph::Graph, merkle::MerkleTreeTrait};
use storage_proofs_porep::stacked::{
    ColumnProof, EncodingProof, LabelingProof, ReplicaColumnProof,
};
use typenum::Unsigned;

/// A random, shape-correct C1 output for `kind` (all partitions), from
/// `seed`. Its public values are random too (non-zero).
pub fn random_c1(kind: &SealProofKind, seed: u64) -> Result<C1Output> {
    let config = kind.porep_config()?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let body = with_tree!(kind.sector_size, random_tree(&config, kind, &mut rng))?;
    let public = C1Public {
        comm_r: bytes(&body, "comm_r")?,
        comm_d: bytes(&body, "comm_d")?,
        ticket: bytes(&body, "ticket")?,
        seed: bytes(&body, "seed")?,
    };
    Ok(C1Output {
        kind: *kind,
        sector_num: None,
        body,
        public,
    })
}

fn bytes(v: &Value, key: &str) -> Result<[u8; 32]> {
    serde_json::from_value(v[key].clone()).map_err(|e| FilecoinError::BadC1(format!("{key}: {e}")))
}

pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("filecoin types serialize to JSON")
}

/// A Merkle inclusion path of `levels` levels for arity `arity`, as JSON
/// (`MerkleProof`'s fields are private; its serde form is the public API),
/// with the path indices of leaf `index`.
fn path_json<D: Domain>(
    rng: &mut ChaCha20Rng,
    levels: usize,
    arity: usize,
    index: &mut u64,
) -> Value {
    let elems: Vec<Value> = (0..levels)
        .map(|_| {
            let hashes: Vec<Value> = (0..arity - 1).map(|_| to_json(&D::random(rng))).collect();
            let i = *index % arity as u64;
            *index /= arity as u64;
            json!({ "hashes": hashes, "index": i })
        })
        .collect();
    json!({ "path": elems })
}

/// A `MerkleProof<H, A, B, C>` for leaf `node` of a tree with `leaves`
/// leaves, with the given root and leaf value (random when `None`).
pub(crate) fn merkle_json<H: Hasher, A: Unsigned, B: Unsigned, C: Unsigned>(
    rng: &mut ChaCha20Rng,
    leaves: u64,
    node: u64,
    root: H::Domain,
    leaf: Option<H::Domain>,
) -> Value {
    let (a, b, c) = (A::to_usize(), B::to_usize(), C::to_usize());
    let base_leaves = leaves / (b.max(1) * c.max(1)) as u64;
    let base_levels = (base_leaves.trailing_zeros() / a.trailing_zeros()) as usize;
    let mut idx = node;
    let leaf = to_json(&leaf.unwrap_or_else(|| H::Domain::random(rng)));
    let base = path_json::<H::Domain>(rng, base_levels, a, &mut idx);
    let data = if b == 0 {
        json!({ "Single": { "root": to_json(&root), "leaf": leaf, "path": base } })
    } else if c == 0 {
        let sub = path_json::<H::Domain>(rng, 1, b, &mut idx);
        json!({ "Sub": { "base_proof": base, "sub_proof": sub, "root": to_json(&root), "leaf": leaf } })
    } else {
        let sub = path_json::<H::Domain>(rng, 1, b, &mut idx);
        let top = path_json::<H::Domain>(rng, 1, c, &mut idx);
        json!({ "Top": { "base_proof": base, "sub_proof": sub, "top_proof": top, "root": to_json(&root), "leaf": leaf } })
    };
    json!({ "data": data })
}

pub(crate) type TreeProof<Tree> = storage_proofs_core::merkle::MerkleProof<
    <Tree as MerkleTreeTrait>::Hasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

pub(crate) fn tree_proof<Tree: 'static + MerkleTreeTrait>(
    rng: &mut ChaCha20Rng,
    leaves: u64,
    node: u64,
    root: <Tree::Hasher as Hasher>::Domain,
    leaf: Option<<Tree::Hasher as Hasher>::Domain>,
) -> Result<TreeProof<Tree>> {
    let v = merkle_json::<Tree::Hasher, Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(
        rng, leaves, node, root, leaf,
    );
    serde_json::from_value(v)
        .map_err(|e| FilecoinError::Proofs(anyhow::anyhow!("generated Merkle proof: {e}")))
}

fn column<Tree: 'static + MerkleTreeTrait>(
    rng: &mut ChaCha20Rng,
    leaves: u64,
    node: u64,
    layers: usize,
    comm_c: <Tree::Hasher as Hasher>::Domain,
) -> Result<ColumnProof<TreeProof<Tree>>> {
    let rows = (0..layers)
        .map(|_| <Tree::Hasher as Hasher>::Domain::random(rng))
        .collect();
    Ok(ColumnProof::new(
        node as u32,
        rows,
        tree_proof::<Tree>(rng, leaves, node, comm_c, None)?,
    ))
}

fn random_tree<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    kind: &SealProofKind,
    rng: &mut ChaCha20Rng,
) -> Result<Value> {
    type G = DefaultPieceHasher;
    let pp = public_params::<Tree>(config).map_err(FilecoinError::Proofs)?;
    let nodes = kind.sector_size / 32;
    let layers = pp.num_layers;
    let challenges = pp.challenges.num_challenges_per_partition();
    let (drg, exp) = (pp.graph.base_graph().degree(), pp.graph.expansion_degree());
    let partitions = usize::from(config.partitions);
    type TD<T> = <<T as MerkleTreeTrait>::Hasher as Hasher>::Domain;
    let (comm_c, comm_r_last) = (TD::<Tree>::random(rng), TD::<Tree>::random(rng));
    let comm_d = <G as Hasher>::Domain::random(rng);

    let mut vanilla: Vec<Vec<VanillaSealProof<Tree>>> = Vec::with_capacity(partitions);
    for _ in 0..partitions {
        let mut part = Vec::with_capacity(challenges);
        for _ in 0..challenges {
            let node = rng.gen_range(1..nodes);
            let comm_d_proofs =
                serde_json::from_value(merkle_json::<G, typenum::U2, typenum::U0, typenum::U0>(
                    rng, nodes, node, comm_d, None,
                ))
                .map_err(|e| FilecoinError::Proofs(anyhow::anyhow!("generated data proof: {e}")))?;
            let comm_r_last_proof = tree_proof::<Tree>(rng, nodes, node, comm_r_last, None)?;
            let c_x = column::<Tree>(rng, nodes, node, layers, comm_c)?;
            let parents = |n: usize, rng: &mut ChaCha20Rng| -> Result<Vec<_>> {
                (0..n)
                    .map(|_| {
                        let p = rng.gen_range(0..node.max(1));
                        column::<Tree>(rng, nodes, p, layers, comm_c)
                    })
                    .collect()
            };
            let drg_parents = parents(drg, rng)?;
            let exp_parents = parents(exp, rng)?;
            let labeling_proofs = (1..=layers as u32)
                .map(|l| {
                    let n = if l == 1 { drg } else { drg + exp };
                    LabelingProof::new(l, node, (0..n).map(|_| TD::<Tree>::random(rng)).collect())
                })
                .collect();
            let encoding_proof = EncodingProof::new(
                layers as u32,
                node,
                (0..drg + exp).map(|_| TD::<Tree>::random(rng)).collect(),
            );
            part.push(VanillaSealProof::<Tree> {
                comm_d_proofs,
                comm_r_last_proof,
                replica_column_proofs: ReplicaColumnProof {
                    c_x,
                    drg_parents,
                    exp_parents,
                },
                labeling_proofs,
                encoding_proof,
            });
        }
        vanilla.push(part);
    }
    let mut b = [[0u8; 32]; 4];
    for x in &mut b {
        rng.fill_bytes(&mut x[..31]);
        x[0] |= 1; // never all zero
    }
    Ok(json!({
        "vanilla_proofs": to_json(&vanilla),
        "comm_r": to_json(&b[0]),
        "comm_d": to_json(&comm_d),
        "replica_id": to_json(&TD::<Tree>::random(rng)),
        "seed": to_json(&b[1]),
        "ticket": to_json(&b[2]),
    }))
}
