//! The engine's host memory budget with witness-only (deferred)
//! partitions, pooled witness buffers and synthesis scratch.

mod common;

use common::{
    engine, expected_input, job, params, quiesce, shape, source, srs, Inject, TestBackend,
};
use cuzk_groth16::verify_proof;
use cuzk_scheduler::{estimate_partition_bytes, EngineError, EngineOptions, EventKind, JobSpec};
use std::sync::Arc;

#[test]
fn deferred_partitions_reserve_the_witness_only_when_every_backend_computes_abc_on_device() {
    use common::DeferredSource;
    let (full, witness) = (
        estimate_partition_bytes(&shape(), false),
        estimate_partition_bytes(&shape(), true),
    );
    assert_eq!(witness, shape().witness_bytes() as u64);
    assert!(witness < full);
    let deferred = |seed| JobSpec::new("tiny", Arc::new(DeferredSource { job: seed, n: 3 }));
    // A budget of one witness: enough when a, b, c live on the device...
    let on_device = Arc::new(TestBackend {
        abc_on_device: true,
        ..TestBackend::default()
    });
    let e = engine(
        EngineOptions::small(2, 1, witness + srs()),
        on_device.clone(),
    );
    let out = e.submit(deferred(5)).unwrap().wait().unwrap();
    let pvk = params().vk.prepare();
    for (i, p) in out.proofs.iter().enumerate() {
        assert_eq!(out.inputs[i], vec![expected_input(5, i)]);
        assert!(verify_proof(&pvk, p, &out.inputs[i]).unwrap());
    }
    assert_eq!(on_device.calls(), 3);
    assert!(e.stats().memory_peak <= witness + srs());
    // ... and refused for a backend that computes them in host memory.
    let e = engine(
        EngineOptions::small(2, 1, witness + srs()),
        Arc::new(TestBackend::default()),
    );
    match e.submit(deferred(6)) {
        Err(EngineError::BudgetTooSmall { need, .. }) => assert_eq!(need, full),
        other => panic!("expected BudgetTooSmall, got {other:?}"),
    }
    // The classic source on the on-device backend still reserves it all.
    let e = engine(EngineOptions::small(2, 1, witness + srs()), on_device);
    assert!(matches!(
        e.submit(job(7, 1)),
        Err(EngineError::BudgetTooSmall { .. })
    ));
}

#[test]
fn a_budget_bound_steady_state_reuses_its_witness_buffers() {
    use common::DeferredSource;
    let witness = estimate_partition_bytes(&shape(), true);
    // The GPU backends' pool itself (page-locked only where a GPU is).
    let pool = cuzk_pinned_mem::WitnessPool::new(1 << 30);
    let backend = Arc::new(TestBackend {
        abc_on_device: true,
        pool: Some(pool.clone()),
        ..TestBackend::default()
    });
    // Room for one partition at a time: each is admitted when the last
    // one's memory is back, its witness buffer idle in the pool then. That
    // buffer is the one the next synthesis takes, so it must not be freed
    // to make room (a new page-locked buffer per partition was ~1.3 s of
    // registration at 32 GiB).
    let e = engine(EngineOptions::small(2, 1, witness + srs()), backend.clone());
    let n = 6;
    let out = e
        .submit(JobSpec::new("tiny", Arc::new(DeferredSource { job: 9, n })))
        .unwrap()
        .wait()
        .unwrap();
    let pvk = params().vk.prepare();
    for (i, p) in out.proofs.iter().enumerate() {
        assert!(verify_proof(&pvk, p, &out.inputs[i]).unwrap());
    }
    assert_eq!(backend.calls(), n);
    let ps = pool.stats();
    assert_eq!((ps.made, ps.reused), (1, n as u64 - 1), "{ps:?}");
    let st = e.stats();
    assert!(st.memory_peak <= witness + srs());
    assert_eq!(
        (
            st.witness_buffers_made,
            st.witness_buffers_reused,
            st.witness_buffers_freed
        ),
        (1, n as u64 - 1, 0)
    );
}

/// A source whose synthesis needs `scratch` bytes beyond its result.
struct WithScratch {
    inner: Arc<dyn cuzk_scheduler::PartitionSource>,
    scratch: u64,
}

impl cuzk_scheduler::PartitionSource for WithScratch {
    fn num_partitions(&self) -> usize {
        self.inner.num_partitions()
    }
    fn shape(&self, index: usize) -> Result<cuzk_synth::Shape, cuzk_scheduler::SourceError> {
        self.inner.shape(index)
    }
    fn synthesize(
        &self,
        index: usize,
    ) -> Result<cuzk_synth::ProvingAssignment, cuzk_scheduler::SourceError> {
        self.inner.synthesize(index)
    }
    fn synthesis_scratch_bytes(&self, _index: usize) -> u64 {
        self.scratch
    }
}

#[test]
fn synthesis_scratch_is_reserved_then_released_when_synthesis_ends() {
    let per = estimate_partition_bytes(&shape(), false);
    let scratch = 3 * per;
    let spec = |seed| {
        JobSpec::new(
            "tiny",
            Arc::new(WithScratch {
                inner: source(seed, 3, Inject::None),
                scratch,
            }),
        )
    };
    // The scratch counts at admission.
    let e = engine(
        EngineOptions::small(1, 1, per + scratch - 1 + srs()),
        Arc::new(TestBackend::default()),
    );
    match e.submit(spec(1)) {
        Err(EngineError::BudgetTooSmall { need, .. }) => assert_eq!(need, per + scratch),
        other => panic!("expected BudgetTooSmall, got {other:?}"),
    }
    // Room for one partition with its scratch, or for two without: the
    // second synthesis may start while the first waits for the device,
    // only once the first one's scratch is back.
    let budget = 2 * per + scratch + srs();
    let e = engine(
        EngineOptions::small(2, 1, budget),
        Arc::new(TestBackend::default()),
    );
    for seed in 1..=2 {
        e.submit(spec(seed)).unwrap().wait().unwrap();
    }
    quiesce(&e);
    let s = e.stats();
    assert!(s.memory_peak <= budget, "{s:?}");
    assert!(s.memory_peak >= per + scratch + srs(), "{s:?}");
    assert_eq!(s.memory_reserved, srs(), "everything released: {s:?}");
    for ev in e
        .timeline()
        .iter()
        .filter(|x| x.kind == EventKind::SynthStart)
    {
        assert_eq!(ev.bytes, Some(per + scratch));
    }
}
