//! Recording a circuit once: the constraint system that builds the
//! compressed A, B, C and the density bitmaps.

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use cuzk_field::{Bitmap, Field, Fr};

use super::hash::Trace;
use super::matrix::{MatrixBuilder, INPUT_TAG};
use super::{CompiledError, CompiledR1cs};
use crate::prover::is_zero;
use crate::Shape;

/// Records the R1CS while the circuit runs. Value closures are never
/// called; linear-combination closures are, once per constraint.
struct Recorder {
    shape: Shape,
    trace: Trace,
    a: MatrixBuilder,
    b: MatrixBuilder,
    c: MatrixBuilder,
    a_aux_density: Bitmap,
    b_input_density: Bitmap,
    b_aux_density: Bitmap,
    /// A variable index did not fit the 31 bits of a tagged column.
    too_many_variables: bool,
    /// The first term naming a variable not allocated (yet): its row and
    /// variable.
    unallocated: Option<(usize, Index)>,
}

impl Recorder {
    fn new() -> Self {
        Self {
            shape: Shape::default(),
            trace: Trace::default(),
            a: MatrixBuilder::new(),
            b: MatrixBuilder::new(),
            c: MatrixBuilder::new(),
            a_aux_density: Bitmap::new(),
            b_input_density: Bitmap::new(),
            b_aux_density: Bitmap::new(),
            too_many_variables: false,
            unallocated: None,
        }
    }
}

/// Where [`record_row`] writes one matrix's row, and what it checks.
struct RowSink<'a> {
    m: &'a mut MatrixBuilder,
    input_density: Option<&'a mut Bitmap>,
    aux_density: Option<&'a mut Bitmap>,
}

impl Recorder {
    /// Appends `lc`'s non-zero terms as one row, inputs first then aux,
    /// each in index order (the order the classic evaluation visits them;
    /// it does not matter for the value, field addition being exact). Zero
    /// coefficients (explicit, or terms that cancelled) are dropped and
    /// set no density bit, exactly as the classic prover's `eval_lc`. A
    /// term on a variable not allocated yet is noted (an error from
    /// [`record`]) and left out.
    fn record_row(
        shape: Shape,
        lc: &LinearCombination<Fr>,
        row: RowSink<'_>,
        too_many: &mut bool,
        unallocated: &mut Option<(usize, Index)>,
    ) {
        let RowSink {
            m,
            mut input_density,
            mut aux_density,
        } = row;
        let inputs = lc.iter_inputs().map(|(&i, c)| (Index::Input(i), c));
        let aux = lc.iter_aux().map(|(&i, c)| (Index::Aux(i), c));
        for (var, coeff) in inputs.chain(aux) {
            if is_zero(coeff) {
                continue;
            }
            let (i, allocated, density, tag) = match var {
                Index::Input(i) => (i, shape.num_inputs, input_density.as_deref_mut(), INPUT_TAG),
                Index::Aux(i) => (i, shape.num_aux, aux_density.as_deref_mut(), 0),
            };
            if i >= allocated {
                unallocated.get_or_insert((shape.num_constraints, var));
                continue;
            }
            if let Some(d) = density {
                d.set(i);
            }
            *too_many |= i >= INPUT_TAG as usize;
            m.push(tag | (i as u32 & !INPUT_TAG), coeff);
        }
        m.end_row();
    }
}

impl ConstraintSystem<Fr> for Recorder {
    type Root = Self;

    fn new() -> Self {
        Recorder::new()
    }

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.trace.event(Trace::AUX);
        self.a_aux_density.push(false);
        self.b_aux_density.push(false);
        self.shape.num_aux += 1;
        Ok(Variable(Index::Aux(self.shape.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.trace.event(Trace::INPUT);
        self.b_input_density.push(false);
        self.shape.num_inputs += 1;
        Ok(Variable(Index::Input(self.shape.num_inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        self.trace.event(Trace::ENFORCE);
        // The densities tracked here are the classic prover's: A aux, B
        // inputs, B aux (inputs are all in A through the input rows; C has
        // no density query).
        let (shape, many, bad) = (
            self.shape,
            &mut self.too_many_variables,
            &mut self.unallocated,
        );
        let a_row = RowSink {
            m: &mut self.a,
            input_density: None,
            aux_density: Some(&mut self.a_aux_density),
        };
        Self::record_row(shape, &a(LinearCombination::zero()), a_row, many, bad);
        let b_row = RowSink {
            m: &mut self.b,
            input_density: Some(&mut self.b_input_density),
            aux_density: Some(&mut self.b_aux_density),
        };
        Self::record_row(shape, &b(LinearCombination::zero()), b_row, many, bad);
        let c_row = RowSink {
            m: &mut self.c,
            input_density: None,
            aux_density: None,
        };
        Self::record_row(shape, &c(LinearCombination::zero()), c_row, many, bad);
        self.shape.num_constraints += 1;
    }

    crate::flat_namespaces!();

    // Not extensible, like the key generator's `KeypairAssembly`: the
    // parameters of any circuit come from its sequential synthesis, so a
    // circuit that synthesizes differently under an extensible system must
    // still produce this layout for its proofs to verify. The witness-only
    // system may take the extensible branch: appending the parts in order
    // gives this layout's values and trace (witness.rs).
}

/// Records `circuit`'s R1CS: input ONE first, the circuit, then one
/// `input_i · 0 = 0` row per input, exactly as [`crate::synthesize`] does.
pub(super) fn record<C: Circuit<Fr>>(circuit: C) -> Result<CompiledR1cs, CompiledError> {
    let mut cs = Recorder::new();
    cs.alloc_input(|| "", || Ok(Fr::ONE))?;
    circuit.synthesize(&mut cs)?;
    for i in 0..cs.shape.num_inputs {
        cs.enforce(|| "", |lc| lc + Variable(Index::Input(i)), |lc| lc, |lc| lc);
    }
    if cs.too_many_variables {
        return Err(CompiledError::TooLarge {
            what: "variables (2^31 per kind)",
        });
    }
    if cs.a.overflow || cs.b.overflow || cs.c.overflow {
        return Err(CompiledError::TooLarge {
            what: "non-zeros (2^32 per matrix)",
        });
    }
    if let Some((row, var)) = cs.unallocated {
        return Err(CompiledError::Unallocated(format!(
            "constraint {row} uses {var:?} before it is allocated"
        )));
    }
    Ok(CompiledR1cs::from_parts(
        cs.shape,
        cs.trace.finish(),
        [cs.a.finish(), cs.b.finish(), cs.c.finish()],
        [cs.a_aux_density, cs.b_input_density, cs.b_aux_density],
    ))
}
