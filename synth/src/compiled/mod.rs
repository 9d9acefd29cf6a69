//! Pre-compiled circuits: a circuit's R1CS recorded once, then witness-only
//! synthesis per partition.
//!
//! Every partition of a circuit type has the same R1CS; only the witness
//! differs. So:
//!
//! 1. [`CompiledR1cs::record`] runs the circuit once and keeps A, B, C in
//!    the classic prover's exact row order and variable numbering (ONE is
//!    input 0, the `input · 0 = 0` rows at the end), compressed (see
//!    [`SparseMatrix`]), with the density bitmaps, which depend on the
//!    structure only.
//! 2. [`synthesize_witness`] runs only the value closures of a circuit:
//!    no linear combination is built.
//! 3. [`CompiledR1cs::evaluate`] computes a = A·z, b = B·z, c = C·z with a
//!    rayon SpMV and returns a [`ProvingAssignment`] equal, field for
//!    field, to [`crate::synthesize`]'s. Or [`CompiledR1cs::defer`] returns
//!    the assignment without a, b, c, holding the record instead
//!    ([`Deferred`]): the backend computes them where it proves (the GPU
//!    backend on the device, from its own copy of the matrices, so a, b, c
//!    never exist in host memory; the CPU backend with this SpMV,
//!    [`ProvingAssignment::evaluate_deferred`]).
//!
//! A witness is only multiplied with a matrix recorded from the same
//! circuit shape: counts and the trace of allocations and constraints must
//! agree, else [`CompiledError::ShapeMismatch`] /
//! [`CompiledError::TraceMismatch`]. The trace cannot see a changed
//! coefficient with an unchanged allocation order (a new circuit version
//! that only changes a constant): callers key recorded matrices by circuit
//! identity as well ([`CircuitKey`]).

mod hash;
mod matrix;
mod record;
mod store;
mod witness;

use std::sync::Arc;

use bellpepper_core::{Circuit, SynthesisError};
use cuzk_field::{Bitmap, Fr, FrAlloc, FrVec};
use rayon::prelude::*;

use crate::{ProvingAssignment, Shape};
use hash::Mixer;
pub use matrix::{CoeffIndices, MatrixSize, SparseMatrix, INPUT_TAG};
pub use store::StoreError;
pub use witness::{synthesize_witness, Witness};

/// Errors of the pre-compiled path.
#[derive(Debug, thiserror::Error)]
pub enum CompiledError {
    /// The circuit's own synthesis failed (a value closure returned an
    /// error, for example a missing witness).
    #[error("synthesis failed: {0}")]
    Synthesis(#[from] SynthesisError),
    /// The witness comes from a circuit of other counts than the recorded
    /// one.
    #[error("witness shape {found:?} does not match the recorded shape {recorded:?}")]
    ShapeMismatch {
        /// Counts of the recorded circuit.
        recorded: Shape,
        /// Counts of the witness's circuit.
        found: Shape,
    },
    /// Same counts, but allocations and constraints interleave differently:
    /// another circuit.
    #[error("witness trace {found:#018x} does not match the recorded trace {recorded:#018x}")]
    TraceMismatch {
        /// Trace hash of the recorded circuit.
        recorded: u64,
        /// Trace hash of the witness's circuit.
        found: u64,
    },
    /// The matrices no longer hash to the value computed when recorded.
    #[error("recorded structure hash {recorded:#018x}, matrices now hash to {found:#018x}")]
    StructureMismatch {
        /// Hash at recording time (or the key the caller expected).
        recorded: u64,
        /// Hash of the matrices now.
        found: u64,
    },
    /// A constraint names a variable the circuit had not allocated (a
    /// malformed circuit: refused when recorded, so no product over the
    /// record reads past its vectors).
    #[error("malformed circuit: {0}")]
    Unallocated(String),
    /// The circuit exceeds what the compressed layout can index.
    #[error("circuit too large for the compressed layout: too many {what}")]
    TooLarge {
        /// What overflowed.
        what: &'static str,
    },
}

/// What identifies a recorded R1CS: its counts, the trace of allocations
/// and constraints, and a hash of the recorded matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CircuitKey {
    /// Counts, input rows included.
    pub shape: Shape,
    /// Hash of the order of alloc / alloc_input / enforce events.
    pub trace_hash: u64,
    /// Hash of the three matrices (row pointers, columns, indices, tables)
    /// and the density bitmaps.
    pub structure_hash: u64,
}

/// The record a [`ProvingAssignment`]'s a, b, c are still to be computed
/// from ([`CompiledR1cs::defer`]). Its `Debug` prints the key only (the
/// matrices are gigabytes at 32 GiB).
#[derive(Clone, PartialEq)]
pub struct Deferred(pub Arc<CompiledR1cs>);

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Deferred").field(&self.0.key).finish()
    }
}

/// Sizes of the three matrices (see [`MatrixSize`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompiledSize {
    /// A, B, C.
    pub matrices: [MatrixSize; 3],
}

impl CompiledSize {
    /// Compressed bytes of all three matrices.
    pub fn compressed_bytes(&self) -> usize {
        self.matrices.iter().map(|m| m.compressed_bytes).sum()
    }

    /// Uncompressed CSR bytes of all three matrices.
    pub fn uncompressed_bytes(&self) -> usize {
        self.matrices.iter().map(|m| m.uncompressed_bytes).sum()
    }

    /// Non-zeros of all three matrices.
    pub fn nonzeros(&self) -> usize {
        self.matrices.iter().map(|m| m.nonzeros).sum()
    }
}

/// A circuit's R1CS, recorded once, compressed (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledR1cs {
    key: CircuitKey,
    /// A, B, C.
    matrices: [SparseMatrix; 3],
    a_aux_density: Bitmap,
    b_input_density: Bitmap,
    b_aux_density: Bitmap,
}

impl CompiledR1cs {
    /// Records `circuit` (its value closures are not called, so a circuit
    /// without a witness records fine).
    pub fn record<C: Circuit<Fr>>(circuit: C) -> Result<Self, CompiledError> {
        record::record(circuit)
    }

    fn from_parts(
        shape: Shape,
        trace_hash: u64,
        matrices: [SparseMatrix; 3],
        [a_aux_density, b_input_density, b_aux_density]: [Bitmap; 3],
    ) -> Self {
        let structure_hash = structure_hash(
            &matrices,
            [&a_aux_density, &b_input_density, &b_aux_density],
        );
        Self {
            key: CircuitKey {
                shape,
                trace_hash,
                structure_hash,
            },
            matrices,
            a_aux_density,
            b_input_density,
            b_aux_density,
        }
    }

    /// The counts, input rows included.
    pub fn shape(&self) -> Shape {
        self.key.shape
    }

    /// The identity of the recorded circuit.
    pub fn key(&self) -> CircuitKey {
        self.key
    }

    /// The A, B, C matrices.
    pub fn matrices(&self) -> &[SparseMatrix; 3] {
        &self.matrices
    }

    /// Sizes, compressed and uncompressed.
    pub fn size(&self) -> CompiledSize {
        CompiledSize {
            matrices: [
                self.matrices[0].size(),
                self.matrices[1].size(),
                self.matrices[2].size(),
            ],
        }
    }

    /// Recomputes the structure hash and compares it with the one recorded
    /// (for a matrix that was stored and loaded back; a full pass over it).
    pub fn verify_structure(&self) -> Result<(), CompiledError> {
        let found = structure_hash(
            &self.matrices,
            [
                &self.a_aux_density,
                &self.b_input_density,
                &self.b_aux_density,
            ],
        );
        if found != self.key.structure_hash {
            return Err(CompiledError::StructureMismatch {
                recorded: self.key.structure_hash,
                found,
            });
        }
        Ok(())
    }

    /// Refuses a witness from a circuit of another shape or trace.
    pub fn check_witness(&self, w: &Witness) -> Result<(), CompiledError> {
        if w.shape() != self.key.shape {
            return Err(CompiledError::ShapeMismatch {
                recorded: self.key.shape,
                found: w.shape(),
            });
        }
        if w.trace_hash() != self.key.trace_hash {
            return Err(CompiledError::TraceMismatch {
                recorded: self.key.trace_hash,
                found: w.trace_hash(),
            });
        }
        Ok(())
    }

    /// Witness-only synthesis of `circuit` into vectors reserved for the
    /// recorded shape, checked against it.
    pub fn witness<C: Circuit<Fr>>(&self, circuit: C) -> Result<Witness, CompiledError> {
        self.witness_in(circuit, None)
    }

    /// [`Self::witness`] with the aux assignment written into a vector
    /// from `alloc` when given.
    pub fn witness_in<C: Circuit<Fr>>(
        &self,
        circuit: C,
        alloc: Option<&dyn FrAlloc>,
    ) -> Result<Witness, CompiledError> {
        let w = synthesize_witness(circuit, Witness::with_capacity_in(self.key.shape, alloc))?;
        self.check_witness(&w)?;
        Ok(w)
    }

    /// a, b, c from the recorded matrices and `w` (checked first), into a
    /// fresh [`ProvingAssignment`].
    pub fn evaluate(&self, w: Witness) -> Result<ProvingAssignment, CompiledError> {
        self.evaluate_reusing(w, ProvingAssignment::new())
    }

    /// [`Self::evaluate`] into the a, b, c buffers of an earlier assignment
    /// (capacity kept; its other fields are replaced).
    pub fn evaluate_reusing(
        &self,
        w: Witness,
        mut buffers: ProvingAssignment,
    ) -> Result<ProvingAssignment, CompiledError> {
        self.check_witness(&w)?;
        let (inp, aux) = (&w.input_assignment, &w.aux_assignment);
        self.abc_into(inp, aux, [&mut buffers.a, &mut buffers.b, &mut buffers.c])?;
        buffers.deferred = None;
        buffers.input_assignment = w.input_assignment;
        buffers.aux_assignment = w.aux_assignment;
        buffers.a_aux_density = self.a_aux_density.clone();
        buffers.b_input_density = self.b_input_density.clone();
        buffers.b_aux_density = self.b_aux_density.clone();
        Ok(buffers)
    }

    /// The assignment of `w` (checked first) with a, b, c left empty and
    /// this record attached ([`Deferred`]): what a backend that computes
    /// a, b, c itself is given. Host memory: the witness and the density
    /// bitmaps only (at 32 GiB, 4.2 GB instead of 16.7).
    pub fn defer(self: &Arc<Self>, w: Witness) -> Result<ProvingAssignment, CompiledError> {
        self.check_witness(&w)?;
        self.defer_values(w.input_assignment, w.aux_assignment)
    }

    /// [`Self::defer`] for values that did not come from a synthesis (a
    /// native generator's, [`crate::native`]): only their lengths can be
    /// checked against the record here, so the generator's order must be
    /// proven equal to the circuit's elsewhere (its tests and the check
    /// mode that compares it with [`Self::witness`]).
    pub fn defer_values(
        self: &Arc<Self>,
        input_assignment: Vec<Fr>,
        aux_assignment: FrVec,
    ) -> Result<ProvingAssignment, CompiledError> {
        self.check_lengths(&input_assignment, &aux_assignment)?;
        Ok(ProvingAssignment {
            input_assignment,
            aux_assignment,
            a_aux_density: self.a_aux_density.clone(),
            b_input_density: self.b_input_density.clone(),
            b_aux_density: self.b_aux_density.clone(),
            deferred: Some(Deferred(Arc::clone(self))),
            ..ProvingAssignment::default()
        })
    }

    /// Witness-only synthesis, deferred ([`CompiledR1cs::defer`]).
    pub fn synthesize_deferred<C: Circuit<Fr>>(
        self: &Arc<Self>,
        circuit: C,
    ) -> Result<ProvingAssignment, CompiledError> {
        self.synthesize_deferred_in(circuit, None)
    }

    /// [`Self::synthesize_deferred`] with the aux assignment in a vector
    /// from `alloc` when given (the engine's page-locked witness buffers).
    pub fn synthesize_deferred_in<C: Circuit<Fr>>(
        self: &Arc<Self>,
        circuit: C,
        alloc: Option<&dyn FrAlloc>,
    ) -> Result<ProvingAssignment, CompiledError> {
        let w = self.witness_in(circuit, alloc)?;
        self.defer(w)
    }

    /// Refuses input and aux vectors of other lengths than the record's
    /// (every column was checked against those counts, so the SpMV then
    /// cannot index out of range).
    pub fn check_lengths(&self, inputs: &[Fr], aux: &[Fr]) -> Result<(), CompiledError> {
        let s = self.key.shape;
        if inputs.len() != s.num_inputs || aux.len() != s.num_aux {
            return Err(CompiledError::ShapeMismatch {
                recorded: s,
                found: Shape {
                    num_inputs: inputs.len(),
                    num_aux: aux.len(),
                    num_constraints: s.num_constraints,
                },
            });
        }
        Ok(())
    }

    /// a, b, c of `(inputs, aux)` into the three vectors (resized to the
    /// constraint count, capacity reused).
    pub(crate) fn abc_into(
        &self,
        inputs: &[Fr],
        aux: &[Fr],
        [a, b, c]: [&mut Vec<Fr>; 3],
    ) -> Result<(), CompiledError> {
        self.check_lengths(inputs, aux)?;
        let [ma, mb, mc] = &self.matrices;
        ma.spmv_into(inputs, aux, a);
        mb.spmv_into(inputs, aux, b);
        mc.spmv_into(inputs, aux, c);
        Ok(())
    }

    /// The first constraint `i` with `a[i]·b[i] ≠ c[i]` for `(inputs, aux)`,
    /// computed row by row without materialising a, b, c.
    pub(crate) fn first_unsatisfied(
        &self,
        inputs: &[Fr],
        aux: &[Fr],
    ) -> Result<Option<usize>, CompiledError> {
        self.check_lengths(inputs, aux)?;
        let [ma, mb, mc] = &self.matrices;
        let (ka, kb, kc) = (ma.kinds(), mb.kinds(), mc.kinds());
        Ok((0..ma.rows()).into_par_iter().find_first(|&r| {
            ma.row_value(r, &ka, inputs, aux) * mb.row_value(r, &kb, inputs, aux)
                != mc.row_value(r, &kc, inputs, aux)
        }))
    }

    /// Witness-only synthesis followed by the SpMV: the replacement for
    /// [`crate::synthesize`] when the circuit was recorded.
    pub fn synthesize<C: Circuit<Fr>>(
        &self,
        circuit: C,
    ) -> Result<ProvingAssignment, CompiledError> {
        let w = self.witness(circuit)?;
        self.evaluate(w)
    }

    #[cfg(test)]
    fn corrupt_for_test(&mut self) {
        self.matrices[0].corrupt_for_test();
    }
}

/// Hash of everything a proof depends on besides the witness: the three
/// matrices and the density bitmaps.
fn structure_hash(matrices: &[SparseMatrix; 3], densities: [&Bitmap; 3]) -> u64 {
    let mut m = Mixer::new(0x7374_7275_6374);
    for x in matrices {
        x.mix_into(&mut m);
    }
    for d in densities {
        m.word(d.len() as u64);
        m.words(d.as_words().iter().copied());
    }
    m.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuits::TinyCircuit;

    #[test]
    fn corrupted_matrix_is_detected() {
        let circ = TinyCircuit {
            x: Fr::from(3u64),
            y: Fr::from(5u64),
            chain: 4,
        };
        let mut r = CompiledR1cs::record(circ).unwrap();
        r.verify_structure().unwrap();
        r.corrupt_for_test();
        assert!(matches!(
            r.verify_structure(),
            Err(CompiledError::StructureMismatch { .. })
        ));
    }
}
