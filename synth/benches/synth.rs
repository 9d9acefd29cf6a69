//! Synthesis speed on the Filecoin-like bench circuit.
//!
//! - `ours`: [`cuzk_synth::synthesize`];
//! - `ours_hint`: the same with the vectors reserved from the expected shape;
//! - `ours_reuse`: [`cuzk_synth::synthesize_reusing`], buffers kept across
//!   iterations (no page faults on fresh memory);
//! - `naive`: a constraint system written here that evaluates every term
//!   the way bellperson 0.26's `ProvingAssignment` does (a product per term
//!   unless the coefficient is one, `==` through `subtle`), as a stand-in for
//!   bellperson, whose prover type is private;
//! - `gadgets_only`: calls every value and linear-combination closure and
//!   drops the results: the cost of the circuit code itself, the floor for
//!   any constraint system;
//! - `count_only`: [`cuzk_synth::count_shape`] (no closures at all).
//!
//! Run: `cargo bench -p cuzk-synth --bench synth`.

use std::time::Duration;

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use cuzk_field::{Bitmap, Field, Fr};
use cuzk_synth::{
    circuits::BenchCircuit, count_shape, synthesize, synthesize_reusing, synthesize_with_hint,
    ProvingAssignment,
};

#[derive(Default)]
struct NaiveAssignment {
    a: Vec<Fr>,
    b: Vec<Fr>,
    c: Vec<Fr>,
    inputs: Vec<Fr>,
    aux: Vec<Fr>,
    a_aux: Bitmap,
    b_in: Bitmap,
    b_aux: Bitmap,
}

fn naive_terms<'a>(
    acc: &mut Fr,
    terms: impl Iterator<Item = (&'a usize, &'a Fr)>,
    vals: &[Fr],
    mut dens: Option<&mut Bitmap>,
) {
    for (&i, coeff) in terms {
        if coeff.is_zero_vartime() {
            continue;
        }
        let mut t = vals[i];
        if *coeff != Fr::ONE {
            t *= coeff;
        }
        *acc += t;
        if let Some(d) = dens.as_deref_mut() {
            if !d.get(i) {
                d.set(i);
            }
        }
    }
}

fn naive_eval(
    lc: &LinearCombination<Fr>,
    inputs: &[Fr],
    aux: &[Fr],
    din: Option<&mut Bitmap>,
    daux: Option<&mut Bitmap>,
) -> Fr {
    let mut acc = Fr::ZERO;
    naive_terms(&mut acc, lc.iter_inputs(), inputs, din);
    naive_terms(&mut acc, lc.iter_aux(), aux, daux);
    acc
}

impl ConstraintSystem<Fr> for NaiveAssignment {
    type Root = Self;
    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        self.a_aux.push(false);
        self.b_aux.push(false);
        Ok(Variable(Index::Aux(self.aux.len() - 1)))
    }
    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        self.b_in.push(false);
        Ok(Variable(Index::Input(self.inputs.len() - 1)))
    }
    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        let (a, b, c) = (
            a(LinearCombination::zero()),
            b(LinearCombination::zero()),
            c(LinearCombination::zero()),
        );
        let av = naive_eval(&a, &self.inputs, &self.aux, None, Some(&mut self.a_aux));
        let bv = naive_eval(
            &b,
            &self.inputs,
            &self.aux,
            Some(&mut self.b_in),
            Some(&mut self.b_aux),
        );
        let cv = naive_eval(&c, &self.inputs, &self.aux, None, None);
        self.a.push(av);
        self.b.push(bv);
        self.c.push(cv);
    }
    cuzk_synth::flat_namespaces!();
}

fn naive_synthesize(c: BenchCircuit) -> NaiveAssignment {
    let mut cs = NaiveAssignment::default();
    cs.alloc_input(|| "", || Ok(Fr::ONE)).unwrap();
    c.synthesize(&mut cs).unwrap();
    for i in 0..cs.inputs.len() {
        cs.enforce(|| "", |l| l + Variable(Index::Input(i)), |l| l, |l| l);
    }
    cs
}

/// Runs all closures, keeps nothing but counts.
#[derive(Default)]
struct GadgetsOnly {
    inputs: usize,
    aux: usize,
    terms: usize,
}

impl ConstraintSystem<Fr> for GadgetsOnly {
    type Root = Self;
    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        std::hint::black_box(f()?);
        self.aux += 1;
        Ok(Variable(Index::Aux(self.aux - 1)))
    }
    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        std::hint::black_box(f()?);
        self.inputs += 1;
        Ok(Variable(Index::Input(self.inputs - 1)))
    }
    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        self.terms += a(LinearCombination::zero()).len()
            + b(LinearCombination::zero()).len()
            + c(LinearCombination::zero()).len();
    }
    cuzk_synth::flat_namespaces!();
}

fn bench(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("synth");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    for k in [16u32, 18] {
        let c = BenchCircuit::new(k, 1).unwrap();
        // sanity: all variants agree on the constraint count
        assert_eq!(naive_synthesize(c).a, synthesize(c).unwrap().a);
        g.bench_with_input(BenchmarkId::new("ours", k), &c, |b, c| {
            b.iter(|| synthesize(*c).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("ours_hint", k), &c, |b, c| {
            b.iter(|| synthesize_with_hint(*c, c.expected_shape()).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("ours_reuse", k), &c, |b, c| {
            let mut buf = Some(ProvingAssignment::with_capacity(c.expected_shape()));
            b.iter(|| {
                let p = synthesize_reusing(*c, buf.take().unwrap_or_default()).unwrap();
                buf = Some(p);
            })
        });
        g.bench_with_input(BenchmarkId::new("naive", k), &c, |b, c| {
            b.iter(|| naive_synthesize(*c))
        });
        g.bench_with_input(BenchmarkId::new("gadgets_only", k), &c, |b, c| {
            b.iter(|| {
                let mut cs = GadgetsOnly::default();
                c.synthesize(&mut cs).unwrap();
                cs.terms
            })
        });
        g.bench_with_input(BenchmarkId::new("count_only", k), &c, |b, c| {
            b.iter(|| count_shape(*c).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
