//! PoRep C2 through cuzk: C1 output → one circuit per partition (built
//! exactly as filecoin-proofs' `seal_commit_phase2` builds them) → cuzk
//! synthesis and prover → the concatenated partition proofs.

use crate::c1::{format_size, C1Output, C1Public, SealProofKind};
use crate::error::{proofs, FilecoinError, Result};
use cuzk_field::Fr;
use cuzk_groth16::{Backend, CheckMode, Parameters, ParamsInfo, Proof, Timings};
use cuzk_synth::{ProvingAssignment, Shape};
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::{
    as_safe_commitment, parameters::setup_params, DefaultPieceDomain, DefaultPieceHasher,
    PoRepConfig, SealCommitPhase1Output,
};
use rand::rngs::OsRng;
use std::path::{Path, PathBuf};
use storage_proofs_core::{
    compound_proof::{self, CompoundProof},
    merkle::{MerkleProofTrait, MerkleTreeTrait},
    parameter_cache::parameter_id,
};
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound, StackedDrg};

/// Calls `$f::<Tree>(args…)` with the Merkle tree shape of a sector size.
/// 2 KiB, 8 MiB and 512 MiB share one shape (8-ary base tree only).
macro_rules! with_tree {
    ($size:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $size {
            s if s == 1 << 11 || s == 1 << 23 || s == 1 << 29 => $f::<filecoin_proofs::SectorShape2KiB>($($arg),*),
            s if s == 1 << 35 => $f::<filecoin_proofs::SectorShape32GiB>($($arg),*),
            s if s == 1 << 36 => $f::<filecoin_proofs::SectorShape64GiB>($($arg),*),
            s => Err($crate::error::FilecoinError::SectorSize(format!("{} is not a registered PoRep sector size", $crate::c1::format_size(s)))),
        }
    };
}
pub(crate) use with_tree;

/// The default parameter directory of filecoin-proofs.
pub const DEFAULT_PARAM_DIR: &str = "/var/tmp/filecoin-proof-parameters";

/// Where the `.params` files are: the command-line flag, else the
/// configuration file's `param_cache`, else `FIL_PROOFS_PARAMETER_CACHE`,
/// else filecoin-proofs' default ([`DEFAULT_PARAM_DIR`]).
pub fn resolve_param_dir(flag: Option<&Path>, config: Option<&Path>) -> PathBuf {
    if let Some(p) = flag.or(config) {
        return p.to_path_buf();
    }
    match std::env::var_os("FIL_PROOFS_PARAMETER_CACHE") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => PathBuf::from(DEFAULT_PARAM_DIR),
    }
}

/// The standard file name of the Groth16 parameters of a proof type, e.g.
/// `v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-<hash>.params`.
pub fn params_file_name(kind: &SealProofKind) -> Result<String> {
    let config = kind.porep_config()?;
    let id = with_tree!(kind.sector_size, cache_id(&config))?;
    Ok(parameter_id(&id))
}

fn cache_id<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig) -> Result<String> {
    config.get_cache_identifier::<Tree>().map_err(proofs)
}

/// The parameter file of `kind` in `dir`; a typed error if it is absent.
pub fn locate_params(kind: &SealProofKind, dir: &Path) -> Result<PathBuf> {
    let path = dir.join(params_file_name(kind)?);
    if !path.is_file() {
        return Err(FilecoinError::MissingParams { path });
    }
    Ok(path)
}

/// Compares a parameter file's section counts with a circuit's shape
/// (inputs, aux variables, domain); `densities` (A points, B points) adds
/// the two counts only a synthesized partition knows.
pub fn check_params(
    path: &Path,
    info: &ParamsInfo,
    shape: &Shape,
    densities: Option<(usize, usize)>,
) -> Result<()> {
    let mismatch = |detail: String| {
        Err(FilecoinError::ParamsMismatch {
            path: path.to_path_buf(),
            detail,
        })
    };
    if info.ic != shape.num_inputs {
        return mismatch(format!(
            "the circuit has {} public inputs, the file has {}",
            shape.num_inputs - 1,
            info.ic.saturating_sub(1)
        ));
    }
    if info.l != shape.num_aux {
        return mismatch(format!(
            "the circuit has {} aux variables, the file has {} L points",
            shape.num_aux, info.l
        ));
    }
    if info.domain_size() != shape.domain_size() {
        return mismatch(format!(
            "the circuit has {} constraints (domain {}), the file is for domain {}",
            shape.num_constraints,
            shape.domain_size(),
            info.domain_size()
        ));
    }
    if let Some((a, b)) = densities {
        if info.a != a || info.b_g1 != b || info.b_g2 != b {
            return mismatch(format!(
                "A/B queries: the circuit needs {a}/{b} points, the file has {}/{}/{}",
                info.a, info.b_g1, info.b_g2
            ));
        }
    }
    Ok(())
}

/// Knobs of [`prove_c2`].
#[derive(Debug)]
pub struct C2Options<'a> {
    /// Directory holding the `.params` files.
    pub param_dir: PathBuf,
    /// The proving engine (CPU now, GPU later).
    pub backend: &'a dyn Backend,
    /// Check every constraint of every synthesized partition before
    /// proving (one product per constraint), so a corrupt C1 output is
    /// reported as such instead of as a failed proof self-check.
    pub check_satisfied: bool,
    /// Partitions synthesized at once; `None`: as many as fit in
    /// [`Self::memory_budget`].
    pub partition_batch: Option<usize>,
    /// Bytes the synthesized partitions of one batch may take (used when
    /// `partition_batch` is `None`). A 32 GiB partition takes ~16.7 GB.
    pub memory_budget: usize,
}

impl<'a> C2Options<'a> {
    /// Defaults: satisfaction check on, batch sized to a 16 GiB budget.
    pub fn new(param_dir: PathBuf, backend: &'a dyn Backend) -> Self {
        Self {
            param_dir,
            backend,
            check_satisfied: true,
            partition_batch: None,
            memory_budget: 16 << 30,
        }
    }
}

/// A C2 proof and how it was made.
#[derive(Clone, Debug)]
pub struct C2Output {
    /// The partition proofs concatenated in order (192 bytes each): the
    /// bytes `seal_commit_phase2` returns.
    pub proof: Vec<u8>,
    /// Number of partitions.
    pub partitions: usize,
    /// Shape of one partition circuit.
    pub shape: Shape,
    /// The parameter file used.
    pub params_path: PathBuf,
    /// Stage timings, summed over partitions.
    pub timings: Timings,
}

/// Proves a C1 output: the C2 step. The proof is self-checked by cuzk
/// (every partition against the public inputs filecoin-proofs derives for
/// it) before it is returned.
pub fn prove_c2(c1: &C1Output, opts: &C2Options<'_>) -> Result<C2Output> {
    c1.public.check_nonzero()?;
    let config = c1.kind.porep_config()?;
    with_tree!(c1.kind.sector_size, prove_tree(c1, &config, opts))
}

/// The parsed, checked pieces of a C1 output for one tree shape.
pub(crate) struct Prepared<Tree: 'static + MerkleTreeTrait> {
    pub circuits: Vec<StackedCircuit<Tree, DefaultPieceHasher>>,
    pub inputs: Vec<Vec<Fr>>,
}

/// Deserializes the vanilla proofs for `Tree`, checks them against the
/// proof type (partitions, challenges, path lengths) and builds each
/// partition's circuit and public inputs as filecoin-proofs does.
pub(crate) fn prepare<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
) -> Result<Prepared<Tree>> {
    let out: SealCommitPhase1Output<Tree> = serde_json::from_value(c1.body.clone())
        .map_err(|e| FilecoinError::BadC1(format!("{}: {e}", c1.kind.api_name())))?;
    let SealCommitPhase1Output {
        vanilla_proofs,
        comm_r,
        comm_d,
        replica_id,
        seed,
        ..
    } = out;

    let comm_r_safe = as_safe_commitment::<<Tree::Hasher as Hasher>::Domain, _>(&comm_r, "comm_r")
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
    let pp = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::setup(&setup)
    .map_err(proofs)?;

    check_vanilla_shape(
        c1,
        config,
        &vanilla_proofs,
        pp.vanilla_params.challenges.num_challenges_per_partition(),
    )?;

    let mut circuits = Vec::with_capacity(vanilla_proofs.len());
    let mut inputs = Vec::with_capacity(vanilla_proofs.len());
    for (k, vp) in vanilla_proofs.iter().enumerate() {
        circuits.push(
            StackedCompound::<Tree, DefaultPieceHasher>::circuit(
                &public_inputs,
                (),
                vp,
                &pp.vanilla_params,
                Some(k),
            )
            .map_err(proofs)?,
        );
        inputs.push(
            StackedCompound::<Tree, DefaultPieceHasher>::generate_public_inputs(
                &public_inputs,
                &pp.vanilla_params,
                Some(k),
            )
            .map_err(proofs)?,
        );
    }
    Ok(Prepared { circuits, inputs })
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

fn prove_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
    opts: &C2Options<'_>,
) -> Result<C2Output> {
    let mut timings = Timings::default();
    let params_path = locate_params(&c1.kind, &opts.param_dir)?;
    let info = Parameters::inspect(&params_path)?;
    let Prepared { circuits, inputs } = timings.time("circuits", || prepare::<Tree>(c1, config))?;
    let partitions = circuits.len();

    // Batch size from the file's counts (the domain bounds the constraint
    // count from above). No separate counting pass: on a 32 GiB partition
    // count_shape alone takes ~1 min of one core, and the full check after
    // synthesis (every count, A/B densities included) runs before the
    // parameters are loaded anyway.
    let estimate = Shape {
        num_inputs: info.ic,
        num_aux: info.l,
        num_constraints: info.domain_size(),
    };
    let batch = opts
        .partition_batch
        .unwrap_or_else(|| (opts.memory_budget / estimate.proving_bytes().max(1)).max(1))
        .clamp(1, partitions);
    let mut loaded: Option<(Parameters, cuzk_groth16::PreparedVerifyingKey)> = None;
    let mut shape = None;
    let mut proofs = Vec::with_capacity(partitions);
    let mut circuits = circuits.into_iter();
    let mut k0 = 0;
    while k0 < partitions {
        let chunk: Vec<_> = circuits.by_ref().take(batch).collect();
        let n = chunk.len();
        let pas = timings.time("synthesis", || cuzk_synth::synthesize_many(chunk))?;
        for (j, pa) in pas.into_iter().enumerate() {
            let k = k0 + j;
            check_partition(
                &params_path,
                &info,
                &pa,
                k,
                opts.check_satisfied,
                &mut timings,
            )?;
            if pa.input_assignment[1..] != inputs[k][..] {
                return Err(FilecoinError::Proofs(anyhow::anyhow!(
                    "partition {k}: the circuit's public inputs differ from generate_public_inputs"
                )));
            }
            shape.get_or_insert(pa.shape());
            if loaded.is_none() {
                let params = timings.time("load_params", || {
                    Parameters::load(&params_path, CheckMode::Trusted)
                })?;
                let pvk = params.vk.prepare();
                loaded = Some((params, pvk));
            }
            let (params, pvk) = loaded.as_ref().expect("loaded above");
            let (r, s) = (
                <Fr as ff::Field>::random(OsRng),
                <Fr as ff::Field>::random(OsRng),
            );
            let out = cuzk_groth16::prove_assignment(params, Some(pvk), pa, r, s, opts.backend)?;
            timings.merge(&out.timings);
            proofs.push(out.proof);
        }
        k0 += n;
    }
    Ok(C2Output {
        proof: Proof::many_to_bytes(&proofs),
        partitions,
        shape: shape.expect("at least one partition (checked in prepare)"),
        params_path,
        timings,
    })
}

fn check_partition(
    path: &Path,
    info: &ParamsInfo,
    pa: &ProvingAssignment,
    k: usize,
    satisfied: bool,
    timings: &mut Timings,
) -> Result<()> {
    let a = pa.num_inputs() + pa.a_aux_density.count_ones();
    let b = pa.b_input_density.count_ones() + pa.b_aux_density.count_ones();
    check_params(path, info, &pa.shape(), Some((a, b)))?;
    if satisfied {
        if let Some(constraint) = timings.time("check_satisfied", || pa.first_unsatisfied()) {
            return Err(FilecoinError::Unsatisfied {
                partition: k,
                constraint,
            });
        }
    }
    Ok(())
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

/// Synthesizes partition `k` of a C1 output alone (one partition's memory).
pub fn synthesize_partition(c1: &C1Output, k: usize) -> Result<ProvingAssignment> {
    let config = c1.kind.porep_config()?;
    with_tree!(c1.kind.sector_size, synth_one(c1, &config, k))
}

fn synth_one<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
    k: usize,
) -> Result<ProvingAssignment> {
    let p = prepare::<Tree>(c1, config)?;
    let n = p.circuits.len();
    let circuit = p.circuits.into_iter().nth(k).ok_or_else(|| {
        FilecoinError::BadC1(format!("partition {k} asked for, the C1 output has {n}"))
    })?;
    Ok(cuzk_synth::synthesize(circuit)?)
}

/// Makes filecoin-proofs read its parameters and verifying keys from `dir`.
/// Its settings are read once per process, so this must run before any
/// other filecoin-proofs call; a later call with another directory is a
/// [`FilecoinError::ParamCacheConflict`].
pub fn use_param_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| FilecoinError::file(dir, e))?;
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", dir);
    let active = PathBuf::from(&storage_proofs_core::settings::SETTINGS.parameter_cache);
    let same = match (active.canonicalize(), dir.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => active == dir,
    };
    if !same {
        return Err(FilecoinError::ParamCacheConflict {
            active,
            wanted: dir.to_path_buf(),
        });
    }
    Ok(())
}

/// Verifies a C2 proof with filecoin-proofs' own verifier (`verify_seal`),
/// reading the verifying key from `param_dir` (see [`use_param_dir`]).
/// `Ok(false)` is a proof that does not verify; malformed input is an error.
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
    // Decoding first keeps every other error (e.g. an unreadable key) an error.
    if Proof::many_from_bytes(proof).is_err() {
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
    Ok(prepare::<Tree>(c1, config)?.inputs)
}
