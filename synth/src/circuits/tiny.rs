//! A circuit small enough to write every synthesized vector down by hand.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use cuzk_field::{Field, Fr};

/// `x · y = z` with `z` public, a constraint with a coefficient 2 and an
/// explicit zero coefficient, and a multiplication chain
/// `w_{i+1} = w_i · y` (`w_0 = x`) of length `chain`.
///
/// Variables: aux 0 = x, aux 1 = y, input 1 = z, aux 2.. = the chain.
/// Constraints (before the prover's input constraints):
/// 0: `x · y = z`;
/// 1: `(2x + 0·y) · ONE = 2x`;
/// 2 + i: `w_i · y = w_{i+1}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TinyCircuit {
    /// First factor (private).
    pub x: Fr,
    /// Second factor (private).
    pub y: Fr,
    /// Length of the multiplication chain.
    pub chain: usize,
}

impl TinyCircuit {
    /// Constraints after synthesis: 2 + `chain` + 2 input constraints.
    pub fn expected_constraints(&self) -> usize {
        self.chain + 4
    }

    /// The public inputs (without ONE): `[x·y]`.
    pub fn public_inputs(&self) -> Vec<Fr> {
        vec![self.x * self.y]
    }
}

impl Circuit<Fr> for TinyCircuit {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Ok(self.x))?;
        let y = cs.alloc(|| "y", || Ok(self.y))?;
        let z = cs.alloc_input(|| "z", || Ok(self.x * self.y))?;
        cs.enforce(|| "x*y=z", |lc| lc + x, |lc| lc + y, |lc| lc + z);
        let two = Fr::from(2u64);
        cs.enforce(
            || "scaled",
            |lc| lc + (two, x) + (Fr::ZERO, y),
            |lc| lc + CS::one(),
            |lc| lc + x + x,
        );
        let (mut w, mut w_val) = (x, self.x);
        for i in 0..self.chain {
            let next_val = w_val * self.y;
            let next = cs.alloc(|| format!("w{}", i + 1), || Ok(next_val))?;
            cs.enforce(
                || format!("chain {i}"),
                |lc| lc + w,
                |lc| lc + y,
                |lc| lc + next,
            );
            (w, w_val) = (next, next_val);
        }
        Ok(())
    }
}
