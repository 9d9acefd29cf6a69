//! Hand-computed expectations on the tiny circuit, and `extend`.

use bellpepper_core::{Circuit, ConstraintSystem, Index, SynthesisError, Variable};
use cuzk_field::{Bitmap, Field, Fr};
use cuzk_synth::{
    circuits::TinyCircuit, record_shape, synthesize, synthesize_many, synthesize_reusing,
    synthesize_with_hint, ProvingAssignment, Shape,
};

fn f(x: u64) -> Fr {
    Fr::from(x)
}

fn bits(s: &str) -> Bitmap {
    Bitmap::from_bools(s.chars().map(|c| c == '1'))
}

#[test]
fn tiny_every_vector_by_hand() {
    let circ = TinyCircuit {
        x: f(3),
        y: f(5),
        chain: 2,
    };
    let p = synthesize(circ).unwrap();
    // aux: x, y, w1 = x·y, w2 = x·y²; inputs: ONE, z = x·y
    assert_eq!(p.aux_assignment, vec![f(3), f(5), f(15), f(75)]);
    assert_eq!(p.input_assignment, vec![f(1), f(15)]);
    // 0: x·y = z; 1: (2x + 0y)·1 = 2x; 2: x·y = w1; 3: w1·y = w2;
    // 4, 5: ONE·0 = 0, z·0 = 0
    assert_eq!(p.a, vec![f(3), f(6), f(3), f(15), f(1), f(15)]);
    assert_eq!(p.b, vec![f(5), f(1), f(5), f(5), f(0), f(0)]);
    assert_eq!(p.c, vec![f(15), f(6), f(15), f(75), f(0), f(0)]);
    // y only has a zero coefficient in A; w2 appears in C only.
    assert_eq!(p.a_aux_density, bits("1010"));
    assert_eq!(p.b_aux_density, bits("0100"));
    // ONE is in B in constraint 1; z never is.
    assert_eq!(p.b_input_density, bits("10"));
    assert_eq!(p.num_constraints(), circ.expected_constraints());
    assert_eq!((p.num_inputs(), p.num_aux()), (2, 4));
    assert_eq!(p.first_unsatisfied(), None);
    assert_eq!(p.input_assignment[1..], circ.public_inputs()[..]);
    assert_eq!(p.aux_bit_fraction(), 0.0);
}

#[test]
fn tiny_zero_and_one_values() {
    // x = 0, y = 1: every value is 0 or 1, so no product is ever computed;
    // densities depend on coefficients only and must not change.
    let p = synthesize(TinyCircuit {
        x: f(0),
        y: f(1),
        chain: 3,
    })
    .unwrap();
    assert_eq!(p.aux_assignment, vec![f(0), f(1), f(0), f(0), f(0)]);
    assert_eq!(p.a, vec![f(0), f(0), f(0), f(0), f(0), f(1), f(0)]);
    assert_eq!(p.b, vec![f(1), f(1), f(1), f(1), f(1), f(0), f(0)]);
    assert_eq!(p.c, vec![f(0); 7]);
    assert_eq!(p.a_aux_density, bits("10110"));
    assert_eq!(p.b_aux_density, bits("01000"));
    assert_eq!(p.b_input_density, bits("10"));
    assert_eq!(p.aux_bit_fraction(), 1.0);

    // r − 1 as a value
    let m1 = -Fr::ONE;
    let p = synthesize(TinyCircuit {
        x: m1,
        y: m1,
        chain: 1,
    })
    .unwrap();
    assert_eq!(p.a, vec![m1, m1.double(), m1, f(1), f(1)]);
    assert_eq!(p.c, vec![f(1), m1.double(), f(1), f(0), f(0)]);
    assert_eq!(p.first_unsatisfied(), None);
}

#[test]
fn tiny_shape_by_hand() {
    let ka = record_shape(TinyCircuit {
        x: f(3),
        y: f(5),
        chain: 2,
    })
    .unwrap();
    assert_eq!(
        ka.shape(),
        Shape {
            num_inputs: 2,
            num_aux: 4,
            num_constraints: 6
        }
    );
    let one = Fr::ONE;
    // A: x in rows 0 (1), 1 (2), 2 (1); y nowhere (zero coefficient dropped)
    assert_eq!(ka.at_aux[0], vec![(one, 0), (f(2), 1), (one, 2)]);
    assert!(ka.at_aux[1].is_empty());
    assert_eq!(ka.at_aux[2], vec![(one, 3)]);
    assert_eq!(ka.at_inputs[0], vec![(one, 4)]);
    assert_eq!(ka.at_inputs[1], vec![(one, 5)]);
    assert_eq!(ka.bt_inputs[0], vec![(one, 1)]);
    assert_eq!(ka.bt_aux[1], vec![(one, 0), (one, 2), (one, 3)]);
    assert_eq!(ka.ct_aux[0], vec![(f(2), 1)]);
    assert_eq!(ka.ct_inputs[1], vec![(one, 0)]);
    assert_eq!(ka.ct_aux[3], vec![(one, 3)]);
    assert_eq!(ka.num_nonzeros(), (6, 4, 4));
    assert_eq!(ka.a_aux_density(), bits("1010"));
}

/// A circuit whose alloc closures fail: the shape recorder must not call them.
struct NoWitness;
impl Circuit<Fr> for NoWitness {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let a = cs.alloc(|| "a", || Err(SynthesisError::AssignmentMissing))?;
        let i = cs.alloc_input(|| "i", || Err(SynthesisError::AssignmentMissing))?;
        cs.enforce(|| "c", |l| l + a, |l| l + i, |l| l + a);
        Ok(())
    }
}

#[test]
fn shape_needs_no_witness_but_prover_does() {
    let ka = record_shape(NoWitness).unwrap();
    assert_eq!(
        ka.shape(),
        Shape {
            num_inputs: 2,
            num_aux: 1,
            num_constraints: 3
        }
    );
    assert_eq!(ka.b_input_density(), bits("01"));
    assert!(matches!(
        synthesize(NoWitness),
        Err(SynthesisError::AssignmentMissing)
    ));
    assert!(synthesize_many(vec![NoWitness, NoWitness]).is_err());
}

/// A wrong witness must show up as an unsatisfied row.
struct Wrong;
impl Circuit<Fr> for Wrong {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let a = cs.alloc(|| "a", || Ok(Fr::from(2u64)))?;
        let b = cs.alloc(|| "b", || Ok(Fr::from(5u64)))?;
        cs.enforce(
            || "ok",
            |l| l + a,
            |l| l + a,
            |l| l + (Fr::from(4u64), CS::one()),
        );
        cs.enforce(|| "bad", |l| l + a, |l| l + a, |l| l + b);
        Ok(())
    }
}

#[test]
fn unsatisfied_witness_is_found() {
    assert_eq!(synthesize(Wrong).unwrap().first_unsatisfied(), Some(1));
}

#[test]
fn hint_and_many_give_the_same_result() {
    let circs: Vec<_> = (0..5)
        .map(|i| TinyCircuit {
            x: f(i + 2),
            y: f(7),
            chain: i as usize,
        })
        .collect();
    let many = synthesize_many(circs.clone()).unwrap();
    for (c, p) in circs.iter().zip(&many) {
        assert_eq!(*p, synthesize(*c).unwrap());
        let hinted = synthesize_with_hint(*c, p.shape()).unwrap();
        assert_eq!(hinted, *p);
        assert!(hinted.a.capacity() >= p.num_constraints());
        // the estimate counts exact-size vectors: never above what is held
        assert!(p.shape().proving_bytes() <= hinted.memory_bytes());
        assert_eq!(
            p.shape().proving_bytes(),
            32 * (3 * p.num_constraints() + p.num_inputs() + p.num_aux()) + 3 * 8
        );
    }
    assert!(synthesize_many(Vec::<TinyCircuit>::new())
        .unwrap()
        .is_empty());
    // reuse: buffers of a larger, different assignment leave no trace
    let big = synthesize(TinyCircuit {
        x: f(9),
        y: f(9),
        chain: 100,
    })
    .unwrap();
    let cap = big.a.capacity();
    let reused = synthesize_reusing(circs[2], big).unwrap();
    assert_eq!(reused, many[2]);
    assert_eq!(reused.a.capacity(), cap);
}

/// Two tiny circuits synthesized one after the other in one system.
struct Seq(TinyCircuit, TinyCircuit);
impl Circuit<Fr> for Seq {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        self.0.synthesize(&mut cs.namespace(|| "first"))?;
        self.1.synthesize(&mut cs.namespace(|| "second"))
    }
}

fn partial(c: TinyCircuit) -> ProvingAssignment {
    let mut p = ProvingAssignment::new();
    p.alloc_input(|| "one", || Ok(Fr::ONE)).unwrap();
    c.synthesize(&mut p).unwrap();
    p
}

#[test]
fn extend_equals_sequential_synthesis() {
    assert!(<ProvingAssignment as ConstraintSystem<Fr>>::is_extensible());
    let t1 = TinyCircuit {
        x: f(3),
        y: f(5),
        chain: 2,
    };
    let t2 = TinyCircuit {
        x: f(0),
        y: f(9),
        chain: 70,
    };
    let seq = synthesize(Seq(t1, t2)).unwrap();

    let mut joined = partial(t1);
    joined.extend(&partial(t2));
    let n = joined.num_inputs();
    for i in 0..n {
        joined.enforce(|| "", |l| l + Variable(Index::Input(i)), |l| l, |l| l);
    }
    assert_eq!(joined, seq);
    assert_eq!(joined.num_inputs(), 3);
    assert_eq!(joined.num_aux(), 4 + 72);
}

#[test]
fn extend_edge_cases() {
    let t = TinyCircuit {
        x: f(3),
        y: f(5),
        chain: 1,
    };
    let p = partial(t);
    // extending by an empty system changes nothing
    let mut q = p.clone();
    q.extend(&ProvingAssignment::new());
    assert_eq!(q, p);
    // an empty receiver takes the other's densities whole but drops its ONE
    // from the inputs (bellperson 0.26 does the same)
    let mut e = ProvingAssignment::new();
    e.extend(&p);
    assert_eq!(e.a, p.a);
    assert_eq!(e.input_assignment, p.input_assignment[1..]);
    assert_eq!(e.b_input_density, p.b_input_density);
    assert_eq!(e.a_aux_density, p.a_aux_density);
    // ONE bits are OR-ed: p has ONE in B (constraint 1)
    let mut r = partial(TinyCircuit {
        x: f(1),
        y: f(1),
        chain: 0,
    });
    let mut no_one_in_b = ProvingAssignment::new();
    no_one_in_b.alloc_input(|| "", || Ok(Fr::ONE)).unwrap();
    no_one_in_b.alloc_input(|| "", || Ok(f(4))).unwrap();
    no_one_in_b.enforce(|| "", |l| l, |l| l + Variable(Index::Input(1)), |l| l);
    assert_eq!(no_one_in_b.b_input_density, bits("01"));
    r.extend(&no_one_in_b);
    assert_eq!(r.b_input_density, bits("101"));
    assert_eq!(r.input_assignment, vec![f(1), f(1), f(4)]);
    let mut s = no_one_in_b.clone();
    s.extend(&partial(t));
    assert_eq!(s.b_input_density, bits("110"));
}
