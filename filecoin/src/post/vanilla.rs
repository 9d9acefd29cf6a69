//! PoSt vanilla proofs → partition circuits and public inputs, exactly as
//! filecoin-proofs' prover builds the circuits and its verifier derives the
//! inputs. Everything the circuit code or the vanilla verifier would panic
//! on is checked first and reported as a typed error.

use super::{PostInput, PostProofKind, PostType};
use crate::c1::format_size;
use crate::error::{proofs, FilecoinError, Result};
use cuzk_field::Fr;
use ff::PrimeField;
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::FallbackPoStSectorProof;
use storage_proofs_core::{
    compound_proof::CompoundProof,
    merkle::{MerkleProofTrait, MerkleTreeTrait},
    proof::ProofScheme,
    util::NODE_SIZE,
};
use storage_proofs_post::fallback::{
    self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PublicSector, SectorProof,
};
use typenum::Unsigned;

/// Each partition's circuit, as filecoin-proofs builds it, and its public
/// inputs, as filecoin-proofs' verifier derives them.
pub type Prepared<Tree> = (Vec<FallbackPoStCircuit<Tree>>, Vec<Vec<Fr>>);

type Dom<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;

/// Decodes, checks and (with `verify`) verifies the vanilla proofs, then
/// builds each partition's circuit as filecoin-proofs does and its public
/// inputs as filecoin-proofs' verifier does. Only benchmarks on random,
/// shape-correct vanilla proofs skip the verification.
pub fn prepare<Tree: 'static + MerkleTreeTrait>(
    input: &PostInput,
    verify: bool,
) -> Result<Prepared<Tree>> {
    let parts = partitions::<Tree>(input, verify)?;
    let mut circuits = Vec::with_capacity(parts.len());
    let mut inputs = Vec::with_capacity(parts.len());
    for p in parts {
        circuits.push(p.circuit()?);
        inputs.push(p.inputs);
    }
    Ok((circuits, inputs))
}

/// One partition's vanilla proof with the public inputs it is proved
/// against: what its circuit ([`Partition::circuit`]) and its native
/// witness ([`Partition::native_sectors`]) are built from.
pub(crate) struct Partition<Tree: 'static + MerkleTreeTrait> {
    /// The vanilla proof, one sector proof per circuit sector (padded).
    proof: fallback::Proof<Tree::Proof>,
    /// The whole proof's public inputs (the circuit takes its chunk).
    public: fallback::PublicInputs<Dom<Tree>>,
    pp: fallback::PublicParams,
    /// Partition index.
    k: usize,
    /// The partition's public inputs, as filecoin-proofs' verifier derives
    /// them.
    pub inputs: Vec<Fr>,
}

impl<Tree: 'static + MerkleTreeTrait> Partition<Tree> {
    /// The circuit, as filecoin-proofs builds it.
    pub fn circuit(&self) -> Result<FallbackPoStCircuit<Tree>> {
        <FallbackPoStCompound<Tree> as CompoundProof<
            FallbackPoSt<'_, Tree>,
            FallbackPoStCircuit<Tree>,
        >>::circuit(
            &self.public,
            Default::default(),
            &self.proof,
            &self.pp,
            Some(self.k),
        )
        .map_err(proofs)
    }

    /// The circuit's sectors as the native generator takes them
    /// (`native::post_sector`): each sector proof with the public sector
    /// the circuit pairs it with (a short chunk repeats its last, as
    /// `FallbackPoStCompound::circuit` does).
    pub fn native_sectors(&self) -> Result<Vec<NativeSector>> {
        let chunk = self
            .public
            .sectors
            .chunks(self.pp.sector_count)
            .nth(self.k)
            .unwrap_or(&[]);
        self.proof
            .sectors
            .iter()
            .enumerate()
            .map(|(i, sp)| {
                let public = chunk.get(i).or(chunk.last()).ok_or_else(|| {
                    FilecoinError::Unsupported(format!("partition {} has no sectors", self.k))
                })?;
                Ok(NativeSector {
                    comm_r: public.comm_r.into(),
                    comm_c: sp.comm_c.into(),
                    comm_r_last: sp.comm_r_last.into(),
                    challenges: sp
                        .inclusion_proofs
                        .iter()
                        .map(|ip| {
                            let path = ip
                                .path()
                                .into_iter()
                                .map(|(hashes, at)| {
                                    (hashes.into_iter().map(Into::into).collect(), at)
                                })
                                .collect();
                            (ip.leaf().into(), path)
                        })
                        .collect(),
                })
            })
            .collect()
    }
}

/// One sector of a PoSt circuit in the native generator's terms.
#[derive(Clone, Debug)]
pub(crate) struct NativeSector {
    pub comm_r: Fr,
    pub comm_c: Fr,
    pub comm_r_last: Fr,
    /// Per challenge: the leaf and its Merkle path.
    pub challenges: Vec<(Fr, crate::native::Path)>,
}

/// The partitions of a PoSt: the vanilla proofs decoded, checked, (with
/// `verify`) verified and grouped as filecoin-proofs groups them.
pub(crate) fn partitions<Tree: 'static + MerkleTreeTrait>(
    input: &PostInput,
    verify: bool,
) -> Result<Vec<Partition<Tree>>> {
    let kind = &input.kind;
    let randomness: Dom<Tree> = field_element(&input.randomness, "randomness")?.into();
    let prover_id: Dom<Tree> = field_element(&input.prover_id, "prover_id")?.into();
    let mut vanilla = decode::<Tree>(input)?;
    let config = kind.post_config();
    check_vanilla::<Tree>(kind, &vanilla, config.challenge_count)?;
    let pp = kind.vanilla_params()?;
    let per = pp.sector_count;
    let public = |p: &FallbackPoStSectorProof<Tree>| PublicSector {
        id: p.sector_id,
        comm_r: p.comm_r,
    };

    // (partition index, its vanilla proof), and the sector list the
    // verifier's public inputs are derived from.
    let (parts, sectors) = match kind.typ {
        PostType::Winning => {
            if input.partition.is_some() {
                return Err(FilecoinError::Unsupported(
                    "WinningPoSt has one partition; --partition is for WindowPoSt".into(),
                ));
            }
            count(
                kind,
                vanilla.len(),
                config.sector_count,
                config.sector_count,
            )?;
            // The one sector's challenges become `per` single-challenge
            // sectors, as `partition_vanilla_proofs` unrolls them; the
            // verifier lists the sector `per` times.
            let sp = &vanilla[0].vanilla_proof.sectors[0];
            let unrolled = sp
                .inclusion_proofs
                .iter()
                .map(|p| SectorProof {
                    inclusion_proofs: vec![p.clone()],
                    comm_c: sp.comm_c,
                    comm_r_last: sp.comm_r_last,
                })
                .collect();
            let sectors = vec![public(&vanilla[0]); per];
            (vec![(0, fallback::Proof { sectors: unrolled })], sectors)
        }
        PostType::Window => {
            let max = if input.partition.is_some() {
                per
            } else {
                usize::MAX
            };
            count(kind, vanilla.len(), 1, max)?;
            vanilla.sort_by_key(|p| u64::from(p.sector_id));
            if let Some(w) = vanilla
                .windows(2)
                .find(|w| w[0].sector_id == w[1].sector_id)
            {
                return Err(FilecoinError::DuplicateSector(u64::from(w[0].sector_id)));
            }
            let first = input.partition.unwrap_or(0);
            // Earlier partitions' sectors only shift the chunk index; a
            // single partition's verifier inputs depend on its own sectors.
            let mut sectors = vec![public(&vanilla[0]); first * per];
            sectors.extend(vanilla.iter().map(public));
            let parts = vanilla
                .chunks(per)
                .enumerate()
                .map(|(j, chunk)| {
                    let mut proofs: Vec<_> = chunk
                        .iter()
                        .flat_map(|p| p.vanilla_proof.sectors.iter().cloned())
                        .collect();
                    // A short last partition repeats its last sector, as
                    // filecoin-proofs pads it.
                    while proofs.len() < per {
                        proofs.push(proofs[proofs.len() - 1].clone());
                    }
                    (first + j, fallback::Proof { sectors: proofs })
                })
                .collect();
            (parts, sectors)
        }
    };

    let pub_inputs = fallback::PublicInputs {
        randomness,
        prover_id,
        sectors,
        k: None,
    };
    let mut out = Vec::with_capacity(parts.len());
    for (j, proof) in parts {
        let chunk = pub_inputs
            .sectors
            .chunks(per)
            .nth(j)
            .unwrap_or(&[])
            .to_vec();
        let part_inputs = fallback::PublicInputs {
            sectors: chunk,
            k: Some(j),
            ..pub_inputs.clone()
        };
        if verify && !FallbackPoSt::<Tree>::verify(&pp, &part_inputs, &proof).map_err(proofs)? {
            return Err(FilecoinError::VanillaInvalid { partition: j });
        }
        type C<T> = FallbackPoStCompound<T>;
        let inputs = <C<Tree> as CompoundProof<
            FallbackPoSt<'_, Tree>,
            FallbackPoStCircuit<Tree>,
        >>::generate_public_inputs(&pub_inputs, &pp, Some(j))
        .map_err(proofs)?;
        out.push(Partition {
            proof,
            public: pub_inputs.clone(),
            pp: pp.clone(),
            k: j,
            inputs,
        });
    }
    Ok(out)
}

fn count(kind: &PostProofKind, got: usize, min: usize, max: usize) -> Result<()> {
    if got < min || got > max {
        return Err(FilecoinError::VanillaCount {
            kind: kind.api_name(),
            got,
            min,
            max,
        });
    }
    Ok(())
}

/// filecoin-proofs-api's decoding: bincode of `FallbackPoStSectorProof`.
pub(super) fn decode<Tree: 'static + MerkleTreeTrait>(
    input: &PostInput,
) -> Result<Vec<FallbackPoStSectorProof<Tree>>> {
    decode_all(
        &input.vanilla_proofs,
        "FallbackPoStSectorProof",
        input.kind.sector_size,
    )
}

/// Each of `proofs` as bincode of a `what` (filecoin-proofs-api's
/// encoding of vanilla proofs); the first that does not decode is a
/// [`FilecoinError::BadVanilla`] naming its position.
pub(crate) fn decode_all<T: serde::de::DeserializeOwned>(
    proofs: &[Vec<u8>],
    what: &str,
    sector_size: u64,
) -> Result<Vec<T>> {
    proofs
        .iter()
        .enumerate()
        .map(|(index, bytes)| {
            bincode::deserialize(bytes).map_err(|e| FilecoinError::BadVanilla {
                index,
                detail: format!(
                    "not a bincode {what} of a {} sector: {e}",
                    format_size(sector_size)
                ),
            })
        })
        .collect()
}

/// Everything the circuit code and the vanilla verifier would otherwise
/// panic on (non-canonical field elements, path elements with the wrong
/// number of siblings or an index past them), and the counts that tell a
/// vanilla proof of another kind or sector size.
fn check_vanilla<Tree: 'static + MerkleTreeTrait>(
    kind: &PostProofKind,
    vanilla: &[FallbackPoStSectorProof<Tree>],
    challenges: usize,
) -> Result<()> {
    let leaves = kind.sector_size as usize / NODE_SIZE;
    for (index, p) in vanilla.iter().enumerate() {
        let bad = |detail: String| Err(FilecoinError::BadVanilla { index, detail });
        let [sp] = &p.vanilla_proof.sectors[..] else {
            return bad(format!(
                "{} sector proofs, a sector's vanilla proof has 1",
                p.vanilla_proof.sectors.len()
            ));
        };
        if sp.inclusion_proofs.len() != challenges {
            return bad(format!(
                "{} challenges, a {} vanilla proof has {challenges} (a vanilla proof of the other PoSt kind?)",
                sp.inclusion_proofs.len(),
                kind.api_name()
            ));
        }
        if !canonical(&p.comm_r) || !canonical(&sp.comm_c) || !canonical(&sp.comm_r_last) {
            return bad("comm_r, comm_c or comm_r_last is not a field element".into());
        }
        for (n, ip) in sp.inclusion_proofs.iter().enumerate() {
            check_path(
                ip,
                leaves,
                kind.sector_size,
                index,
                &format!("challenge {n}"),
            )?;
            // The vanilla verifier takes the paths' root for comm_r_last,
            // the circuit takes the field: a mismatch would surface only
            // after synthesis.
            if ip.root() != sp.comm_r_last {
                return bad(format!("challenge {n}: the Merkle root is not comm_r_last"));
            }
        }
    }
    Ok(())
}

/// One Merkle inclusion proof of a tree with `leaves` leaves: as many
/// levels as the tree has, each with arity − 1 siblings and an index below
/// the arity, every hash a field element. `index` and `what` name it in
/// the error (the input's vanilla proof and the path within it).
pub(crate) fn check_path<P: MerkleProofTrait>(
    ip: &P,
    leaves: usize,
    sector_size: u64,
    index: usize,
    what: &str,
) -> Result<()> {
    let bad = |detail: String| Err(FilecoinError::BadVanilla { index, detail });
    let arities = [
        P::Arity::to_usize(),
        P::SubTreeArity::to_usize(),
        P::TopTreeArity::to_usize(),
    ];
    let path = ip.path();
    let levels = ip.expected_len(leaves);
    if path.len() != levels {
        return Err(FilecoinError::SectorSize(format!(
            "vanilla proof {index}: {what} has a Merkle path of {} levels, a {} sector's has {levels}",
            path.len(),
            format_size(sector_size)
        )));
    }
    // Base levels first, then one sub-tree and one top-tree level.
    let upper = usize::from(arities[1] > 0) + usize::from(arities[2] > 0);
    for (level, (hashes, at)) in path.iter().enumerate() {
        let arity = match (level + upper).checked_sub(levels) {
            None => arities[0],
            Some(0) if arities[1] > 0 => arities[1],
            Some(_) => arities[2],
        };
        if hashes.len() + 1 != arity || *at >= arity {
            return bad(format!(
                "{what}, level {level}: {} siblings at position {at}, the tree has arity {arity}",
                hashes.len()
            ));
        }
        if !hashes.iter().all(canonical) {
            return bad(format!(
                "{what}, level {level}: a sibling is not a field element"
            ));
        }
    }
    if !canonical(&ip.leaf()) || !canonical(&ip.root()) {
        return bad(format!("{what}: leaf or root is not a field element"));
    }
    Ok(())
}

pub(crate) fn canonical<D: Domain>(d: &D) -> bool {
    <[u8; 32]>::try_from(d.as_ref())
        .ok()
        .and_then(|b| Option::<Fr>::from(Fr::from_repr(b)))
        .is_some()
}

pub(crate) fn domain_bytes<D: Domain>(d: &D) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

/// `bytes` as a field element (filecoin-proofs' `as_safe_commitment`).
pub(crate) fn field_element(bytes: &[u8; 32], what: &'static str) -> Result<Fr> {
    Option::from(Fr::from_repr(*bytes)).ok_or(FilecoinError::NotFieldElement(what))
}
