//! The SpMV kernel's host twin (the device code of `cuda/spmv.cuh`, run
//! on the CPU) against synth's classic synthesis: the same a, b, c, bit
//! for bit, padded with zeros to the domain; and its refusals.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use cuzk_field::{Field, Fr};
use cuzk_spmv::{twin, SpmvError};
use cuzk_synth::{
    circuits::{BenchCircuit, TinyCircuit},
    compiled::{CompiledError, CompiledR1cs},
    synthesize, ProvingAssignment,
};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

fn check<C: Circuit<Fr> + Clone>(rec: &CompiledR1cs, circ: C, what: &str) {
    let classic: ProvingAssignment = synthesize(circ.clone()).unwrap();
    let w = rec.witness(circ).unwrap();
    let n = classic.num_constraints();
    let m = n.next_power_of_two();
    let [a, b, c] = twin::abc(rec, &w.input_assignment, &w.aux_assignment, m).unwrap();
    for (name, got, want) in [
        ("a", &a, &classic.a),
        ("b", &b, &classic.b),
        ("c", &c, &classic.c),
    ] {
        assert_eq!(got.len(), m, "{what}: {name} length");
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            panic!("{what}: {name}[{i}] differs");
        }
        assert!(
            got[n..].iter().all(|x| *x == Fr::ZERO),
            "{what}: {name} padding"
        );
    }
}

#[test]
fn bench_circuit_matches_classic() {
    // 2^15 and up have SHA-256 (boolean gadgets, ±2^k coefficients); the
    // smaller sizes are the field-arithmetic filler (values ≠ 0, 1).
    for log in [8u32, 12, 15] {
        let rec = CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap();
        for seed in [1u64, 7] {
            check(
                &rec,
                BenchCircuit::new(log, seed).unwrap(),
                &format!("bench 2^{log}"),
            );
        }
    }
}

#[test]
fn tiny_circuit_matches_classic() {
    let rec = CompiledR1cs::record(TinyCircuit {
        x: Fr::ZERO,
        y: Fr::ZERO,
        chain: 6,
    })
    .unwrap();
    for (x, y) in [(0u64, 0u64), (1, 0), (3, 5), (u64::MAX, 2)] {
        let circ = TinyCircuit {
            x: Fr::from(x),
            y: -Fr::from(y),
            chain: 6,
        };
        check(&rec, circ, "tiny");
    }
}

/// `n` aux variables in one row with `n` distinct coefficients (k + 2, and
/// their negatives in a second row), so the table index needs 1, 2 or 4
/// bytes: every index width of the kernel.
#[derive(Clone)]
struct Wide {
    n: usize,
    seed: u64,
}

impl Circuit<Fr> for Wide {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut vars = Vec::with_capacity(self.n);
        let mut sum = Fr::ZERO;
        for k in 0..self.n {
            // Mostly 0 and 1, some other values: every branch of a row.
            let v = match k % 3 {
                0 => Fr::ZERO,
                1 => Fr::ONE,
                _ => Fr::random(&mut rng),
            };
            sum += v * Fr::from(k as u64 + 2);
            vars.push(cs.alloc(|| "x", || Ok(v))?);
        }
        let s = cs.alloc_input(|| "sum", || Ok(sum))?;
        cs.enforce(
            || "sum",
            |mut lc| {
                for (k, &v) in vars.iter().enumerate() {
                    lc = lc + (Fr::from(k as u64 + 2), v);
                }
                lc
            },
            |lc| lc + CS::one(),
            |lc| lc + s,
        );
        cs.enforce(
            || "neg",
            |mut lc| {
                for (k, &v) in vars.iter().enumerate() {
                    lc = lc + (-Fr::from(k as u64 + 2), v);
                }
                lc
            },
            |lc| lc - CS::one(),
            |lc| lc + s,
        );
        Ok(())
    }
}

#[test]
fn every_index_width_matches_classic() {
    for (n, width) in [(100usize, 1usize), (1000, 2), (70_000, 4)] {
        let rec = CompiledR1cs::record(Wide { n, seed: 0 }).unwrap();
        assert_eq!(rec.size().matrices[0].index_width, width, "n = {n}");
        check(&rec, Wide { n, seed: 5 }, &format!("wide {n}"));
    }
}

#[test]
fn refuses_a_witness_of_another_shape_and_a_short_output() {
    let rec = CompiledR1cs::record(BenchCircuit::new(8, 0).unwrap()).unwrap();
    let w = rec.witness(BenchCircuit::new(8, 1).unwrap()).unwrap();
    let rows = rec.shape().num_constraints;
    let short = &w.aux_assignment[1..];
    assert!(matches!(
        twin::abc(&rec, &w.input_assignment, short, rows),
        Err(SpmvError::Compiled(CompiledError::ShapeMismatch { .. }))
    ));
    assert!(matches!(
        twin::abc(&rec, &w.input_assignment, &w.aux_assignment, rows - 1),
        Err(SpmvError::OutputTooShort { .. })
    ));
    // Exactly the row count: no padding, still right.
    let [a, ..] = twin::abc(&rec, &w.input_assignment, &w.aux_assignment, rows).unwrap();
    assert_eq!(a.len(), rows);
}
