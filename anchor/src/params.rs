//! One `.params` file per circuit and size, shared by both sides:
//! `DIR/<circuit>-<log>.params` (`bench-24.params`, `sha-24.params`), found
//! or generated (seeded test setup, bellperson's byte format).

use anyhow::{bail, Context, Result};
use cuzk_groth16::{Parameters, ToxicWaste};
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
/// generating and saving it first if it does not exist. An existing file is
/// checked against the circuit's shape (header counts only), so a stale or
/// foreign file is a clear error rather than a proof that fails to verify.
pub fn ensure(
    dir: &Path,
    kind: Circuit,
    log_size: u32,
    circuit: BenchCircuit,
    setup_seed: u64,
) -> Result<PathBuf> {
    let path = path_for(dir, kind, log_size);
    if path.exists() {
        check(&path, log_size, circuit)?;
        eprintln!("params: using {}", path.display());
        return Ok(path);
    }
    eprintln!(
        "params: {} not found, generating (seeded test setup, seed {setup_seed})",
        path.display()
    );
    let t = Instant::now();
    let params = generate(circuit, setup_seed)?;
    eprintln!(
        "params: generated in {:.1} s, saving",
        t.elapsed().as_secs_f64()
    );
    params
        .save(&path)
        .with_context(|| format!("saving {}", path.display()))?;
    check(&path, log_size, circuit)?;
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

/// Compares the file's section counts with the circuit's shape.
fn check(path: &Path, log_size: u32, circuit: BenchCircuit) -> Result<()> {
    let info = Parameters::inspect(path).with_context(|| format!("reading {}", path.display()))?;
    let shape = circuit.expected_shape();
    let want_h = shape.num_constraints.next_power_of_two() - 1;
    if info.ic != shape.num_inputs || info.h != want_h || info.l != shape.num_aux {
        bail!(
            "{} does not fit the circuit of 2^{} constraints: file has {} inputs, {} H and {} L points, \
             the circuit needs {}, {} and {} (delete the file to regenerate it)",
            path.display(),
            log_size,
            info.ic,
            info.h,
            info.l,
            shape.num_inputs,
            want_h,
            shape.num_aux
        );
    }
    Ok(())
}

#[cfg(feature = "cuda")]
fn cuzk_gpu_present() -> bool {
    cuzk_groth16::gpu::GpuBackend::new(0).is_ok()
}
