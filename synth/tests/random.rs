//! Differential: the prover's on-the-fly evaluation against the recorded
//! matrices and against bellpepper's own `LinearCombination::eval`, on
//! random circuits with awkward coefficients and values.

use bellpepper_core::{
    test_cs::TestConstraintSystem, Circuit, Comparable, ConstraintSystem, Index, LinearCombination,
    SynthesisError, Variable,
};
use cuzk_field::{Bitmap, Field, Fr};
use cuzk_synth::{record_shape, synthesize};
use proptest::prelude::*;
use rand_chacha::{
    rand_core::{RngCore, SeedableRng},
    ChaCha8Rng,
};

/// Picks 0, 1, r − 1, 2 or a random element.
fn awkward(rng: &mut ChaCha8Rng) -> Fr {
    match rng.next_u32() % 6 {
        0 => Fr::ZERO,
        1 => Fr::ONE,
        2 => -Fr::ONE,
        3 => Fr::from(2u64),
        _ => Fr::random(&mut *rng),
    }
}

/// Random variables and constraints (not satisfiable: only the evaluation is
/// under test). Terms may repeat a variable (coefficients merge, possibly to
/// zero) and may carry explicit zero coefficients.
#[derive(Clone, Debug)]
struct RandomCircuit {
    seed: u64,
    inputs: usize,
    aux: usize,
    constraints: usize,
}

impl RandomCircuit {
    fn lc(&self, rng: &mut ChaCha8Rng, n_in: usize, n_aux: usize) -> LinearCombination<Fr> {
        let mut lc = LinearCombination::zero();
        let terms = rng.next_u32() % 6;
        for _ in 0..terms {
            let v = if rng.next_u32() % 3 == 0 || n_aux == 0 {
                Variable(Index::Input(rng.next_u32() as usize % n_in))
            } else {
                Variable(Index::Aux(rng.next_u32() as usize % n_aux))
            };
            let c = awkward(rng);
            lc = if rng.next_u32() % 4 == 0 {
                lc - (c, v)
            } else {
                lc + (c, v)
            };
            if rng.next_u32() % 8 == 0 {
                // cancel the term just added: a stored zero coefficient
                lc = lc - (c, v);
            }
        }
        lc
    }
}

impl Circuit<Fr> for RandomCircuit {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        for i in 0..self.inputs {
            let v = awkward(&mut rng);
            cs.alloc_input(|| format!("in{i}"), || Ok(v))?;
        }
        for i in 0..self.aux {
            let v = awkward(&mut rng);
            cs.alloc(|| format!("aux{i}"), || Ok(v))?;
        }
        let n_in = self.inputs + 1;
        for i in 0..self.constraints {
            let (a, b, c) = (
                self.lc(&mut rng, n_in, self.aux),
                self.lc(&mut rng, n_in, self.aux),
                self.lc(&mut rng, n_in, self.aux),
            );
            cs.enforce(|| format!("c{i}"), |_| a, |_| b, |_| c);
        }
        Ok(())
    }
}

fn check(circ: RandomCircuit) {
    let p = synthesize(circ.clone()).unwrap();
    let ka = record_shape(circ.clone()).unwrap();
    assert_eq!(p.shape(), ka.shape());
    assert_eq!(p.num_constraints(), circ.constraints + circ.inputs + 1);

    // (1) recorded matrices × assignment
    let (a, b, c) = ka.evaluate(&p.input_assignment, &p.aux_assignment).unwrap();
    assert_eq!(p.a, a);
    assert_eq!(p.b, b);
    assert_eq!(p.c, c);
    assert_eq!(p.a_aux_density, ka.a_aux_density());
    assert_eq!(p.b_aux_density, ka.b_aux_density());
    assert_eq!(p.b_input_density, ka.b_input_density());

    // (2) bellpepper's TestConstraintSystem holds the same LCs; evaluate
    // them with bellpepper's own `eval`, and densities from its terms.
    let mut tcs = TestConstraintSystem::<Fr>::new();
    circ.clone().synthesize(&mut tcs).unwrap();
    let inputs: Vec<Fr> = tcs.get_inputs().iter().map(|(v, _)| *v).collect();
    let aux = tcs.scalar_aux();
    assert_eq!(inputs, p.input_assignment);
    assert_eq!(aux, p.aux_assignment);
    let mut a_aux = Bitmap::zeros(aux.len());
    let mut b_aux = Bitmap::zeros(aux.len());
    let mut b_in = Bitmap::zeros(inputs.len());
    for (i, (la, lb, lc, _)) in tcs.constraints().iter().enumerate() {
        assert_eq!(p.a[i], la.eval(&inputs, &aux));
        assert_eq!(p.b[i], lb.eval(&inputs, &aux));
        assert_eq!(p.c[i], lc.eval(&inputs, &aux));
        for (v, coeff) in la.iter() {
            if let (Index::Aux(j), false) = (v.0, coeff.is_zero_vartime()) {
                a_aux.set(j);
            }
        }
        for (v, coeff) in lb.iter() {
            match (v.0, coeff.is_zero_vartime()) {
                (Index::Aux(j), false) => b_aux.set(j),
                (Index::Input(j), false) => b_in.set(j),
                _ => {}
            }
        }
    }
    // the prover's input constraints: input_i in A only
    for (k, i) in (tcs.constraints().len()..p.num_constraints()).enumerate() {
        assert_eq!(
            (p.a[i], p.b[i], p.c[i]),
            (p.input_assignment[k], Fr::ZERO, Fr::ZERO)
        );
    }
    assert_eq!(p.a_aux_density, a_aux);
    assert_eq!(p.b_aux_density, b_aux);
    assert_eq!(p.b_input_density, b_in);
}

#[test]
fn random_awkward_sizes() {
    for (inputs, aux, constraints) in [
        (0, 0, 0),
        (0, 1, 1),
        (1, 0, 2),
        (2, 31, 32),
        (3, 32, 33),
        (0, 63, 64),
        (4, 65, 1000),
    ] {
        check(RandomCircuit {
            seed: 42,
            inputs,
            aux,
            constraints,
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_circuits(seed in any::<u64>(), inputs in 0usize..5, aux in 0usize..140, constraints in 0usize..200) {
        check(RandomCircuit { seed, inputs, aux, constraints });
    }
}
