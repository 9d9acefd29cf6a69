//! One way a Filecoin proof becomes an engine job, whatever its kind
//! (PoRep C2, WinningPoSt, WindowPoSt, SnapDeals): the kind's module builds
//! each partition's circuit and the public inputs filecoin-proofs'
//! verifier derives for it; [`circuit_job`] turns them into a
//! [`PartitionSource`] against the kind's parameter file, and [`run_job`]
//! proves it on the engine (parameters through its SRS cache).
//!
//! Each partition is synthesized on an engine worker (classic synthesis,
//! or witness-only against a recorded circuit, whose a, b, c the backend
//! computes: on the GPU in device memory) and checked there
//! against the parameter file's counts and, with `checks`, the constraints
//! and the public inputs. A worker's failure stays typed inside the
//! engine's error: [`FilecoinError::cause`] gives it back.

use crate::error::{FilecoinError, Result};
use crate::params::check_params;
use bellpepper_core::Circuit;
use cuzk_field::{Field, Fr, FrAlloc, FrVec};
use cuzk_groth16::{CheckMode, Parameters, ParamsInfo, Timings};
use cuzk_scheduler::{Engine, JobSpec, PartitionSource, SourceError};
use cuzk_synth::{compiled::CompiledR1cs, native::SliceAux, ProvingAssignment, Shape};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

type PartitionFn = Box<
    dyn FnOnce(Option<&dyn FrAlloc>) -> std::result::Result<ProvingAssignment, SourceError> + Send,
>;

/// A partition's native witness generator: writes the whole aux
/// assignment (the recorded circuit's count, handed over zeroed) or says
/// why it could not.
pub(crate) type NativeFn = Box<dyn FnOnce(&mut [Fr]) -> std::result::Result<(), String> + Send>;

/// One partition as a kind's module hands it over: its circuit (for the
/// classic or the generic witness-only synthesis) and, where the kind has
/// one and the job runs against a recorded circuit, its native generator.
/// With both, the two witnesses are compared ([`WitnessGen::Check`]).
pub(crate) struct Part<C> {
    pub circuit: Option<C>,
    pub native: Option<NativeFn>,
}

impl<C> Part<C> {
    /// The circuit only.
    pub fn circuit(c: C) -> Self {
        Self {
            circuit: Some(c),
            native: None,
        }
    }
}

/// The partitions of one proof, each synthesized at most once.
pub struct ProofSource {
    partitions: Vec<Mutex<Option<PartitionFn>>>,
    shape: Shape,
    /// Partitions come as deferred assignments of this recorded circuit.
    record: Option<Arc<CompiledR1cs>>,
    /// Bytes a partition's synthesis needs beyond its result
    /// ([`PartitionSource::synthesis_scratch_bytes`]).
    scratch: u64,
}

impl std::fmt::Debug for ProofSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProofSource")
            .field("partitions", &self.partitions.len())
            .field("shape", &self.shape)
            .finish()
    }
}

impl ProofSource {
    /// The shape every partition is synthesized into (the parameter file's).
    pub fn partition_shape(&self) -> Shape {
        self.shape
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl PartitionSource for ProofSource {
    fn num_partitions(&self) -> usize {
        self.partitions.len()
    }

    fn shape(&self, _index: usize) -> std::result::Result<Shape, SourceError> {
        Ok(self.shape)
    }

    fn synthesize(&self, index: usize) -> std::result::Result<ProvingAssignment, SourceError> {
        self.synthesize_in(index, None)
    }

    fn synthesize_in(
        &self,
        index: usize,
        alloc: Option<&dyn FrAlloc>,
    ) -> std::result::Result<ProvingAssignment, SourceError> {
        let f = self
            .partitions
            .get(index)
            .and_then(|m| lock(m).take())
            .ok_or_else(|| format!("partition {index} does not exist or was already taken"))?;
        f(alloc)
    }

    fn record(&self) -> Option<Arc<CompiledR1cs>> {
        self.record.clone()
    }

    fn synthesis_scratch_bytes(&self, _index: usize) -> u64 {
        self.scratch
    }
}

/// How a partition's circuit synthesizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Synthesis {
    /// In one system (PoRep, SnapDeals).
    Sequential,
    /// Independent parts in sub-systems on all cores, appended in order
    /// (storage-proofs-post's sectors under an extensible system): the
    /// sub-systems' vectors, grown by doubling, add up to at most twice
    /// the result's.
    Parallel,
}

/// A proof ready for the engine: its partitions and the parameter file
/// they are proved with (registered in the engine under `circuit_id`).
#[derive(Debug)]
pub struct ProofJob {
    /// The partitions.
    pub source: Arc<ProofSource>,
    /// The `.params` file.
    pub params_path: PathBuf,
    /// The engine's id for that file (its standard name).
    pub circuit_id: String,
    /// Public inputs of each partition, as filecoin-proofs' verifier
    /// derives them (without the leading ONE).
    pub inputs: Vec<Vec<Fr>>,
}

/// The job of ready partition circuits with their expected public inputs,
/// proved against `params_path`. A file of another circuit under the
/// right name is caught here, before any synthesis, by its public-input
/// count (and, with `r1cs`, by the recorded circuit's shape); the rest of
/// the shape is checked after each partition's synthesis, on the worker.
pub fn circuit_job<C>(
    params_path: PathBuf,
    circuits: Vec<C>,
    inputs: Vec<Vec<Fr>>,
    checks: bool,
    r1cs: Option<&Arc<CompiledR1cs>>,
) -> Result<ProofJob>
where
    C: Circuit<Fr> + Send + 'static,
{
    circuit_job_of(
        params_path,
        circuits.into_iter().map(Part::circuit).collect(),
        inputs,
        checks,
        r1cs,
        Synthesis::Sequential,
    )
}

/// [`circuit_job`] for partitions that synthesize as `synthesis` says,
/// natively where a part has a generator (only with `r1cs`).
pub(crate) fn circuit_job_of<C>(
    params_path: PathBuf,
    parts: Vec<Part<C>>,
    inputs: Vec<Vec<Fr>>,
    checks: bool,
    r1cs: Option<&Arc<CompiledR1cs>>,
    synthesis: Synthesis,
) -> Result<ProofJob>
where
    C: Circuit<Fr> + Send + 'static,
{
    let info = Arc::new(Parameters::inspect(&params_path)?);
    let mismatch = |detail: String| FilecoinError::ParamsMismatch {
        path: params_path.clone(),
        detail,
    };
    if let Some(want) = inputs.first() {
        if want.len() + 1 != info.ic {
            return Err(mismatch(format!(
                "the circuit has {} public inputs, the file has {}",
                want.len(),
                info.ic.saturating_sub(1)
            )));
        }
    }
    // The file's counts bound the partition's shape (the domain bounds the
    // constraint count from above), so no counting pass: on a 32 GiB
    // partition count_shape alone takes ~1 min of one core.
    let shape = Shape {
        num_inputs: info.ic,
        num_aux: info.l,
        num_constraints: info.domain_size(),
    };
    if let Some(r) = r1cs {
        let rs = r.shape();
        if (rs.num_inputs, rs.num_aux) != (info.ic, info.l)
            || rs.domain_size() != info.domain_size()
        {
            return Err(mismatch(format!(
                "the recorded circuit has shape {rs:?}, the file {info:?}"
            )));
        }
    }
    let native = parts.first().is_some_and(|p| p.native.is_some());
    let generic = parts.first().is_some_and(|p| p.circuit.is_some());
    if native && r1cs.is_none() {
        return Err(FilecoinError::Unsupported(
            "a native witness needs the proof type's recorded circuit".into(),
        ));
    }
    let partitions = parts
        .into_iter()
        .zip(inputs.clone())
        .enumerate()
        .map(|(k, (part, want))| {
            let (info, path) = (Arc::clone(&info), params_path.clone());
            let r1cs = r1cs.cloned();
            let f: PartitionFn = Box::new(move |alloc| {
                let run = || -> Result<ProvingAssignment> {
                    let pa = match (&r1cs, part.circuit, part.native) {
                        // The backend computes a, b, c from the record (in
                        // device memory on the GPU), reading the witness
                        // from `alloc`'s page-locked buffers.
                        (Some(r), check, Some(gen)) => {
                            native_witness(r, alloc, &want, gen, check, k)?
                        }
                        (Some(r), Some(c), None) => r.synthesize_deferred_in(c, alloc)?,
                        (None, Some(c), _) => cuzk_synth::synthesize_with_hint(c, shape)?,
                        (_, None, _) => {
                            return Err(FilecoinError::Unsupported(format!(
                                "partition {k} has neither a circuit nor a generator"
                            )))
                        }
                    };
                    check_partition(&path, &info, &pa, k, checks)?;
                    if checks && pa.input_assignment.get(1..) != Some(&want[..]) {
                        return Err(FilecoinError::InputsMismatch { partition: k });
                    }
                    Ok(pa)
                };
                run().map_err(|e| Box::new(e) as SourceError)
            });
            Mutex::new(Some(f))
        })
        .collect();
    // A native generator writes in place; the check mode's generic
    // witness lives on the heap beside it.
    let generic_scratch = match synthesis {
        Synthesis::Sequential => 0,
        Synthesis::Parallel => {
            2 * if r1cs.is_some() {
                shape.witness_bytes()
            } else {
                shape.proving_bytes()
            } as u64
        }
    };
    let scratch = match (native, generic) {
        (true, false) => 0,
        (true, true) => generic_scratch + shape.witness_bytes() as u64,
        (false, _) => generic_scratch,
    };
    let circuit_id = params_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| params_path.display().to_string());
    Ok(ProofJob {
        source: Arc::new(ProofSource {
            partitions,
            shape,
            record: r1cs.cloned(),
            scratch,
        }),
        params_path,
        circuit_id,
        inputs,
    })
}

/// Each of `parts` generated on its own thread into its own equal range
/// of `aux` (a PoRep partition's challenges, a PoSt partition's sectors:
/// every part has the same shape). `what` names a part in errors.
pub(crate) fn fill_ranges<T: Sync>(
    aux: &mut [Fr],
    parts: &[T],
    what: &str,
    gen: impl Fn(&mut SliceAux<'_>, &T) + Sync,
) -> std::result::Result<(), String> {
    use rayon::prelude::*;
    if parts.is_empty() || aux.len() % parts.len() != 0 {
        return Err(format!(
            "{} aux values do not split into {} equal {what}s",
            aux.len(),
            parts.len()
        ));
    }
    let per = aux.len() / parts.len();
    aux.par_chunks_mut(per)
        .zip(parts.par_iter())
        .enumerate()
        .try_for_each(|(i, (out, p))| {
            let mut w = SliceAux::new(out);
            gen(&mut w, p);
            w.finish().map_err(|n| {
                format!("{what} {i}: the generator made {n} values, the circuit has {per}")
            })
        })
}

/// Partition `k`'s `num_aux` aux values from its generator, outside the
/// engine (tools and tests that time or compare them).
pub(crate) fn native_values(
    k: usize,
    num_aux: usize,
    gen: impl FnOnce(&mut [Fr]) -> std::result::Result<(), String>,
) -> Result<Vec<Fr>> {
    let mut aux = vec![Fr::ZERO; num_aux];
    gen(&mut aux).map_err(|detail| FilecoinError::NativeWitness {
        partition: k,
        detail,
    })?;
    Ok(aux)
}

/// A partition's assignment from its native generator, deferred against
/// the record: the public inputs are the verifier's (`want`), the aux
/// values the generator's, written into `alloc`'s buffer. With `check`
/// (the partition's circuit), its generic witness is made too and must
/// equal them value for value.
fn native_witness<C: Circuit<Fr>>(
    r: &Arc<CompiledR1cs>,
    alloc: Option<&dyn FrAlloc>,
    want: &[Fr],
    gen: NativeFn,
    check: Option<C>,
    partition: usize,
) -> Result<ProvingAssignment> {
    let n = r.shape().num_aux;
    let mut aux = match alloc {
        Some(a) => a.alloc(n),
        None => FrVec::with_capacity(n),
    };
    aux.resize(n, Fr::ZERO);
    gen(&mut aux).map_err(|detail| FilecoinError::NativeWitness { partition, detail })?;
    let mut inputs = Vec::with_capacity(want.len() + 1);
    inputs.push(Fr::ONE);
    inputs.extend_from_slice(want);
    if let Some(c) = check {
        let w = r.witness(c)?;
        let differs = |what, a: &[Fr], b: &[Fr]| match a.iter().zip(b).position(|(x, y)| x != y) {
            None if a.len() == b.len() => Ok(()),
            p => Err(FilecoinError::WitnessMismatch {
                partition,
                what,
                position: p.unwrap_or(a.len().min(b.len())),
            }),
        };
        differs("public input", &w.input_assignment, &inputs)?;
        differs("aux value", &w.aux_assignment, &aux)?;
    }
    Ok(r.defer_values(inputs, aux)?)
}

/// Counts and A/B densities against the file; with `satisfied`, every
/// constraint.
fn check_partition(
    path: &Path,
    info: &ParamsInfo,
    pa: &ProvingAssignment,
    k: usize,
    satisfied: bool,
) -> Result<()> {
    let a = pa.num_inputs() + pa.a_aux_density.count_ones();
    let b = pa.b_input_density.count_ones() + pa.b_aux_density.count_ones();
    check_params(path, info, &pa.shape(), Some((a, b)))?;
    if satisfied {
        if let Some(constraint) = pa.first_unsatisfied() {
            return Err(FilecoinError::Unsatisfied {
                partition: k,
                constraint,
            });
        }
    }
    Ok(())
}

/// A proof and how it was made.
#[derive(Clone, Debug)]
pub struct ProofOutput {
    /// The partition proofs concatenated (192 bytes each): the bytes
    /// filecoin-proofs' prover returns for the same statement.
    pub proof: Vec<u8>,
    /// Number of partitions.
    pub partitions: usize,
    /// Shape of one partition circuit (the parameter file's).
    pub shape: Shape,
    /// The parameter file used.
    pub params_path: PathBuf,
    /// Stage timings, summed over partitions (`load_params` included).
    pub timings: Timings,
}

/// Registers the job's parameter file in the engine's SRS cache (read
/// once per engine) and proves the job at `priority`; a worker's typed
/// failure is inside the engine's error ([`FilecoinError::cause`]). The engine
/// self-checks every partition proof against `job.inputs`' statement.
pub fn run_job(engine: &Engine, job: ProofJob, priority: i32) -> Result<ProofOutput> {
    let mut timings = Timings::default();
    let t = std::time::Instant::now();
    engine
        .load_circuit(
            &job.circuit_id,
            &job.params_path,
            CheckMode::Trusted,
            &|_, _| {},
        )
        .map_err(FilecoinError::Engine)?;
    timings.add("load_params", t.elapsed());
    let partitions = job.source.num_partitions();
    let shape = job.source.shape;
    let source = Arc::clone(&job.source);
    let out = engine
        .submit_blocking(JobSpec::new(job.circuit_id.clone(), source).with_priority(priority))
        .and_then(|h| h.wait())
        .map_err(FilecoinError::Engine)?;
    for p in &out.partitions {
        timings.add("synthesis", p.synthesis);
        timings.merge(&p.stages);
        timings.add("epilogue", p.assembly);
        timings.add("verify", p.verify);
    }
    Ok(ProofOutput {
        proof: out.proof_bytes(),
        partitions,
        shape,
        params_path: job.params_path,
        timings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellpepper_core::{ConstraintSystem, SynthesisError};

    /// x · y = z, z public.
    struct Mul(u64, u64);

    impl Circuit<Fr> for Mul {
        fn synthesize<CS: ConstraintSystem<Fr>>(
            self,
            cs: &mut CS,
        ) -> std::result::Result<(), SynthesisError> {
            let x = cs.alloc(|| "x", || Ok(Fr::from(self.0)))?;
            let y = cs.alloc(|| "y", || Ok(Fr::from(self.1)))?;
            let z = cs.alloc_input(|| "z", || Ok(Fr::from(self.0 * self.1)))?;
            cs.enforce(|| "xy", |lc| lc + x, |lc| lc + y, |lc| lc + z);
            Ok(())
        }
    }

    fn gen(values: [u64; 2]) -> NativeFn {
        Box::new(move |aux: &mut [Fr]| {
            for (slot, v) in aux.iter_mut().zip(values) {
                *slot = Fr::from(v);
            }
            Ok(())
        })
    }

    #[test]
    fn a_native_witness_is_deferred_and_checked_against_the_circuit() {
        let r = Arc::new(CompiledR1cs::record(Mul(0, 0)).unwrap());
        let want = [Fr::from(12u64)];
        let pa = native_witness(&r, None, &want, gen([3, 4]), Some(Mul(3, 4)), 0).unwrap();
        assert_eq!(pa.input_assignment, vec![Fr::ONE, Fr::from(12u64)]);
        assert_eq!(&pa.aux_assignment[..], &[Fr::from(3u64), Fr::from(4u64)]);
        assert!(pa.deferred.is_some());

        let e = native_witness(&r, None, &want, gen([3, 5]), Some(Mul(3, 4)), 7).unwrap_err();
        assert!(
            matches!(
                e,
                FilecoinError::WitnessMismatch {
                    partition: 7,
                    what: "aux value",
                    position: 1
                }
            ),
            "{e}"
        );
        let e = native_witness(
            &r,
            None,
            &[Fr::from(13u64)],
            gen([3, 4]),
            Some(Mul(3, 4)),
            0,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                FilecoinError::WitnessMismatch {
                    what: "public input",
                    position: 1,
                    ..
                }
            ),
            "{e}"
        );
        // Without the check the values are taken as they are; a
        // generator's own failure is typed.
        let pa = native_witness::<Mul>(&r, None, &want, gen([3, 5]), None, 0).unwrap();
        assert_eq!(pa.aux_assignment[1], Fr::from(5u64));
        let bad: NativeFn = Box::new(|_| Err("short".into()));
        let e = native_witness::<Mul>(&r, None, &want, bad, None, 2).unwrap_err();
        assert!(
            matches!(&e, FilecoinError::NativeWitness { partition: 2, detail } if detail == "short"),
            "{e}"
        );
    }
}
