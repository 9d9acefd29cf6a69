//! The engine's SRS cache and its devices, on stand-in backends: a set
//! loaded from a file once, resident sets held without a host copy,
//! eviction, several devices, and the one proving path (same proof bytes
//! as `prove_batch` for seeded r, s).

mod common;

use common::{params, source, tiny, Inject, TestBackend};
use cuzk_groth16::{
    Backend, CheckMode, CpuBackend, Groth16Error, Parameters, Placement, ProofParts, Timings,
};
use cuzk_scheduler::{Engine, EngineError, EngineOptions, JobSpec};
use cuzk_synth::ProvingAssignment;
use parking_lot::Mutex;
use rand_chacha::{rand_core::SeedableRng, ChaCha20Rng};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const BIG: u64 = 1 << 40;

/// A stand-in GPU: `place` keeps the full set "on the device" (here: its
/// own Arc) and proves later partitions against the hollow key from it;
/// it holds one set at a time, like a GPU backend.
#[derive(Debug, Default)]
struct FakeGpu {
    held: Mutex<Option<(Arc<Parameters>, Arc<Parameters>)>>,
    calls: AtomicUsize,
    evicted: AtomicUsize,
}

impl Backend for FakeGpu {
    fn name(&self) -> String {
        "fake-gpu".into()
    }

    fn place(
        &self,
        set: &Arc<Parameters>,
        hollow: &Arc<Parameters>,
        may_evict: bool,
    ) -> Result<Placement, Groth16Error> {
        let mut held = self.held.lock();
        if held.is_some() && !may_evict {
            return Ok(Placement::Host);
        }
        *held = Some((Arc::clone(hollow), Arc::clone(set)));
        Ok(Placement::Resident)
    }

    fn evict(&self, key: &Parameters) {
        let mut held = self.held.lock();
        if held.as_ref().is_some_and(|(k, _)| std::ptr::eq(&**k, key)) {
            *held = None;
            self.evicted.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn evaluate(
        &self,
        params: &Parameters,
        pa: ProvingAssignment,
        t: &mut Timings,
    ) -> Result<ProofParts, Groth16Error> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let full = {
            let held = self.held.lock();
            match held.as_ref() {
                Some((k, full)) if std::ptr::eq(&**k, params) => Some(Arc::clone(full)),
                _ => None,
            }
        };
        match full {
            Some(full) => CpuBackend.evaluate(&full, pa, t),
            None => CpuBackend.evaluate(params, pa, t),
        }
    }
}

fn opts(devices: usize) -> EngineOptions {
    let mut o = EngineOptions::small(2, 2, BIG);
    o.devices = (0..devices as u32).collect();
    o
}

fn params_file(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("tiny.params");
    params().save(&path).expect("write params");
    path
}

#[test]
fn a_file_is_loaded_once_and_resident_sets_keep_no_host_copy() {
    let dir = tempfile::tempdir().unwrap();
    let path = params_file(&dir);
    let gpus: Vec<Arc<FakeGpu>> = (0..2).map(|_| Arc::new(FakeGpu::default())).collect();
    let backends = gpus.iter().map(|g| g.clone() as Arc<dyn Backend>).collect();
    let e = Arc::new(Engine::new(opts(2), backends).unwrap());

    // Two threads ask for the same file at once: one load, one entry.
    let loads = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let info = e
                    .load_circuit("tiny", &path, CheckMode::Trusted, &|_, _| {
                        loads.fetch_add(1, Ordering::SeqCst);
                    })
                    .unwrap();
                assert_eq!(info.placements, vec![Placement::Resident; 2]);
                assert_eq!(info.host_bytes, 0, "resident everywhere: no host copy");
            });
        }
    });
    assert!(loads.load(Ordering::SeqCst) > 0, "decoded once at least");
    let first_load = loads.load(Ordering::SeqCst);
    e.load_circuit("tiny", &path, CheckMode::Trusted, &|_, _| {
        loads.fetch_add(1, Ordering::SeqCst);
    })
    .unwrap();
    assert_eq!(
        loads.load(Ordering::SeqCst),
        first_load,
        "cached: no second read"
    );
    let infos = e.circuits();
    assert_eq!(infos.len(), 1);
    assert_eq!(e.stats().memory_srs, 0);

    // Proofs against the hollow set verify, and both devices take work.
    let handles: Vec<_> = (0..4)
        .map(|j| {
            e.submit(JobSpec::new("tiny", source(j + 1, 3, Inject::None)))
                .unwrap()
        })
        .collect();
    for h in handles {
        let out = h.wait().expect("job proves against the resident set");
        assert_eq!(out.proofs.len(), 3);
    }
    let calls: Vec<usize> = gpus
        .iter()
        .map(|g| g.calls.load(Ordering::SeqCst))
        .collect();
    assert_eq!(calls.iter().sum::<usize>(), 12);
    assert!(
        calls.iter().all(|&c| c > 0),
        "balanced over devices: {calls:?}"
    );

    // Evict: devices forget it, jobs for it are refused.
    assert!(e.evict_circuit("tiny").unwrap());
    assert!(!e.evict_circuit("tiny").unwrap());
    assert!(gpus.iter().all(|g| g.evicted.load(Ordering::SeqCst) == 1));
    assert!(matches!(
        e.submit(JobSpec::new("tiny", source(1, 1, Inject::None))),
        Err(EngineError::UnknownCircuit(_))
    ));
}

#[test]
fn a_device_evicts_an_idle_set_but_not_one_in_use() {
    let gpu = Arc::new(FakeGpu::default());
    let e = Engine::new(opts(1), vec![gpu.clone() as Arc<dyn Backend>]).unwrap();
    let a = e.register_circuit("a", params()).unwrap();
    assert_eq!(a.placements, vec![Placement::Resident]);
    // "a" is idle: registering "b" evicts it (least recently used).
    let b = e.register_circuit("b", params()).unwrap();
    assert_eq!(b.placements, vec![Placement::Resident]);
    assert!(!e.has_circuit("a"));
    assert_eq!(gpu.evicted.load(Ordering::SeqCst), 1);

    // While a job of "b" is queued, "c" may not evict it: it is proved
    // from the host copy on this device, counted in the budget.
    e.pause();
    let h = e
        .submit(JobSpec::new("b", source(1, 2, Inject::None)))
        .unwrap();
    let c = e.register_circuit("c", params()).unwrap();
    assert_eq!(c.placements, vec![Placement::Host]);
    // A set a job uses is neither evicted nor replaced.
    assert!(matches!(
        e.evict_circuit("b").unwrap_err(),
        EngineError::InUse(id) if id == "b"
    ));
    assert!(matches!(
        e.register_circuit("b", params()).unwrap_err(),
        EngineError::InUse(id) if id == "b"
    ));
    assert!(c.host_bytes > 0);
    assert_eq!(e.stats().memory_srs, c.host_bytes);
    assert!(e.has_circuit("b"));
    e.resume();
    h.wait().expect("the job of the kept set proves");
    e.submit(JobSpec::new("c", source(2, 2, Inject::None)))
        .unwrap()
        .wait()
        .expect("the host-placed set proves");
    assert!(e.evict_circuit("c").unwrap());
    assert!(e.evict_circuit("b").unwrap(), "no job uses it any more");
    assert_eq!(e.stats().memory_srs, 0);
}

#[test]
fn engine_proofs_equal_prove_batch_for_seeded_randomness() {
    let p = params();
    let seed = 42;
    let n = 4;
    let batch = cuzk_groth16::prove_batch(
        &p,
        (0..n).map(|i| tiny(9, i)).collect(),
        &CpuBackend,
        &mut ChaCha20Rng::seed_from_u64(seed),
        cuzk_groth16::ProveOptions::default(),
    )
    .unwrap();
    // Through the engine, on two stand-in devices of either kind.
    let backends: Vec<Arc<dyn Backend>> = vec![Arc::new(CpuBackend), Arc::new(FakeGpu::default())];
    let e = Engine::new(opts(2), backends).unwrap();
    e.register_circuit("tiny", p.clone()).unwrap();
    let out = e
        .submit(JobSpec::new("tiny", source(9, n, Inject::None)).with_seed(seed))
        .unwrap()
        .wait()
        .unwrap();
    for (i, b) in batch.iter().enumerate() {
        assert_eq!(
            out.proofs[i].to_bytes(),
            b.proof.to_bytes(),
            "partition {i}"
        );
        assert_eq!(out.inputs[i], b.inputs, "partition {i}");
    }
}

#[test]
fn backends_must_match_devices_and_bad_files_are_errors() {
    let mut o = opts(2);
    assert!(matches!(
        Engine::new(o.clone(), vec![Arc::new(CpuBackend)]),
        Err(EngineError::Options(_))
    ));
    o.devices = vec![0];
    let e = Engine::new(o, vec![Arc::new(CpuBackend)]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.params");
    std::fs::write(&bad, b"not parameters").unwrap();
    assert!(matches!(
        e.load_circuit("x", &bad, CheckMode::Trusted, &|_, _| {}),
        Err(EngineError::Srs(_))
    ));
    assert!(matches!(
        e.load_circuit(
            "x",
            &dir.path().join("missing"),
            CheckMode::Trusted,
            &|_, _| {}
        ),
        Err(EngineError::Srs(_))
    ));
    assert_eq!(
        e.stats().memory_reserved,
        0,
        "a failed load returns its reservation"
    );
    assert!(e.circuits().is_empty());
}

/// A set's evaluation working sets are reserved once per pipeline slot of
/// every device while it is placed, reported with it, and shrink the room
/// a job's partitions are admitted against.
#[test]
fn evaluation_working_sets_are_reserved_per_pipeline_slot() {
    let w = 1u64 << 20;
    let working = |depth| -> Arc<dyn Backend> {
        Arc::new(TestBackend {
            working: Some((w, depth)),
            ..TestBackend::default()
        })
    };
    let backends = vec![working(2), working(3)];
    let e = Engine::new(opts(2), backends).unwrap();
    let info = e.register_circuit("t", params()).unwrap();
    assert_eq!(info.working_bytes, 5 * w);
    assert_eq!(e.stats().memory_srs, info.host_bytes + 5 * w);
    e.submit(JobSpec::new("t", source(1, 2, Inject::None)))
        .unwrap()
        .wait()
        .expect("proves");
    assert!(e.evict_circuit("t").unwrap());
    assert_eq!(e.stats().memory_srs, 0);
    assert_eq!(e.stats().memory_reserved, 0);

    // A budget that holds the set and a partition, but not the working
    // sets as well, refuses the job at admission.
    let probe = Engine::new(opts(1), vec![Arc::new(CpuBackend) as Arc<dyn Backend>]).unwrap();
    let plain = probe.register_circuit("t", params()).unwrap();
    let need = match probe
        .submit(JobSpec::new("t", source(1, 1, Inject::None)))
        .unwrap()
        .wait()
    {
        Ok(_) => probe.stats().memory_peak - plain.host_bytes - plain.working_bytes,
        Err(err) => panic!("{err}"),
    };
    let mut o = opts(1);
    o.memory_budget = plain.host_bytes + need + w / 2;
    let e = Engine::new(o, vec![working(1)]).unwrap();
    e.register_circuit("t", params()).unwrap();
    let err = e
        .submit(JobSpec::new("t", source(1, 1, Inject::None)))
        .unwrap_err();
    assert!(matches!(err, EngineError::BudgetTooSmall { .. }), "{err}");
}
