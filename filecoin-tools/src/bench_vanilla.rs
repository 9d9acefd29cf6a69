//! Shape-correct random PoSt and SnapDeals inputs of any sector size, for
//! benchmarks: the real circuits, constraint counts, synthesis and proving
//! cost without sealing, encoding or proving a 32 GiB sector. Their
//! vanilla proofs pass the shape checks (counts, Merkle path shapes, field
//! elements, roots) but not the vanilla verifier, so they are proved with
//! [`cuzk_filecoin::post::post_bench_job`] / [`cuzk_filecoin::snap::snap_bench_job`] and the
//! engine's self-check off.

use crate::bench_c1::{merkle_json, to_json, tree_proof};
use cuzk_filecoin::post::{PostInput, PostProofKind, PostType};
use cuzk_filecoin::snap::{SnapInput, SnapProofKind};
use cuzk_filecoin::{with_tree, FilecoinError, Result};
use filecoin_hashers::{poseidon::PoseidonHasher, sha256::Sha256Hasher, Domain, Hasher};
use filecoin_proofs::FallbackPoStSectorProof;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::Value;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_post::fallback::{Proof as PostProof, SectorProof};
use storage_proofs_update::{
    constants::h_default,
    vanilla::{phi, rho},
    ChallengeProof, Challenges, PartitionProof,
};

type Dom<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;

fn encode<T: serde::Serialize>(v: &T) -> Result<Vec<u8>> {
    bincode::serialize(v).map_err(|e| FilecoinError::Proofs(e.into()))
}

/// A canonical random 32-byte field element (randomness, ids).
fn element(rng: &mut ChaCha20Rng) -> [u8; 32] {
    let mut b: [u8; 32] = rng.gen();
    b[31] &= 0x3f;
    b[0] |= 1;
    b
}

/// A WinningPoSt (one sector), or a WindowPoSt of `sectors` sectors (all
/// partitions; `sectors` = the size's sector count fills one partition),
/// with random vanilla proofs from `seed`.
pub fn random_post(kind: &PostProofKind, sectors: usize, seed: u64) -> Result<PostInput> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let n = match kind.typ {
        PostType::Winning => 1,
        PostType::Window => sectors.max(1),
    };
    let challenges = kind.post_config().challenge_count;
    let vanilla_proofs = (0..n)
        .map(|i| {
            with_tree!(
                kind.sector_size,
                post_sector(kind, challenges, i as u64 + 1, &mut rng)
            )
        })
        .collect::<Result<_>>()?;
    Ok(PostInput {
        kind: *kind,
        randomness: element(&mut rng),
        prover_id: element(&mut rng),
        vanilla_proofs,
        partition: None,
    })
}

fn post_sector<Tree: 'static + MerkleTreeTrait>(
    kind: &PostProofKind,
    challenges: usize,
    sector_id: u64,
    rng: &mut ChaCha20Rng,
) -> Result<Vec<u8>> {
    let leaves = kind.sector_size / 32;
    let comm_r_last = Dom::<Tree>::random(rng);
    let inclusion_proofs = (0..challenges)
        .map(|_| {
            let node = rng.gen_range(0..leaves);
            tree_proof::<Tree>(rng, leaves, node, comm_r_last, None)
        })
        .collect::<Result<_>>()?;
    let p = FallbackPoStSectorProof::<Tree> {
        sector_id: sector_id.into(),
        comm_r: Dom::<Tree>::random(rng),
        vanilla_proof: PostProof {
            sectors: vec![SectorProof {
                inclusion_proofs,
                comm_c: Dom::<Tree>::random(rng),
                comm_r_last,
            }],
        },
    };
    encode(&p)
}

/// A SnapDeals update of `kind`'s size with random commitments and
/// vanilla partition proofs (all partitions) from `seed`. The challenged
/// leaves are consistent with the encoding (`new = old + data · rho` at the
/// challenges derived from comm_r_new), which the circuit asserts while it
/// synthesizes; the Merkle paths are random.
pub fn random_snap(kind: &SnapProofKind, seed: u64) -> Result<SnapInput> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let pp = kind.public_params();
    let (comm_r_old, comm_r_new, comm_d_new) =
        (element(&mut rng), element(&mut rng), element(&mut rng));
    let vanilla_proofs = (0..pp.partition_count)
        .map(|k| {
            with_tree!(
                kind.sector_size,
                snap_partition(kind, k, [comm_r_old, comm_r_new, comm_d_new], &mut rng)
            )
        })
        .collect::<Result<_>>()?;
    Ok(SnapInput {
        kind: *kind,
        comm_r_old,
        comm_r_new,
        comm_d_new,
        vanilla_proofs,
    })
}

fn snap_partition<Tree>(
    kind: &SnapProofKind,
    k: usize,
    [comm_r_old, comm_r_new, comm_d_new]: [[u8; 32]; 3],
    rng: &mut ChaCha20Rng,
) -> Result<Vec<u8>>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    type D = <Sha256Hasher as Hasher>::Domain;
    let pp = kind.public_params();
    let leaves = kind.sector_size / 32;
    let dom = |b: &[u8; 32]| Dom::<Tree>::try_from_bytes(b).map_err(FilecoinError::Proofs);
    let (r_old, r_new) = (dom(&comm_r_old)?, dom(&comm_r_new)?);
    let d_new = D::try_from_bytes(&comm_d_new).map_err(FilecoinError::Proofs)?;
    let phi = phi(&d_new, &r_old);
    let h = h_default(pp.sector_nodes);
    let bits = pp.sector_nodes.trailing_zeros() as usize;
    let (root_old, root_new) = (Dom::<Tree>::random(rng), Dom::<Tree>::random(rng));
    let root_d = D::random(rng);
    // The circuit asserts while it synthesizes that every challenge's
    // data path ends in the same siblings (the partition's path above its
    // apex): log2(partitions) levels, none at sizes of one partition.
    let pbits = pp.partition_count.trailing_zeros() as usize;
    let partition_path: Vec<Value> = (0..pbits).map(|_| to_json(&D::random(rng))).collect();
    let challenge_proofs = Challenges::new(pp.sector_nodes, r_new, k)
        .map(|c| {
            let node = u64::from(c);
            let rho = rho(&phi, c >> (bits - h));
            let old = Dom::<Tree>::random(rng);
            let data = D::random(rng);
            let data_fr: cuzk_field::Fr = data.into();
            let new: Dom<Tree> = (cuzk_field::Fr::from(old) + data_fr * rho).into();
            let mut d_json = merkle_json::<Sha256Hasher, typenum::U2, typenum::U0, typenum::U0>(
                rng,
                leaves,
                node,
                root_d,
                Some(data),
            );
            if let Some(Value::Array(levels)) = d_json.pointer_mut("/data/Single/path/path") {
                let top = levels.len().saturating_sub(pbits);
                for (level, sibling) in levels[top..].iter_mut().zip(&partition_path) {
                    level["hashes"] = Value::Array(vec![sibling.clone()]);
                }
            }
            let proof_d_new = serde_json::from_value(d_json)
                .map_err(|e| FilecoinError::Proofs(anyhow::anyhow!("generated data proof: {e}")))?;
            Ok(ChallengeProof::<Tree> {
                proof_r_old: tree_proof::<Tree>(rng, leaves, node, root_old, Some(old))?,
                proof_d_new,
                proof_r_new: tree_proof::<Tree>(rng, leaves, node, root_new, Some(new))?,
            })
        })
        .collect::<Result<_>>()?;
    let p = PartitionProof::<Tree> {
        comm_c: Dom::<Tree>::random(rng),
        apex_leafs: (0..pp.apex_leaf_count).map(|_| D::random(rng)).collect(),
        challenge_proofs,
    };
    encode(&p)
}

/// A fallback PoSt sector on random values, twice: storage-proofs-post's
/// `Sector` circuit and the same values as `cuzk_filecoin::native::
/// post_sector` takes them. Witness generation checks no constraint, so
/// the two witnesses compare (the proofs would not verify).
pub struct RandomPostSector<Tree: MerkleTreeTrait> {
    /// The circuit.
    pub sector: storage_proofs_post::fallback::Sector<Tree>,
    /// comm_r, comm_c, comm_r_last.
    pub comms: [blstrs::Scalar; 3],
    /// Per challenge: the leaf and its path.
    pub challenges: Vec<(blstrs::Scalar, cuzk_filecoin::native::Path)>,
}

impl<Tree: MerkleTreeTrait> std::fmt::Debug for RandomPostSector<Tree> {
    // The circuit has no Debug of its own: its size says enough.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RandomPostSector")
            .field("challenges", &self.challenges.len())
            .field("levels", &self.challenges.first().map_or(0, |c| c.1.len()))
            .finish()
    }
}

/// A [`RandomPostSector`] of `challenges` challenges whose paths have one
/// level per entry of `arities` (base, sub and top levels of `Tree`, from
/// the leaf up), from `seed`.
pub fn random_post_sector<Tree: 'static + MerkleTreeTrait>(
    arities: &[usize],
    challenges: usize,
    seed: u64,
) -> RandomPostSector<Tree> {
    use ff::Field;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let comms = [(); 3].map(|_| blstrs::Scalar::random(&mut rng));
    let challenges: Vec<(blstrs::Scalar, cuzk_filecoin::native::Path)> = (0..challenges)
        .map(|_| {
            let leaf = blstrs::Scalar::random(&mut rng);
            let path = arities
                .iter()
                .map(|&a| {
                    let index = rng.gen_range(0..a);
                    let sibs = (0..a - 1)
                        .map(|_| blstrs::Scalar::random(&mut rng))
                        .collect();
                    (sibs, index)
                })
                .collect();
            (leaf, path)
        })
        .collect();
    let sector = storage_proofs_post::fallback::Sector::<Tree> {
        comm_r: Some(comms[0]),
        comm_c: Some(comms[1]),
        comm_r_last: Some(comms[2]),
        leafs: challenges.iter().map(|(l, _)| Some(*l)).collect(),
        paths: challenges
            .iter()
            .map(|(_, p)| {
                p.iter()
                    .map(|(s, i)| (s.iter().map(|x| Some(*x)).collect(), Some(*i)))
                    .collect::<Vec<_>>()
                    .into()
            })
            .collect(),
        id: Some(blstrs::Scalar::ONE),
    };
    RandomPostSector {
        sector,
        comms,
        challenges,
    }
}
