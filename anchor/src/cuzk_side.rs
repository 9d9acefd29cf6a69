//! Our side: cuzk's synthesis and `cuzk_groth16::gpu::GpuBackend`, with the
//! parameters resident on the device.

use crate::measure::Measured;
use crate::referee::Referee;
use anyhow::{Context, Result};
use cuzk_groth16::gpu::{GpuBackend, Residency};
use cuzk_groth16::{Backend, CheckMode, Parameters};
use cuzk_scheduler::{write_json_lines, AssignmentSource, Engine, EngineOptions, JobSpec};
use cuzk_synth::circuits::BenchCircuit;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The engine on one GPU with the parameters resident on the device.
#[derive(Debug)]
pub struct Cuzk {
    engine: Engine,
    shape: cuzk_synth::Shape,
    /// Where each call's timeline events are appended.
    timeline: Option<PathBuf>,
}

const ID: &str = "anchor";

impl Cuzk {
    /// Loads the `.params` file (encoding checks only: the file is ours and
    /// every proof is self-checked) into an engine on GPU `ordinal` with
    /// `gw` GPU workers, the bases resident there; with `timeline`, every
    /// call appends the engine's events to that file.
    pub fn load(path: &Path, ordinal: usize, gw: usize, timeline: Option<PathBuf>) -> Result<Self> {
        // Resident, not Auto: the comparison is meant with the bases on the
        // device; if they do not fit, say so rather than measure streaming.
        let backend = Arc::new(
            GpuBackend::new(ordinal)
                .with_context(|| format!("cuzk GPU {ordinal}"))?
                .with_residency(Residency::Resident),
        );
        let mut opts = EngineOptions::small(1, gw, u64::MAX / 4);
        opts.devices = vec![ordinal as u32];
        opts.timeline = timeline.is_some();
        let engine = Engine::new(opts, vec![Arc::clone(&backend) as Arc<dyn Backend>])?;
        let info = engine
            .load_circuit(ID, path, CheckMode::Trusted, &|_, _| {})
            .with_context(|| format!("cuzk loading {}", path.display()))?;
        eprintln!(
            "cuzk: parameters loaded and placed in {:.1} s; H bases: {}",
            info.load_s,
            backend.h_copies().map_or("plain".to_string(), |p| format!(
                "{} shifted copies at c = {} ({} bucket windows)",
                p.copies,
                p.window,
                p.bucket_windows()
            ))
        );
        let p = Parameters::inspect(path)?;
        let shape = cuzk_synth::Shape {
            num_inputs: p.ic,
            num_aux: p.l,
            num_constraints: p.domain_size(),
        };
        if let Some(p) = &timeline {
            // One file per run: the calls of this run append to it.
            std::fs::write(p, "").with_context(|| format!("creating {}", p.display()))?;
        }
        Ok(Self {
            engine,
            shape,
            timeline,
        })
    }

    /// Synthesizes `circuits`, then proves them as one engine job (one
    /// partition each, two GPU workers, so one partition's H step overlaps
    /// the previous one's MSMs; every proof self-checked) and checks every
    /// proof again with bellperson's verifier.
    pub fn prove(&self, circuits: Vec<BenchCircuit>, referee: &Referee) -> Result<Measured> {
        let batch = circuits.len();
        let start = Instant::now();
        let pas = cuzk_synth::synthesize_many_with_hint(circuits, self.shape)
            .context("cuzk synthesis")?;
        let synth = start.elapsed();
        let t = Instant::now();
        let out = self
            .engine
            .submit(JobSpec::new(ID, Arc::new(AssignmentSource::new(pas))))
            .and_then(|h| h.wait())
            .context("cuzk prover")?;
        let gpu_wall = t.elapsed();
        let wall = start.elapsed();
        if let Some(p) = &self.timeline {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(p)
                .with_context(|| format!("opening {}", p.display()))?;
            write_json_lines(&self.engine.take_timeline(), &mut f)
                .with_context(|| format!("writing {}", p.display()))?;
        }
        if let Some(first) = out.partitions.first() {
            // Where the GPU phase goes, for the log (the record keeps totals).
            let parts: Vec<String> = first
                .stages
                .stages()
                .iter()
                .map(|(s, d)| format!("{s} {:.1}", d.as_secs_f64() * 1e3))
                .collect();
            eprintln!(
                "cuzk stages (ms, first proof of {batch}): {}",
                parts.join(", ")
            );
            // The engine's own account of the same partition: what the
            // device region holds beyond the stages (freeing the
            // assignment, classification, launches), and what the job
            // spends outside it (queueing, assembly, the self-check).
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            eprintln!(
                "cuzk partition (ms, first proof of {batch}): gpu_wait {:.1}, evaluate {:.1} \
                 (stages {:.1}, outside them {:.1}), assembly {:.1}, self-check {:.1}; \
                 job after synthesis {:.1}",
                ms(first.gpu_wait),
                ms(first.gpu),
                ms(first.stages.total()),
                ms(first.gpu.saturating_sub(first.stages.total())),
                ms(first.assembly),
                ms(first.verify),
                ms(gpu_wall),
            );
        }
        let self_check: Duration = out.partitions.iter().map(|p| p.verify).sum();
        let mut verified = out.proofs.len() == batch;
        for (proof, inputs) in out.proofs.iter().zip(&out.inputs) {
            verified &= referee.verify_bytes(&proof.to_bytes(), inputs)?;
        }
        // Partitions overlap on the device, so the GPU phase is the job's
        // wall time after synthesis, less the self-checks (~2 ms each; they
        // may overlap, which can only under-count cuzk's phase by that much).
        let gpu = gpu_wall.saturating_sub(self_check);
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
