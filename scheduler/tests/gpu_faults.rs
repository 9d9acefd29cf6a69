//! Faults on the device path, on the GPU machine (`--features cuda`, run
//! with `--ignored`; the bundle runs GPU test binaries one test at a time,
//! which these need: `cuzk_gpu::fault`'s counters are process-wide).
//!
//! For each injected fault (an allocation, a copy or a kernel launch that
//! fails, an MSM result that is wrong), at the first and at a later
//! operation of its kind inside a job, and for a real out-of-memory (the
//! device filled by another buffer), the engine on a `GpuBackend` must:
//! fail the job with a clear error naming the partition and stage (or
//! retry it into proofs that verify), never return a proof that does not
//! verify, give the device memory back, and prove the next job.
#![cfg(feature = "cuda")]

use cuzk_gpu::fault::{self, Fault};
use cuzk_gpu::{Device, DeviceBuffer, GpuError};
use cuzk_groth16::gpu::GpuBackend;
use cuzk_groth16::{Backend, Groth16Error, Parameters, ToxicWaste};
use cuzk_scheduler::{
    CircuitSource, Engine, EngineError, EngineOptions, JobOutput, JobSpec, Stage,
};
use cuzk_synth::circuits::BenchCircuit;
use std::sync::Arc;

/// 2^16: every buffer of a partition is at least 2 MiB (one allocation
/// granule), so a leaked one shows in the device's free memory.
const LOG: u32 = 16;
/// Free device memory may differ by this much from the baseline after a
/// failure (allocation granularity of the stream-ordered pool).
const SLACK: u64 = 4 << 20;

fn run(e: &Engine, seed: u64) -> Result<JobOutput, EngineError> {
    let src = CircuitSource::new(2, None, move |i| {
        BenchCircuit::new(LOG, seed + i as u64).map_err(|e| e.to_string().into())
    });
    e.submit(JobSpec::new("bench", Arc::new(src)).with_seed(seed))?
        .wait()
}

/// Every proof of `out` verifies against `params`, checked outside the
/// engine.
fn all_verify(params: &Parameters, out: &JobOutput) -> bool {
    let pvk = params.vk.prepare();
    out.proofs
        .iter()
        .zip(&out.inputs)
        .all(|(p, i)| cuzk_groth16::verify_proof(&pvk, p, i).unwrap_or(false))
}

fn free_bytes(dev: &Device) -> u64 {
    dev.mem_info().unwrap().0
}

/// The device has as much free memory as at `baseline` (within SLACK).
fn assert_returned(what: &str, dev: &Device, baseline: u64) {
    let free = free_bytes(dev);
    eprintln!("{what}: {} MiB free after the next job", free >> 20);
    assert!(
        free + SLACK >= baseline,
        "{what}: {} MiB of device memory not returned",
        (baseline - free) >> 20
    );
}

/// `check_outcome`'s needle for a typed out-of-memory.
const OUT_OF_MEMORY: &str = "<typed out-of-memory>";

/// The job after a fault: an error from the stage the fault belongs to,
/// or (a retry) proofs that verify.
fn check_outcome(
    what: &str,
    params: &Parameters,
    r: Result<JobOutput, EngineError>,
    expect: Stage,
    needle: &str,
) {
    match r {
        Err(EngineError::Partition { stage, source, .. }) => {
            let message = source.to_string();
            eprintln!("{what}: failed in {stage}: {message}");
            assert_eq!(stage, expect, "{what}: {message}");
            match needle {
                // An allocation fault is the typed out-of-memory a caller
                // matches, from the engine down to the GPU runtime.
                OUT_OF_MEMORY => assert!(
                    matches!(
                        source.prover(),
                        Some(Groth16Error::Gpu(GpuError::OutOfMemory { .. }))
                    ),
                    "{what}: not a typed out-of-memory: {source:?}"
                ),
                _ => assert!(message.contains(needle), "{what}: {message}"),
            }
        }
        Err(other) => panic!("{what}: unexpected error {other}"),
        Ok(out) => {
            eprintln!("{what}: retried into {} proofs", out.proofs.len());
            assert!(
                all_verify(params, &out),
                "{what}: a proof that does not verify"
            );
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn device_faults_fail_their_job_cleanly_and_the_engine_keeps_serving() {
    fault::disarm_all();
    let dev = Device::new(0).unwrap();
    let params = Arc::new(
        cuzk_groth16::generate_parameters(
            BenchCircuit::new(LOG, 0).unwrap(),
            &ToxicWaste::from_seed(7),
            None,
        )
        .unwrap(),
    );
    let backend: Arc<dyn Backend> = Arc::new(GpuBackend::new(0).unwrap());
    let e = Engine::new(EngineOptions::small(2, 1, 1 << 40), vec![backend]).unwrap();
    e.register_circuit("bench", params.clone()).unwrap();
    // Warm-up: buffers a backend keeps between partitions exist from here.
    let out = run(&e, 100).unwrap();
    assert!(all_verify(&params, &out));
    let baseline = free_bytes(&dev);
    eprintln!("baseline: {} MiB free", baseline >> 20);

    let mut seed = 200;
    for kind in Fault::ALL {
        for nth in [1u64, 3] {
            let what = format!("{kind:?} at operation {nth}");
            let before = fault::fired(kind);
            fault::arm(kind, nth);
            let r = run(&e, seed);
            fault::disarm_all();
            assert_eq!(
                fault::fired(kind),
                before + 1,
                "{what}: the job never reached it"
            );
            let (stage, needle) = match kind {
                Fault::CorruptMsm => (Stage::Verify, "self-check"),
                Fault::Alloc => (Stage::Gpu, OUT_OF_MEMORY),
                _ => (Stage::Gpu, "injected"),
            };
            check_outcome(&what, &params, r, stage, needle);
            let out = run(&e, seed + 50).unwrap_or_else(|e| panic!("{what}: next job: {e}"));
            assert!(all_verify(&params, &out), "{what}: next job");
            assert_returned(&what, &dev, baseline);
            seed += 100;
        }
    }

    // A real out-of-memory: another buffer takes all but 8 MiB, so the
    // partition's own allocations fail inside the runtime (and inside the
    // MSM pipeline's stream-ordered allocations).
    let hog_bytes = free_bytes(&dev).saturating_sub(8 << 20) as usize;
    let hog = DeviceBuffer::<u8>::alloc(&dev, hog_bytes).unwrap();
    let r = run(&e, 900);
    match &r {
        Err(e @ EngineError::Partition { stage, source, .. }) => {
            eprintln!("real OOM: failed in {stage}: {source}");
            assert!(e.is_out_of_memory(), "real OOM: not typed: {source:?}");
        }
        Err(other) => panic!("real OOM: unexpected error {other}"),
        Ok(out) => assert!(all_verify(&params, out), "real OOM: wrong proof"),
    }
    drop(hog);
    let out = run(&e, 950).unwrap();
    assert!(all_verify(&params, &out), "after the real OOM");
    assert_returned("real OOM", &dev, baseline);
}
