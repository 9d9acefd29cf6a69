//! Shared test fixtures: TinyCircuit parameters generated once per test
//! binary, sources with injectable failures, backends that fail on purpose.
#![allow(dead_code)]

use cuzk_field::{Field, Fr, FrAlloc, G1Projective, Group};
use cuzk_groth16::{
    Backend, CpuBackend, Groth16Error, Parameters, ProofParts, Timings, ToxicWaste,
};
use cuzk_scheduler::{CircuitSource, Engine, EngineOptions, JobSpec, PartitionSource};
use cuzk_synth::circuits::TinyCircuit;
use cuzk_synth::compiled::CompiledR1cs;
use cuzk_synth::{Circuit, ConstraintSystem, ProvingAssignment, Shape, SynthesisError};
use rand_chacha::{rand_core::SeedableRng, ChaCha8Rng};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

pub const CHAIN: usize = 6;

/// The witness of partition `i` of job seed `job`: distinct per (job, i).
pub fn tiny(job: u64, i: usize) -> TinyCircuit {
    let mut rng = ChaCha8Rng::seed_from_u64(job * 1000 + i as u64);
    TinyCircuit {
        x: Fr::random(&mut rng),
        y: Fr::random(&mut rng),
        chain: CHAIN,
    }
}

/// The public input partition `i` of job seed `job` must produce.
pub fn expected_input(job: u64, i: usize) -> Fr {
    let c = tiny(job, i);
    c.x * c.y
}

pub fn params() -> Arc<Parameters> {
    static P: OnceLock<Arc<Parameters>> = OnceLock::new();
    P.get_or_init(|| {
        Arc::new(
            cuzk_groth16::generate_parameters(tiny(0, 0), &ToxicWaste::from_seed(7), None)
                .expect("setup"),
        )
    })
    .clone()
}

pub fn shape() -> Shape {
    cuzk_synth::count_shape(tiny(0, 0)).expect("count")
}

/// A partition that synthesizes, fails, or panics.
#[derive(Clone, Copy, Debug)]
pub enum TestCircuit {
    Good(TinyCircuit),
    Fail,
    Panic,
}

impl Circuit<Fr> for TestCircuit {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            TestCircuit::Good(c) => c.synthesize(cs),
            TestCircuit::Fail => Err(SynthesisError::AssignmentMissing),
            TestCircuit::Panic => panic!("test circuit panics on purpose"),
        }
    }
}

/// What partition `at` of a source does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inject {
    None,
    Fail(usize),
    Panic(usize),
}

pub fn source(job: u64, n: usize, inject: Inject) -> Arc<dyn PartitionSource> {
    Arc::new(CircuitSource::new(n, Some(shape()), move |i| {
        Ok(match inject {
            Inject::Fail(k) if k == i => TestCircuit::Fail,
            Inject::Panic(k) if k == i => TestCircuit::Panic,
            _ => TestCircuit::Good(tiny(job, i)),
        })
    }))
}

/// The CPU backend, counting calls; partitions whose public input is in
/// `fail` get an error, those in `corrupt` get wrong results (so the
/// self-check must catch them).
#[derive(Debug, Default)]
pub struct TestBackend {
    pub calls: AtomicUsize,
    pub fail: Vec<Fr>,
    pub corrupt: Vec<Fr>,
    /// Claims to compute a deferred assignment's a, b, c in device memory
    /// (it computes them on the host, like the CPU backend).
    pub abc_on_device: bool,
    /// The witness buffers it offers the engine (a GPU backend's
    /// page-locked pool).
    pub pool: Option<Arc<dyn FrAlloc>>,
    /// Its evaluation working set in host bytes and its pipeline depth
    /// (default: none, depth 1).
    pub working: Option<(u64, usize)>,
}

impl TestBackend {
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl Backend for TestBackend {
    fn name(&self) -> String {
        "test-cpu".into()
    }

    fn evaluate(
        &self,
        params: &Parameters,
        pa: ProvingAssignment,
        t: &mut Timings,
    ) -> Result<ProofParts, Groth16Error> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let input = pa.input_assignment.get(1).copied();
        if input.is_some_and(|x| self.fail.contains(&x)) {
            return Err(Groth16Error::Backend {
                backend: self.name(),
                message: "injected failure".into(),
            });
        }
        let mut parts = CpuBackend.evaluate(params, pa, t)?;
        if input.is_some_and(|x| self.corrupt.contains(&x)) {
            parts.h += G1Projective::generator();
        }
        Ok(parts)
    }

    fn abc_on_device(&self, _record: &Arc<CompiledR1cs>) -> bool {
        self.abc_on_device
    }

    fn pipeline_depth(&self, _params: &Parameters) -> usize {
        self.working.map_or(1, |w| w.1)
    }

    fn evaluate_host_bytes(&self, _key: &Parameters) -> u64 {
        self.working.map_or(0, |w| w.0)
    }

    fn witness_alloc(&self) -> Option<Arc<dyn FrAlloc>> {
        self.pool.clone()
    }
}

/// The TinyCircuit recorded once (`cuzk_synth::compiled`).
pub fn record() -> Arc<CompiledR1cs> {
    static R: OnceLock<Arc<CompiledR1cs>> = OnceLock::new();
    R.get_or_init(|| Arc::new(CompiledR1cs::record(tiny(0, 0)).expect("record")))
        .clone()
}

/// `n` partitions of job seed `job` as deferred assignments (witness only,
/// the record attached), as a recorded Filecoin circuit's source gives them.
pub struct DeferredSource {
    pub job: u64,
    pub n: usize,
}

impl PartitionSource for DeferredSource {
    fn num_partitions(&self) -> usize {
        self.n
    }

    fn shape(&self, _index: usize) -> Result<Shape, cuzk_scheduler::SourceError> {
        Ok(shape())
    }

    fn synthesize(&self, index: usize) -> Result<ProvingAssignment, cuzk_scheduler::SourceError> {
        self.synthesize_in(index, None)
    }

    fn synthesize_in(
        &self,
        index: usize,
        alloc: Option<&dyn FrAlloc>,
    ) -> Result<ProvingAssignment, cuzk_scheduler::SourceError> {
        Ok(record().synthesize_deferred_in(tiny(self.job, index), alloc)?)
    }

    fn record(&self) -> Option<Arc<CompiledR1cs>> {
        Some(record())
    }
}

/// Host bytes of the registered test parameters: the engine counts them
/// in its budget (the CPU backend proves from the host copy).
pub fn srs() -> u64 {
    params().host_bytes()
}

/// One backend per device: the same counting backend stands in for each.
pub fn backends(opts: &EngineOptions, b: Arc<TestBackend>) -> Vec<Arc<dyn cuzk_groth16::Backend>> {
    (0..opts.devices.len())
        .map(|_| b.clone() as Arc<dyn cuzk_groth16::Backend>)
        .collect()
}

pub fn engine(opts: EngineOptions, backend: Arc<TestBackend>) -> Engine {
    let be = backends(&opts, backend);
    let e = Engine::new(opts, be).expect("engine");
    e.register_circuit("tiny", params()).expect("register");
    e
}

pub fn job(seed: u64, n: usize) -> JobSpec {
    JobSpec::new("tiny", source(seed, n, Inject::None))
}

/// Waits until no work is in flight (workers finish discarded partitions
/// after their job is over). Polling with a generous limit, not a timing
/// assertion: a hang fails here rather than hanging the suite.
pub fn quiesce(e: &Engine) {
    let t = Instant::now();
    loop {
        let s = e.stats();
        if s.jobs_active == 0
            && s.synthesis_busy == 0
            && s.gpu_workers_busy == 0
            && s.gpu_queue == 0
        {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "engine did not go idle: {s:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
