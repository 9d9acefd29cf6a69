//! Witness-only synthesis against the classic synthesis, per gadget family
//! of the Filecoin circuits, on one core: SHA-256 compressions over
//! allocated bits (filecoin-hashers' `Sha256Function::hash_circuit`, what
//! PoRep's labels and comm_d paths use) and Poseidon hashes of allocated
//! field elements (`PoseidonFunction::hash_multi_leaf_circuit`, arity 8 as
//! in the tree-r and tree-c paths, and arity 2). For each: the circuit is
//! recorded once, then timed `REPS` times (best): classic synthesis
//! (`cuzk_synth::synthesize`: a, b, c and densities) and witness-only
//! synthesis (`CompiledR1cs::witness`: value closures only), and the
//! witness checked against the classic assignment. Each family also with
//! its native generator (`cuzk_filecoin::native`), checked equal; and a
//! whole fallback PoSt sector of the 32 GiB shape the same way.
//!
//! ```text
//! cargo run --release -p cuzk-filecoin --example witness_families
//! ```

use bellpepper_core::boolean::{AllocatedBit, Boolean};
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use cuzk_field::Fr;
use cuzk_synth::compiled::CompiledR1cs;
use ff::Field;
use filecoin_hashers::{poseidon::PoseidonFunction, sha256::Sha256Function, HashFunction};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::time::{Duration, Instant};

const REPS: usize = 3;

/// `blocks` SHA-256 hashes of 512 random bits each.
#[derive(Clone, Copy)]
struct Sha {
    blocks: usize,
    seed: u64,
}

impl Circuit<Fr> for Sha {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut rng = ChaCha20Rng::seed_from_u64(self.seed);
        for b in 0..self.blocks {
            let mut cs = cs.namespace(|| format!("block {b}"));
            let bits = (0..512)
                .map(|i| {
                    let v: bool = rng.gen();
                    AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(v))
                        .map(Boolean::from)
                })
                .collect::<Result<Vec<_>, _>>()?;
            Sha256Function::hash_circuit(cs.namespace(|| "sha"), &bits)?;
        }
        Ok(())
    }
}

/// `hashes` Poseidon hashes of `arity` random field elements each.
#[derive(Clone, Copy)]
struct Poseidon {
    hashes: usize,
    arity: usize,
    seed: u64,
}

impl Circuit<Fr> for Poseidon {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        use typenum::{U2, U8};
        let mut rng = ChaCha20Rng::seed_from_u64(self.seed);
        for h in 0..self.hashes {
            let mut cs = cs.namespace(|| format!("hash {h}"));
            let leaves = (0..self.arity)
                .map(|i| {
                    let v = Fr::random(&mut rng);
                    AllocatedNum::alloc(cs.namespace(|| format!("leaf {i}")), || Ok(v))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let cs = cs.namespace(|| "poseidon");
            match self.arity {
                8 => PoseidonFunction::hash_multi_leaf_circuit::<U8, _>(cs, &leaves, 0)?,
                _ => PoseidonFunction::hash_multi_leaf_circuit::<U2, _>(cs, &leaves, 0)?,
            };
        }
        Ok(())
    }
}

fn best(mut f: impl FnMut()) -> Duration {
    (0..REPS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn family<C: Circuit<Fr> + Copy>(name: &str, recorded_from: C, circuit: C) {
    let rec = CompiledR1cs::record(recorded_from).expect("record");
    let constraints = rec.shape().num_constraints;
    let classic_t = best(|| {
        cuzk_synth::synthesize(circuit).expect("classic");
    });
    let witness_t = best(|| {
        rec.witness(circuit).expect("witness");
    });
    let classic = cuzk_synth::synthesize(circuit).expect("classic");
    let w = rec.witness(circuit).expect("witness");
    assert!(
        w.aux_assignment == classic.aux_assignment
            && w.input_assignment == classic.input_assignment,
        "{name}: the witness differs from the classic assignment"
    );
    let ns = |d: Duration| d.as_secs_f64() * 1e9 / constraints as f64;
    println!(
        "{name:<22} {constraints:>10} constraints  classic {:>8.1} ms ({:>5.0} ns/constraint)  witness-only {:>8.1} ms ({:>5.0} ns/constraint)  witness/classic {:.2}",
        classic_t.as_secs_f64() * 1e3,
        ns(classic_t),
        witness_t.as_secs_f64() * 1e3,
        ns(witness_t),
        witness_t.as_secs_f64() / classic_t.as_secs_f64()
    );
}

/// A family's native generator on the circuit's own inputs: timed like
/// the others and checked equal to the witness-only assignment.
fn native_row<C: Circuit<Fr> + Copy>(name: &str, circuit: C, generate: impl Fn(&mut Vec<Fr>)) {
    let rec = CompiledR1cs::record(circuit).expect("record");
    let constraints = rec.shape().num_constraints;
    let mut aux = Vec::with_capacity(rec.shape().num_aux);
    let t = best(|| {
        aux.clear();
        generate(&mut aux);
    });
    let w = rec.witness(circuit).expect("witness");
    assert!(
        aux[..] == w.aux_assignment[..],
        "{name}: native differs from witness-only"
    );
    println!(
        "{name:<22} {constraints:>10} constraints  native {:>8.1} ms ({:>5.1} ns/constraint)",
        t.as_secs_f64() * 1e3,
        t.as_secs_f64() * 1e9 / constraints as f64
    );
}

/// `Sha`'s blocks through `cuzk_filecoin::native::sha256_hash`.
fn sha_native(s: Sha) {
    use cuzk_synth::native::Aux;
    native_row("SHA-256 native", s, |aux| {
        let mut rng = ChaCha20Rng::seed_from_u64(s.seed);
        for _ in 0..s.blocks {
            let bits: Vec<_> = (0..512).map(|_| aux.bit(rng.gen())).collect();
            cuzk_filecoin::native::sha256_hash(aux, &bits);
        }
    });
}

/// `Poseidon`'s hashes through `cuzk_filecoin::native::poseidon_hash`.
fn poseidon_native(p: Poseidon) {
    use cuzk_synth::native::Aux;
    use typenum::{U2, U8};
    native_row(&format!("Poseidon {} native", p.arity), p, |aux| {
        let mut rng = ChaCha20Rng::seed_from_u64(p.seed);
        for _ in 0..p.hashes {
            let leaves: Vec<Fr> = (0..p.arity).map(|_| Fr::random(&mut rng)).collect();
            for l in &leaves {
                aux.push_fr(*l);
            }
            match p.arity {
                8 => cuzk_filecoin::native::poseidon_hash::<U8>(aux, &leaves),
                _ => cuzk_filecoin::native::poseidon_hash::<U2>(aux, &leaves),
            };
        }
    });
}

fn main() {
    // A fallback PoSt sector of the 32 GiB shape, as a WindowPoSt
    // partition holds 2349: 10 challenges, ten arity-8 levels each, on
    // random values (witness generation checks no constraint).
    let post = cuzk_filecoin_tools::bench_vanilla::random_post_sector::<
        filecoin_proofs::SectorShape32GiB,
    >(&[8; 10], 10, 7);
    family("PoSt sector (32 GiB)", &post.sector, &post.sector);
    native_row("PoSt sector native", &post.sector, |aux| {
        let [comm_r, comm_c, comm_r_last] = post.comms;
        cuzk_filecoin::native::post_sector(aux, comm_r, comm_c, comm_r_last, &post.challenges);
    });
    let sha = Sha {
        blocks: 64,
        seed: 1,
    };
    family(
        "SHA-256 (512-bit blocks)",
        Sha {
            blocks: 64,
            seed: 0,
        },
        sha,
    );
    sha_native(sha);
    family(
        "Poseidon arity 8",
        Poseidon {
            hashes: 4096,
            arity: 8,
            seed: 0,
        },
        Poseidon {
            hashes: 4096,
            arity: 8,
            seed: 1,
        },
    );
    poseidon_native(Poseidon {
        hashes: 4096,
        arity: 8,
        seed: 1,
    });
    family(
        "Poseidon arity 2",
        Poseidon {
            hashes: 8192,
            arity: 2,
            seed: 0,
        },
        Poseidon {
            hashes: 8192,
            arity: 2,
            seed: 1,
        },
    );
    poseidon_native(Poseidon {
        hashes: 8192,
        arity: 2,
        seed: 1,
    });
}
