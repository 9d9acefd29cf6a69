//! The benchmark circuit: satisfiability, sizes, determinism, agreement of
//! the prover with the shape recorder and with bellpepper's test system.

use bellpepper_core::{test_cs::TestConstraintSystem, Circuit};
use cuzk_field::Fr;
use cuzk_synth::{
    circuits::{BenchCircuit, BenchError},
    count_shape, record_shape, synthesize, synthesize_many, synthesize_with_hint,
};

#[test]
fn sizes_fill_the_domain() {
    for k in 3..=16 {
        let c = BenchCircuit::new(k, 5).unwrap();
        assert_eq!(c.expected_constraints(), 1 << k);
        assert_eq!(count_shape(c).unwrap(), c.expected_shape(), "k={k}");
        assert_eq!(c.layout().compressions > 0, k >= 15);
    }
    for n in [
        6,
        7,
        8,
        9,
        263,
        264,
        265,
        270,
        1000,
        (1 << 15) - 1,
        1 << 15,
        (1 << 15) + 1,
        58_000,
        100_001,
    ] {
        let c = BenchCircuit::with_constraints(n, 9).unwrap();
        assert_eq!(c.expected_constraints(), n);
        assert_eq!(count_shape(c).unwrap(), c.expected_shape(), "n={n}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
    #[test]
    fn any_size_is_exact(n in 6usize..80_000, seed in proptest::prelude::any::<u64>()) {
        let c = BenchCircuit::with_constraints(n, seed).unwrap();
        proptest::prop_assert_eq!(count_shape(c).unwrap(), c.expected_shape());
        proptest::prop_assert_eq!(c.expected_shape().num_constraints, n);
    }
}

#[test]
fn bad_sizes_are_errors() {
    assert_eq!(BenchCircuit::new(2, 0), Err(BenchError::LogDomain(2)));
    assert_eq!(BenchCircuit::new(33, 0), Err(BenchError::LogDomain(33)));
    assert_eq!(
        BenchCircuit::with_constraints(5, 0),
        Err(BenchError::TooSmall {
            requested: 5,
            minimum: 6
        })
    );
    assert!(BenchCircuit::with_constraints(0, 0).is_err());
}

#[test]
fn synthesized_small_sizes_satisfy_r1cs_and_match_shape() {
    for k in 10..=14 {
        for seed in [0, 1, u64::MAX] {
            let c = BenchCircuit::new(k, seed).unwrap();
            let p = synthesize(c).unwrap();
            assert_eq!(p.shape(), c.expected_shape());
            assert_eq!(p.first_unsatisfied(), None, "k={k} seed={seed}");
            assert_eq!(p.input_assignment[0], Fr::from(1u64));
            assert_eq!(p.input_assignment[1..], c.public_inputs()[..]);
            assert!(
                p.aux_bit_fraction() > 0.9,
                "k={k}: {}",
                p.aux_bit_fraction()
            );
        }
    }
}

#[test]
fn prover_agrees_with_recorded_matrices() {
    // 2^15: one SHA-256 compression plus filler.
    for k in [11, 15] {
        let c = BenchCircuit::new(k, 77).unwrap();
        let p = synthesize_with_hint(c, c.expected_shape()).unwrap();
        let ka = record_shape(c).unwrap();
        assert_eq!(ka.shape(), p.shape());
        let (a, b, cc) = ka.evaluate(&p.input_assignment, &p.aux_assignment).unwrap();
        assert!(a == p.a && b == p.b && cc == p.c, "k={k}");
        assert_eq!(p.a_aux_density, ka.a_aux_density());
        assert_eq!(p.b_aux_density, ka.b_aux_density());
        assert_eq!(p.b_input_density, ka.b_input_density());
        assert_eq!(p.first_unsatisfied(), None);
        // non-trivial densities: some aux variables are missing from A or B
        let n = p.num_aux();
        let (da, db) = (p.a_aux_density.count_ones(), p.b_aux_density.count_ones());
        assert!(0 < da && da < n && 0 < db && db < n, "{da} {db} of {n}");
        println!(
            "2^{k}: {} constraints, {} aux, A-density {da}, B-density {db}, 0/1 aux {:.4}",
            p.num_constraints(),
            n,
            p.aux_bit_fraction()
        );
    }
}

#[test]
fn bellpepper_test_cs_agrees() {
    for k in [10, 15] {
        let c = BenchCircuit::new(k, 3).unwrap();
        let mut tcs = TestConstraintSystem::<Fr>::new();
        c.synthesize(&mut tcs).unwrap();
        assert!(tcs.is_satisfied(), "{:?}", tcs.which_is_unsatisfied());
        let p = synthesize(c).unwrap();
        assert_eq!(tcs.num_inputs(), p.num_inputs());
        assert_eq!(tcs.num_constraints() + p.num_inputs(), p.num_constraints());
        assert_eq!(tcs.scalar_aux(), p.aux_assignment);
        assert_eq!(tcs.scalar_inputs(), p.input_assignment);
        // a changed input breaks it (the test system can fail)
        let mut tcs = TestConstraintSystem::<Fr>::new();
        c.synthesize(&mut tcs).unwrap();
        tcs.set("s2", Fr::from(12345u64));
        assert!(!tcs.is_satisfied());
    }
}

#[test]
fn deterministic_per_seed() {
    let a = synthesize(BenchCircuit::new(12, 1).unwrap()).unwrap();
    let b = synthesize(BenchCircuit::new(12, 1).unwrap()).unwrap();
    let c = synthesize(BenchCircuit::new(12, 2).unwrap()).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.shape(), c.shape());
    assert_ne!(a.input_assignment, c.input_assignment);
    let differing = a
        .aux_assignment
        .iter()
        .zip(&c.aux_assignment)
        .filter(|(x, y)| x != y)
        .count();
    assert!(
        differing > a.num_aux() / 4,
        "{differing} of {}",
        a.num_aux()
    );
    // the shape does not depend on the seed
    assert_eq!(
        record_shape(BenchCircuit::new(11, 1).unwrap())
            .unwrap()
            .b_aux_density(),
        record_shape(BenchCircuit::new(11, 2).unwrap())
            .unwrap()
            .b_aux_density()
    );
    let many = synthesize_many(vec![
        BenchCircuit::new(12, 1).unwrap(),
        BenchCircuit::new(12, 2).unwrap(),
    ])
    .unwrap();
    assert_eq!(many, vec![a, c]);
}

#[test]
fn medium_sizes_satisfy_r1cs() {
    for k in 16..=18 {
        let c = BenchCircuit::new(k, 11).unwrap();
        let p = synthesize_with_hint(c, c.expected_shape()).unwrap();
        assert_eq!(p.shape(), c.expected_shape());
        assert_eq!(p.first_unsatisfied(), None);
        assert!(p.aux_bit_fraction() > 0.99);
        println!(
            "2^{k}: {:?}, 0/1 aux {:.5}",
            c.layout(),
            p.aux_bit_fraction()
        );
    }
}

#[test]
#[ignore = "large: synthesizes 2^20 and 2^22 (~1.5 GiB), counts 2^27 (~1 min)"]
fn large_sizes() {
    for k in [20, 22] {
        let c = BenchCircuit::new(k, 0).unwrap();
        let p = synthesize_with_hint(c, c.expected_shape()).unwrap();
        assert_eq!(p.shape(), c.expected_shape());
        assert_eq!(p.first_unsatisfied(), None);
        println!(
            "2^{k}: {:?}, 0/1 aux {:.6}",
            c.layout(),
            p.aux_bit_fraction()
        );
    }
    let c = BenchCircuit::new(27, 0).unwrap();
    assert_eq!(count_shape(c).unwrap(), c.expected_shape());
}
