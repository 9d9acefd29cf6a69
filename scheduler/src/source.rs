//! Where a job's partitions come from.
//!
//! The engine asks a [`PartitionSource`] for each partition's [`Shape`]
//! once, at submission (to size its memory reservation), and later for the
//! synthesized [`ProvingAssignment`] on a synthesis worker. Anything that can
//! do that plugs in: [`CircuitSource`] for bellpepper circuits (the
//! built-in ones, Filecoin's through an adapter), [`AssignmentSource`] for
//! partitions synthesized elsewhere.

use cuzk_field::{Fr, FrAlloc};
use cuzk_synth::{compiled::CompiledR1cs, Circuit, ProvingAssignment, Shape};
use parking_lot::Mutex;
use std::sync::Arc;
use std::sync::OnceLock;

/// A boxed error from a source.
pub type SourceError = Box<dyn std::error::Error + Send + Sync>;

/// The partitions of one job (one proof).
pub trait PartitionSource: Send + Sync {
    /// Number of partitions (≥ 1).
    fn num_partitions(&self) -> usize;

    /// The shape partition `index` will have after synthesis. Called once
    /// per partition at submission, on the submitting thread.
    fn shape(&self, index: usize) -> Result<Shape, SourceError>;

    /// Synthesizes partition `index`. Called at most once per partition,
    /// on a synthesis worker.
    fn synthesize(&self, index: usize) -> Result<ProvingAssignment, SourceError>;

    /// [`PartitionSource::synthesize`] with the aux assignment in a vector
    /// from `alloc` where the source can (witness-only synthesis writes
    /// into the backend's page-locked buffers, which the GPU reads by DMA).
    /// The engine calls this one; the default ignores `alloc`.
    fn synthesize_in(
        &self,
        index: usize,
        alloc: Option<&dyn FrAlloc>,
    ) -> Result<ProvingAssignment, SourceError> {
        let _ = alloc;
        self.synthesize(index)
    }

    /// The recorded circuit when [`PartitionSource::synthesize`] returns
    /// deferred assignments of it (witness only, a, b, c computed by the
    /// backend): the engine then reserves the witness alone for a
    /// partition when every backend computes a, b, c in device memory
    /// (`Backend::abc_on_device`).
    fn record(&self) -> Option<Arc<CompiledR1cs>> {
        None
    }

    /// Host bytes partition `index`'s synthesis uses beyond the assignment
    /// it returns, all freed by the time it returns: the sub-systems of a
    /// synthesis that runs independent parts in parallel and appends them
    /// (bellpepper's `extend`). Reserved with the partition and released
    /// when its synthesis ends.
    fn synthesis_scratch_bytes(&self, index: usize) -> u64 {
        let _ = index;
        0
    }
}

/// Bytes a partition of `shape` holds from the start of its synthesis to
/// the end of its backend evaluation: the synthesized vectors
/// ([`Shape::proving_bytes`]) plus the backend's working set. The CPU
/// backend pads a, b, c to the domain size m (3·(m − n) more elements) and
/// keeps one more m-element vector alive while computing H, so we reserve
/// 32·(3·(m − n) + m) bytes on top. Reserving the whole lifetime up front
/// means a partition that was admitted never waits for memory again, so
/// the budget cannot deadlock.
///
/// A deferred partition evaluated by a backend that computes a, b, c in
/// device memory ([`PartitionSource::record`], `abc_on_device`) holds
/// only its witness ([`Shape::witness_bytes`]): at 32 GiB 4.2 GB instead
/// of 16.7 + 4.3 GB.
pub fn estimate_partition_bytes(shape: &Shape, abc_on_device: bool) -> u64 {
    if abc_on_device {
        return shape.witness_bytes() as u64;
    }
    let m = shape.domain_size() as u64;
    let n = shape.num_constraints as u64;
    let fr = std::mem::size_of::<Fr>() as u64;
    shape.proving_bytes() as u64 + fr * (3 * m.saturating_sub(n) + m)
}

/// A source of circuits: `make(index)` builds partition `index`'s circuit
/// (with its witness). Synthesis reserves the vectors from the shape, so
/// the reservation and the real allocation agree.
pub struct CircuitSource<C, F> {
    n: usize,
    shape: OnceLock<Result<Shape, String>>,
    make: F,
    _c: std::marker::PhantomData<fn() -> C>,
}

impl<C, F> std::fmt::Debug for CircuitSource<C, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CircuitSource")
            .field("partitions", &self.n)
            .field("shape", &self.shape.get())
            .finish()
    }
}

impl<C, F> CircuitSource<C, F>
where
    C: Circuit<Fr>,
    F: Fn(usize) -> Result<C, SourceError> + Send + Sync,
{
    /// `n` partitions built by `make`. All partitions are assumed to have
    /// the same shape (as a proof's partitions do); pass it as `shape` when
    /// known (e.g. `BenchCircuit::expected_shape`), otherwise it is counted
    /// once from partition 0 with [`cuzk_synth::count_shape`].
    pub fn new(n: usize, shape: Option<Shape>, make: F) -> Self {
        let cell = OnceLock::new();
        if let Some(s) = shape {
            let _ = cell.set(Ok(s));
        }
        Self {
            n,
            shape: cell,
            make,
            _c: std::marker::PhantomData,
        }
    }
}

impl<C, F> PartitionSource for CircuitSource<C, F>
where
    C: Circuit<Fr>,
    F: Fn(usize) -> Result<C, SourceError> + Send + Sync,
{
    fn num_partitions(&self) -> usize {
        self.n
    }

    fn shape(&self, _index: usize) -> Result<Shape, SourceError> {
        self.shape
            .get_or_init(|| {
                let c = (self.make)(0).map_err(|e| e.to_string())?;
                cuzk_synth::count_shape(c).map_err(|e| e.to_string())
            })
            .clone()
            .map_err(Into::into)
    }

    fn synthesize(&self, index: usize) -> Result<ProvingAssignment, SourceError> {
        let c = (self.make)(index)?;
        let pa = match self.shape.get() {
            Some(Ok(s)) => cuzk_synth::synthesize_with_hint(c, *s)?,
            _ => cuzk_synth::synthesize(c)?,
        };
        Ok(pa)
    }
}

/// Partitions that were synthesized elsewhere; each is handed out once.
#[derive(Debug)]
pub struct AssignmentSource {
    shapes: Vec<Shape>,
    slots: Mutex<Vec<Option<ProvingAssignment>>>,
}

impl AssignmentSource {
    /// Wraps ready assignments (in partition order).
    pub fn new(parts: Vec<ProvingAssignment>) -> Self {
        Self {
            shapes: parts.iter().map(ProvingAssignment::shape).collect(),
            slots: Mutex::new(parts.into_iter().map(Some).collect()),
        }
    }
}

impl PartitionSource for AssignmentSource {
    fn num_partitions(&self) -> usize {
        self.shapes.len()
    }

    fn shape(&self, index: usize) -> Result<Shape, SourceError> {
        self.shapes
            .get(index)
            .copied()
            .ok_or_else(|| format!("no partition {index}").into())
    }

    fn synthesize(&self, index: usize) -> Result<ProvingAssignment, SourceError> {
        self.slots
            .lock()
            .get_mut(index)
            .and_then(Option::take)
            .ok_or_else(|| format!("partition {index} does not exist or was already taken").into())
    }
}
