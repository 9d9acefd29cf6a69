//! Native witness generators: a gadget's auxiliary values computed from
//! plain integers, in the order and numbering its bellpepper code
//! allocates them, without running the gadget.
//!
//! Witness-only synthesis ([`crate::compiled::synthesize_witness`]) still
//! runs each gadget's own code, and bellpepper's SHA-256 builds its linear
//! combinations outside the `enforce` closures that witness-only synthesis
//! skips (`UInt32::addmany` sums every operand bit into one eagerly). A
//! generator here reproduces only the allocations: which bits are
//! constants, which are allocated, and in which order, following the
//! gadget's case analysis exactly, so the values it appends are the ones
//! the gadget would have allocated. Tests compare them value for value
//! with witness-only synthesis of the gadget itself.
//!
//! - [`Bit`]: bellpepper's `Boolean` without its variable;
//! - [`Aux`]: where a generator appends its allocations ([`SliceAux`]:
//!   into one range of a shared buffer);
//! - [`sha256`]: bellpepper 0.2's SHA-256 gadget (`sha256`,
//!   `sha256_block_no_padding`, `sha256_compression_function`).

pub mod sha256;

use cuzk_field::{Field, Fr, FrVec};

/// A bit as bellpepper's `Boolean` holds it: a constant, an allocated
/// variable with value `v`, or the negation of one. The variable itself
/// is the position it was appended at; generators only need its value and
/// which case it is, since bellpepper's gadgets branch on the case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bit {
    /// `Boolean::Constant`.
    Constant(bool),
    /// `Boolean::Is`: an allocated bit with this value.
    Is(bool),
    /// `Boolean::Not`: the negation of an allocated bit whose value is
    /// this (the bit's own value is the opposite).
    Not(bool),
}

impl Bit {
    /// The value the bit stands for.
    pub fn value(self) -> bool {
        match self {
            Bit::Constant(b) | Bit::Is(b) => b,
            Bit::Not(v) => !v,
        }
    }

    fn is_constant(self) -> bool {
        matches!(self, Bit::Constant(_))
    }
}

/// `Boolean::not`: no allocation.
impl std::ops::Not for Bit {
    type Output = Bit;

    fn not(self) -> Bit {
        match self {
            Bit::Constant(b) => Bit::Constant(!b),
            Bit::Is(v) => Bit::Not(v),
            Bit::Not(v) => Bit::Is(v),
        }
    }
}

/// The auxiliary assignment a generator appends to.
pub trait Aux {
    /// Appends one allocated variable.
    fn push_fr(&mut self, v: Fr);

    /// `AllocatedBit::alloc` (and every gadget allocation of a boolean):
    /// appends 0 or 1 and returns the allocated bit.
    fn bit(&mut self, v: bool) -> Bit {
        self.push_fr(if v { Fr::ONE } else { Fr::ZERO });
        Bit::Is(v)
    }
}

impl Aux for Vec<Fr> {
    fn push_fr(&mut self, v: Fr) {
        self.push(v);
    }
}

impl Aux for FrVec {
    fn push_fr(&mut self, v: Fr) {
        self.push(v);
    }
}

/// An [`Aux`] over a fixed range of a larger assignment, so independent
/// parts of one circuit (a PoSt partition's sectors) are generated on
/// separate threads straight into their own ranges of one buffer.
/// Writes past the end are counted, not stored: [`SliceAux::finish`]
/// reports a generator that did not fill its range exactly.
#[derive(Debug)]
pub struct SliceAux<'a> {
    out: &'a mut [Fr],
    written: usize,
}

impl<'a> SliceAux<'a> {
    /// Writes from the start of `out`.
    pub fn new(out: &'a mut [Fr]) -> Self {
        Self { out, written: 0 }
    }

    /// `Ok` when exactly the range's length was written, else
    /// `Err(count written)`.
    pub fn finish(self) -> Result<(), usize> {
        if self.written == self.out.len() {
            Ok(())
        } else {
            Err(self.written)
        }
    }
}

impl Aux for SliceAux<'_> {
    fn push_fr(&mut self, v: Fr) {
        if let Some(slot) = self.out.get_mut(self.written) {
            *slot = v;
        }
        self.written += 1;
    }
}

/// `Boolean::xor`.
pub fn xor(aux: &mut impl Aux, a: Bit, b: Bit) -> Bit {
    use Bit::*;
    match (a, b) {
        (Constant(false), x) | (x, Constant(false)) => x,
        (Constant(true), x) | (x, Constant(true)) => !x,
        // One of each: xor with the negation's variable, negated.
        (Is(x), Not(y)) | (Not(y), Is(x)) => !aux.bit(x ^ y),
        // `AllocatedBit::xor` of the two variables.
        (Is(x), Is(y)) | (Not(x), Not(y)) => aux.bit(x ^ y),
    }
}

/// `Boolean::and`.
pub fn and(aux: &mut impl Aux, a: Bit, b: Bit) -> Bit {
    use Bit::*;
    match (a, b) {
        (Constant(false), _) | (_, Constant(false)) => Constant(false),
        (Constant(true), x) | (x, Constant(true)) => x,
        // `AllocatedBit::and_not(is, not)`: is ∧ ¬not.
        (Is(x), Not(y)) | (Not(y), Is(x)) => aux.bit(x & !y),
        // `AllocatedBit::nor`: ¬a ∧ ¬b of the variables.
        (Not(x), Not(y)) => aux.bit(!x & !y),
        (Is(x), Is(y)) => aux.bit(x & y),
    }
}

/// `Boolean::sha256_ch`: (a ∧ b) ⊕ (¬a ∧ c), its arms in bellpepper's
/// order (the first that matches decides).
pub fn ch(aux: &mut impl Aux, a: Bit, b: Bit, c: Bit) -> Bit {
    use Bit::*;
    let value = (a.value() & b.value()) ^ (!a.value() & c.value());
    match (a, b, c) {
        (Constant(_), Constant(_), Constant(_)) => Constant(value),
        (Constant(false), _, c) => c,
        (a, Constant(false), c) => and(aux, !a, c),
        (a, b, Constant(false)) => and(aux, a, b),
        (a, b, Constant(true)) => !and(aux, a, !b),
        (a, Constant(true), c) => !and(aux, !a, !c),
        // A constant true `a`, or no constant: one allocation.
        _ => aux.bit(value),
    }
}

/// `Boolean::sha256_maj`: (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c). Without constants
/// it allocates the result and then b ∧ c.
pub fn maj(aux: &mut impl Aux, a: Bit, b: Bit, c: Bit) -> Bit {
    use Bit::*;
    let value = (a.value() & b.value()) ^ (a.value() & c.value()) ^ (b.value() & c.value());
    match (a, b, c) {
        (Constant(_), Constant(_), Constant(_)) => Constant(value),
        (Constant(false), b, c) => and(aux, b, c),
        (a, Constant(false), c) => and(aux, a, c),
        (a, b, Constant(false)) => and(aux, a, b),
        (a, b, Constant(true)) => !and(aux, !a, !b),
        (a, Constant(true), c) => !and(aux, !a, !c),
        (Constant(true), b, c) => !and(aux, !b, !c),
        _ => {
            let m = aux.bit(value);
            and(aux, b, c);
            m
        }
    }
}
