//! A circuit's sequential branch, whatever system runs it.

use bellpepper_core::{Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable};
use cuzk_field::Fr;

/// Runs a circuit under a wrapper system that is not extensible, so it
/// takes its sequential branch under any system: the layout the key
/// generator gives the parameters. Tests compare it with the extensible
/// branch the recorder and the witness-only system take.
#[derive(Clone, Debug)]
pub struct Sequential<C>(pub C);

impl<C: Circuit<Fr>> Circuit<Fr> for Sequential<C> {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        self.0.synthesize(&mut NotExtensible(cs))
    }
}

struct NotExtensible<'a, CS>(&'a mut CS);

impl<'a, CS: ConstraintSystem<Fr>> ConstraintSystem<Fr> for NotExtensible<'a, CS> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, a: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.alloc(a, f)
    }

    fn alloc_input<F, A, AR>(&mut self, a: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.alloc_input(a, f)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, a: A, la: LA, lb: LB, lc: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        self.0.enforce(a, la, lb, lc)
    }

    crate::flat_namespaces!();
}
