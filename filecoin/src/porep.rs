//! PoRep C2 through cuzk: C1 output → one circuit per partition (built
//! exactly as filecoin-proofs' `seal_commit_phase2` builds them) → cuzk
//! synthesis and prover → the concatenated partition proofs.

use crate::c1::{format_size, C1Output, C1Public, SealProofKind};
use crate::error::{proofs, FilecoinError, Result};
use cuzk_field::Fr;
use cuzk_groth16::{CheckMode, Parameters, ParamsInfo, Proof, Timings};
use cuzk_scheduler::{Engine, JobSpec, PartitionSource, SourceError};
use cuzk_synth::{ProvingAssignment, Shape};
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::{
    as_safe_commitment, parameters::setup_params, DefaultPieceDomain, DefaultPieceHasher,
    PoRepConfig, SealCommitPhase1Output,
};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
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
}

impl<'a> C2Options<'a> {
    /// Defaults: satisfaction check on, priority 0.
    pub fn new(param_dir: PathBuf, engine: &'a Engine) -> Self {
        Self {
            param_dir,
            engine,
            check_satisfied: true,
            priority: 0,
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

/// The partitions of one C2 as a job for the engine: each partition's
/// circuit built as `seal_commit_phase2` builds it, synthesized on an
/// engine worker and checked there against the parameter file's counts,
/// the constraints (optionally) and filecoin-proofs' public inputs.
pub struct PorepSource {
    partitions: Vec<Mutex<Option<PartitionFn>>>,
    shape: Shape,
}

type PartitionFn = Box<dyn FnOnce() -> std::result::Result<ProvingAssignment, SourceError> + Send>;

impl std::fmt::Debug for PorepSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PorepSource")
            .field("partitions", &self.partitions.len())
            .field("shape", &self.shape)
            .finish()
    }
}

impl PartitionSource for PorepSource {
    fn num_partitions(&self) -> usize {
        self.partitions.len()
    }

    fn shape(&self, _index: usize) -> std::result::Result<Shape, SourceError> {
        Ok(self.shape)
    }

    fn synthesize(&self, index: usize) -> std::result::Result<ProvingAssignment, SourceError> {
        let f = self
            .partitions
            .get(index)
            .and_then(|m| m.lock().unwrap_or_else(|p| p.into_inner()).take())
            .ok_or_else(|| format!("partition {index} does not exist or was already taken"))?;
        f()
    }
}

/// A PoRep C2 ready for the engine: its source, and the parameter file
/// it must be proved with (registered in the engine under `circuit_id`).
#[derive(Debug)]
pub struct PorepJob {
    /// The partitions.
    pub source: Arc<PorepSource>,
    /// The `.params` file.
    pub params_path: PathBuf,
    /// The engine's id for that file (its standard name).
    pub circuit_id: String,
}

/// Builds the job of a C1 output without proving it. With `checks`,
/// each synthesized partition is checked on its worker: every constraint
/// satisfied, and its public inputs equal to what filecoin-proofs derives.
/// Without (random C1 outputs for benchmarks, whose vanilla proofs match
/// neither), only the parameter file's counts are checked.
pub fn porep_job(c1: &C1Output, param_dir: &Path, checks: bool) -> Result<PorepJob> {
    c1.public.check_nonzero()?;
    let config = c1.kind.porep_config()?;
    with_tree!(
        c1.kind.sector_size,
        job_tree(c1, &config, param_dir, checks)
    )
}

fn job_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
    param_dir: &Path,
    checks: bool,
) -> Result<PorepJob> {
    let params_path = locate_params(&c1.kind, param_dir)?;
    let info = Arc::new(Parameters::inspect(&params_path)?);
    let Prepared { circuits, inputs } = prepare::<Tree>(c1, config)?;
    // A file of another circuit under the right name is caught here, before
    // any synthesis, by its public-input count (the rest of the shape is
    // checked after each partition's synthesis).
    if let Some(want) = inputs.first() {
        if want.len() + 1 != info.ic {
            return Err(FilecoinError::ParamsMismatch {
                path: params_path,
                detail: format!(
                    "the circuit has {} public inputs, the file has {}",
                    want.len(),
                    info.ic.saturating_sub(1)
                ),
            });
        }
    }
    // The file's counts bound the partition's shape (the domain bounds the
    // constraint count from above), so no counting pass: on a 32 GiB
    // partition count_shape alone takes ~1 min of one core. The full check
    // (every count, A/B densities) runs after synthesis, on the worker.
    let shape = Shape {
        num_inputs: info.ic,
        num_aux: info.l,
        num_constraints: info.domain_size(),
    };
    let partitions = circuits
        .into_iter()
        .zip(inputs)
        .enumerate()
        .map(|(k, (circuit, want))| {
            let (info, path) = (Arc::clone(&info), params_path.clone());
            let f: PartitionFn = Box::new(move || {
                let pa = cuzk_synth::synthesize_with_hint(circuit, shape)?;
                let mut t = Timings::default();
                check_partition(&path, &info, &pa, k, checks, &mut t)?;
                if checks && pa.input_assignment.get(1..) != Some(&want[..]) {
                    return Err(format!(
                        "partition {k}: the circuit's public inputs differ from generate_public_inputs"
                    )
                    .into());
                }
                Ok(pa)
            });
            Mutex::new(Some(f))
        })
        .collect();
    let circuit_id = params_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| params_path.display().to_string());
    Ok(PorepJob {
        source: Arc::new(PorepSource { partitions, shape }),
        params_path,
        circuit_id,
    })
}

/// Proves a C1 output: the C2 step, as one job of the engine (its
/// parameters loaded once per engine). Every partition proof is
/// self-checked by the engine against the public inputs filecoin-proofs
/// derives for it before it is returned.
pub fn prove_c2(c1: &C1Output, opts: &C2Options<'_>) -> Result<C2Output> {
    let job = porep_job(c1, &opts.param_dir, opts.check_satisfied)?;
    let mut timings = Timings::default();
    let t = std::time::Instant::now();
    opts.engine
        .load_circuit(
            &job.circuit_id,
            &job.params_path,
            CheckMode::Trusted,
            &|_, _| {},
        )
        .map_err(FilecoinError::Engine)?;
    timings.add("load_params", t.elapsed());
    let partitions = job.source.num_partitions();
    let shape = job.source.shape;
    let out = opts
        .engine
        .submit_blocking(
            JobSpec::new(job.circuit_id.clone(), job.source).with_priority(opts.priority),
        )
        .and_then(|h| h.wait())
        .map_err(FilecoinError::Engine)?;
    for p in &out.partitions {
        timings.add("synthesis", p.synthesis);
        timings.merge(&p.stages);
        timings.add("epilogue", p.assembly);
        timings.add("verify", p.verify);
    }
    Ok(C2Output {
        proof: out.proof_bytes(),
        partitions,
        shape,
        params_path: job.params_path,
        timings,
    })
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
