//! Witness-only synthesis: runs the circuit's value closures and nothing
//! else. No linear combination is built (`enforce` never calls its
//! closures), no a, b, c are computed; those come from the recorded
//! matrices ([`super::CompiledR1cs::evaluate`]).

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use cuzk_field::{Field, Fr, FrAlloc, FrVec};

use super::hash::Trace;
use crate::Shape;

/// The assignment of one circuit, without a, b, c: what the recorded
/// matrices are multiplied with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Witness {
    /// Public inputs; entry 0 is ONE.
    pub input_assignment: Vec<Fr>,
    /// Private (auxiliary) variables (possibly pooled: [`FrVec`]).
    pub aux_assignment: FrVec,
    /// Constraints seen (input rows included).
    num_constraints: usize,
    /// Event trace hash (see `hash::Trace`).
    trace: u64,
}

impl Witness {
    /// Empty, with the vectors reserved for `shape` (pass the recorded
    /// shape, so a 2^27 witness is written without reallocating).
    pub fn with_capacity(shape: Shape) -> Self {
        Self::with_capacity_in(shape, None)
    }

    /// [`Witness::with_capacity`] with the aux assignment from `alloc`
    /// when given (page-locked memory the GPU reads by DMA).
    pub fn with_capacity_in(shape: Shape, alloc: Option<&dyn FrAlloc>) -> Self {
        Self {
            input_assignment: Vec::with_capacity(shape.num_inputs),
            aux_assignment: match alloc {
                Some(a) => a.alloc(shape.num_aux),
                None => FrVec::with_capacity(shape.num_aux),
            },
            ..Self::default()
        }
    }

    /// The counts of the synthesis that produced this witness.
    pub fn shape(&self) -> Shape {
        Shape {
            num_inputs: self.input_assignment.len(),
            num_aux: self.aux_assignment.len(),
            num_constraints: self.num_constraints,
        }
    }

    /// Hash of the order of allocations and constraints.
    pub fn trace_hash(&self) -> u64 {
        self.trace
    }
}

/// The constraint system behind [`synthesize_witness`]: writes values into
/// the witness's vectors and counts constraints.
struct WitnessCs {
    w: Witness,
    trace: Trace,
}

impl ConstraintSystem<Fr> for WitnessCs {
    type Root = Self;

    fn new() -> Self {
        Self {
            w: Witness::default(),
            trace: Trace::default(),
        }
    }

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.trace.event(Trace::AUX);
        self.w.aux_assignment.push(f()?);
        Ok(Variable(Index::Aux(self.w.aux_assignment.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.trace.event(Trace::INPUT);
        self.w.input_assignment.push(f()?);
        Ok(Variable(Index::Input(self.w.input_assignment.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        // The whole point: the LC closures (most of classic synthesis'
        // allocations and hashing) are not called.
        self.trace.event(Trace::ENFORCE);
        self.w.num_constraints += 1;
    }

    crate::flat_namespaces!();

    // Extensible, like bellperson's prover: a circuit of independent parts
    // (storage-proofs-post's sectors) synthesizes them on all cores, each
    // into a fresh system whose first input is a stand-in ONE, and appends
    // them in order. The result is the sequential synthesis', whose layout
    // the record has (the recorder renumbers its parts into it): the same
    // values in the same order, and the same trace, since `Trace` composes
    // and the stand-in's event is dropped.
    fn is_extensible() -> bool {
        true
    }

    fn extend(&mut self, other: &Self) {
        // `other` began with its stand-in ONE. One that did not (no input
        // at all) gets an extra event, so its trace cannot match the
        // record's and the witness is refused rather than misnumbered.
        let rest = match other.trace.without_first(Trace::INPUT) {
            Some(t) if !other.w.input_assignment.is_empty() => t,
            _ => {
                self.trace.event(Trace::ENFORCE);
                other.trace
            }
        };
        self.trace.append(&rest);
        self.w
            .input_assignment
            .extend_from_slice(other.w.input_assignment.get(1..).unwrap_or(&[]));
        self.w
            .aux_assignment
            .extend_from_slice(&other.w.aux_assignment);
        self.w.num_constraints += other.w.num_constraints;
    }
}

/// Runs `circuit`'s value closures only, into `buffers` (cleared first,
/// capacity kept): input ONE first, the circuit, then the per-input
/// constraints are counted as [`crate::synthesize`] adds them.
pub fn synthesize_witness<C: Circuit<Fr>>(
    circuit: C,
    mut buffers: Witness,
) -> Result<Witness, SynthesisError> {
    buffers.input_assignment.clear();
    buffers.aux_assignment.clear();
    buffers.num_constraints = 0;
    let mut cs = WitnessCs {
        w: buffers,
        trace: Trace::default(),
    };
    cs.alloc_input(|| "", || Ok(Fr::ONE))?;
    circuit.synthesize(&mut cs)?;
    for _ in 0..cs.w.input_assignment.len() {
        cs.enforce(|| "", |lc| lc, |lc| lc, |lc| lc);
    }
    cs.w.trace = cs.trace.finish();
    Ok(cs.w)
}
