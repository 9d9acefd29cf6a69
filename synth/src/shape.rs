//! The key-generation side: records the R1CS matrices column by column,
//! without witness values (alloc closures are never called).

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use cuzk_field::{Bitmap, Field, Fr};

use crate::prover::is_zero;

/// Counts of a synthesized circuit, in the prover's terms: `num_inputs`
/// includes ONE, `num_constraints` includes the `input · 0 = 0` rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Public inputs, ONE included.
    pub num_inputs: usize,
    /// Private variables.
    pub num_aux: usize,
    /// Constraints, input constraints included.
    pub num_constraints: usize,
}

impl Shape {
    /// Size of the evaluation domain the prover uses: the smallest power of
    /// two ≥ `num_constraints` (at least 1).
    pub fn domain_size(&self) -> usize {
        self.num_constraints.max(1).next_power_of_two()
    }

    /// Heap bytes of a [`crate::ProvingAssignment`] of this shape, with
    /// exact-size vectors: a, b, c (32 B per constraint each), the inputs
    /// and aux values (32 B each) and three bitmaps (rounded to 64-bit words).
    pub fn proving_bytes(&self) -> usize {
        let fr = std::mem::size_of::<Fr>();
        let words = |n: usize| n.div_ceil(64) * 8;
        fr * (3 * self.num_constraints + self.num_inputs + self.num_aux)
            + 2 * words(self.num_aux)
            + words(self.num_inputs)
    }

    /// Heap bytes of a deferred [`crate::ProvingAssignment`] of this shape
    /// ([`crate::compiled::CompiledR1cs::defer`]): [`Shape::proving_bytes`]
    /// without a, b, c.
    pub fn witness_bytes(&self) -> usize {
        self.proving_bytes() - std::mem::size_of::<Fr>() * 3 * self.num_constraints
    }
}

/// (A·z, B·z, C·z), one entry per constraint each.
pub type Evaluations = (Vec<Fr>, Vec<Fr>, Vec<Fr>);

/// One matrix column: `(coefficient, constraint index)` per non-zero entry,
/// in constraint order.
pub type Column = Vec<(Fr, usize)>;

/// The R1CS of a circuit, column-wise, as bellperson 0.26's key generator
/// records it. Unlike bellperson we drop zero coefficients (the prover's
/// density rule): a column is non-empty iff the variable has a non-zero
/// coefficient in that matrix, which makes the density bitmaps a pure
/// function of the shape. Evaluations at τ are the same either way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeypairAssembly {
    /// Public inputs, ONE included.
    pub num_inputs: usize,
    /// Private variables.
    pub num_aux: usize,
    /// Constraints, input constraints included (after [`record_shape`]).
    pub num_constraints: usize,
    /// A matrix, one column per input.
    pub at_inputs: Vec<Column>,
    /// B matrix, one column per input.
    pub bt_inputs: Vec<Column>,
    /// C matrix, one column per input.
    pub ct_inputs: Vec<Column>,
    /// A matrix, one column per aux variable.
    pub at_aux: Vec<Column>,
    /// B matrix, one column per aux variable.
    pub bt_aux: Vec<Column>,
    /// C matrix, one column per aux variable.
    pub ct_aux: Vec<Column>,
}

impl KeypairAssembly {
    /// An empty assembly (no ONE input yet; [`record_shape`] adds it).
    pub fn new() -> Self {
        Self::default()
    }

    /// The counts.
    pub fn shape(&self) -> Shape {
        Shape {
            num_inputs: self.num_inputs,
            num_aux: self.num_aux,
            num_constraints: self.num_constraints,
        }
    }

    /// Bit per aux variable: its A column is non-empty.
    pub fn a_aux_density(&self) -> Bitmap {
        Bitmap::from_bools(self.at_aux.iter().map(|c| !c.is_empty()))
    }

    /// Bit per input: its B column is non-empty.
    pub fn b_input_density(&self) -> Bitmap {
        Bitmap::from_bools(self.bt_inputs.iter().map(|c| !c.is_empty()))
    }

    /// Bit per aux variable: its B column is non-empty.
    pub fn b_aux_density(&self) -> Bitmap {
        Bitmap::from_bools(self.bt_aux.iter().map(|c| !c.is_empty()))
    }

    /// Total number of non-zero entries in (A, B, C).
    pub fn num_nonzeros(&self) -> (usize, usize, usize) {
        let n = |inp: &[Column], aux: &[Column]| inp.iter().chain(aux).map(Vec::len).sum::<usize>();
        (
            n(&self.at_inputs, &self.at_aux),
            n(&self.bt_inputs, &self.bt_aux),
            n(&self.ct_inputs, &self.ct_aux),
        )
    }

    /// Evaluates (A·z, B·z, C·z) from the recorded matrices, for an
    /// assignment `z = (inputs, aux)`. This is the naive reference the
    /// prover's on-the-fly evaluation is tested against.
    pub fn evaluate(&self, inputs: &[Fr], aux: &[Fr]) -> Result<Evaluations, ShapeError> {
        if inputs.len() != self.num_inputs || aux.len() != self.num_aux {
            return Err(ShapeError::AssignmentLength {
                inputs: inputs.len(),
                aux: aux.len(),
                expected_inputs: self.num_inputs,
                expected_aux: self.num_aux,
            });
        }
        let eval = |inp: &[Column], auxc: &[Column]| {
            let mut out = vec![Fr::ZERO; self.num_constraints];
            for (col, v) in inp.iter().zip(inputs).chain(auxc.iter().zip(aux)) {
                for &(coeff, row) in col {
                    out[row] += coeff * v;
                }
            }
            out
        };
        Ok((
            eval(&self.at_inputs, &self.at_aux),
            eval(&self.bt_inputs, &self.bt_aux),
            eval(&self.ct_inputs, &self.ct_aux),
        ))
    }
}

/// Errors of [`KeypairAssembly::evaluate`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShapeError {
    /// The assignment does not match the recorded variable counts.
    #[error("assignment has {inputs} inputs and {aux} aux values, the shape {expected_inputs} and {expected_aux}")]
    AssignmentLength {
        /// Inputs given.
        inputs: usize,
        /// Aux values given.
        aux: usize,
        /// Inputs recorded.
        expected_inputs: usize,
        /// Aux variables recorded.
        expected_aux: usize,
    },
}

fn record_lc(lc: &LinearCombination<Fr>, inputs: &mut [Column], aux: &mut [Column], row: usize) {
    for (&i, coeff) in lc.iter_inputs() {
        if !is_zero(coeff) {
            inputs[i].push((*coeff, row));
        }
    }
    for (&i, coeff) in lc.iter_aux() {
        if !is_zero(coeff) {
            aux[i].push((*coeff, row));
        }
    }
}

impl ConstraintSystem<Fr> for KeypairAssembly {
    type Root = Self;

    fn new() -> Self {
        Self::default()
    }

    /// Not extensible, as in bellperson: parameters must come from one
    /// well-defined sequential synthesis.
    fn is_extensible() -> bool {
        false
    }

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        // No witness at key generation: the value closure is never called.
        self.num_aux += 1;
        self.at_aux.push(Vec::new());
        self.bt_aux.push(Vec::new());
        self.ct_aux.push(Vec::new());
        Ok(Variable(Index::Aux(self.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_inputs += 1;
        self.at_inputs.push(Vec::new());
        self.bt_inputs.push(Vec::new());
        self.ct_inputs.push(Vec::new());
        Ok(Variable(Index::Input(self.num_inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        let row = self.num_constraints;
        record_lc(
            &a(LinearCombination::zero()),
            &mut self.at_inputs,
            &mut self.at_aux,
            row,
        );
        record_lc(
            &b(LinearCombination::zero()),
            &mut self.bt_inputs,
            &mut self.bt_aux,
            row,
        );
        record_lc(
            &c(LinearCombination::zero()),
            &mut self.ct_inputs,
            &mut self.ct_aux,
            row,
        );
        self.num_constraints += 1;
    }

    crate::flat_namespaces!();
}

/// Records the shape of `circuit` as bellperson's parameter generator does:
/// input ONE first, the circuit, then `input_i · 0 = 0` per input.
pub fn record_shape<C: Circuit<Fr>>(circuit: C) -> Result<KeypairAssembly, SynthesisError> {
    let mut cs = KeypairAssembly::new();
    cs.alloc_input(|| "", || Ok(Fr::ONE))?;
    circuit.synthesize(&mut cs)?;
    for i in 0..cs.num_inputs {
        cs.enforce(|| "", |lc| lc + Variable(Index::Input(i)), |lc| lc, |lc| lc);
    }
    Ok(cs)
}

/// Counts only: runs the circuit through a constraint system that keeps no
/// matrices (cheaper than [`record_shape`] when only the [`Shape`] is
/// needed, e.g. for a capacity hint or a memory budget).
pub fn count_shape<C: Circuit<Fr>>(circuit: C) -> Result<Shape, SynthesisError> {
    let mut cs = ShapeCounter::default();
    cs.alloc_input(|| "", || Ok(Fr::ONE))?;
    circuit.synthesize(&mut cs)?;
    cs.0.num_constraints += cs.0.num_inputs;
    Ok(cs.0)
}

/// The counting constraint system behind [`count_shape`]. Value closures
/// and linear-combination closures are not called.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShapeCounter(pub Shape);

impl ConstraintSystem<Fr> for ShapeCounter {
    type Root = Self;

    fn new() -> Self {
        Self::default()
    }

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.num_aux += 1;
        Ok(Variable(Index::Aux(self.0.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.num_inputs += 1;
        Ok(Variable(Index::Input(self.0.num_inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        self.0.num_constraints += 1;
    }

    crate::flat_namespaces!();
}
