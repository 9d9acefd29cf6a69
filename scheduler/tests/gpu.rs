//! The engine on the GPU machine (`--features cuda`, run with
//! `--ignored`): the one proving path with GPU backends, the same proof
//! bytes as the CPU's `prove_batch` for seeded r, s, and N backends on the
//! one GPU (the code path of several devices).
#![cfg(feature = "cuda")]

use cuzk_groth16::gpu::GpuBackend;
use cuzk_groth16::{Backend, CpuBackend, Parameters, Placement, ProveOptions, ToxicWaste};
use cuzk_scheduler::{CircuitSource, Engine, EngineOptions, JobSpec};
use cuzk_synth::circuits::BenchCircuit;
use rand_chacha::{rand_core::SeedableRng, ChaCha20Rng};
use std::sync::Arc;

fn params_for(log: u32) -> Arc<Parameters> {
    Arc::new(
        cuzk_groth16::generate_parameters(
            BenchCircuit::new(log, 0).unwrap(),
            &ToxicWaste::from_seed(u64::from(log)),
            None,
        )
        .unwrap(),
    )
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_engine_equals_cpu_prove_batch_on_one_and_two_backends() {
    for log in [12u32, 15] {
        let params = params_for(log);
        let n = 6;
        let seed = 1000 + u64::from(log);
        let cpu = cuzk_groth16::prove_batch(
            &params,
            (0..n)
                .map(|i| BenchCircuit::new(log, 50 + i as u64).unwrap())
                .collect(),
            &CpuBackend,
            &mut ChaCha20Rng::seed_from_u64(seed),
            ProveOptions::default(),
        )
        .unwrap();
        for backends in [1usize, 2] {
            // Two backends on GPU 0 stand in for two devices: each holds
            // its own resident copy, the engine balances between them.
            let be: Vec<Arc<dyn Backend>> = (0..backends)
                .map(|_| Arc::new(GpuBackend::new(0).unwrap()) as Arc<dyn Backend>)
                .collect();
            let mut opts = EngineOptions::small(4, 2, 1 << 40);
            opts.devices = (0..backends as u32).collect();
            let e = Engine::new(opts, be).unwrap();
            let info = e.register_circuit("bench", params.clone()).unwrap();
            assert_eq!(info.placements, vec![Placement::Resident; backends]);
            assert_eq!(info.host_bytes, 0, "resident everywhere: no host copy kept");
            let src = CircuitSource::new(n, None, move |i| {
                BenchCircuit::new(log, 50 + i as u64).map_err(|e| e.to_string().into())
            });
            let out = e
                .submit(JobSpec::new("bench", Arc::new(src)).with_seed(seed))
                .unwrap()
                .wait()
                .unwrap();
            for (i, c) in cpu.iter().enumerate() {
                assert_eq!(
                    out.proofs[i].to_bytes(),
                    c.proof.to_bytes(),
                    "2^{log} backends {backends} partition {i}"
                );
            }
            let used: std::collections::HashSet<u32> =
                out.partitions.iter().map(|p| p.device).collect();
            assert_eq!(used.len(), backends, "every device took work");
            eprintln!("2^{log}: engine on {backends} GPU backend(s) == CPU prove_batch");
        }
    }
}
