//! One `.params` file per circuit and size, shared by both sides:
//! `DIR/<circuit>-<log>.params` (`bench-24.params`, `sha-24.params`), found
//! or generated (seeded test setup, bellperson's byte format) by the
//! workspace's one test-parameter cache
//! (`cuzk_scheduler::params::ensure_test_params`).

use anyhow::{Context, Result};
use cuzk_groth16::{Parameters, ToxicWaste};
use cuzk_scheduler::params::{ensure_test_params, TestParams};
use cuzk_synth::circuits::BenchCircuit;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// Which circuit both sides prove.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Circuit {
    /// `BenchCircuit::new`: the SHA-256 chain plus field-arithmetic filler
    /// that fills the domain exactly.
    Bench,
    /// `BenchCircuit::sha_only`: the SHA-256 chain alone (no filler; from
    /// 2^15).
    Sha,
}

impl Circuit {
    /// Circuit `seed` of `2^log` constraints.
    pub fn make(self, log: u32, seed: u64) -> Result<BenchCircuit> {
        match self {
            Circuit::Bench => BenchCircuit::new(log, seed).context("bench circuit"),
            Circuit::Sha => BenchCircuit::sha_only(log, seed).context("SHA-256-only circuit"),
        }
    }

    /// The parameter file's stem.
    pub fn name(self) -> &'static str {
        match self {
            Circuit::Bench => "bench",
            Circuit::Sha => "sha",
        }
    }
}

/// `DIR/<circuit>-<log>.params`.
pub fn path_for(dir: &Path, kind: Circuit, log_size: u32) -> PathBuf {
    dir.join(format!("{}-{log_size}.params", kind.name()))
}

/// Returns the parameter file for `circuit` (`2^log_size` constraints),
/// generating and saving it first if it is absent or does not fit the
/// circuit's shape (header counts only).
pub fn ensure(
    dir: &Path,
    kind: Circuit,
    log_size: u32,
    circuit: BenchCircuit,
    setup_seed: u64,
) -> Result<PathBuf> {
    let path = path_for(dir, kind, log_size);
    let t = Instant::now();
    let made = ensure_test_params(&path, &circuit.expected_shape(), |unfit| {
        match unfit {
            None => eprintln!("params: {} not found", path.display()),
            Some(why) => eprintln!("params: {} does not fit ({why})", path.display()),
        }
        eprintln!("params: generating (seeded test setup, seed {setup_seed})");
        generate(circuit, setup_seed)
    })?;
    match made {
        TestParams::Cached => eprintln!("params: using {}", path.display()),
        _ => eprintln!(
            "params: generated and saved in {:.1} s",
            t.elapsed().as_secs_f64()
        ),
    }
    Ok(path)
}

/// Seeded test setup: fixed-base multiplications on GPU 0 with `cuda` (the
/// CPU setup takes minutes from 2^22 on; both give the same parameters).
fn generate(circuit: BenchCircuit, setup_seed: u64) -> Result<Parameters> {
    let last: Mutex<Option<&'static str>> = Mutex::new(None);
    let start = Instant::now();
    // A stage's first report comes after its first chunk: the times printed
    // are when each stage had made its first progress.
    let progress = |stage: &'static str, _done: usize, total: usize| {
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        if *last != Some(stage) {
            eprintln!(
                "params:   {stage} ({total} items), at {:.1} s",
                start.elapsed().as_secs_f64()
            );
            *last = Some(stage);
        }
    };
    let toxic = ToxicWaste::from_seed(setup_seed);
    #[cfg(feature = "cuda")]
    if cuzk_gpu_present() {
        return cuzk_groth16::setup::generate_parameters_gpu(circuit, &toxic, Some(&progress), 0)
            .context("generating parameters on the GPU");
    }
    cuzk_groth16::generate_parameters(circuit, &toxic, Some(&progress))
        .context("generating parameters")
}

#[cfg(feature = "cuda")]
fn cuzk_gpu_present() -> bool {
    cuzk_groth16::gpu::GpuBackend::new(0).is_ok()
}
