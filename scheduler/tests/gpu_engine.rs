//! The engine on the GPU with deferred partitions (witness only, a
//! recorded circuit): witnesses are written into the GPU backend's
//! page-locked pool and read by DMA; the proofs are the CPU engine's, byte
//! for byte, for the same seed; and a backend whose memory limit streams
//! the bases gives the same bytes again.
//!
//! Needs an NVIDIA GPU: `#[ignore]`d; the bundle runs it with
//! `--include-ignored`.
#![cfg(feature = "cuda")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cuzk_field::FrAlloc;
use cuzk_groth16::gpu::GpuBackend;
use cuzk_groth16::{Backend, CpuBackend, Parameters, ToxicWaste};
use cuzk_scheduler::{Engine, EngineOptions, JobOutput, JobSpec, PartitionSource, SourceError};
use cuzk_synth::circuits::BenchCircuit;
use cuzk_synth::compiled::CompiledR1cs;
use cuzk_synth::{ProvingAssignment, Shape};

const LOG: u32 = 16;

/// Deferred partitions of the bench circuit, counting the witnesses that
/// landed in page-locked pooled memory.
struct Deferred {
    rec: Arc<CompiledR1cs>,
    seed: u64,
    parts: usize,
    page_locked: AtomicUsize,
}

impl PartitionSource for Deferred {
    fn num_partitions(&self) -> usize {
        self.parts
    }
    fn shape(&self, _: usize) -> Result<Shape, SourceError> {
        Ok(self.rec.shape())
    }
    fn synthesize(&self, i: usize) -> Result<ProvingAssignment, SourceError> {
        self.synthesize_in(i, None)
    }
    fn synthesize_in(
        &self,
        i: usize,
        alloc: Option<&dyn FrAlloc>,
    ) -> Result<ProvingAssignment, SourceError> {
        let c = BenchCircuit::new(LOG, self.seed + i as u64).map_err(|e| e.to_string())?;
        let pa = self.rec.synthesize_deferred_in(c, alloc)?;
        if pa.aux_assignment.is_page_locked() {
            self.page_locked.fetch_add(1, Ordering::Relaxed);
        }
        Ok(pa)
    }
    fn record(&self) -> Option<Arc<CompiledR1cs>> {
        Some(self.rec.clone())
    }
}

fn prove(
    backend: Arc<dyn Backend>,
    params: &Arc<Parameters>,
    rec: &Arc<CompiledR1cs>,
) -> (JobOutput, usize) {
    let e = Engine::new(EngineOptions::small(2, 2, 1 << 40), vec![backend]).unwrap();
    e.register_circuit("bench", params.clone()).unwrap();
    let src = Arc::new(Deferred {
        rec: rec.clone(),
        seed: 40,
        parts: 3,
        page_locked: AtomicUsize::new(0),
    });
    let out = e
        .submit(JobSpec::new("bench", src.clone()).with_seed(7))
        .unwrap()
        .wait()
        .unwrap();
    (out, src.page_locked.load(Ordering::Relaxed))
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn deferred_witnesses_by_dma_give_the_cpu_engines_proofs() {
    let params = Arc::new(
        cuzk_groth16::generate_parameters(
            BenchCircuit::new(LOG, 0).unwrap(),
            &ToxicWaste::from_seed(3),
            None,
        )
        .unwrap(),
    );
    let rec = Arc::new(CompiledR1cs::record(BenchCircuit::new(LOG, 0).unwrap()).unwrap());
    let (cpu, pooled_cpu) = prove(Arc::new(CpuBackend), &params, &rec);
    assert_eq!(pooled_cpu, 0, "the CPU backend has no page-locked pool");
    let (gpu, pooled) = prove(Arc::new(GpuBackend::new(0).unwrap()), &params, &rec);
    assert_eq!(pooled, 3, "every witness written into page-locked memory");
    let bytes = |o: &JobOutput| o.proofs.iter().map(|p| p.to_bytes()).collect::<Vec<_>>();
    assert_eq!(bytes(&gpu), bytes(&cpu), "GPU (DMA witness) != CPU");
    // Streamed: a limit well below the bases (a, b, c wherever the plan
    // admits them).
    let limit = cuzk_groth16::gpu::streamed_bytes(&params) + (16 << 20);
    let small = GpuBackend::with_memory_limit(0, Some(limit)).unwrap();
    let (streamed, _) = prove(Arc::new(small), &params, &rec);
    assert_eq!(bytes(&streamed), bytes(&cpu), "GPU (streamed) != CPU");
    let pvk = params.vk.prepare();
    for (p, i) in gpu.proofs.iter().zip(&gpu.inputs) {
        assert!(cuzk_groth16::verify_proof(&pvk, p, i).unwrap());
    }
    eprintln!("2^{LOG}: DMA witnesses and streamed bases give the CPU's proof bytes");
}
