//! SnapDeals (empty-sector update) proofs through cuzk: one vanilla
//! partition proof per partition (bincode `PartitionProof`, as
//! filecoin-proofs-api's `generate_partition_proofs` returns them and
//! Curio sends them) plus comm_r_old, comm_r_new and comm_d_new → one
//! `EmptySectorUpdateCircuit` per partition, built as
//! `generate_empty_sector_update_proof_with_vanilla` builds them → the
//! engine → the partition proofs concatenated, the bytes that function
//! returns.
//!
//! Before any synthesis the vanilla proofs are decoded, their shape checked
//! against the sector size (partition count, challenges, apex leaves,
//! Merkle paths, field elements) and verified with storage-proofs-update's
//! vanilla verifier, so bad input is a typed error on the caller's thread,
//! never a panic in the circuit code.

use crate::c1::{format_size, SealProofKind, SealVersion, SECTOR_SIZES};
use crate::error::{proofs, FilecoinError, Result};
use crate::job::{circuit_job_of, run_job, NativeFn, Part, ProofJob, ProofOutput, Synthesis};
use crate::params::{locate, use_param_dir};
use crate::post::vanilla::{canonical, check_path, decode_all, field_element};
use crate::with_tree;
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use cuzk_field::Fr;
use cuzk_scheduler::{Engine, WitnessGen};
use cuzk_synth::compiled::CompiledR1cs;
use cuzk_synth::native::SliceAux;
use filecoin_hashers::{poseidon::PoseidonHasher, Domain};
use filecoin_proofs::PoRepConfig;
use std::path::Path;
use std::sync::Arc;
use storage_proofs_core::{
    compound_proof::CompoundProof, merkle::MerkleTreeTrait, proof::ProofScheme, util::NODE_SIZE,
};
use storage_proofs_update::{
    constants::{TreeDDomain, TreeRDomain},
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof,
    PublicInputs, PublicParams,
};

/// SnapDeals' engine priority: PoRep's (0), below both PoSt kinds.
pub const SNAP_PRIORITY: i32 = 0;

/// A registered update proof type (filecoin-proofs-api's
/// `RegisteredUpdateProof::StackedDrg<size>V1`): only the sector size
/// varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SnapProofKind {
    /// Sector size in bytes.
    pub sector_size: u64,
}

impl SnapProofKind {
    /// The update proof type of a registered sector size.
    pub fn new(sector_size: u64) -> Result<Self> {
        if !SECTOR_SIZES.contains(&sector_size) {
            return Err(FilecoinError::SectorSize(format!(
                "{} is not a registered SnapDeals sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)",
                format_size(sector_size)
            )));
        }
        Ok(Self { sector_size })
    }

    /// filecoin-proofs-api's numeric id (`RegisteredUpdateProof`, as
    /// filecoin-ffi and Curio send it): 0 = 2 KiB, 1 = 8 MiB, 2 = 512 MiB,
    /// 3 = 32 GiB, 4 = 64 GiB.
    pub fn registered_id(&self) -> u64 {
        SECTOR_SIZES
            .iter()
            .position(|&s| s == self.sector_size)
            .map_or(u64::MAX, |i| i as u64)
    }

    /// The proof type of a numeric id.
    pub fn from_registered_id(id: u64) -> Result<Self> {
        let size = usize::try_from(id)
            .ok()
            .and_then(|i| SECTOR_SIZES.get(i))
            .ok_or_else(|| {
                FilecoinError::Unsupported(format!("{id} is not a RegisteredUpdateProof (0..=4)"))
            })?;
        Self::new(*size)
    }

    /// The name filecoin-proofs-api gives it, e.g. `StackedDrg32GiBV1`.
    pub fn api_name(&self) -> String {
        format!("StackedDrg{}V1", format_size(self.sector_size))
    }

    /// The proof type of a name as [`SnapProofKind::api_name`] writes it
    /// (`RegisteredUpdateProof::` prefix allowed).
    pub fn from_api_name(name: &str) -> Result<Self> {
        let n = name.trim().trim_start_matches("RegisteredUpdateProof::");
        SECTOR_SIZES
            .iter()
            .map(|&s| Self { sector_size: s })
            .find(|k| k.api_name() == n)
            .ok_or_else(|| FilecoinError::Unsupported(format!("{name}: not a registered update proof type (StackedDrg2KiBV1 … StackedDrg64GiBV1)")))
    }

    /// The PoRep configuration filecoin-proofs' update functions take
    /// (they read only its sector size).
    pub fn porep_config(&self) -> Result<PoRepConfig> {
        SealProofKind::new(self.sector_size, SealVersion::V1_1)?.porep_config()
    }

    /// storage-proofs-update's public parameters for this size.
    pub fn public_params(&self) -> PublicParams {
        PublicParams::from_sector_size(self.sector_size)
    }

    /// The engine priority of SnapDeals jobs ([`SNAP_PRIORITY`]).
    pub fn priority(&self) -> i32 {
        SNAP_PRIORITY
    }
}

/// The blank circuit of a size, for parameter generation. A cloneable
/// stand-in for storage-proofs-update's `EmptySectorUpdateCircuit`
/// (which is not `Clone`; the setup synthesizes twice): it builds that
/// circuit when synthesized.
pub struct BlankCircuit<Tree> {
    kind: SnapProofKind,
    _tree: std::marker::PhantomData<fn() -> Tree>,
}

impl<Tree> std::fmt::Debug for BlankCircuit<Tree> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlankCircuit")
            .field("kind", &self.kind)
            .finish()
    }
}

impl<Tree> Clone for BlankCircuit<Tree> {
    fn clone(&self) -> Self {
        Self {
            kind: self.kind,
            _tree: std::marker::PhantomData,
        }
    }
}

impl<Tree> Circuit<Fr> for BlankCircuit<Tree>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    fn synthesize<CS: ConstraintSystem<Fr>>(
        self,
        cs: &mut CS,
    ) -> std::result::Result<(), SynthesisError> {
        <EmptySectorUpdateCompound<Tree> as CompoundProof<_, _>>::blank_circuit(
            &self.kind.public_params(),
        )
        .synthesize(cs)
    }
}

/// The blank circuit of a size (parameter generation).
pub fn blank_circuit<Tree>(kind: &SnapProofKind) -> BlankCircuit<Tree> {
    BlankCircuit {
        kind: *kind,
        _tree: std::marker::PhantomData,
    }
}

/// What to prove: the inputs of filecoin-proofs-api's
/// `generate_empty_sector_update_proof_with_vanilla`.
#[derive(Clone, Debug)]
pub struct SnapInput {
    /// The update proof type.
    pub kind: SnapProofKind,
    /// comm_r of the sector before the update (the sector key's).
    pub comm_r_old: [u8; 32],
    /// comm_r after the update.
    pub comm_r_new: [u8; 32],
    /// comm_d of the new data.
    pub comm_d_new: [u8; 32],
    /// One bincode-encoded `PartitionProof` per partition, in partition
    /// order, as `generate_partition_proofs` returns them.
    pub vanilla_proofs: Vec<Vec<u8>>,
}

/// Builds the job of a SnapDeals proof without proving it. With `checks`,
/// every synthesized partition is checked on its worker: every constraint
/// satisfied, public inputs equal to the verifier's.
/// The vanilla proofs are verified first in every case. With `r1cs` (the
/// proof type's recorded circuit, [`crate::compiled::R1csCache::snap`]),
/// the backend computes a, b, c from the record, and each partition's
/// witness comes as `witness` says: from the native generator
/// ([`crate::native::snap::snap_partition`]), from the circuit's own code
/// run witness-only, or both compared. Without, by the classic synthesis.
/// All give the same proofs.
pub fn snap_job(
    input: &SnapInput,
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
pub fn snap_bench_job(
    input: &SnapInput,
    param_dir: &Path,
    r1cs: Option<&Arc<CompiledR1cs>>,
    witness: WitnessGen,
) -> Result<ProofJob> {
    with_tree!(
        input.kind.sector_size,
        job_tree(input, param_dir, false, false, r1cs, witness)
    )
}

fn job_tree<Tree>(
    input: &SnapInput,
    param_dir: &Path,
    verify: bool,
    checks: bool,
    r1cs: Option<&Arc<CompiledR1cs>>,
    witness: WitnessGen,
) -> Result<ProofJob>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    let params_path = locate(param_dir, input.kind)?;
    let (circuits, inputs) = prepare::<Tree>(input, verify)?;
    let native = |c: EmptySectorUpdateCircuit<Tree>| -> NativeFn {
        Box::new(move |aux: &mut [Fr]| {
            let n = aux.len();
            let mut w = SliceAux::new(aux);
            crate::native::snap::snap_partition(&mut w, &c)?;
            w.finish()
                .map_err(|m| format!("the generator made {m} values, the circuit has {n}"))
        })
    };
    let parts = match (r1cs, witness) {
        (None, _) | (_, WitnessGen::Generic) => circuits.into_iter().map(Part::circuit).collect(),
        (_, WitnessGen::Native) => circuits
            .into_iter()
            .map(|c| Part {
                circuit: None,
                native: Some(native(c)),
            })
            .collect(),
        // The circuit has no Clone: the generator's copy is built again
        // from the already verified vanilla proofs.
        (_, WitnessGen::Check) => circuits
            .into_iter()
            .zip(prepare::<Tree>(input, false)?.0)
            .map(|(c, copy)| Part {
                circuit: Some(c),
                native: Some(native(copy)),
            })
            .collect(),
    };
    circuit_job_of(
        params_path,
        parts,
        inputs,
        checks,
        r1cs,
        Synthesis::Sequential,
    )
}

/// The check mode outside the engine: partition `k`'s aux values from the
/// native generator against witness-only synthesis of its circuit (the
/// vanilla proofs decoded and checked, verified with `verify`). Returns
/// how many values agree; a difference is
/// [`FilecoinError::WitnessMismatch`]. For tests and tools at sizes
/// without parameter files.
pub fn check_native_witness(input: &SnapInput, k: usize, verify: bool) -> Result<usize> {
    with_tree!(input.kind.sector_size, check_native_tree(input, k, verify))
}

fn check_native_tree<Tree>(input: &SnapInput, k: usize, verify: bool) -> Result<usize>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    let missing = || FilecoinError::Unsupported(format!("no partition {k}"));
    let circuit = prepare::<Tree>(input, verify)?
        .0
        .into_iter()
        .nth(k)
        .ok_or_else(missing)?;
    let mut native = Vec::new();
    crate::native::snap::snap_partition(&mut native, &circuit).map_err(|detail| {
        FilecoinError::NativeWitness {
            partition: k,
            detail,
        }
    })?;
    let w = cuzk_synth::compiled::synthesize_witness(circuit, Default::default())?;
    let aux = &w.aux_assignment;
    match native.iter().zip(aux.iter()).position(|(a, b)| a != b) {
        None if native.len() == aux.len() => Ok(native.len()),
        p => Err(FilecoinError::WitnessMismatch {
            partition: k,
            what: "aux value",
            position: p.unwrap_or(native.len().min(aux.len())),
        }),
    }
}

/// Proves a SnapDeals update as one engine job (parameters loaded once
/// per engine, checks on, [`SNAP_PRIORITY`] unless `priority`); the engine
/// self-checks every partition proof.
pub fn prove_snap(
    input: &SnapInput,
    param_dir: &Path,
    engine: &Engine,
    priority: Option<i32>,
    r1cs: Option<&Arc<CompiledR1cs>>,
    witness: WitnessGen,
) -> Result<ProofOutput> {
    let job = snap_job(input, param_dir, true, r1cs, witness)?;
    run_job(engine, job, priority.unwrap_or(SNAP_PRIORITY))
}

/// The public inputs of every partition, as filecoin-proofs' verifier
/// derives them, after the vanilla proofs are decoded, shape-checked and
/// verified (what [`snap_job`] does before building circuits).
pub fn snap_public_inputs(input: &SnapInput) -> Result<Vec<Vec<Fr>>> {
    with_tree!(input.kind.sector_size, inputs_tree(input))
}

fn inputs_tree<Tree>(input: &SnapInput) -> Result<Vec<Vec<Fr>>>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    Ok(prepare::<Tree>(input, true)?.1)
}

/// The statement's public inputs (without `k`).
fn statement(input: &SnapInput) -> Result<PublicInputs> {
    let comm_r_old = field_element(&input.comm_r_old, "comm_r_old")?;
    let comm_r_new = field_element(&input.comm_r_new, "comm_r_new")?;
    // The circuit takes comm_d_new as a field element too.
    field_element(&input.comm_d_new, "comm_d_new")?;
    for (c, what) in [
        (&input.comm_r_old, "comm_r_old"),
        (&input.comm_r_new, "comm_r_new"),
        (&input.comm_d_new, "comm_d_new"),
    ] {
        if *c == [0; 32] {
            return Err(FilecoinError::ZeroCommitment(what));
        }
    }
    let config =
        filecoin_proofs::SectorUpdateConfig::from_porep_config(&input.kind.porep_config()?);
    Ok(PublicInputs {
        k: 0,
        comm_r_old: TreeRDomain::from(comm_r_old),
        comm_d_new: TreeDDomain::try_from_bytes(&input.comm_d_new).map_err(proofs)?,
        comm_r_new: TreeRDomain::from(comm_r_new),
        h: config.h,
    })
}

/// Decodes, checks and verifies the vanilla proofs, then builds each
/// partition's circuit as filecoin-proofs does and its public inputs as
/// its verifier does.
type Prepared<Tree> = (Vec<EmptySectorUpdateCircuit<Tree>>, Vec<Vec<Fr>>);

fn prepare<Tree>(input: &SnapInput, verify: bool) -> Result<Prepared<Tree>>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    let pp = input.kind.public_params();
    let public = statement(input)?;
    let vanilla = decode::<Tree>(input)?;
    if vanilla.len() != pp.partition_count {
        return Err(FilecoinError::VanillaCount {
            kind: input.kind.api_name(),
            got: vanilla.len(),
            min: pp.partition_count,
            max: pp.partition_count,
        });
    }
    let mut circuits = Vec::with_capacity(vanilla.len());
    let mut inputs = Vec::with_capacity(vanilla.len());
    for (k, proof) in vanilla.iter().enumerate() {
        check_vanilla::<Tree>(&input.kind, &pp, k, proof)?;
        let part = PublicInputs { k, ..public };
        if verify {
            verify_vanilla::<Tree>(&pp, &part, k, proof)?;
        }
        type C<T> = EmptySectorUpdateCompound<T>;
        circuits.push(
            <C<Tree> as CompoundProof<_, _>>::circuit(&part, (), proof, &pp, Some(k))
                .map_err(proofs)?,
        );
        inputs.push(
            <C<Tree> as CompoundProof<_, _>>::generate_public_inputs(&part, &pp, Some(k))
                .map_err(proofs)?,
        );
    }
    Ok((circuits, inputs))
}

/// storage-proofs-update's vanilla verifier on partition `k`.
fn verify_vanilla<Tree>(
    pp: &PublicParams,
    part: &PublicInputs,
    k: usize,
    proof: &PartitionProof<Tree>,
) -> Result<()>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    // It indexes by the counts checked before; a panic left in it is still
    // this input's fault, not the caller's.
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        EmptySectorUpdate::<Tree>::verify(pp, part, proof)
    }))
    .map_err(|p| FilecoinError::BadVanilla {
        index: k,
        detail: format!(
            "the vanilla verifier failed: {}",
            cuzk_groth16::panic_message(&*p)
        ),
    })?;
    if !ok.map_err(proofs)? {
        return Err(FilecoinError::VanillaInvalid { partition: k });
    }
    Ok(())
}

/// filecoin-proofs-api's decoding: bincode of `PartitionProof`.
fn decode<Tree>(input: &SnapInput) -> Result<Vec<PartitionProof<Tree>>>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    decode_all(
        &input.vanilla_proofs,
        "PartitionProof",
        input.kind.sector_size,
    )
}

/// Everything the circuit code would otherwise panic on, and the counts
/// that tell a vanilla proof of another sector size.
fn check_vanilla<Tree>(
    kind: &SnapProofKind,
    pp: &PublicParams,
    index: usize,
    p: &PartitionProof<Tree>,
) -> Result<()>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    let bad = |detail: String| Err(FilecoinError::BadVanilla { index, detail });
    if p.apex_leafs.len() != pp.apex_leaf_count {
        return bad(format!(
            "{} apex leaves, a {} update has {}",
            p.apex_leafs.len(),
            format_size(kind.sector_size),
            pp.apex_leaf_count
        ));
    }
    if p.challenge_proofs.len() != pp.challenge_count {
        return bad(format!(
            "{} challenges, a {} update partition has {}",
            p.challenge_proofs.len(),
            format_size(kind.sector_size),
            pp.challenge_count
        ));
    }
    if !canonical(&p.comm_c) {
        return bad("comm_c is not a field element".into());
    }
    let leaves = kind.sector_size as usize / NODE_SIZE;
    for (n, c) in p.challenge_proofs.iter().enumerate() {
        check_path(
            &c.proof_r_old,
            leaves,
            kind.sector_size,
            index,
            &format!("challenge {n} (old replica)"),
        )?;
        check_path(
            &c.proof_r_new,
            leaves,
            kind.sector_size,
            index,
            &format!("challenge {n} (new replica)"),
        )?;
        // The data tree is binary over SHA-256 values: 32 bytes each with
        // the top two bits clear, i.e. field elements too.
        check_path(
            &c.proof_d_new,
            leaves,
            kind.sector_size,
            index,
            &format!("challenge {n} (data)"),
        )?;
    }
    Ok(())
}

/// Checks a SnapDeals proof with filecoin-proofs'
/// `verify_empty_sector_update_proof` (its verifying key read from
/// `param_dir`). Ok(false): a well-formed proof that does not verify.
pub fn verify_snap(
    kind: &SnapProofKind,
    comm_r_old: [u8; 32],
    comm_r_new: [u8; 32],
    comm_d_new: [u8; 32],
    proof: &[u8],
    param_dir: &Path,
) -> Result<bool> {
    let pp = kind.public_params();
    if proof.len() != pp.partition_count * cuzk_groth16::PROOF_BYTES {
        return Err(FilecoinError::Groth16(
            cuzk_groth16::Groth16Error::MalformedProof(format!(
                "a {} update proof is {} bytes ({} partitions), this one is {}",
                format_size(kind.sector_size),
                pp.partition_count * cuzk_groth16::PROOF_BYTES,
                pp.partition_count,
                proof.len()
            )),
        ));
    }
    use_param_dir(param_dir)?;
    // Bytes that do not decode to points are a proof that does not verify.
    if cuzk_groth16::Proof::many_from_bytes(proof).is_err() {
        return Ok(false);
    }
    let config = kind.porep_config()?;
    with_tree!(
        kind.sector_size,
        verify_tree(&config, proof, comm_r_old, comm_r_new, comm_d_new)
    )
}

fn verify_tree<Tree>(
    config: &PoRepConfig,
    proof: &[u8],
    comm_r_old: [u8; 32],
    comm_r_new: [u8; 32],
    comm_d_new: [u8; 32],
) -> Result<bool>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    filecoin_proofs::verify_empty_sector_update_proof::<Tree>(
        config, proof, comm_r_old, comm_r_new, comm_d_new,
    )
    .map_err(proofs)
}
