//! The native SHA-256 generator against witness-only synthesis of
//! bellpepper's gadget, on one core: `BLOCKS` compressions of 512
//! allocated random bits each (`sha256_block_no_padding`, as PoRep's
//! labels and comm_d paths hash), best of `REPS`, in ns per constraint of
//! the circuit, with the two witnesses checked equal.
//!
//! ```text
//! cargo run --release -p cuzk-synth --example native_sha256
//! ```

use bellpepper::gadgets::sha256::sha256_block_no_padding;
use bellpepper_core::boolean::{AllocatedBit, Boolean};
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use cuzk_field::Fr;
use cuzk_synth::compiled::{synthesize_witness, Witness};
use cuzk_synth::native::{sha256, Aux};
use std::time::{Duration, Instant};

const BLOCKS: usize = 200;
const REPS: usize = 5;

fn input_bit(b: usize, i: usize) -> bool {
    // Any fixed, irregular pattern will do: SplitMix-style mixing.
    let mut x = (b as u64) << 32 | i as u64;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d049bb133111eb);
    (x ^ (x >> 31)) & 1 == 1
}

#[derive(Clone, Copy)]
struct Blocks;

impl Circuit<Fr> for Blocks {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        for b in 0..BLOCKS {
            let mut cs = cs.namespace(|| format!("block {b}"));
            let bits = (0..512)
                .map(|i| {
                    AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(input_bit(b, i)))
                        .map(Boolean::from)
                })
                .collect::<Result<Vec<_>, _>>()?;
            sha256_block_no_padding(cs.namespace(|| "sha"), &bits)?;
        }
        Ok(())
    }
}

fn native(aux: &mut Vec<Fr>) {
    for b in 0..BLOCKS {
        let bits: Vec<_> = (0..512).map(|i| aux.bit(input_bit(b, i))).collect();
        sha256::block_no_padding(aux, &bits);
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

fn main() {
    let shape = cuzk_synth::count_shape(Blocks).expect("count");
    let mut w = Witness::with_capacity(shape);
    let generic_t = best(|| {
        w = synthesize_witness(Blocks, std::mem::take(&mut w)).expect("witness");
    });
    let mut aux = Vec::with_capacity(shape.num_aux);
    let native_t = best(|| {
        aux.clear();
        native(&mut aux);
    });
    assert!(
        aux[..] == w.aux_assignment[..],
        "native and witness-only differ"
    );
    let ns = |d: Duration| d.as_secs_f64() * 1e9 / shape.num_constraints as f64;
    println!(
        "SHA-256, {BLOCKS} blocks: {} constraints, {} aux; witness-only {:.1} ms ({:.0} ns/constraint), native {:.2} ms ({:.1} ns/constraint), {:.0}x",
        shape.num_constraints,
        shape.num_aux,
        generic_t.as_secs_f64() * 1e3,
        ns(generic_t),
        native_t.as_secs_f64() * 1e3,
        ns(native_t),
        generic_t.as_secs_f64() / native_t.as_secs_f64()
    );
}
