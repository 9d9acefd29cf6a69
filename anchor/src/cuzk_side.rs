//! Our side: cuzk's synthesis and `cuzk_groth16::gpu::GpuBackend`, with the
//! parameters resident on the device.

use crate::measure::Measured;
use crate::referee::Referee;
use anyhow::{Context, Result};
use cuzk_groth16::gpu::{GpuBackend, Residency};
use cuzk_groth16::{prove_batch, CheckMode, Parameters, ProveOptions};
use cuzk_synth::circuits::BenchCircuit;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Parameters decoded in host memory and preloaded onto one GPU.
#[derive(Debug)]
pub struct Cuzk {
    params: Arc<Parameters>,
    backend: GpuBackend,
}

impl Cuzk {
    fn backend_pipelined(&self) -> bool {
        use cuzk_groth16::Backend;
        self.backend.pipeline_depth(&self.params) > 1
    }

    /// Loads the `.params` file (encoding checks only: the file is ours and
    /// every proof is self-checked) and uploads the bases to GPU `ordinal`.
    pub fn load(path: &Path, ordinal: usize) -> Result<Self> {
        let params = Arc::new(
            Parameters::load(path, CheckMode::Trusted)
                .with_context(|| format!("cuzk loading {}", path.display()))?,
        );
        let backend = GpuBackend::new(ordinal).with_context(|| format!("cuzk GPU {ordinal}"))?;
        // Resident, not Auto: the comparison is meant with the bases on the
        // device; if they do not fit, say so rather than measure streaming.
        backend
            .preload(&params, Residency::Resident)
            .context("cuzk uploading the parameters to the GPU")?;
        Ok(Self { params, backend })
    }

    /// Proves `circuits` in one `prove_batch` call (synthesis of all, then
    /// each through the GPU backend, each proof self-checked) and checks
    /// every proof again with bellperson's verifier.
    pub fn prove(&self, circuits: Vec<BenchCircuit>, referee: &Referee) -> Result<Measured> {
        let batch = circuits.len();
        let mut rng = rand::rngs::OsRng;
        let start = Instant::now();
        let outs = prove_batch(
            &self.params,
            circuits,
            &self.backend,
            &mut rng,
            ProveOptions::default(),
        )
        .context("cuzk prover")?;
        let wall = start.elapsed();
        let stage = |t: &cuzk_groth16::Timings, name: &str| -> Duration {
            t.stages()
                .iter()
                .filter(|(s, _)| *s == name)
                .map(|(_, d)| *d)
                .sum()
        };
        let (mut synth, mut self_check) = (Duration::ZERO, Duration::ZERO);
        let mut verified = outs.len() == batch;
        if let Some(first) = outs.first() {
            // Where the GPU phase goes, for the log (the record keeps totals).
            let parts: Vec<String> = first
                .timings
                .stages()
                .iter()
                .map(|(s, d)| format!("{s} {:.1}", d.as_secs_f64() * 1e3))
                .collect();
            eprintln!(
                "cuzk stages (ms, first proof of {batch}): {}",
                parts.join(", ")
            );
        }
        let mut gpu_sum = Duration::ZERO;
        for out in &outs {
            let s = stage(&out.timings, "synthesis");
            let v = stage(&out.timings, "verify");
            synth += s;
            self_check += v;
            // Backend stages (ntt_h, msm_*) plus the epilogue.
            gpu_sum += out.timings.total().saturating_sub(s + v);
            verified &= referee.verify_bytes(&out.proof.to_bytes(), &out.inputs)?;
        }
        // A pipelined batch (GpuBackend::pipeline_depth 2) overlaps one
        // partition's H step with the previous one's MSMs, so per-proof
        // stage times overlap too: the GPU phase is the batch's wall time
        // after synthesis, less the self-checks (~2 ms each; they may
        // overlap, which can only under-count cuzk's phase by that much).
        // Sequential runs give the same number as the sum.
        let gpu = if self.backend_pipelined() {
            wall.saturating_sub(synth + self_check)
        } else {
            gpu_sum
        };
        Ok(Measured {
            batch,
            wall,
            synth,
            gpu: Some(gpu),
            self_check,
            verified,
        })
    }
}
