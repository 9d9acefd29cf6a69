//! The crate's one error type: every way a C2 job can fail, each with a
//! message a storage provider can act on.

use std::path::PathBuf;

/// Everything that can go wrong between a C1 output and a C2 proof.
#[derive(Debug, thiserror::Error)]
pub enum FilecoinError {
    /// The C1 file is not a C1 output we understand (bad JSON, bad base64,
    /// missing or malformed fields).
    #[error("bad C1 output: {0}")]
    BadC1(String),
    /// A prover id that is neither 64 hex digits nor a miner id.
    #[error("bad prover id {0:?}: expected 64 hex digits or a miner id like f01000")]
    BadProverId(String),
    /// The sector size is not a registered PoRep size, or two sources
    /// (the proof type, the Curio wrapper, the caller, the vanilla proofs)
    /// disagree on it.
    #[error("wrong sector size: {0}")]
    SectorSize(String),
    /// A registered proof type this crate does not prove (e.g.
    /// non-interactive PoRep, whose C2 is an aggregate).
    #[error("unsupported proof type: {0}")]
    Unsupported(String),
    /// comm_d, comm_r or the seed is all zeros: filecoin-proofs rejects these.
    #[error("invalid all-zero {0} in the C1 output")]
    ZeroCommitment(&'static str),
    /// The parameter file for this circuit is not in the parameter directory.
    #[error(
        "missing parameter file {path} (set --param-cache DIR, the config's [srs] param_cache or \
         FIL_PROOFS_PARAMETER_CACHE to the directory holding the v28 .params files)"
    )]
    MissingParams {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The parameter file exists but was made for a different circuit.
    #[error("parameter file {path} does not match the circuit: {detail}")]
    ParamsMismatch {
        /// The file.
        path: PathBuf,
        /// Which count differs.
        detail: String,
    },
    /// The vanilla proofs do not satisfy the circuit: the C1 output is
    /// corrupt, or it belongs to another sector.
    #[error(
        "partition {partition}: constraint {constraint} is not satisfied: the C1 output is \
         corrupt or inconsistent"
    )]
    Unsatisfied {
        /// Partition index.
        partition: usize,
        /// First unsatisfied constraint.
        constraint: usize,
    },
    /// A partition's synthesized public inputs differ from those
    /// filecoin-proofs derives (a circuit built differently from
    /// filecoin-proofs').
    #[error("partition {partition}: the circuit's public inputs differ from filecoin-proofs'")]
    InputsMismatch {
        /// Partition index.
        partition: usize,
    },
    /// The number of PoSt vanilla proofs does not fit the proof type.
    #[error("{kind}: {got} vanilla proof(s), expected {min}..={max}")]
    VanillaCount {
        /// The registered PoSt proof type.
        kind: String,
        /// Vanilla proofs given.
        got: usize,
        /// Fewest accepted.
        min: usize,
        /// Most accepted.
        max: usize,
    },
    /// The challenged sector set given to a PoSt verifier does not fit
    /// the proof type.
    #[error("{kind}: {got} challenged sector(s), expected {expected}")]
    SectorCount {
        /// The registered PoSt proof type.
        kind: String,
        /// Sectors given.
        got: usize,
        /// Sectors the proof type has.
        expected: usize,
    },
    /// A vanilla-proofs file that is not a JSON array of base64 strings.
    #[error("vanilla proofs: {0} (expected a JSON array of base64 strings, one bincode vanilla proof each)")]
    VanillaFormat(String),
    /// A PoSt vanilla proof that does not decode, or whose shape does not
    /// fit the proof type (challenge count, tree arity, field elements).
    #[error("vanilla proof {index}: {detail}")]
    BadVanilla {
        /// Position in the input.
        index: usize,
        /// What is wrong.
        detail: String,
    },
    /// Well-formed PoSt vanilla proofs that filecoin-proofs' vanilla
    /// verifier rejects for this randomness, prover id and sector set.
    #[error(
        "partition {partition}: the vanilla proofs do not verify for this randomness, prover id \
         and sector set (wrong randomness, or corrupt or stale vanilla proofs)"
    )]
    VanillaInvalid {
        /// Partition index.
        partition: usize,
    },
    /// The same sector twice in one PoSt.
    #[error("sector {0} appears twice")]
    DuplicateSector(u64),
    /// Randomness, prover id or a commitment that is not a canonical
    /// BLS12-381 scalar (32 little-endian bytes below the modulus; the
    /// chain clears the top two bits of randomness for this).
    #[error("{0} is not a canonical field element (32 little-endian bytes below the BLS12-381 scalar modulus)")]
    NotFieldElement(&'static str),
    /// The engine refused or failed the job (a partition's synthesis or
    /// check failed, the parameters could not be loaded, …).
    #[error(transparent)]
    Engine(#[from] cuzk_scheduler::EngineError),
    /// Some sectors of a multi-sector run failed (each was reported).
    #[error("{failed} of {total} C1 file(s) failed; first: {first}")]
    Failed {
        /// Sectors that failed.
        failed: usize,
        /// Sectors in the run.
        total: usize,
        /// The first failure, with its file.
        first: String,
    },
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The filecoin-proofs parameter cache was already set up for another
    /// directory in this process (its settings are read once).
    #[error(
        "filecoin-proofs already uses parameter cache {active}, cannot switch to {wanted} in \
         the same process"
    )]
    ParamCacheConflict {
        /// The directory filecoin-proofs reads.
        active: PathBuf,
        /// The directory asked for.
        wanted: PathBuf,
    },
    /// A native witness generator did not fill its partition's
    /// assignment as the recorded circuit lays it out.
    #[error("partition {partition}: native witness: {detail}")]
    NativeWitness {
        /// Partition index.
        partition: usize,
        /// What did not fit.
        detail: String,
    },
    /// With the witness check mode: the native witness differs from the
    /// circuit's own.
    #[error(
        "partition {partition}: the native witness differs from the circuit's at {what} {position}"
    )]
    WitnessMismatch {
        /// Partition index.
        partition: usize,
        /// `"public input"` or `"aux value"`.
        what: &'static str,
        /// The first differing position.
        position: usize,
    },
    /// An aggregation request that is malformed or out of bounds: the
    /// manifest, the sector count, a proof's length, a zero commitment.
    #[error("aggregate: {0}")]
    AggregateInput(String),
    /// A seal proof given for aggregation does not verify for its own
    /// statement (another sector's proof, a mismatched seed or ticket,
    /// corrupt bytes). Nothing is aggregated.
    #[error(
        "aggregate: sector {index} (id {sector_id}): its seal proof does not verify for its \
         comm_r, comm_d, ticket, seed, prover and sector id"
    )]
    SealInvalid {
        /// Position in the request.
        index: usize,
        /// Its sector number.
        sector_id: u64,
    },
    /// The SnarkPack prover refused its input (a count that is not a
    /// power of two, an SRS too short for it).
    #[error("aggregate: {0}")]
    Snarkpack(#[from] cuzk_snarkpack::SnarkpackError),
    /// The aggregate made failed filecoin-proofs' verification; it is not
    /// returned.
    #[error("aggregate: the aggregate failed its own verification and was not written")]
    AggregateUnverified,
    /// Circuit synthesis failed.
    #[error("synthesis failed: {0}")]
    Synthesis(#[from] bellpepper_core::SynthesisError),
    /// A recorded circuit could not be saved or used.
    #[error(transparent)]
    R1cs(#[from] cuzk_synth::compiled::StoreError),
    /// The pre-compiled path refused or failed (recording, a witness of
    /// another shape).
    #[error(transparent)]
    Compiled(#[from] cuzk_synth::compiled::CompiledError),
    /// The Groth16 layer (parameters, prover, verifier) failed.
    #[error(transparent)]
    Groth16(#[from] cuzk_groth16::Groth16Error),
    /// filecoin-proofs itself returned an error (circuit construction,
    /// sealing, verification).
    #[error("filecoin-proofs: {0:#}")]
    Proofs(anyhow::Error),
}

/// Result alias.
pub type Result<T, E = FilecoinError> = std::result::Result<T, E>;

impl FilecoinError {
    /// The error a partition's worker reported, when the engine failed the
    /// job because of it (the engine keeps it typed); else `self`. Callers
    /// match on this.
    pub fn cause(&self) -> &FilecoinError {
        match self {
            FilecoinError::Engine(e) => e
                .partition()
                .and_then(|p| p.source_error::<FilecoinError>())
                .unwrap_or(self),
            _ => self,
        }
    }

    /// An I/O error on `path`.
    pub fn file(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::File {
            path: path.into(),
            source,
        }
    }
}

/// Wraps an error from the filecoin-proofs stack.
pub(crate) fn proofs(e: anyhow::Error) -> FilecoinError {
    FilecoinError::Proofs(e)
}
