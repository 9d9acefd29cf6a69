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
    /// The first event was an input (a part's stand-in ONE).
    leads_with_input: bool,
    /// A part appended by `extend` had no stand-in ONE, or the system
    /// extended had no ONE of its own.
    bad_part: bool,
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
            leads_with_input: false,
            bad_part: false,
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
        self.leads_with_input |= self.trace.len() == 0;
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

    // Extensible, like bellperson's prover: a circuit of independent parts
    // (storage-proofs-post's sectors) records them on all cores, each in a
    // fresh system whose first input is a stand-in ONE, and appends them in
    // order. The parameters come from the sequential synthesis (the key
    // generator is not extensible), and bellperson's proofs verify against
    // them only because both branches lay out the same system; `extend`
    // renumbers a part into that layout, so the record is the sequential
    // one, table order and trace included (tests/compiled.rs and
    // cuzk-filecoin's PoSt tests compare the two). A 32 GiB WindowPoSt
    // partition (2349 sectors) records in 51 s on 16 cores, 308 s on one.
    fn is_extensible() -> bool {
        true
    }

    fn extend(&mut self, other: &Self) {
        let rest = match other.trace.without_first(Trace::INPUT) {
            Some(t) if other.leads_with_input && self.shape.num_inputs > 0 => t,
            _ => {
                self.bad_part = true;
                return;
            }
        };
        let (inputs, aux) = (self.shape.num_inputs, self.shape.num_aux);
        // The part's input i ≥ 1 becomes input `inputs + i − 1`, its
        // stand-in (input 0) ONE, its aux j aux `aux + j`. Counted, not
        // per column: a part whose indices would pass 31 bits fails.
        self.too_many_variables |= other.too_many_variables
            || inputs + other.shape.num_inputs > INPUT_TAG as usize
            || aux + other.shape.num_aux > INPUT_TAG as usize;
        let map = |c: u32| {
            if c & INPUT_TAG == 0 {
                (aux + c as usize) as u32 & !INPUT_TAG
            } else {
                match (c & !INPUT_TAG) as usize {
                    0 => INPUT_TAG,
                    i => INPUT_TAG | ((inputs + i - 1) as u32 & !INPUT_TAG),
                }
            }
        };
        if self.unallocated.is_none() {
            self.unallocated = other.unallocated.map(|(row, var)| {
                let var = match var {
                    Index::Input(0) => Index::Input(0),
                    Index::Input(i) => Index::Input(inputs + i - 1),
                    Index::Aux(j) => Index::Aux(aux + j),
                };
                (self.shape.num_constraints + row, var)
            });
        }
        self.a.append(&other.a, map);
        self.b.append(&other.b, map);
        self.c.append(&other.c, map);
        self.a_aux_density.extend_from(&other.a_aux_density);
        self.b_aux_density.extend_from(&other.b_aux_density);
        if other.b_input_density.get(0) {
            self.b_input_density.set(0);
        }
        for i in 1..other.shape.num_inputs {
            self.b_input_density.push(other.b_input_density.get(i));
        }
        self.trace.append(&rest);
        self.bad_part |= other.bad_part;
        self.shape.num_inputs += other.shape.num_inputs - 1;
        self.shape.num_aux += other.shape.num_aux;
        self.shape.num_constraints += other.shape.num_constraints;
    }
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
    if cs.bad_part {
        return Err(CompiledError::Unallocated(
            "a part appended by `extend` does not begin with its stand-in ONE".into(),
        ));
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
