//! The proving-side constraint system: evaluates A·z, B·z, C·z per
//! constraint while the circuit runs, and records the density bitmaps.

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use cuzk_field::{repr::fr_to_mont, Bitmap, Field, Fr, FrVec};
use rayon::prelude::*;

use crate::compiled::{CompiledError, Deferred};
use crate::shape::Shape;

/// Montgomery limbs of `Fr::ONE` (R mod r). Checked against blstrs in a test.
pub(crate) const ONE_MONT: [u64; 4] = [
    0x0000_0001_ffff_fffe,
    0x5884_b7fa_0003_4802,
    0x998c_4fef_ecbc_4ff5,
    0x1824_b159_acc5_056f,
];
const ZERO_MONT: [u64; 4] = [0; 4];

#[inline(always)]
pub(crate) fn is_zero(x: &Fr) -> bool {
    fr_to_mont(x) == ZERO_MONT
}

#[inline(always)]
pub(crate) fn is_one(x: &Fr) -> bool {
    fr_to_mont(x) == ONE_MONT
}

/// `acc += coeff · value`, without a multiplication when either side is
/// 0 or 1. Filecoin witnesses are mostly bits, so most terms take the cheap
/// branches: comparing limbs is a few ns, a Montgomery product ~20 ns.
#[inline(always)]
fn add_term(acc: &mut Fr, coeff: &Fr, value: &Fr) {
    let v = fr_to_mont(value);
    if v == ZERO_MONT {
        return;
    }
    if v == ONE_MONT {
        *acc += coeff;
    } else if is_one(coeff) {
        *acc += value;
    } else {
        *acc += *value * coeff;
    }
}

/// Evaluates `lc` at the assignment. Terms with a zero coefficient are
/// skipped and mark no density bit (bellperson's `eval_with_trackers`);
/// every other term marks its variable in the given trackers.
#[inline]
fn eval_lc(
    lc: &LinearCombination<Fr>,
    inputs: &[Fr],
    aux: &[Fr],
    mut input_density: Option<&mut Bitmap>,
    mut aux_density: Option<&mut Bitmap>,
) -> Fr {
    let mut acc = Fr::ZERO;
    for (&i, coeff) in lc.iter_inputs() {
        if is_zero(coeff) {
            continue;
        }
        if let Some(d) = input_density.as_deref_mut() {
            d.set(i);
        }
        add_term(&mut acc, coeff, &inputs[i]);
    }
    for (&i, coeff) in lc.iter_aux() {
        if is_zero(coeff) {
            continue;
        }
        if let Some(d) = aux_density.as_deref_mut() {
            d.set(i);
        }
        add_term(&mut acc, coeff, &aux[i]);
    }
    acc
}

/// Everything the Groth16 prover needs from one synthesized circuit
/// (one partition), in bellperson 0.26's conventions.
///
/// Fields are public so the prover can move the big vectors out without a
/// copy; a [`ProvingAssignment`] built by [`synthesize`] always has
/// `a.len() == b.len() == c.len()`, `a_aux_density.len() ==
/// b_aux_density.len() == aux_assignment.len()` and
/// `b_input_density.len() == input_assignment.len()`.
///
/// Using a variable that was never allocated in `enforce` panics (index out
/// of range), as it does in bellperson: the trait gives `enforce` no way to
/// return an error, and such a circuit is a programming error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProvingAssignment {
    /// A·z, one entry per constraint.
    pub a: Vec<Fr>,
    /// B·z, one entry per constraint.
    pub b: Vec<Fr>,
    /// C·z, one entry per constraint.
    pub c: Vec<Fr>,
    /// Public inputs; entry 0 is ONE after [`synthesize`].
    pub input_assignment: Vec<Fr>,
    /// Private (auxiliary) variables (possibly in pooled page-locked
    /// memory: [`FrVec`]).
    pub aux_assignment: FrVec,
    /// Bit per aux variable: used with a non-zero coefficient in some A.
    pub a_aux_density: Bitmap,
    /// Bit per input: used with a non-zero coefficient in some B.
    pub b_input_density: Bitmap,
    /// Bit per aux variable: used with a non-zero coefficient in some B.
    pub b_aux_density: Bitmap,
    /// `Some` when a, b, c are still to be computed from a recorded R1CS
    /// ([`crate::compiled::CompiledR1cs::defer`]): a, b, c are empty, the
    /// other fields are complete.
    pub deferred: Option<Deferred>,
}

impl ProvingAssignment {
    /// An empty assignment (no ONE input yet; [`synthesize`] adds it).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty assignment whose vectors are reserved for `shape`, so a
    /// 2^27 synthesis does not reallocate (and briefly double) 4 GiB vectors.
    pub fn with_capacity(shape: Shape) -> Self {
        Self {
            a: Vec::with_capacity(shape.num_constraints),
            b: Vec::with_capacity(shape.num_constraints),
            c: Vec::with_capacity(shape.num_constraints),
            input_assignment: Vec::with_capacity(shape.num_inputs),
            aux_assignment: FrVec::with_capacity(shape.num_aux),
            ..Self::default()
        }
    }

    /// Empties the assignment but keeps the vectors' capacity, so a pool
    /// of assignments can be reused across partitions: fresh 4 GiB vectors
    /// cost a page fault per 4 KiB on first touch (measured: ~10% of a
    /// 2^18 synthesis).
    pub fn clear(&mut self) {
        self.a.clear();
        self.b.clear();
        self.c.clear();
        self.input_assignment.clear();
        self.aux_assignment.clear();
        self.a_aux_density = Bitmap::new();
        self.b_input_density = Bitmap::new();
        self.b_aux_density = Bitmap::new();
        self.deferred = None;
    }

    /// Number of constraints so far (after [`synthesize`]: including one
    /// `input · 0 = 0` constraint per input; for a deferred assignment,
    /// the record's).
    pub fn num_constraints(&self) -> usize {
        match &self.deferred {
            Some(d) => d.0.shape().num_constraints,
            None => self.a.len(),
        }
    }

    /// Computes a deferred assignment's a, b, c on the CPU (the rayon
    /// SpMV) and drops the record; a no-op for any other assignment.
    pub fn evaluate_deferred(&mut self) -> Result<(), CompiledError> {
        if let Some(d) = self.deferred.take() {
            let r = d.0.abc_into(
                &self.input_assignment,
                &self.aux_assignment,
                [&mut self.a, &mut self.b, &mut self.c],
            );
            if r.is_err() {
                self.deferred = Some(d);
            }
            r?;
        }
        Ok(())
    }

    /// Number of public inputs, ONE included.
    pub fn num_inputs(&self) -> usize {
        self.input_assignment.len()
    }

    /// Number of private variables.
    pub fn num_aux(&self) -> usize {
        self.aux_assignment.len()
    }

    /// The counts as a [`Shape`].
    pub fn shape(&self) -> Shape {
        Shape {
            num_inputs: self.num_inputs(),
            num_aux: self.num_aux(),
            num_constraints: self.num_constraints(),
        }
    }

    /// Bytes of heap this assignment holds now (vector capacities included).
    pub fn memory_bytes(&self) -> usize {
        let fr = std::mem::size_of::<Fr>();
        let vecs = self.a.capacity()
            + self.b.capacity()
            + self.c.capacity()
            + self.input_assignment.capacity()
            + self.aux_assignment.capacity();
        let bits = self.a_aux_density.as_words().len()
            + self.b_input_density.as_words().len()
            + self.b_aux_density.as_words().len();
        vecs * fr + bits * 8
    }

    /// Fraction of aux values that are 0 or 1 (1.0 for no aux variables).
    pub fn aux_bit_fraction(&self) -> f64 {
        if self.aux_assignment.is_empty() {
            return 1.0;
        }
        let bits = self
            .aux_assignment
            .iter()
            .filter(|v| is_zero(v) || is_one(v))
            .count();
        bits as f64 / self.aux_assignment.len() as f64
    }

    /// Checks `a[i]·b[i] == c[i]` for every constraint; returns the first
    /// failing index. A cheap witness sanity check (one product per row).
    /// A deferred assignment is checked row by row from its record, without
    /// materialising a, b, c; one whose vectors do not fit the record
    /// reports constraint 0.
    pub fn first_unsatisfied(&self) -> Option<usize> {
        match &self.deferred {
            Some(d) => {
                d.0.first_unsatisfied(&self.input_assignment, &self.aux_assignment)
                    .unwrap_or(Some(0))
            }
            None => (0..self.a.len()).find(|&i| self.a[i] * self.b[i] != self.c[i]),
        }
    }
}

impl ConstraintSystem<Fr> for ProvingAssignment {
    type Root = Self;

    fn new() -> Self {
        Self::default()
    }

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux_assignment.push(f()?);
        self.a_aux_density.push(false);
        self.b_aux_density.push(false);
        Ok(Variable(Index::Aux(self.aux_assignment.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.input_assignment.push(f()?);
        self.b_input_density.push(false);
        Ok(Variable(Index::Input(self.input_assignment.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        let inputs = &self.input_assignment;
        let aux = &self.aux_assignment;
        // Inputs need no A tracker: the `input · 0 = 0` constraints put every
        // input in A.
        let av = eval_lc(
            &a(LinearCombination::zero()),
            inputs,
            aux,
            None,
            Some(&mut self.a_aux_density),
        );
        let bv = eval_lc(
            &b(LinearCombination::zero()),
            inputs,
            aux,
            Some(&mut self.b_input_density),
            Some(&mut self.b_aux_density),
        );
        // C has no density query (its points are folded into L).
        let cv = eval_lc(&c(LinearCombination::zero()), inputs, aux, None, None);
        self.a.push(av);
        self.b.push(bv);
        self.c.push(cv);
    }

    crate::flat_namespaces!();

    fn is_extensible() -> bool {
        true
    }

    /// Appends `other` (synthesized on its own, with its own ONE input 0),
    /// exactly as bellperson 0.26 does: constraints, aux variables and aux
    /// densities are concatenated; `other`'s input 0 is dropped from the
    /// inputs, and its B-input bit is OR-ed into ours. When `self` has no
    /// inputs yet, the B-input bitmap is copied whole (bellperson's
    /// `DensityTracker::extend` quirk, kept for bit-exactness).
    fn extend(&mut self, other: &Self) {
        extend_density(&mut self.a_aux_density, &other.a_aux_density, false);
        extend_density(&mut self.b_input_density, &other.b_input_density, true);
        extend_density(&mut self.b_aux_density, &other.b_aux_density, false);
        self.a.extend_from_slice(&other.a);
        self.b.extend_from_slice(&other.b);
        self.c.extend_from_slice(&other.c);
        self.input_assignment
            .extend_from_slice(other.input_assignment.get(1..).unwrap_or(&[]));
        self.aux_assignment.extend_from_slice(&other.aux_assignment);
    }
}

/// ec-gpu-gen `DensityTracker::extend` semantics on a [`Bitmap`].
fn extend_density(dst: &mut Bitmap, src: &Bitmap, is_input: bool) {
    if src.is_empty() {
        return;
    }
    if dst.is_empty() {
        *dst = src.clone();
        return;
    }
    if is_input {
        if src.get(0) {
            dst.set(0);
        }
        for bit in src.iter().skip(1) {
            dst.push(bit);
        }
    } else {
        dst.extend_from(src);
    }
}

/// Synthesizes `circuit` for proving, like bellperson's prover: input ONE
/// is allocated first, the circuit runs, then one constraint
/// `input_i · 0 = 0` is added per input (ONE included).
pub fn synthesize<C: Circuit<Fr>>(circuit: C) -> Result<ProvingAssignment, SynthesisError> {
    synthesize_into(circuit, ProvingAssignment::new())
}

/// [`synthesize`] with the vectors reserved up front for `hint` (for
/// example the [`Shape`] a [`crate::record_shape`] run returned). A wrong
/// hint only costs reallocations, never correctness.
pub fn synthesize_with_hint<C: Circuit<Fr>>(
    circuit: C,
    hint: Shape,
) -> Result<ProvingAssignment, SynthesisError> {
    synthesize_into(circuit, ProvingAssignment::with_capacity(hint))
}

/// [`synthesize`] into the buffers of an earlier assignment (cleared
/// first, capacity kept): see [`ProvingAssignment::clear`].
pub fn synthesize_reusing<C: Circuit<Fr>>(
    circuit: C,
    mut buffers: ProvingAssignment,
) -> Result<ProvingAssignment, SynthesisError> {
    buffers.clear();
    synthesize_into(circuit, buffers)
}

fn synthesize_into<C: Circuit<Fr>>(
    circuit: C,
    mut cs: ProvingAssignment,
) -> Result<ProvingAssignment, SynthesisError> {
    cs.alloc_input(|| "", || Ok(Fr::ONE))?;
    circuit.synthesize(&mut cs)?;
    for i in 0..cs.num_inputs() {
        cs.enforce(|| "", |lc| lc + Variable(Index::Input(i)), |lc| lc, |lc| lc);
    }
    Ok(cs)
}

/// Synthesizes several circuits in parallel (rayon), in order. The first
/// error aborts the batch.
pub fn synthesize_many<C: Circuit<Fr> + Send>(
    circuits: Vec<C>,
) -> Result<Vec<ProvingAssignment>, SynthesisError> {
    circuits.into_par_iter().map(synthesize).collect()
}

/// [`synthesize_many`] with a capacity hint shared by all circuits (they
/// are usually partitions of one proof, so all have the same shape).
pub fn synthesize_many_with_hint<C: Circuit<Fr> + Send>(
    circuits: Vec<C>,
    hint: Shape,
) -> Result<Vec<ProvingAssignment>, SynthesisError> {
    circuits
        .into_par_iter()
        .map(|c| synthesize_with_hint(c, hint))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_field::PrimeField;
    use rand_chacha::{rand_core::SeedableRng, ChaCha8Rng};

    #[test]
    fn one_mont_matches_blstrs() {
        assert_eq!(fr_to_mont(&Fr::ONE), ONE_MONT);
        assert!(is_one(&Fr::ONE) && !is_zero(&Fr::ONE));
        assert!(is_zero(&Fr::ZERO) && !is_one(&Fr::ZERO));
        assert!(!is_one(&-Fr::ONE) && !is_zero(&-Fr::ONE));
        assert!(!is_one(&Fr::from(2u64)));
    }

    #[test]
    fn add_term_matches_multiplication() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let r_minus_1 = -Fr::ONE;
        let mut vals = vec![Fr::ZERO, Fr::ONE, r_minus_1, Fr::from(2u64)];
        vals.extend((0..4).map(|_| Fr::random(&mut rng)));
        for c in &vals {
            for v in &vals {
                let start = Fr::from_u128(12345);
                let mut acc = start;
                add_term(&mut acc, c, v);
                assert_eq!(acc, start + *c * v, "c={c:?} v={v:?}");
            }
        }
    }

    #[test]
    fn extend_density_like_density_tracker() {
        let bits = |s: &str| Bitmap::from_bools(s.chars().map(|c| c == '1'));
        // empty source: no change
        let mut d = bits("101");
        extend_density(&mut d, &Bitmap::new(), true);
        assert_eq!(d, bits("101"));
        // empty destination: copied whole, even for inputs
        let mut d = Bitmap::new();
        extend_density(&mut d, &bits("110"), true);
        assert_eq!(d, bits("110"));
        // input: first bits OR-ed, rest appended
        let mut d = bits("01");
        extend_density(&mut d, &bits("101"), true);
        assert_eq!(d, bits("1101"));
        let mut d = bits("11");
        extend_density(&mut d, &bits("001"), true);
        assert_eq!(d, bits("1101"));
        // aux: plain concatenation
        let mut d = bits("01");
        extend_density(&mut d, &bits("101"), false);
        assert_eq!(d, bits("01101"));
    }
}
