//! A PoRep partition's witness from the native generator
//! ([`crate::native::porep_challenge`]): the C1 output's vanilla proofs
//! read into the generator's terms, and the partition's aux assignment
//! written with its challenges in parallel, each into its own range.

use crate::c1::C1Output;
use crate::error::{FilecoinError, Result};
use crate::job::fill_ranges;
use crate::native::{porep_challenge, porep_head, Path, PorepChallenge};
use crate::post::vanilla::field_element;
use cuzk_field::Fr;
use filecoin_proofs::DefaultPieceHasher;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use storage_proofs_core::merkle::{MerkleProof, MerkleProofTrait, MerkleTreeTrait};

/// A challenge's vanilla proof, the fields the circuit reads, by the names
/// storage-proofs-porep serializes them under (its column and labeling
/// proofs keep their fields crate-private).
#[derive(Deserialize)]
#[serde(bound = "P: DeserializeOwned, D: DeserializeOwned")]
struct Vanilla<P, D> {
    comm_d_proofs: MerkleProof<DefaultPieceHasher, typenum::U2>,
    comm_r_last_proof: P,
    replica_column_proofs: Columns<P, D>,
    labeling_proofs: Vec<Labeling>,
}

#[derive(Deserialize)]
#[serde(bound = "P: DeserializeOwned, D: DeserializeOwned")]
struct Columns<P, D> {
    c_x: ColumnProof<P, D>,
    drg_parents: Vec<ColumnProof<P, D>>,
    exp_parents: Vec<ColumnProof<P, D>>,
}

#[derive(Deserialize)]
#[serde(bound = "P: DeserializeOwned, D: DeserializeOwned")]
struct ColumnProof<P, D> {
    column: Column<D>,
    inclusion_proof: P,
}

#[derive(Deserialize)]
#[serde(bound = "D: DeserializeOwned")]
struct Column<D> {
    rows: Vec<D>,
}

#[derive(Deserialize)]
struct Labeling {
    node: u64,
}

fn path_of<P: MerkleProofTrait>(p: &P) -> Path {
    p.path()
        .into_iter()
        .map(|(hashes, at)| (hashes.into_iter().map(Into::into).collect(), at))
        .collect()
}

fn column_of<P: MerkleProofTrait, D: Into<Fr> + Copy>(c: &ColumnProof<P, D>) -> (Vec<Fr>, Path) {
    (
        c.column.rows.iter().map(|&d| d.into()).collect(),
        path_of(&c.inclusion_proof),
    )
}

/// One partition in the generator's terms.
#[derive(Clone, Debug)]
pub(crate) struct Partition {
    /// replica_id, comm_d, comm_r, comm_r_last, comm_c.
    head: [Fr; 5],
    challenges: Vec<PorepChallenge>,
}

/// Each partition in the generator's terms, from the C1 output's
/// `replica_id` and `vanilla_proofs` (already parsed and shape-checked for
/// the circuit; this reads the same JSON a second time). comm_r_last and
/// comm_c are the roots of the first challenge's paths, as the circuit
/// takes them.
pub(crate) fn partitions<Tree: 'static + MerkleTreeTrait>(c1: &C1Output) -> Result<Vec<Partition>> {
    type Dom<T> = <<T as MerkleTreeTrait>::Hasher as filecoin_hashers::Hasher>::Domain;
    let bad = |what: &str, e: serde_json::Error| FilecoinError::BadC1(format!("{what}: {e}"));
    let replica_id: Dom<Tree> =
        Deserialize::deserialize(&c1.body["replica_id"]).map_err(|e| bad("replica_id", e))?;
    let parts: Vec<Vec<Vanilla<Tree::Proof, Dom<Tree>>>> =
        Deserialize::deserialize(&c1.body["vanilla_proofs"])
            .map_err(|e| bad("vanilla_proofs", e))?;
    let comm_d = field_element(&c1.public.comm_d, "comm_d")?;
    let comm_r = field_element(&c1.public.comm_r, "comm_r")?;
    parts
        .iter()
        .map(|challenges| {
            let first = challenges
                .first()
                .ok_or_else(|| FilecoinError::BadC1("a partition without challenges".into()))?;
            let head = [
                replica_id.into(),
                comm_d,
                comm_r,
                first.comm_r_last_proof.root().into(),
                first
                    .replica_column_proofs
                    .c_x
                    .inclusion_proof
                    .root()
                    .into(),
            ];
            let challenges = challenges
                .iter()
                .map(|v| {
                    let node = v.labeling_proofs.first().map(|l| l.node).ok_or_else(|| {
                        FilecoinError::BadC1("a challenge without labeling proofs".into())
                    })?;
                    let cols = &v.replica_column_proofs;
                    Ok(PorepChallenge {
                        data_leaf: v.comm_d_proofs.leaf().into(),
                        comm_d_path: path_of(&v.comm_d_proofs),
                        node,
                        comm_r_last_path: path_of(&v.comm_r_last_proof),
                        comm_c_path: path_of(&cols.c_x.inclusion_proof),
                        drg_parents: cols.drg_parents.iter().map(column_of).collect(),
                        exp_parents: cols.exp_parents.iter().map(column_of).collect(),
                    })
                })
                .collect::<Result<_>>()?;
            Ok(Partition { head, challenges })
        })
        .collect()
}

/// A partition's aux assignment: the circuit's head, then each challenge
/// on its own thread into its own range (every challenge of a partition
/// has the same shape, so the ranges are equal).
pub(crate) fn fill(aux: &mut [Fr], part: &Partition) -> std::result::Result<(), String> {
    let challenges = &part.challenges;
    let [replica_id, comms @ ..] = part.head;
    let mut head = Vec::new();
    let id_bits = porep_head(&mut head, replica_id, comms);
    if aux.len() < head.len() {
        return Err(format!(
            "{} aux values do not hold the head's {}",
            aux.len(),
            head.len()
        ));
    }
    // fill_ranges checks that the rest splits into equal challenges.
    let (first, rest) = aux.split_at_mut(head.len());
    first.copy_from_slice(&head);
    fill_ranges(rest, challenges, "challenge", |w, ch| {
        porep_challenge(w, &id_bits, ch)
    })
}
