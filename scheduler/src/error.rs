//! Errors of the engine and of its configuration.

use std::path::PathBuf;
use std::sync::Arc;

use cuzk_groth16::Groth16Error;

impl EngineError {
    /// The typed cause of a failed partition, if a partition failed.
    pub fn partition(&self) -> Option<&PartitionError> {
        match self {
            EngineError::Partition { source, .. } => Some(source),
            _ => None,
        }
    }

    /// True when a partition or a placement failed because the device ran
    /// out of memory.
    pub fn is_out_of_memory(&self) -> bool {
        match self {
            EngineError::Partition { source, .. } => source.is_out_of_memory(),
            EngineError::Place { source, .. } => source.is_out_of_memory(),
            _ => false,
        }
    }
}

/// A configuration file that cannot be read, parsed or accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        message: String,
    },
    /// TOML syntax, an unknown key, or a value of the wrong type; the
    /// message names the key and the line.
    #[error("{origin}: {message}")]
    Parse {
        /// The file (or another name for where the text came from).
        origin: String,
        /// What is wrong, from the TOML parser.
        message: String,
    },
    /// A well-typed value that is out of range.
    #[error("[{key}]: {message}")]
    Value {
        /// `section.key`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// The stage of a partition's life an error happened in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Circuit synthesis (CPU).
    Synthesis,
    /// The backend's evaluation (NTT + MSMs: the GPU stage).
    Gpu,
    /// Adding the randomisation to the backend's results.
    Assembly,
    /// The self-check of the fresh proof.
    Verify,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::Synthesis => "synthesis",
            Stage::Gpu => "gpu",
            Stage::Assembly => "assembly",
            Stage::Verify => "verify",
        })
    }
}

/// A partition source's own error, kept whole: the caller that made the
/// source gets its typed error back with [`PartitionError::source_error`].
pub type SharedSourceError = Arc<dyn std::error::Error + Send + Sync>;

/// Why a partition failed, typed: the source's error, the prover's, or a
/// panic caught on a worker.
#[derive(Clone, Debug, thiserror::Error)]
pub enum PartitionError {
    /// The [`crate::PartitionSource`] failed (shape or synthesis).
    #[error(transparent)]
    Source(SharedSourceError),
    /// The prover (the backend's evaluation, assembly, the self-check).
    #[error(transparent)]
    Prover(Arc<Groth16Error>),
    /// A worker caught a panic (its message).
    #[error("panicked: {0}")]
    Panic(String),
}

impl PartitionError {
    /// The prover's error, if the prover failed.
    pub fn prover(&self) -> Option<&Groth16Error> {
        match self {
            PartitionError::Prover(e) => Some(e),
            _ => None,
        }
    }

    /// The source's error as its own type `T`, if the source failed with one.
    pub fn source_error<T: std::error::Error + 'static>(&self) -> Option<&T> {
        match self {
            PartitionError::Source(e) => e.downcast_ref::<T>(),
            _ => None,
        }
    }

    /// True when the device ran out of memory.
    pub fn is_out_of_memory(&self) -> bool {
        self.prover().is_some_and(Groth16Error::is_out_of_memory)
    }
}

/// Everything a job or an engine call can fail with. Cloneable so a job's
/// result can be read more than once.
#[derive(Clone, Debug, thiserror::Error)]
pub enum EngineError {
    /// Bad engine options.
    #[error("invalid engine options: {0}")]
    Options(String),
    /// A configuration problem.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The job names a circuit whose parameters were never registered.
    #[error("unknown circuit '{0}': register its parameters first")]
    UnknownCircuit(String),
    /// A job with no partitions.
    #[error("a job needs at least one partition")]
    EmptyJob,
    /// The source could not describe a partition's shape.
    #[error("partition {index}: cannot determine its shape: {source}")]
    Shape {
        /// Partition index.
        index: usize,
        /// The source's error.
        source: SharedSourceError,
    },
    /// A partition's shape does not match the registered parameters.
    #[error(
        "partition {index}: the circuit and the parameters of '{circuit}' do not match: {detail}"
    )]
    ShapeMismatch {
        /// Partition index.
        index: usize,
        /// The circuit id.
        circuit: String,
        /// What differs.
        detail: String,
    },
    /// One partition needs more memory than the whole budget: waiting would
    /// never end, so the job is refused.
    #[error("partition {index} needs {need} bytes but the memory budget is {budget} bytes; raise [memory] budget")]
    BudgetTooSmall {
        /// Partition index.
        index: usize,
        /// Bytes it would reserve.
        need: u64,
        /// The budget.
        budget: u64,
    },
    /// A parameter set in use by a job cannot be evicted or replaced.
    #[error("parameters '{0}' are in use by a job: evict or replace them once it ends")]
    InUse(String),
    /// A parameter set could not be read.
    #[error("parameters: {0}")]
    Srs(Arc<Groth16Error>),
    /// A parameter set could not be placed on a device.
    #[error("parameters: placing on {backend}: {source}")]
    Place {
        /// The backend's name.
        backend: String,
        /// Why.
        source: Arc<Groth16Error>,
    },
    /// The engine already holds `queue_capacity` unfinished jobs.
    #[error("queue full: {0} unfinished jobs (raise [daemon] queue_capacity or wait)")]
    QueueFull(usize),
    /// The job was cancelled before it finished.
    #[error("job cancelled")]
    Cancelled,
    /// The engine shut down before the job finished.
    #[error("engine shut down before the job finished")]
    ShutDown,
    /// A partition failed; the job fails as a whole.
    #[error("partition {index} failed in {stage}: {source}")]
    Partition {
        /// Partition index.
        index: usize,
        /// Where.
        stage: Stage,
        /// What happened, typed.
        source: PartitionError,
    },
}
