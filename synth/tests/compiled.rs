//! The pre-compiled path (record once, witness-only synthesis, SpMV)
//! against the classic synthesis: the same `ProvingAssignment`, field for
//! field, and refusal of a matrix recorded from another circuit.

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use cuzk_field::{Field, Fr};
use cuzk_synth::{
    circuits::{BenchCircuit, TinyCircuit},
    compiled::{synthesize_witness, CompiledError, CompiledR1cs, Witness},
    synthesize, ProvingAssignment, Sequential,
};
use proptest::prelude::*;
use rand_chacha::{
    rand_core::{RngCore, SeedableRng},
    ChaCha8Rng,
};

/// Field-by-field equality, so a failure names the field and the first
/// differing index instead of dumping two multi-megabyte structs.
fn assert_same(classic: &ProvingAssignment, new: &ProvingAssignment, what: &str) {
    fn vec(name: &str, what: &str, x: &[Fr], y: &[Fr]) {
        assert_eq!(x.len(), y.len(), "{what}: {name} length");
        if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
            panic!("{what}: {name}[{i}] differs: {:?} vs {:?}", x[i], y[i]);
        }
    }
    vec("a", what, &classic.a, &new.a);
    vec("b", what, &classic.b, &new.b);
    vec("c", what, &classic.c, &new.c);
    vec(
        "input_assignment",
        what,
        &classic.input_assignment,
        &new.input_assignment,
    );
    vec(
        "aux_assignment",
        what,
        &classic.aux_assignment,
        &new.aux_assignment,
    );
    assert_eq!(
        classic.a_aux_density, new.a_aux_density,
        "{what}: a_aux_density"
    );
    assert_eq!(
        classic.b_input_density, new.b_input_density,
        "{what}: b_input_density"
    );
    assert_eq!(
        classic.b_aux_density, new.b_aux_density,
        "{what}: b_aux_density"
    );
    // And the derived `PartialEq`, so a field added later is not missed.
    assert!(classic == new, "{what}: ProvingAssignment differs");
}

#[test]
fn bench_circuit_matches_classic() {
    // 2^15 is the first size with SHA-256 compressions (boolean gadgets,
    // ±2^k coefficients); below it the circuit is filler only.
    for log in [10u32, 12, 14, 15] {
        let rec = CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap();
        assert_eq!(
            rec.shape(),
            BenchCircuit::new(log, 0).unwrap().expected_shape()
        );
        // One recording serves every seed: that is the point.
        for seed in [1u64, 2, 0xdead_beef] {
            let circ = BenchCircuit::new(log, seed).unwrap();
            let classic = synthesize(circ).unwrap();
            let new = rec.synthesize(circ).unwrap();
            assert_same(&classic, &new, &format!("bench 2^{log} seed {seed}"));
            assert_eq!(new.first_unsatisfied(), None);
        }
    }
}

#[test]
fn bench_circuit_coefficients_are_narrow() {
    let rec = CompiledR1cs::record(BenchCircuit::new(16, 0).unwrap()).unwrap();
    let s = rec.size();
    // Coefficients are ±1, ±2^k (bit packing, k < 255, and SHA-256's
    // modular additions) and a few constants: a few hundred table entries,
    // so a 1- or 2-byte index per non-zero.
    for (m, name) in s.matrices.iter().zip(["A", "B", "C"]) {
        assert!(m.index_width <= 2, "{name}: table of {}", m.table_len);
        assert_eq!(m.rows, 1 << 16);
    }
    // Measured 4.9x at 2^16 (row pointers, 4 B per row, are not
    // compressed and weigh most in B, with ~1 non-zero per row).
    assert!(s.compressed_bytes() * 4 < s.uncompressed_bytes(), "{s:?}");
}

#[test]
fn tiny_circuit_matches_classic() {
    let vals = [
        Fr::ZERO,
        Fr::ONE,
        -Fr::ONE,
        Fr::from(2u64),
        Fr::from(0x1234_5678u64),
    ];
    for chain in [0usize, 1, 5, 64] {
        let rec = CompiledR1cs::record(TinyCircuit {
            x: Fr::ZERO,
            y: Fr::ZERO,
            chain,
        })
        .unwrap();
        for &x in &vals {
            for &y in &vals {
                let circ = TinyCircuit { x, y, chain };
                let classic = synthesize(circ).unwrap();
                let new = rec.synthesize(circ).unwrap();
                assert_same(&classic, &new, &format!("tiny chain {chain}"));
            }
        }
    }
}

#[test]
fn reused_buffers_give_the_same_assignment() {
    let rec = CompiledR1cs::record(BenchCircuit::new(12, 0).unwrap()).unwrap();
    let first = rec.synthesize(BenchCircuit::new(12, 5).unwrap()).unwrap();
    let circ = BenchCircuit::new(12, 6).unwrap();
    let w = synthesize_witness(circ, Witness::default()).unwrap();
    let second = rec.evaluate_reusing(w, first).unwrap();
    assert_same(&synthesize(circ).unwrap(), &second, "reused");
}

#[test]
fn witness_equals_classic_assignments() {
    let circ = BenchCircuit::new(13, 9).unwrap();
    let classic = synthesize(circ).unwrap();
    let w = synthesize_witness(circ, Witness::default()).unwrap();
    assert_eq!(w.input_assignment, classic.input_assignment);
    assert_eq!(w.aux_assignment, classic.aux_assignment);
    assert_eq!(w.shape(), classic.shape());
}

#[test]
fn other_shape_is_refused() {
    let tiny = |chain| TinyCircuit {
        x: Fr::from(3u64),
        y: Fr::from(4u64),
        chain,
    };
    let rec = CompiledR1cs::record(tiny(3)).unwrap();
    match rec.synthesize(tiny(4)) {
        Err(CompiledError::ShapeMismatch { recorded, found }) => {
            assert_eq!(recorded.num_constraints + 1, found.num_constraints);
            assert_eq!(recorded.num_aux + 1, found.num_aux);
        }
        other => panic!("expected ShapeMismatch, got {other:?}"),
    }
    let rec = CompiledR1cs::record(BenchCircuit::new(10, 0).unwrap()).unwrap();
    let w = synthesize_witness(BenchCircuit::new(11, 0).unwrap(), Witness::default()).unwrap();
    assert!(matches!(
        rec.check_witness(&w),
        Err(CompiledError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        rec.evaluate(w),
        Err(CompiledError::ShapeMismatch { .. })
    ));
}

/// Two aux variables and one constraint, in an order chosen by `swap`:
/// same counts, different circuit.
#[derive(Clone, Copy)]
struct Ordered {
    swap: bool,
}

impl Circuit<Fr> for Ordered {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Ok(Fr::ONE))?;
        if self.swap {
            cs.enforce(|| "c", |lc| lc + x, |lc| lc + x, |lc| lc + x);
            cs.alloc(|| "y", || Ok(Fr::ONE))?;
        } else {
            let y = cs.alloc(|| "y", || Ok(Fr::ONE))?;
            cs.enforce(|| "c", |lc| lc + x, |lc| lc + y, |lc| lc + x);
        }
        Ok(())
    }
}

#[test]
fn same_counts_other_order_is_refused() {
    let rec = CompiledR1cs::record(Ordered { swap: false }).unwrap();
    rec.synthesize(Ordered { swap: false }).unwrap();
    match rec.synthesize(Ordered { swap: true }) {
        Err(CompiledError::TraceMismatch { recorded, found }) => {
            assert_eq!(recorded, rec.key().trace_hash);
            assert_ne!(recorded, found);
        }
        other => panic!("expected TraceMismatch, got {other:?}"),
    }
}

/// Fails in its value closure: recording must not call it, witness-only
/// synthesis must report it.
struct NoWitness;

impl Circuit<Fr> for NoWitness {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Err(SynthesisError::AssignmentMissing))?;
        cs.enforce(|| "c", |lc| lc + x, |lc| lc, |lc| lc);
        Ok(())
    }
}

#[test]
fn value_closures_run_only_in_witness_synthesis() {
    let rec = CompiledR1cs::record(NoWitness).unwrap();
    assert_eq!(rec.shape().num_aux, 1);
    assert!(matches!(
        rec.synthesize(NoWitness),
        Err(CompiledError::Synthesis(SynthesisError::AssignmentMissing))
    ));
}

/// Panics in every linear-combination closure: witness-only synthesis must
/// never build a linear combination.
struct LcPanics;

impl Circuit<Fr> for LcPanics {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        cs.alloc(|| "x", || Ok(Fr::ONE))?;
        cs.enforce(
            || "c",
            |_| panic!("LC built"),
            |_| panic!("LC built"),
            |_| panic!("LC built"),
        );
        Ok(())
    }
}

#[test]
fn witness_synthesis_builds_no_linear_combinations() {
    let w = synthesize_witness(LcPanics, Witness::default()).unwrap();
    assert_eq!(w.shape().num_constraints, 2, "1 + the ONE input row");
}

/// Random circuits with awkward coefficients (0, 1, −1, 2, random), terms
/// that repeat a variable or cancel to a stored zero, and inputs, aux and
/// constraints interleaved in a seeded order.
#[derive(Clone, Copy, Debug)]
struct RandomCircuit {
    structure: u64,
    values: u64,
    events: usize,
}

fn awkward(rng: &mut ChaCha8Rng) -> Fr {
    match rng.next_u32() % 6 {
        0 => Fr::ZERO,
        1 => Fr::ONE,
        2 => -Fr::ONE,
        3 => Fr::from(2u64),
        _ => Fr::random(&mut *rng),
    }
}

fn random_lc(rng: &mut ChaCha8Rng, n_in: usize, n_aux: usize) -> LinearCombination<Fr> {
    let mut lc = LinearCombination::zero();
    for _ in 0..rng.next_u32() % 6 {
        let v = if rng.next_u32() % 3 == 0 || n_aux == 0 {
            Variable(Index::Input(rng.next_u32() as usize % n_in))
        } else {
            Variable(Index::Aux(rng.next_u32() as usize % n_aux))
        };
        let c = awkward(rng);
        lc = lc + (c, v);
        if rng.next_u32() % 8 == 0 {
            lc = lc - (c, v);
        }
    }
    lc
}

impl Circuit<Fr> for RandomCircuit {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        // The structure (and so the recorded matrix) depends on
        // `structure` only; values on `values` only.
        let mut s = ChaCha8Rng::seed_from_u64(self.structure);
        let mut v = ChaCha8Rng::seed_from_u64(self.values);
        let (mut n_in, mut n_aux) = (1usize, 0usize);
        for _ in 0..self.events {
            match s.next_u32() % 8 {
                0 => {
                    cs.alloc_input(|| "in", || Ok(awkward(&mut v)))?;
                    n_in += 1;
                }
                1..=3 => {
                    cs.alloc(|| "aux", || Ok(awkward(&mut v)))?;
                    n_aux += 1;
                }
                _ => {
                    let a = random_lc(&mut s, n_in, n_aux);
                    let b = random_lc(&mut s, n_in, n_aux);
                    let c = random_lc(&mut s, n_in, n_aux);
                    cs.enforce(|| "c", |_| a, |_| b, |_| c);
                }
            }
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_circuits_match_classic(structure in any::<u64>(), values in any::<u64>(), other in any::<u64>(), events in 0usize..300) {
        let circ = RandomCircuit { structure, values, events };
        let rec = CompiledR1cs::record(circ).unwrap();
        let classic = synthesize(circ).unwrap();
        let new = rec.synthesize(circ).unwrap();
        assert_same(&classic, &new, "random");
        // Another witness through the same recording.
        let circ = RandomCircuit { structure, values: other, events };
        assert_same(&synthesize(circ).unwrap(), &rec.synthesize(circ).unwrap(), "random, other values");
    }
}

/// `Σⱼ (Mᵀx)ⱼ·zⱼ = Σᵣ xᵣ·(Mz)ᵣ` for each of A, B, C, with `Mz` the
/// classic synthesis' a, b, c: the transposed product (the key generator's
/// QAP at τ) against the prover's product, through the same record.
fn transposed_product_is_the_adjoint(rec: &CompiledR1cs, classic: &ProvingAssignment, seed: u64) {
    let s = rec.shape();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Longer than the rows, as the domain pads them; the extra is unread.
    let x: Vec<Fr> = (0..s.num_constraints + 3)
        .map(|_| awkward(&mut rng))
        .collect();
    let z: Vec<&Fr> = classic
        .input_assignment
        .iter()
        .chain(&classic.aux_assignment)
        .collect();
    for (m, mz, name) in [
        (&rec.matrices()[0], &classic.a, "A"),
        (&rec.matrices()[1], &classic.b, "B"),
        (&rec.matrices()[2], &classic.c, "C"),
    ] {
        let y = m.mul_transposed(&x, s.num_inputs, s.num_aux);
        assert_eq!(y.len(), z.len(), "{name}: one sum per variable");
        let lhs: Fr = y.iter().zip(&z).map(|(y, z)| *y * *z).sum();
        let rhs: Fr = x.iter().zip(mz).map(|(x, v)| *x * v).sum();
        assert_eq!(
            lhs, rhs,
            "{name}: Mᵀx is not the adjoint of Mz (seed {seed})"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn random_circuits_transposed_product(structure in any::<u64>(), values in any::<u64>(), events in 0usize..300, seed in any::<u64>()) {
        let circ = RandomCircuit { structure, values, events };
        let rec = CompiledR1cs::record(circ).unwrap();
        transposed_product_is_the_adjoint(&rec, &synthesize(circ).unwrap(), seed);
    }
}

/// The band split: 2^15 has ~2^15 variables, so 1, 3 and 8 threads give
/// one band, three and eight (the last one short); every split gives the
/// same sums.
#[test]
fn transposed_product_bands_agree() {
    let circ = BenchCircuit::new(15, 7).unwrap();
    let rec = CompiledR1cs::record(circ).unwrap();
    let classic = synthesize(circ).unwrap();
    let x: Vec<Fr> = {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        (0..rec.shape().num_constraints)
            .map(|_| Fr::random(&mut rng))
            .collect()
    };
    let s = rec.shape();
    let mut first: Option<Vec<Fr>> = None;
    for threads in [1, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let y = pool.install(|| rec.matrices()[0].mul_transposed(&x, s.num_inputs, s.num_aux));
        match &first {
            None => first = Some(y),
            Some(f) => assert!(f == &y, "{threads} threads give other sums"),
        }
        pool.install(|| transposed_product_is_the_adjoint(&rec, &classic, threads as u64));
    }
}

/// A constraint on a variable that was never allocated is refused when
/// recorded (typed), not a panic in the density bitmaps, nor left for a
/// product to index past its vectors.
#[test]
fn unallocated_variable_is_refused_when_recorded() {
    #[derive(Clone, Copy)]
    struct Dangling;
    impl Circuit<Fr> for Dangling {
        fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            let x = cs.alloc(|| "x", || Ok(Fr::ONE))?;
            let ghost = Variable(Index::Aux(7));
            cs.enforce(|| "ghost", |lc| lc + x, |lc| lc + ghost, |lc| lc + x);
            Ok(())
        }
    }
    match CompiledR1cs::record(Dangling) {
        Err(CompiledError::Unallocated(msg)) => {
            assert!(
                msg.contains("constraint 0") && msg.contains("Aux(7)"),
                "{msg}"
            )
        }
        other => panic!("expected Unallocated, got {:?}", other.map(|r| r.shape())),
    }
}

#[test]
fn deferred_assignment_evaluates_to_classic() {
    // The deferred form holds no a, b, c and counts the record's
    // constraints; evaluated on the CPU it is the classic assignment, and
    // its satisfaction check runs from the record without a, b, c.
    for log in [10u32, 15] {
        let rec =
            std::sync::Arc::new(CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap());
        let circ = BenchCircuit::new(log, 3).unwrap();
        let classic = synthesize(circ).unwrap();
        let mut d = rec.synthesize_deferred(circ).unwrap();
        assert!(d.a.is_empty() && d.b.is_empty() && d.c.is_empty());
        assert_eq!(d.num_constraints(), classic.num_constraints());
        assert_eq!(d.shape(), classic.shape());
        assert_eq!(d.first_unsatisfied(), None);
        let bytes = d.memory_bytes();
        assert!(bytes <= d.shape().witness_bytes(), "{bytes}");
        d.evaluate_deferred().unwrap();
        assert!(d.deferred.is_none());
        assert_same(&classic, &d, &format!("deferred 2^{log}"));
    }
}

#[test]
fn deferred_assignment_reports_an_unsatisfied_row() {
    let rec = std::sync::Arc::new(CompiledR1cs::record(BenchCircuit::new(12, 0).unwrap()).unwrap());
    let circ = BenchCircuit::new(12, 9).unwrap();
    let mut w = synthesize_witness(circ, Witness::default()).unwrap();
    // Change one aux value used in some A row: the deferred check (row by
    // row from the record) and the materialised a, b, c must find the same
    // first unsatisfied row.
    let density = rec.synthesize(circ).unwrap().a_aux_density;
    let k = (0..w.aux_assignment.len())
        .find(|&k| density.get(k))
        .unwrap();
    w.aux_assignment[k] += Fr::ONE;
    let want = rec.evaluate(w.clone()).unwrap().first_unsatisfied();
    assert!(want.is_some(), "the change must break a constraint");
    let mut d = rec.defer(w).unwrap();
    assert_eq!(d.first_unsatisfied(), want);
    // Vectors that no longer fit the record are refused, not indexed.
    d.aux_assignment.pop();
    assert!(matches!(
        d.evaluate_deferred(),
        Err(CompiledError::ShapeMismatch { .. })
    ));
    assert!(d.deferred.is_some(), "a failed evaluation keeps the record");
}

/// Independent parts with storage-proofs-post's two branches: sequential
/// under a system that is not extensible ([`Sequential`]), else each group
/// of parts in a fresh system on the rayon pool, with a stand-in ONE as
/// its first input, appended in order by `extend` (the recorder, the
/// classic prover and the witness-only system). `reverse` appends the
/// groups backwards: the same counts, another layout.
struct Parts {
    seeds: Vec<u64>,
    group: usize,
    reverse: bool,
}

fn part<CS: ConstraintSystem<Fr>>(cs: &mut CS, seed: u64) -> Result<(), SynthesisError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x0 = awkward(&mut rng);
    // A public input per part, as a PoSt sector inputizes its comm_r.
    let pubx = cs.alloc_input(|| "comm", || Ok(x0))?;
    let mut prev = cs.alloc(|| "x", || Ok(x0))?;
    let mut v = x0;
    cs.enforce(
        || "pub",
        |lc| lc + pubx,
        |lc| lc + CS::one(),
        |lc| lc + prev,
    );
    for i in 0..(5 + seed % 7) {
        let k = Fr::from(i + 2);
        let next = v * v + k;
        let n = cs.alloc(|| "n", || Ok(next))?;
        cs.enforce(
            || "sq",
            |lc| lc + prev,
            |lc| lc + prev,
            |lc| lc + n - (k, CS::one()),
        );
        prev = n;
        v = next;
    }
    Ok(())
}

impl Circuit<Fr> for Parts {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        use rayon::prelude::*;
        if !CS::is_extensible() {
            for &s in &self.seeds {
                part(cs, s)?;
            }
            return Ok(());
        }
        let mut css = self
            .seeds
            .par_chunks(self.group)
            .map(|g| {
                let mut cs = CS::new();
                cs.alloc_input(|| "temp ONE", || Ok(Fr::ONE))?;
                for &s in g {
                    part(&mut cs, s)?;
                }
                Ok(cs)
            })
            .collect::<Result<Vec<_>, SynthesisError>>()?;
        if self.reverse {
            css.reverse();
        }
        for sub in &css {
            cs.extend(sub);
        }
        Ok(())
    }
}

#[test]
fn parts_synthesized_in_parallel_match_the_sequential_record() {
    let seeds = |n: u64, base: u64| (0..n).map(|i| base + i).collect::<Vec<_>>();
    let rec = CompiledR1cs::record(Parts {
        seeds: seeds(9, 0),
        group: 9,
        reverse: false,
    })
    .unwrap();
    assert_eq!(rec.shape().num_inputs, 10);
    for group in [1, 2, 4, 9] {
        // Other values, the same structure: a part's length follows its
        // seed mod 7, and 7000 + i ≡ i.
        let circuit = || Parts {
            seeds: seeds(9, 7000),
            group,
            reverse: false,
        };
        let classic = synthesize(circuit()).unwrap();
        let new = rec.synthesize(circuit()).unwrap();
        assert_same(&classic, &new, &format!("groups of {group}"));
        assert_eq!(new.first_unsatisfied(), None);
        // The witness equals the sequential system's value for value.
        let w = rec.witness(circuit()).unwrap();
        let seq = synthesize_witness(Sequential(circuit()), Witness::default()).unwrap();
        assert_eq!(w.input_assignment, seq.input_assignment);
        assert_eq!(&w.aux_assignment[..], &seq.aux_assignment[..]);
        assert_eq!(w.trace_hash(), seq.trace_hash());
        assert_eq!(w.trace_hash(), rec.key().trace_hash);
    }
    // The groups appended out of order: refused, never evaluated.
    match rec.synthesize(Parts {
        seeds: seeds(9, 7000),
        group: 2,
        reverse: true,
    }) {
        Err(CompiledError::TraceMismatch { .. }) => {}
        other => panic!("expected TraceMismatch, got {other:?}"),
    }
}

/// The recorder takes the extensible branch: each group of parts recorded
/// apart and renumbered into place gives the sequential record, matrices,
/// coefficient tables (later parts bring new coefficients), densities and
/// trace alike.
#[test]
fn parts_recorded_in_parallel_equal_the_sequential_record() {
    let seeds: Vec<u64> = (0..23).collect();
    let parts = |group, reverse| Parts {
        seeds: seeds.clone(),
        group,
        reverse,
    };
    let seq = CompiledR1cs::record(Sequential(parts(23, false))).unwrap();
    assert_eq!(seq.shape().num_inputs, 24);
    for group in [1, 2, 5, 23] {
        let par = CompiledR1cs::record(parts(group, false)).unwrap();
        assert_eq!(par.key(), seq.key(), "groups of {group}");
        assert!(par == seq, "groups of {group}: same key, other record");
    }
    // Appended backwards: another system, another key.
    let rev = CompiledR1cs::record(parts(5, true)).unwrap();
    assert_eq!(rev.shape(), seq.shape());
    assert_ne!(rev.key(), seq.key());
}

/// A part appended without its stand-in ONE first has no place in the
/// sequential layout.
struct NoStandIn;

impl Circuit<Fr> for NoStandIn {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut sub = CS::new();
        let x = sub.alloc(|| "x", || Ok(Fr::ONE))?;
        sub.enforce(|| "x", |lc| lc + x, |lc| lc + x, |lc| lc + x);
        cs.extend(&sub);
        Ok(())
    }
}

#[test]
fn a_part_without_its_stand_in_one_is_refused_when_recorded() {
    match CompiledR1cs::record(NoStandIn) {
        Err(CompiledError::Unallocated(m)) => assert!(m.contains("stand-in"), "{m}"),
        other => panic!("expected Unallocated, got {other:?}"),
    }
}
