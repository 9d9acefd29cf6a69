//! WinningPoSt and WindowPoSt through cuzk: vanilla proofs (as
//! filecoin-proofs' `generate_single_vanilla_proof` makes them and
//! filecoin-proofs-api bincode-encodes them) → one `FallbackPoStCircuit` per
//! partition, built as `generate_winning_post_with_vanilla`,
//! `generate_window_post_with_vanilla` and
//! `generate_single_window_post_with_vanilla` build them → the engine → the
//! partition proofs concatenated, the bytes those functions return.
//!
//! Before any synthesis the vanilla proofs are decoded, their shape checked
//! against the proof type (challenge count, Merkle path length, field
//! elements) and verified with filecoin-proofs' vanilla verifier, so bad
//! input is a typed error on the caller's thread, never a panic in the
//! circuit code (which unwraps non-canonical field elements).

mod kind;
pub(crate) mod vanilla;

pub use kind::{PostProofKind, PostType, PostVersion, WINDOW_POST_PRIORITY, WINNING_POST_PRIORITY};
pub use vanilla::{prepare, Prepared};

use crate::error::{proofs, FilecoinError, Result};
use crate::job::{
    circuit_job_of, fill_ranges, native_values, run_job, NativeFn, Part, ProofJob, ProofOutput,
    Synthesis,
};
use crate::params::{locate, use_param_dir};
use crate::with_tree;
use cuzk_field::Fr;
use cuzk_groth16::Proof;
use cuzk_scheduler::{Engine, WitnessGen};
use cuzk_synth::compiled::CompiledR1cs;
use filecoin_proofs::{PoStConfig, PoStType, PublicReplicaInfo};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use storage_proofs_core::{
    compound_proof::CompoundProof, merkle::MerkleTreeTrait, sector::SectorId,
};
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound};
use vanilla::{decode, domain_bytes, field_element, partitions, NativeSector};

/// The blank circuit of a proof type (parameter generation).
pub fn blank_circuit<Tree: 'static + MerkleTreeTrait>(
    kind: &PostProofKind,
) -> Result<FallbackPoStCircuit<Tree>> {
    let pp = kind.vanilla_params()?;
    Ok(<FallbackPoStCompound<Tree> as CompoundProof<
        FallbackPoSt<'_, Tree>,
        FallbackPoStCircuit<Tree>,
    >>::blank_circuit(&pp))
}

/// What to prove: the inputs of filecoin-proofs-api's
/// `generate_{winning,window}_post_with_vanilla` (and, with `partition`,
/// `generate_single_window_post_with_vanilla`).
#[derive(Clone, Debug)]
pub struct PostInput {
    /// The registered proof type.
    pub kind: PostProofKind,
    /// The chain randomness (a canonical field element).
    pub randomness: [u8; 32],
    /// The prover id (a canonical field element).
    pub prover_id: [u8; 32],
    /// One bincode-encoded `FallbackPoStSectorProof` per sector, as
    /// filecoin-proofs-api's `generate_single_vanilla_proof` returns it.
    /// WindowPoSt proves them in sector-id order, the order its verifier
    /// uses.
    pub vanilla_proofs: Vec<Vec<u8>>,
    /// WindowPoSt only: prove this one partition of a larger sector set;
    /// `vanilla_proofs` are that partition's sectors only.
    pub partition: Option<usize>,
}

/// Builds the job of a PoSt without proving it. With `checks`, every
/// synthesized partition is checked on its worker: every constraint
/// satisfied, public inputs equal to the verifier's.
/// The vanilla proofs are verified first in every case. With `r1cs` (the
/// proof type's recorded circuit, [`crate::compiled::R1csCache::post`]),
/// the backend computes a, b, c from the record, and each partition's
/// witness comes as `witness` says: from the native generator
/// ([`crate::native::post_sector`]) or the circuit's own code run
/// witness-only, either with its sectors on all cores, or both compared.
/// Without, by the classic synthesis. All give the same proofs.
pub fn post_job(
    input: &PostInput,
    param_dir: &Path,
    checks: bool,
    r1cs: Option<&Arc<CompiledR1cs>>,
    witness: WitnessGen,
) -> Result<ProofJob> {
    with_tree!(
        input.kind.sector_size,
        job_tree(input, param_dir, true, checks, r1cs, witness)
    )
}

/// The job of a benchmark: shape-correct random vanilla proofs
/// (`cuzk_filecoin_tools::bench_vanilla`) are shape-checked, not verified, and
/// nothing is checked after synthesis; the proofs cannot verify (run
/// with the engine's self-check off).
pub fn post_bench_job(
    input: &PostInput,
    param_dir: &Path,
    r1cs: Option<&Arc<CompiledR1cs>>,
    witness: WitnessGen,
) -> Result<ProofJob> {
    with_tree!(
        input.kind.sector_size,
        job_tree(input, param_dir, false, false, r1cs, witness)
    )
}

fn job_tree<Tree: 'static + MerkleTreeTrait>(
    input: &PostInput,
    param_dir: &Path,
    verify: bool,
    checks: bool,
    r1cs: Option<&Arc<CompiledR1cs>>,
    witness: WitnessGen,
) -> Result<ProofJob> {
    let params_path = locate(param_dir, input.kind)?;
    let native = r1cs.is_some() && witness != WitnessGen::Generic;
    let circuit = r1cs.is_none() || witness != WitnessGen::Native;
    let mut parts = Vec::new();
    let mut inputs = Vec::new();
    for p in partitions::<Tree>(input, verify)? {
        parts.push(Part {
            circuit: circuit.then(|| p.circuit()).transpose()?,
            native: match native {
                true => {
                    let sectors = p.native_sectors()?;
                    Some(Box::new(move |aux: &mut [Fr]| native_fill(aux, &sectors)) as NativeFn)
                }
                false => None,
            },
        });
        inputs.push(p.inputs);
    }
    circuit_job_of(
        params_path,
        parts,
        inputs,
        checks,
        r1cs,
        Synthesis::Parallel,
    )
}

/// Partition `k`'s aux assignment (`num_aux` values: its recorded
/// circuit's count) from the native generator, outside the engine: what a
/// job's partition is given with [`WitnessGen::Native`], for tools that
/// time or compare it. The vanilla proofs are checked but not verified.
pub fn native_aux(input: &PostInput, k: usize, num_aux: usize) -> Result<Vec<Fr>> {
    with_tree!(input.kind.sector_size, native_aux_tree(input, k, num_aux))
}

fn native_aux_tree<Tree: 'static + MerkleTreeTrait>(
    input: &PostInput,
    k: usize,
    num_aux: usize,
) -> Result<Vec<Fr>> {
    let part = partitions::<Tree>(input, false)?
        .into_iter()
        .nth(k)
        .ok_or_else(|| FilecoinError::Unsupported(format!("no partition {k}")))?;
    let sectors = part.native_sectors()?;
    native_values(k, num_aux, |aux| native_fill(aux, &sectors))
}

/// A partition's aux assignment from its sectors, each generated on its
/// own thread into its own range (every sector of a PoSt circuit has the
/// same shape, so the ranges are equal).
fn native_fill(aux: &mut [Fr], sectors: &[NativeSector]) -> std::result::Result<(), String> {
    fill_ranges(aux, sectors, "sector", |w, s| {
        crate::native::post_sector(w, s.comm_r, s.comm_c, s.comm_r_last, &s.challenges)
    })
}

/// Knobs of [`prove_post`].
#[derive(Debug)]
pub struct PostOptions<'a> {
    /// Directory holding the `.params` files.
    pub param_dir: PathBuf,
    /// The engine (its SRS cache loads each parameter file once).
    pub engine: &'a Engine,
    /// Check every constraint and the public inputs of each synthesized
    /// partition on its worker.
    pub check_satisfied: bool,
    /// Job priority; `None`: the kind's ([`PostProofKind::priority`]).
    pub priority: Option<i32>,
    /// The proof type's recorded circuit ([`post_job`]); `None`: classic
    /// synthesis.
    pub r1cs: Option<Arc<CompiledR1cs>>,
    /// How the witness is made against `r1cs` ([`post_job`]).
    pub witness: WitnessGen,
}

impl<'a> PostOptions<'a> {
    /// Defaults: checks on, the kind's priority, classic synthesis.
    pub fn new(param_dir: PathBuf, engine: &'a Engine) -> Self {
        Self {
            param_dir,
            engine,
            check_satisfied: true,
            priority: None,
            r1cs: None,
            witness: WitnessGen::default(),
        }
    }
}

/// Proves a PoSt as one engine job (parameters loaded once per engine);
/// the engine self-checks every partition proof against the public
/// inputs filecoin-proofs' verifier derives.
pub fn prove_post(input: &PostInput, opts: &PostOptions<'_>) -> Result<ProofOutput> {
    let job = post_job(
        input,
        &opts.param_dir,
        opts.check_satisfied,
        opts.r1cs.as_ref(),
        opts.witness,
    )?;
    run_job(
        opts.engine,
        job,
        opts.priority.unwrap_or_else(|| input.kind.priority()),
    )
}

/// The public inputs of every partition, as filecoin-proofs' verifier
/// derives them.
pub fn post_public_inputs(input: &PostInput) -> Result<Vec<Vec<Fr>>> {
    with_tree!(input.kind.sector_size, inputs_tree(input))
}

fn inputs_tree<Tree: 'static + MerkleTreeTrait>(input: &PostInput) -> Result<Vec<Vec<Fr>>> {
    Ok(prepare::<Tree>(input, true)?.1)
}

/// The sectors the vanilla proofs are for, `(sector id, comm_r)`, in the
/// order they are proved: the sector set a verifier needs.
pub fn vanilla_sectors(input: &PostInput) -> Result<Vec<(u64, [u8; 32])>> {
    with_tree!(input.kind.sector_size, sectors_tree(input))
}

fn sectors_tree<Tree: 'static + MerkleTreeTrait>(
    input: &PostInput,
) -> Result<Vec<(u64, [u8; 32])>> {
    Ok(decode::<Tree>(input)?
        .iter()
        .map(|p| (u64::from(p.sector_id), domain_bytes(&p.comm_r)))
        .collect())
}

/// Verifies a PoSt with filecoin-proofs' own verifier
/// (`verify_winning_post` / `verify_window_post`), reading the verifying
/// key from `param_dir` (see [`use_param_dir`]). `sectors` is the
/// challenged sector set, `(sector id, comm_r)`. `Ok(false)` is a proof
/// that does not verify; malformed input is an error.
pub fn verify_post(
    kind: &PostProofKind,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    sectors: &[(u64, [u8; 32])],
    proof: &[u8],
    param_dir: &Path,
) -> Result<bool> {
    field_element(&randomness, "randomness")?;
    field_element(&prover_id, "prover_id")?;
    let want_sectors = match kind.typ {
        PostType::Winning => kind.sectors_per_partition(),
        PostType::Window => sectors.len().max(1),
    };
    if sectors.len() != want_sectors {
        return Err(FilecoinError::SectorCount {
            kind: kind.api_name(),
            got: sectors.len(),
            expected: want_sectors,
        });
    }
    let want = kind.partitions(sectors.len()) * cuzk_groth16::PROOF_BYTES;
    if proof.len() != want {
        return Err(FilecoinError::Groth16(
            cuzk_groth16::Groth16Error::MalformedProof(format!(
                "a {} proof over {} sector(s) is {want} bytes, got {}",
                kind.api_name(),
                sectors.len(),
                proof.len()
            )),
        ));
    }
    let mut replicas = BTreeMap::new();
    for &(id, comm_r) in sectors {
        let info =
            PublicReplicaInfo::new(comm_r).map_err(|_| FilecoinError::ZeroCommitment("comm_r"))?;
        if replicas.insert(SectorId::from(id), info).is_some() {
            return Err(FilecoinError::DuplicateSector(id));
        }
    }
    use_param_dir(param_dir)?;
    // Bytes that do not decode to points are a proof that does not verify.
    if Proof::many_from_bytes(proof).is_err() {
        return Ok(false);
    }
    let config = kind.post_config();
    with_tree!(
        kind.sector_size,
        verify_tree(&config, &randomness, prover_id, replicas, proof)
    )
}

fn verify_tree<Tree: 'static + MerkleTreeTrait>(
    config: &PoStConfig,
    randomness: &[u8; 32],
    prover_id: [u8; 32],
    replicas: BTreeMap<SectorId, PublicReplicaInfo>,
    proof: &[u8],
) -> Result<bool> {
    match config.typ {
        PoStType::Winning => {
            let list: Vec<_> = replicas.into_iter().collect();
            filecoin_proofs::verify_winning_post::<Tree>(
                config, randomness, &list, prover_id, proof,
            )
        }
        PoStType::Window => filecoin_proofs::verify_window_post::<Tree>(
            config, randomness, &replicas, prover_id, proof,
        ),
    }
    .map_err(proofs)
}

/// Parses vanilla proofs in the form Curio sends them (Go's
/// `json.Marshal([][]byte)`): a JSON array of base64 strings, each one
/// vanilla proof as filecoin-proofs-api's `generate_single_vanilla_proof`
/// returns it (bincode).
pub fn parse_vanilla_json(bytes: &[u8]) -> Result<Vec<Vec<u8>>> {
    use base64::Engine as _;
    let list: Vec<String> =
        serde_json::from_slice(bytes).map_err(|e| FilecoinError::VanillaFormat(e.to_string()))?;
    list.iter()
        .enumerate()
        .map(|(index, b)| {
            base64::engine::general_purpose::STANDARD
                .decode(b)
                .map_err(|e| FilecoinError::BadVanilla {
                    index,
                    detail: format!("not base64: {e}"),
                })
        })
        .collect()
}

/// The inverse of [`parse_vanilla_json`].
pub fn vanilla_json(proofs: &[Vec<u8>]) -> String {
    use base64::Engine as _;
    let list: Vec<String> = proofs
        .iter()
        .map(|p| base64::engine::general_purpose::STANDARD.encode(p))
        .collect();
    serde_json::Value::from(list).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_field::Field;

    #[test]
    fn native_fill_refuses_ranges_the_sectors_do_not_fill_exactly() {
        let sector = NativeSector {
            comm_r: Fr::from(1u64),
            comm_c: Fr::from(2u64),
            comm_r_last: Fr::from(3u64),
            challenges: Vec::new(),
        };
        let two = [sector.clone(), sector];
        // Three commitments and a binary Poseidon per sector: more than 4.
        let e = native_fill(&mut [Fr::ZERO; 8], &two).unwrap_err();
        assert!(e.starts_with("sector 0: the generator made "), "{e}");
        let e = native_fill(&mut [Fr::ZERO; 7], &two).unwrap_err();
        assert!(e.contains("do not split into 2 equal sectors"), "{e}");
        // The exact length: each sector starts with its comm_r_last.
        let mut one = Vec::new();
        crate::native::post_sector(
            &mut one,
            two[0].comm_r,
            two[0].comm_c,
            two[0].comm_r_last,
            &[],
        );
        let mut aux = vec![Fr::ZERO; 2 * one.len()];
        native_fill(&mut aux, &two).unwrap();
        assert_eq!(aux, [one.clone(), one].concat());
    }
}
