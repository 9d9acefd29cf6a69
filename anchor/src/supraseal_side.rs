//! The reference: bellperson 0.26 with `cuda-supraseal`, i.e. bellperson's
//! synthesis followed by supraseal-c2's GPU prover (NTT, MSMs, epilogue).

use crate::logger;
use crate::measure::Measured;
use crate::referee::Referee;
use anyhow::{anyhow, Context, Result};
use bellperson::groth16::{create_random_proof_batch, SuprasealParameters};
use blstrs::Bls12;
use cuzk_synth::circuits::BenchCircuit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

/// supraseal-c2's SRS, read from the `.params` file into pinned host memory
/// (it streams the bases to the GPU on every proof; nothing stays resident).
pub struct Supraseal {
    params: SuprasealParameters<Bls12>,
}

impl std::fmt::Debug for Supraseal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Supraseal")
    }
}

impl Supraseal {
    /// Loads the SRS. supraseal-c2 finishes reading the points in a
    /// background thread, which the first proof waits for: warm up before
    /// measuring.
    pub fn load(path: &Path) -> Result<Self> {
        let params = SuprasealParameters::<Bls12>::new(path.to_path_buf())
            .with_context(|| format!("supraseal-c2 loading {}", path.display()))?;
        Ok(Self { params })
    }

    /// Proves `circuits` in one `create_random_proof_batch` call and checks
    /// every proof with bellperson's verifier.
    pub fn prove(&self, circuits: Vec<BenchCircuit>, referee: &Referee) -> Result<Measured> {
        let batch = circuits.len();
        let inputs: Vec<_> = circuits.iter().map(|c| c.public_inputs()).collect();
        let mut rng = rand::rngs::OsRng;
        logger::clear_handoff();
        let start = Instant::now();
        // supraseal-c2 panics on CUDA errors and bellperson asserts on
        // malformed batches; turn both into an error for this record.
        let proofs = catch_unwind(AssertUnwindSafe(|| {
            create_random_proof_batch(circuits, &self.params, &mut rng)
        }))
        .map_err(|p| {
            anyhow!(
                "supraseal prover panicked: {}",
                cuzk_groth16::panic_message(&*p)
            )
        })?
        .context("bellperson/supraseal prover")?;
        let end = Instant::now();
        let wall = end - start;
        let handoff = logger::take_handoff().filter(|t| *t >= start && *t <= end);
        if handoff.is_none() {
            eprintln!(
                "supraseal: bellperson's \"starting proof timer\" log line was not seen; \
                 GPU phase not separated from synthesis"
            );
        }
        let mut verified = proofs.len() == batch;
        for (proof, inputs) in proofs.iter().zip(&inputs) {
            verified &= referee.verify(proof, inputs)?;
        }
        Ok(Measured {
            batch,
            wall,
            synth: handoff.map_or(wall, |t| t - start),
            gpu: handoff.map(|t| end - t),
            self_check: Duration::ZERO,
            verified,
        })
    }
}
