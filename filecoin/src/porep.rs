//! PoRep C2 through cuzk: C1 output → one circuit per partition (built
//! exactly as filecoin-proofs' `seal_commit_phase2` builds them) → cuzk
//! synthesis and prover → the concatenated partition proofs, which for
//! non-interactive PoRep are then aggregated ([`finish_c2`]).

use crate::c1::{format_size, C1Output, C1Public, SealProofKind};
use crate::error::{proofs, FilecoinError, Result};
use crate::job::{
    circuit_job_of, native_values, run_job, NativeFn, Part, ProofJob, ProofOutput, Synthesis,
};
use crate::params::{check_srs, locate, use_param_dir};
use cuzk_field::Fr;
use cuzk_groth16::Proof;
use cuzk_scheduler::{Engine, WitnessGen};
use cuzk_synth::{
    compiled::{CompiledR1cs, Witness},
    ProvingAssignment, Shape,
};
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::{
    as_safe_commitment,
    parameters::{public_params, setup_params},
    DefaultPieceDomain, DefaultPieceHasher, PoRepConfig, SealCommitPhase1Output,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use storage_proofs_core::{
    api_version::ApiFeature,
    compound_proof::{self, CompoundProof},
    merkle::{MerkleProofTrait, MerkleTreeTrait},
};
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound, StackedDrg};

mod native;

/// Calls `$f::<Tree>(args…)` with the Merkle tree shape of a sector size
/// (a `Result`; an unregistered size is [`FilecoinError::SectorSize`]).
/// 2 KiB, 8 MiB and 512 MiB share one shape (8-ary base tree only).
///
/// [`FilecoinError::SectorSize`]: crate::FilecoinError::SectorSize
#[macro_export]
macro_rules! with_tree {
    ($size:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $size {
            s if s == 1 << 11 || s == 1 << 23 || s == 1 << 29 => $f::<$crate::porep::tree::SectorShape2KiB>($($arg),*),
            s if s == 1 << 35 => $f::<$crate::porep::tree::SectorShape32GiB>($($arg),*),
            s if s == 1 << 36 => $f::<$crate::porep::tree::SectorShape64GiB>($($arg),*),
            s => Err($crate::error::FilecoinError::SectorSize(format!("{} is not a registered PoRep sector size", $crate::c1::format_size(s)))),
        }
    };
}

/// The Merkle tree shapes [`with_tree!`] picks from.
pub mod tree {
    pub use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape64GiB};
}

/// Knobs of [`prove_c2`].
#[derive(Debug)]
pub struct C2Options<'a> {
    /// Directory holding the `.params` files.
    pub param_dir: PathBuf,
    /// The engine that proves the partitions (its SRS cache loads each
    /// parameter file once per process).
    pub engine: &'a Engine,
    /// Check every constraint of every synthesized partition before
    /// proving (one product per constraint) and its public inputs, so a
    /// corrupt C1 output is reported as such instead of as a failed proof
    /// self-check.
    pub check_satisfied: bool,
    /// Job priority in the engine (higher first).
    pub priority: i32,
    /// The proof type's recorded circuit: witness-only synthesis and an
    /// SpMV instead of the classic synthesis (same proofs). The caller
    /// counts its memory against the engine's budget
    /// ([`Engine::hold_host`]).
    pub r1cs: Option<Arc<CompiledR1cs>>,
    /// How the witness is made against `r1cs` ([`porep_job`]).
    pub witness: WitnessGen,
}

impl<'a> C2Options<'a> {
    /// Defaults: satisfaction check on, priority 0, classic synthesis.
    pub fn new(param_dir: PathBuf, engine: &'a Engine) -> Self {
        Self {
            param_dir,
            engine,
            check_satisfied: true,
            priority: 0,
            r1cs: None,
            witness: WitnessGen::default(),
        }
    }
}

/// Builds the job of a C1 output without proving it. With `checks`,
/// each synthesized partition is checked on its worker: every constraint
/// satisfied, and its public inputs equal to what filecoin-proofs derives.
/// Without (random C1 outputs for benchmarks, whose vanilla proofs match
/// neither), only the parameter file's counts are checked. With `r1cs`
/// (the proof type's recorded circuit, [`crate::compiled::R1csCache`]),
/// the backend multiplies it with each partition's witness, made as
/// `witness` says: by the native generator ([`crate::native::
/// porep_challenge`], a partition's challenges in parallel), by the
/// circuit's own code run witness-only, or both compared. Without, by the
/// classic synthesis. All give the same assignment.
pub fn porep_job(
    c1: &C1Output,
    param_dir: &Path,
    checks: bool,
    r1cs: Option<&Arc<CompiledR1cs>>,
    witness: WitnessGen,
) -> Result<ProofJob> {
    c1.public.check_nonzero()?;
    let config = c1.kind.porep_config()?;
    with_tree!(
        c1.kind.sector_size,
        job_tree(c1, &config, param_dir, checks, r1cs, witness)
    )
}

fn job_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
    param_dir: &Path,
    checks: bool,
    r1cs: Option<&Arc<CompiledR1cs>>,
    witness: WitnessGen,
) -> Result<ProofJob> {
    let params_path = locate(param_dir, c1.kind)?;
    let parsed = Parsed::<Tree>::new(c1, config)?;
    let inputs = parsed.inputs()?;
    let natives = match (r1cs, witness) {
        (None, _) | (_, WitnessGen::Generic) => None,
        _ => Some(native::partitions::<Tree>(c1)?),
    };
    let mut circuits = match (&natives, witness) {
        (Some(_), WitnessGen::Native) => None,
        _ => Some(parsed.circuits()?.into_iter()),
    };
    let mut natives = natives.map(Vec::into_iter);
    let parts = (0..inputs.len())
        .map(|_| Part {
            circuit: circuits.as_mut().and_then(Iterator::next),
            native: natives
                .as_mut()
                .and_then(Iterator::next)
                .map(|p| Box::new(move |aux: &mut [Fr]| native::fill(aux, &p)) as NativeFn),
        })
        .collect();
    circuit_job_of(
        params_path,
        parts,
        inputs,
        checks,
        r1cs,
        Synthesis::Sequential,
    )
}

/// Proves a C1 output: the C2 step, as one job of the engine (its
/// parameters loaded once per engine). Every partition proof is
/// self-checked by the engine against the public inputs filecoin-proofs
/// derives for it before it is returned.
pub fn prove_c2(c1: &C1Output, opts: &C2Options<'_>) -> Result<ProofOutput> {
    if c1.kind.aggregated() {
        // Before any proving: a missing SRS is a refusal, not lost work.
        check_srs(&opts.param_dir, &c1.kind, 1)?;
    }
    let job = porep_job(
        c1,
        &opts.param_dir,
        opts.check_satisfied,
        opts.r1cs.as_ref(),
        opts.witness,
    )?;
    let mut out = run_job(opts.engine, job, opts.priority)?;
    out.proof = finish_c2(c1, out.proof, &opts.param_dir)?;
    Ok(out)
}

/// The C2 bytes of a proof from its partition proofs (concatenated, in
/// partition order): those bytes themselves, or for non-interactive PoRep
/// their SnarkPack aggregate, the bytes filecoin-proofs' `seal_commit_phase2`
/// makes (`aggregate_seal_commit_proofs` over this one sector, aggregate
/// version 2), made by `aggregate::make` from the SRS file in `param_dir`
/// ([`check_srs`]).
pub fn finish_c2(c1: &C1Output, partition_proofs: Vec<u8>, param_dir: &Path) -> Result<Vec<u8>> {
    if !c1.kind.aggregated() {
        return Ok(partition_proofs);
    }
    check_srs(param_dir, &c1.kind, 1)?;
    let config = c1.kind.porep_config()?;
    let want = usize::from(config.partitions) * cuzk_groth16::PROOF_BYTES;
    if partition_proofs.len() != want {
        return Err(FilecoinError::Groth16(
            cuzk_groth16::Groth16Error::MalformedProof(format!(
                "{} partition proofs are {want} bytes, got {}",
                c1.kind.api_name(),
                partition_proofs.len()
            )),
        ));
    }
    use_param_dir(param_dir)?;
    crate::aggregate::make(
        &config,
        &[c1.public.comm_r],
        &[c1.public.seed],
        &[&partition_proofs[..]],
        bellperson::groth16::aggregate::AggregateVersion::V2,
    )
}

/// The parsed, checked pieces of a C1 output for one tree shape.
pub struct Prepared<Tree: 'static + MerkleTreeTrait> {
    /// Each partition's circuit, as filecoin-proofs builds it.
    pub circuits: Vec<StackedCircuit<Tree, DefaultPieceHasher>>,
    /// Each partition's public inputs, as filecoin-proofs derives them.
    pub inputs: Vec<Vec<Fr>>,
}

impl<Tree: 'static + MerkleTreeTrait> std::fmt::Debug for Prepared<Tree> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("partitions", &self.circuits.len())
            .field("inputs", &self.inputs)
            .finish()
    }
}

/// Deserializes the vanilla proofs for `Tree`, checks them against the
/// proof type (partitions, challenges, path lengths) and builds each
/// partition's circuit and public inputs as filecoin-proofs does.
pub fn prepare<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
) -> Result<Prepared<Tree>> {
    let parsed = Parsed::<Tree>::new(c1, config)?;
    Ok(Prepared {
        circuits: parsed.circuits()?,
        inputs: parsed.inputs()?,
    })
}

/// A C1 output's vanilla proofs, parsed and shape-checked for `Tree`, with
/// what filecoin-proofs builds circuits and public inputs from. The native
/// witness needs only the inputs: its jobs build no circuit.
struct Parsed<Tree: 'static + MerkleTreeTrait> {
    vanilla_proofs: Vec<Vec<filecoin_proofs::VanillaSealProof<Tree>>>,
    public_inputs: stacked::PublicInputs<
        <Tree::Hasher as Hasher>::Domain,
        <DefaultPieceHasher as Hasher>::Domain,
    >,
    params: stacked::PublicParams<Tree>,
}

impl<Tree: 'static + MerkleTreeTrait> Parsed<Tree> {
    fn new(c1: &C1Output, config: &PoRepConfig) -> Result<Self> {
        // From the value in place: a 32 GiB C1's vanilla proofs are
        // ~0.5 GB of JSON values, not worth a clone.
        let out: SealCommitPhase1Output<Tree> = serde::Deserialize::deserialize(&c1.body)
            .map_err(|e| FilecoinError::BadC1(format!("{}: {e}", c1.kind.api_name())))?;
        let SealCommitPhase1Output {
            vanilla_proofs,
            comm_r,
            comm_d,
            replica_id,
            seed,
            ..
        } = out;

        let comm_r_safe =
            as_safe_commitment::<<Tree::Hasher as Hasher>::Domain, _>(&comm_r, "comm_r")
                .map_err(|e| FilecoinError::BadC1(format!("{e:#}")))?;
        let comm_d_safe = DefaultPieceDomain::try_from_bytes(&comm_d)
            .map_err(|e| FilecoinError::BadC1(format!("comm_d: {e:#}")))?;
        let public_inputs = stacked::PublicInputs {
            replica_id,
            tau: Some(stacked::Tau {
                comm_d: comm_d_safe,
                comm_r: comm_r_safe,
            }),
            k: None,
            seed: Some(seed),
        };
        let setup = compound_proof::SetupParams {
            vanilla_params: setup_params(config).map_err(proofs)?,
            partitions: Some(usize::from(config.partitions)),
            priority: false,
        };
        let params = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
            StackedDrg<'_, Tree, DefaultPieceHasher>,
            _,
        >>::setup(&setup)
        .map_err(proofs)?
        .vanilla_params;

        check_vanilla_shape(
            c1,
            config,
            &vanilla_proofs,
            params.challenges.num_challenges_per_partition(),
        )?;
        Ok(Self {
            vanilla_proofs,
            public_inputs,
            params,
        })
    }

    /// Each partition's circuit.
    fn circuits(&self) -> Result<Vec<StackedCircuit<Tree, DefaultPieceHasher>>> {
        (0..self.vanilla_proofs.len())
            .map(|k| {
                StackedCompound::<Tree, DefaultPieceHasher>::circuit(
                    &self.public_inputs,
                    (),
                    &self.vanilla_proofs[k],
                    &self.params,
                    Some(k),
                )
                .map_err(proofs)
            })
            .collect()
    }

    /// Each partition's public inputs.
    fn inputs(&self) -> Result<Vec<Vec<Fr>>> {
        (0..self.vanilla_proofs.len())
            .map(|k| {
                StackedCompound::<Tree, DefaultPieceHasher>::generate_public_inputs(
                    &self.public_inputs,
                    &self.params,
                    Some(k),
                )
                .map_err(proofs)
            })
            .collect()
    }
}

/// Partition count, challenges per partition and the data-tree path length
/// must match the proof type: a C1 output of another sector size is caught
/// here, before any synthesis.
fn check_vanilla_shape<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
    vanilla: &[Vec<filecoin_proofs::VanillaSealProof<Tree>>],
    challenges: usize,
) -> Result<()> {
    let want_parts = usize::from(config.partitions);
    let size = format_size(c1.kind.sector_size);
    if vanilla.len() != want_parts {
        return Err(FilecoinError::SectorSize(format!(
            "a {size} C1 output has {want_parts} partition(s) of vanilla proofs, this one has {}",
            vanilla.len()
        )));
    }
    let depth = (c1.kind.sector_size / 32).trailing_zeros() as usize;
    for (k, part) in vanilla.iter().enumerate() {
        if part.len() != challenges {
            return Err(FilecoinError::SectorSize(format!(
                "a {size} C1 output has {challenges} challenges per partition, partition {k} has {}",
                part.len()
            )));
        }
        if let Some(p) = part
            .iter()
            .find(|p| p.comm_d_proofs.as_pairs().len() != depth)
        {
            return Err(FilecoinError::SectorSize(format!(
                "partition {k}: data-tree paths have {} levels, a {size} sector has {depth}",
                p.comm_d_proofs.as_pairs().len()
            )));
        }
    }
    Ok(())
}

/// Shape of the circuit filecoin-proofs generates parameters from (its
/// blank circuit) for `kind`: what every real partition must match.
pub fn blank_shape(kind: &SealProofKind) -> Result<Shape> {
    let config = kind.porep_config()?;
    with_tree!(kind.sector_size, blank_tree(&config))
}

fn blank_tree<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig) -> Result<Shape> {
    let pp = public_params::<Tree>(config).map_err(proofs)?;
    let blank = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::blank_circuit(&pp);
    Ok(cuzk_synth::count_shape(blank)?)
}

/// Shape of partition 0's circuit of a C1 output (counts only).
pub fn partition_shape(c1: &C1Output) -> Result<Shape> {
    let config = c1.kind.porep_config()?;
    with_tree!(c1.kind.sector_size, shape_tree(c1, &config))
}

fn shape_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
) -> Result<Shape> {
    let p = prepare::<Tree>(c1, config)?;
    Ok(cuzk_synth::count_shape(
        p.circuits
            .into_iter()
            .next()
            .expect("partitions checked non-empty"),
    )?)
}

/// Synthesizes every partition of a C1 output through cuzk (no proving):
/// for measuring synthesis alone. Returns the assignments in order.
pub fn synthesize_c1(c1: &C1Output) -> Result<Vec<ProvingAssignment>> {
    let config = c1.kind.porep_config()?;
    with_tree!(c1.kind.sector_size, synth_tree(c1, &config))
}

fn synth_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
) -> Result<Vec<ProvingAssignment>> {
    let p = prepare::<Tree>(c1, config)?;
    Ok(cuzk_synth::synthesize_many(p.circuits)?)
}

/// Synthesizes partition `k` of a C1 output alone (one partition's
/// memory): classically, or witness-only and multiplied with `r1cs`.
pub fn synthesize_partition(
    c1: &C1Output,
    k: usize,
    r1cs: Option<&CompiledR1cs>,
) -> Result<ProvingAssignment> {
    let config = c1.kind.porep_config()?;
    with_tree!(c1.kind.sector_size, synth_one(c1, &config, k, r1cs))
}

fn synth_one<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
    k: usize,
    r1cs: Option<&CompiledR1cs>,
) -> Result<ProvingAssignment> {
    let p = prepare::<Tree>(c1, config)?;
    let n = p.circuits.len();
    let circuit = p.circuits.into_iter().nth(k).ok_or_else(|| {
        FilecoinError::BadC1(format!("partition {k} asked for, the C1 output has {n}"))
    })?;
    Ok(match r1cs {
        Some(r) => r.synthesize(circuit)?,
        None => cuzk_synth::synthesize(circuit)?,
    })
}

/// Partition `k`'s aux assignment (`num_aux` values: the recorded
/// circuit's count) from the native generator, outside the engine: what a
/// job's partition is given with [`WitnessGen::Native`], for tools and
/// tests that time or compare it.
pub fn native_aux(c1: &C1Output, k: usize, num_aux: usize) -> Result<Vec<Fr>> {
    with_tree!(c1.kind.sector_size, native_aux_tree(c1, k, num_aux))
}

fn native_aux_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    k: usize,
    num_aux: usize,
) -> Result<Vec<Fr>> {
    let part = native::partitions::<Tree>(c1)?
        .into_iter()
        .nth(k)
        .ok_or_else(|| FilecoinError::BadC1(format!("no partition {k}")))?;
    native_values(k, num_aux, |aux| native::fill(aux, &part))
}

/// Witness-only synthesis of partitions `ks` of a C1 output, all at once
/// (one thread each), checked against `r1cs`: for measuring the
/// pre-compiled path. Returns each witness with its own synthesis time.
pub fn witness_partitions(
    c1: &C1Output,
    ks: &[usize],
    r1cs: &CompiledR1cs,
) -> Result<Vec<(Witness, std::time::Duration)>> {
    let config = c1.kind.porep_config()?;
    with_tree!(c1.kind.sector_size, witness_tree(c1, &config, ks, r1cs))
}

fn witness_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
    ks: &[usize],
    r1cs: &CompiledR1cs,
) -> Result<Vec<(Witness, std::time::Duration)>> {
    let p = prepare::<Tree>(c1, config)?;
    let n = p.circuits.len();
    let mut circuits: Vec<Option<_>> = p.circuits.into_iter().map(Some).collect();
    let picked: Vec<_> = ks
        .iter()
        .map(|&k| {
            circuits.get_mut(k).and_then(Option::take).ok_or_else(|| {
                FilecoinError::BadC1(format!(
                    "partition {k} asked for (once), the C1 output has {n}"
                ))
            })
        })
        .collect::<Result<_>>()?;
    // One thread per partition: witness synthesis is sequential within
    // a partition, so this is how a host's cores are used.
    std::thread::scope(|s| {
        let threads: Vec<_> = picked
            .into_iter()
            .map(|c| {
                s.spawn(move || -> Result<(Witness, std::time::Duration)> {
                    let t = std::time::Instant::now();
                    let w = r1cs.witness(c)?;
                    Ok((w, t.elapsed()))
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|p| {
                    Err(FilecoinError::BadC1(format!(
                        "witness synthesis panicked: {}",
                        cuzk_groth16::panic_message(&*p)
                    )))
                })
            })
            .collect()
    })
}

/// Verifies a C2 proof with filecoin-proofs' own verifier (`verify_seal`),
/// reading the verifying key from `param_dir` (see [`use_param_dir`]), and
/// for non-interactive PoRep the SRS ([`check_srs`]). `Ok(false)` is a
/// proof that does not verify; malformed input is an error.
pub fn verify_c2(
    kind: &SealProofKind,
    public: &C1Public,
    prover_id: [u8; 32],
    sector_id: u64,
    proof: &[u8],
    param_dir: &Path,
) -> Result<bool> {
    public.check_nonzero()?;
    let config = kind.porep_config()?;
    use_param_dir(param_dir)?;
    if kind.aggregated() {
        check_srs(param_dir, kind, 1)?;
        // An aggregate's length depends on the proof count; bytes that do
        // not decode are a proof that does not verify, as below.
        type Aggregate = bellperson::groth16::aggregate::AggregateProof<blstrs::Bls12>;
        if Aggregate::read(std::io::Cursor::new(proof)).is_err() {
            return Ok(false);
        }
        return with_tree!(
            kind.sector_size,
            verify_tree(&config, public, prover_id, sector_id, proof)
        );
    }
    let want = usize::from(config.partitions) * cuzk_groth16::PROOF_BYTES;
    if proof.len() != want {
        return Err(FilecoinError::Groth16(
            cuzk_groth16::Groth16Error::MalformedProof(format!(
                "a {} C2 proof is {want} bytes, got {}",
                format_size(kind.sector_size),
                proof.len()
            )),
        ));
    }
    with_tree!(
        kind.sector_size,
        verify_tree(&config, public, prover_id, sector_id, proof)
    )
}

fn verify_tree<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    p: &C1Public,
    prover_id: [u8; 32],
    sector_id: u64,
    proof: &[u8],
) -> Result<bool> {
    // filecoin-proofs reports proof bytes that do not decode to points as
    // an error; for a caller that is simply a proof that does not verify.
    // Decoding first keeps every other error (e.g. an unreadable key) an
    // error. (An aggregate was decoded by the caller.)
    if !config.feature_enabled(ApiFeature::NonInteractivePoRep)
        && Proof::many_from_bytes(proof).is_err()
    {
        return Ok(false);
    }
    filecoin_proofs::verify_seal::<Tree>(
        config,
        p.comm_r,
        p.comm_d,
        prover_id,
        sector_id.into(),
        p.ticket,
        p.seed,
        proof,
    )
    .map_err(proofs)
}

/// The public inputs of every partition, as filecoin-proofs derives them
/// (for callers that verify with cuzk's own verifier).
pub fn public_inputs(c1: &C1Output) -> Result<Vec<Vec<Fr>>> {
    let config = c1.kind.porep_config()?;
    with_tree!(c1.kind.sector_size, inputs_tree(c1, &config))
}

fn inputs_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
) -> Result<Vec<Vec<Fr>>> {
    Parsed::<Tree>::new(c1, config)?.inputs()
}
