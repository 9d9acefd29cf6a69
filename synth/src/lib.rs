//! # cuzk-synth
//!
//! Circuit synthesis for Groth16 over BLS12-381, for any circuit written
//! against bellpepper-core 0.2 (`Circuit<blstrs::Scalar>`), Filecoin's
//! included. The output is exactly what bellperson 0.26's prover computes
//! before its FFTs and MSMs.
//!
//! Entry points:
//! - [`synthesize`] / [`synthesize_many`] (rayon) → [`ProvingAssignment`]:
//!   `a, b, c` (A·z, B·z, C·z per constraint), the input and aux
//!   assignments, and the density bitmaps (`a_aux_density`,
//!   `b_input_density`, `b_aux_density`), with bellperson's conventions
//!   (ONE is input 0; one `input · 0 = 0` constraint per input at the end;
//!   zero coefficients set no density bit). [`synthesize_with_hint`]
//!   reserves the vectors from a [`Shape`], [`synthesize_reusing`] reuses
//!   the buffers of an earlier assignment.
//! - [`record_shape`] → [`KeypairAssembly`]: the R1CS matrices column-wise,
//!   as bellperson's parameter generator records them, without witness
//!   values; [`count_shape`] → [`Shape`] for counts only.
//! - [`circuits`]: [`circuits::TinyCircuit`] (hand-checkable) and
//!   [`circuits::BenchCircuit`] (seedable, SHA-256-heavy like Filecoin,
//!   sized to fill a 2^k domain exactly).
//!
//! - [`compiled`]: record a circuit's R1CS once ([`compiled::CompiledR1cs`],
//!   compressed), then per partition run only the value closures
//!   ([`compiled::synthesize_witness`]) and get a, b, c from a rayon SpMV:
//!   the same [`ProvingAssignment`], field for field (or, deferred, the
//!   assignment without a, b, c, for a backend that computes them itself).
//! - [`native`]: gadgets' auxiliary values computed from integers in the
//!   order the gadget allocates them (bellpepper's SHA-256 so far), equal
//!   value for value to witness-only synthesis of the gadget.
//!
//! Features: none.
#![forbid(unsafe_code)]

pub mod circuits;
pub mod compiled;
pub mod native;
mod prover;
mod sequential;
mod shape;

pub use prover::{
    synthesize, synthesize_many, synthesize_many_with_hint, synthesize_reusing,
    synthesize_with_hint, ProvingAssignment,
};
pub use shape::{
    count_shape, record_shape, Column, Evaluations, KeypairAssembly, Shape, ShapeCounter,
    ShapeError,
};

pub use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
pub use sequential::Sequential;

/// The namespace methods of a flat `ConstraintSystem` impl that is its own
/// root and ignores names (names are for debugging circuits; not calling
/// the name closure saves a `format!` per namespace). Every constraint
/// system in cuzk (proving, shape, counting, setup's QAP evaluation) is one.
#[macro_export]
macro_rules! flat_namespaces {
    () => {
        fn push_namespace<NR, N>(&mut self, _: N)
        where
            NR: Into<String>,
            N: FnOnce() -> NR,
        {
        }

        fn pop_namespace(&mut self) {}

        fn get_root(&mut self) -> &mut Self::Root {
            self
        }
    };
}
