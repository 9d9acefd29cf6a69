//! What callers hand the engine and get back: job specs, ids, outputs and
//! per-partition times.

use crate::source::PartitionSource;
use cuzk_field::Fr;
use cuzk_groth16::{Proof, Timings};
use std::sync::Arc;
use std::time::Duration;

/// A job's identity: its submission number (starting at 0).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct JobId(pub u64);

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "job {}", self.0)
    }
}

/// What to prove: the partitions of one proof, against a registered circuit.
#[derive(Clone)]
pub struct JobSpec {
    /// Id under which the parameters were registered
    /// ([`Engine::register_circuit`]).
    pub circuit_id: String,
    /// Higher runs first; equal priorities run in submission order. A
    /// waiting job gains a level every `aging` partitions started ahead of
    /// it, so low priorities are delayed, never starved.
    pub priority: i32,
    /// The partitions.
    pub source: Arc<dyn PartitionSource>,
    /// Draw each partition's r, s from a ChaCha20 generator seeded with
    /// this, in partition order, instead of the OS generator: for tests
    /// and reproducible benchmarks only (proofs made this way are as
    /// predictable as the seed). The same seed gives the same proof bytes
    /// as `cuzk_groth16::prove_batch` with `ChaCha20Rng::seed_from_u64`.
    pub seed: Option<u64>,
    /// Verify every proof before it is returned (default). Off only for
    /// benchmarks on inputs that cannot verify (random C1 outputs); such
    /// proofs must never be handed out as valid.
    pub self_check: bool,
}

impl std::fmt::Debug for JobSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobSpec")
            .field("circuit_id", &self.circuit_id)
            .field("priority", &self.priority)
            .field("partitions", &self.source.num_partitions())
            .field("seeded", &self.seed.is_some())
            .finish()
    }
}

impl JobSpec {
    /// A job of priority 0.
    pub fn new(circuit_id: impl Into<String>, source: Arc<dyn PartitionSource>) -> Self {
        Self {
            circuit_id: circuit_id.into(),
            priority: 0,
            source,
            seed: None,
            self_check: true,
        }
    }

    /// Turns the self-check off (see [`JobSpec::self_check`]).
    pub fn without_self_check(mut self) -> Self {
        self.self_check = false;
        self
    }

    /// Seeds r, s (see [`JobSpec::seed`]).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Sets the priority.
    pub fn with_priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }
}

/// Where one partition's time went.
#[derive(Clone, Debug)]
pub struct PartitionTimes {
    /// Synthesis.
    pub synthesis: Duration,
    /// From joining the GPU queue to entering the device region.
    pub gpu_wait: Duration,
    /// The device region (the backend's `evaluate`).
    pub gpu: Duration,
    /// The backend's own stages.
    pub stages: Timings,
    /// Randomisation and compression.
    pub assembly: Duration,
    /// The self-check.
    pub verify: Duration,
    /// The device it ran on.
    pub device: u32,
}

/// A finished job: one proof per partition, in partition order, each
/// verified against the registered verifying key.
#[derive(Clone, Debug)]
pub struct JobOutput {
    /// The job.
    pub job: JobId,
    /// Proofs in partition order.
    pub proofs: Vec<Proof>,
    /// Public inputs of each partition (without the leading ONE).
    pub inputs: Vec<Vec<Fr>>,
    /// Per-partition times.
    pub partitions: Vec<PartitionTimes>,
    /// Seconds since the engine started, at submission.
    pub submitted_at: f64,
    /// Seconds since the engine started, at completion.
    pub finished_at: f64,
}

impl JobOutput {
    /// The proofs concatenated (192 bytes each), as a multi-partition
    /// Filecoin proof is stored.
    pub fn proof_bytes(&self) -> Vec<u8> {
        Proof::many_to_bytes(&self.proofs)
    }
}
