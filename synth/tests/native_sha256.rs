//! The native SHA-256 generator against bellpepper's gadget: circuits of
//! input bits (constants, allocated bits and negated ones, seeded) hashed
//! by `sha256`, `sha256_block_no_padding` and a compression chained on a
//! non-constant state. Witness-only synthesis of the circuit and the
//! native generator must append the same auxiliary values in the same
//! order, and the digests must be SHA-256's (the `sha2` crate).

use bellpepper::gadgets::sha256::{sha256, sha256_block_no_padding, sha256_compression_function};
use bellpepper::gadgets::uint32::UInt32;
use bellpepper_core::boolean::{AllocatedBit, Boolean};
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use cuzk_field::Fr;
use cuzk_synth::compiled::{synthesize_witness, Witness};
use cuzk_synth::native::{self, Aux, Bit};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::Digest;

/// How an input bit enters the circuit.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Constant,
    Allocated,
    Negated,
}

/// The input of one case: the bytes, and per bit (most significant first
/// within a byte, as the gadget reads them) how it is made.
#[derive(Clone, Debug)]
struct Input {
    bytes: Vec<u8>,
    kinds: Vec<Kind>,
}

impl Input {
    /// `n` random bytes; each bit a constant with probability `p_const`/8,
    /// else allocated or negated.
    fn random(n: usize, p_const: u32, seed: u64) -> Self {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let mut bytes = vec![0u8; n];
        rng.fill_bytes(&mut bytes);
        let kinds = (0..8 * n)
            .map(|_| match rng.next_u32() % 8 {
                r if r < p_const => Kind::Constant,
                r if r % 2 == 0 => Kind::Allocated,
                _ => Kind::Negated,
            })
            .collect();
        Self { bytes, kinds }
    }

    fn bit(&self, i: usize) -> bool {
        (self.bytes[i / 8] >> (7 - i % 8)) & 1 == 1
    }

    fn booleans<CS: ConstraintSystem<Fr>>(
        &self,
        cs: &mut CS,
    ) -> Result<Vec<Boolean>, SynthesisError> {
        (0..self.kinds.len())
            .map(|i| {
                let v = self.bit(i);
                Ok(match self.kinds[i] {
                    Kind::Constant => Boolean::constant(v),
                    Kind::Allocated => Boolean::from(AllocatedBit::alloc(
                        cs.namespace(|| format!("in {i}")),
                        Some(v),
                    )?),
                    Kind::Negated => Boolean::from(AllocatedBit::alloc(
                        cs.namespace(|| format!("in {i}")),
                        Some(!v),
                    )?)
                    .not(),
                })
            })
            .collect()
    }

    fn bits(&self, aux: &mut impl Aux) -> Vec<Bit> {
        (0..self.kinds.len())
            .map(|i| {
                let v = self.bit(i);
                match self.kinds[i] {
                    Kind::Constant => Bit::Constant(v),
                    Kind::Allocated => aux.bit(v),
                    Kind::Negated => !aux.bit(!v),
                }
            })
            .collect()
    }
}

/// What the circuit hashes.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// `sha256` of the whole input (padded by the gadget).
    Padded,
    /// `sha256_block_no_padding` of a 64-byte input, then one more
    /// compression of the same block from the digest as the state.
    BlockThenChained,
}

#[derive(Clone, Debug)]
struct ShaCircuit {
    input: Input,
    mode: Mode,
}

impl Circuit<Fr> for ShaCircuit {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let bits = self.input.booleans(cs)?;
        match self.mode {
            Mode::Padded => {
                sha256(cs.namespace(|| "sha256"), &bits)?;
            }
            Mode::BlockThenChained => {
                let digest = sha256_block_no_padding(cs.namespace(|| "block"), &bits)?;
                let state: Vec<UInt32> = digest.chunks(32).map(UInt32::from_bits_be).collect();
                sha256_compression_function(cs.namespace(|| "chained"), &bits, &state)?;
            }
        }
        Ok(())
    }
}

/// The native generator's aux values and digest bits for `c`.
fn native_of(c: &ShaCircuit) -> (Vec<Fr>, Vec<Bit>) {
    let mut aux = Vec::new();
    let bits = c.input.bits(&mut aux);
    let digest = match c.mode {
        Mode::Padded => native::sha256::sha256(&mut aux, &bits),
        Mode::BlockThenChained => {
            let digest = native::sha256::block_no_padding(&mut aux, &bits);
            let state: Vec<native::sha256::Word> = digest
                .chunks(32)
                .map(native::sha256::Word::from_bits_be)
                .collect();
            let state: [native::sha256::Word; 8] = state.try_into().unwrap();
            native::sha256::compression(&mut aux, &bits, &state)
                .into_iter()
                .flat_map(native::sha256::Word::into_bits_be)
                .collect()
        }
    };
    (aux, digest)
}

fn bytes_of(bits: &[Bit]) -> Vec<u8> {
    bits.chunks(8)
        .map(|b| {
            b.iter()
                .fold(0u8, |acc, x| (acc << 1) | u8::from(x.value()))
        })
        .collect()
}

fn check(c: ShaCircuit) {
    let w = synthesize_witness(c.clone(), Witness::default()).unwrap();
    let (aux, digest) = native_of(&c);
    assert_eq!(
        aux.len(),
        w.aux_assignment.len(),
        "{:?}, {} bytes: allocation count",
        c.mode,
        c.input.bytes.len()
    );
    if let Some(i) = aux
        .iter()
        .zip(w.aux_assignment.iter())
        .position(|(a, b)| a != b)
    {
        panic!(
            "{:?}, {} bytes: aux value {i} differs",
            c.mode,
            c.input.bytes.len()
        );
    }
    if let Mode::Padded = c.mode {
        let want = sha2::Sha256::digest(&c.input.bytes);
        assert_eq!(bytes_of(&digest), want.as_slice(), "digest");
    }
}

#[test]
fn padded_inputs_of_every_kind_mix_equal_the_gadget() {
    // 0 bytes (one block of padding only), short, exactly one block less
    // the padding, across a block boundary, two blocks and more.
    for (seed, n) in [0usize, 1, 31, 55, 56, 64, 119, 200]
        .into_iter()
        .enumerate()
    {
        for p_const in [0, 3, 8] {
            check(ShaCircuit {
                input: Input::random(n, p_const, seed as u64 * 10 + u64::from(p_const)),
                mode: Mode::Padded,
            });
        }
    }
}

#[test]
fn a_block_and_a_compression_from_an_allocated_state_equal_the_gadget() {
    for p_const in [0, 2, 7] {
        check(ShaCircuit {
            input: Input::random(64, p_const, 100 + u64::from(p_const)),
            mode: Mode::BlockThenChained,
        });
    }
}

#[test]
fn a_wrong_value_is_seen() {
    // The comparison is not vacuous: one flipped input bit changes the
    // native values against the gadget's on the original input.
    let c = ShaCircuit {
        input: Input::random(40, 0, 7),
        mode: Mode::Padded,
    };
    let w = synthesize_witness(c.clone(), Witness::default()).unwrap();
    let mut other = c.clone();
    other.input.bytes[3] ^= 0x10;
    let (aux, _) = native_of(&other);
    assert_eq!(aux.len(), w.aux_assignment.len());
    assert!(aux.iter().zip(w.aux_assignment.iter()).any(|(a, b)| a != b));
}
