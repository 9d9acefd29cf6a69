//! A seedable, Filecoin-like benchmark circuit that fills a power-of-two
//! domain exactly.
//!
//! Structure (all witness values follow from the seed):
//! 1. four public inputs `s0..s3`, seed-derived field elements;
//! 2. `x0 = s0·s1 + s2` (one constraint) starts a field-arithmetic chain;
//! 3. when the size allows (≥ 2^15 constraints), a SHA-256 chain: `s0` and
//!    `s1` are decomposed into 255 bits each, which (with two constant zero
//!    bits) form the first 512-bit block; compression `i` hashes block
//!    `i` into state `h_i` (`h_0` = the SHA-256 IV), and block `i` for
//!    `i ≥ 1` is `h_i ‖ h_{i−1}`; 253 bits of the last state are then
//!    folded into the chain value (one constraint);
//! 4. filler up to the exact size, in units of "decompose the chain value
//!    into 255 bits and add them back" (256 constraints, all-boolean but one
//!    aux) followed by four `x ← x³ + s3` rounds (8 constraints), and a
//!    final partial decomposition for the remainder.
//!
//! Everything but the filler rounds allocates bits, as Filecoin's
//! SHA-256-heavy PoRep does: at 2^16 about 99% of the aux values are 0/1.

use std::sync::OnceLock;

use bellpepper::gadgets::{sha256::sha256_compression_function, uint32::UInt32};
use bellpepper_core::{
    boolean::{AllocatedBit, Boolean},
    Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable,
};
use cuzk_field::{Field, Fr, PrimeField};
use rand_chacha::{rand_core::SeedableRng, ChaCha8Rng};

use crate::shape::Shape;

/// Public inputs besides ONE.
const NUM_PUBLIC: usize = 4;
/// Inputs including ONE = input constraints the prover appends.
const NUM_INPUTS: usize = NUM_PUBLIC + 1;
/// The `x0 = s0·s1 + s2` constraint.
const START: usize = 1;
/// Bits of a full decomposition (`Fr::NUM_BITS`).
const FULL_BITS: usize = 255;
/// Constraints (and aux variables) of a full decomposition.
const DECOMPOSE: usize = FULL_BITS + 1;
/// Filler rounds per period.
const ROUNDS_PER_PERIOD: usize = 4;
/// Constraints (and aux variables) of one filler period.
const PERIOD: usize = DECOMPOSE + 2 * ROUNDS_PER_PERIOD;
/// Decomposing `s0` and `s1` into the first message block.
const SHA_PREFIX: usize = 2 * DECOMPOSE;
/// Aux variables of the prefix: 2 × 255 bits (the packing constraints
/// check the inputs themselves).
const SHA_PREFIX_AUX: usize = 2 * FULL_BITS;
/// Folding the final SHA state into the chain value.
const SHA_SUFFIX: usize = 1;
/// Bits of the final state folded into the chain (fit below r).
const FOLD_BITS: usize = 253;

/// Measured with [`crate::count_shape`] on bellpepper 0.2.1's
/// `sha256_compression_function` (checked by a test): constraints and aux
/// variables of compression 1 (constant IV state), 2 (half the block is the
/// constant IV) and every later one.
const COMP_CONSTRAINTS: [usize; 3] = [25_834, 25_596, 26_192];
const COMP_AUX: [usize; 3] = [25_808, 25_570, 26_166];

/// Below this many constraints the circuit has no SHA-256 chain.
pub const SHA_THRESHOLD: usize = 1 << 15;
/// Smallest circuit: the input constraints plus the start constraint.
pub const MIN_CONSTRAINTS: usize = NUM_INPUTS + START;
/// Largest supported `log_domain`.
pub const MAX_LOG_DOMAIN: u32 = 32;

/// SHA-256 initial state (FIPS 180-4 §5.3.3).
const SHA256_IV: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// Bad [`BenchCircuit`] sizes.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BenchError {
    /// Fewer constraints than the fixed part of the circuit.
    #[error("{requested} constraints requested, the bench circuit needs at least {minimum}")]
    TooSmall {
        /// Requested constraints.
        requested: usize,
        /// Minimum.
        minimum: usize,
    },
    /// `log_domain` outside `3..=32`.
    #[error("log_domain {0} outside 3..={MAX_LOG_DOMAIN}")]
    LogDomain(u32),
}

/// How a [`BenchCircuit`] spends its constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchLayout {
    /// SHA-256 compressions in the chain (0 below [`SHA_THRESHOLD`]).
    pub compressions: usize,
    /// Filler constraints after the chain.
    pub filler: usize,
}

impl BenchLayout {
    fn sha_aux(&self) -> usize {
        if self.compressions == 0 {
            return 0;
        }
        let c = self.compressions;
        let comp =
            COMP_AUX[0] + if c > 1 { COMP_AUX[1] } else { 0 } + c.saturating_sub(2) * COMP_AUX[2];
        SHA_PREFIX_AUX + comp + SHA_SUFFIX
    }
}

fn sha_constraints(compressions: usize) -> usize {
    if compressions == 0 {
        return 0;
    }
    let c = compressions;
    let comp = COMP_CONSTRAINTS[0]
        + if c > 1 { COMP_CONSTRAINTS[1] } else { 0 }
        + c.saturating_sub(2) * COMP_CONSTRAINTS[2];
    SHA_PREFIX + comp + SHA_SUFFIX
}

/// The benchmark circuit. Cheap to create and to copy: synthesis generates
/// everything from the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchCircuit {
    seed: u64,
    total: usize,
    layout: BenchLayout,
}

impl BenchCircuit {
    /// A circuit whose synthesized constraints (input constraints included)
    /// fill the domain `2^log_domain` exactly. SHA-256 compressions are used
    /// from `log_domain = 15` on, filler fills the rest.
    pub fn new(log_domain: u32, seed: u64) -> Result<Self, BenchError> {
        if !(3..=MAX_LOG_DOMAIN).contains(&log_domain) {
            return Err(BenchError::LogDomain(log_domain));
        }
        let n = 1usize
            .checked_shl(log_domain)
            .ok_or(BenchError::LogDomain(log_domain))?;
        Self::with_constraints(n, seed)
    }

    /// A circuit with exactly `n` constraints after synthesis (input
    /// constraints included); `n ≥` [`MIN_CONSTRAINTS`].
    pub fn with_constraints(n: usize, seed: u64) -> Result<Self, BenchError> {
        if n < MIN_CONSTRAINTS {
            return Err(BenchError::TooSmall {
                requested: n,
                minimum: MIN_CONSTRAINTS,
            });
        }
        let budget = n - MIN_CONSTRAINTS;
        let mut compressions = 0;
        if n >= SHA_THRESHOLD {
            // Steady-state cost per compression; the first two are cheaper,
            // so start from the estimate and correct in both directions.
            compressions = budget.saturating_sub(SHA_PREFIX + SHA_SUFFIX) / COMP_CONSTRAINTS[2];
            while sha_constraints(compressions + 1) <= budget {
                compressions += 1;
            }
            while compressions > 0 && sha_constraints(compressions) > budget {
                compressions -= 1;
            }
        }
        let filler = budget - sha_constraints(compressions);
        Ok(Self {
            seed,
            total: n,
            layout: BenchLayout {
                compressions,
                filler,
            },
        })
    }

    /// The same circuit without the filler: as many SHA-256 compressions
    /// as fit in `2^log_domain` constraints and nothing after them, so every
    /// aux value but the start and fold values is a bit and the domain is
    /// not full (`log_domain` ≥ 15). Used where the filler's field
    /// arithmetic must be ruled out (the supraseal-c2 comparison).
    pub fn sha_only(log_domain: u32, seed: u64) -> Result<Self, BenchError> {
        let full = Self::new(log_domain, seed)?;
        if full.layout.compressions == 0 {
            return Err(BenchError::TooSmall {
                requested: full.total,
                minimum: SHA_THRESHOLD,
            });
        }
        Ok(Self {
            seed,
            total: full.total - full.layout.filler,
            layout: BenchLayout {
                compressions: full.layout.compressions,
                filler: 0,
            },
        })
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How the constraints are spent.
    pub fn layout(&self) -> BenchLayout {
        self.layout
    }

    /// Constraints after [`crate::synthesize`], input constraints included.
    pub fn expected_constraints(&self) -> usize {
        self.total
    }

    /// The full [`Shape`] after synthesis, without synthesizing: a capacity
    /// hint for [`crate::synthesize_with_hint`].
    pub fn expected_shape(&self) -> Shape {
        // Every filler constraint allocates exactly one aux variable.
        let aux = START + self.layout.sha_aux() + self.layout.filler;
        Shape {
            num_inputs: NUM_INPUTS,
            num_aux: aux,
            num_constraints: self.total,
        }
    }

    /// The public inputs (without ONE), derived from the seed alone; no
    /// synthesis needed.
    pub fn public_inputs(&self) -> Vec<Fr> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        (0..NUM_PUBLIC).map(|_| Fr::random(&mut rng)).collect()
    }
}

/// 2^i for i < 255, shared by all syntheses.
fn powers_of_two() -> &'static [Fr] {
    static POWERS: OnceLock<Vec<Fr>> = OnceLock::new();
    POWERS.get_or_init(|| {
        let mut p = Vec::with_capacity(FULL_BITS);
        let mut x = Fr::ONE;
        for _ in 0..FULL_BITS {
            p.push(x);
            x = x.double();
        }
        p
    })
}

/// Canonical little-endian bit `i` of `x`.
fn bit(repr: &[u8; 32], i: usize) -> bool {
    (repr[i / 8] >> (i % 8)) & 1 == 1
}

/// A chain value: its variable and its value.
#[derive(Clone, Copy)]
struct Num {
    var: Variable,
    val: Fr,
}

/// Allocates the low `w` bits of `x` as booleans (`w` constraints) and
/// returns them with the packed value `Σ 2^i b_i`.
fn alloc_bits<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    x: &Fr,
    w: usize,
) -> Result<(Vec<AllocatedBit>, LinearCombination<Fr>, Fr), SynthesisError> {
    let repr = x.to_repr();
    let pow = powers_of_two();
    let mut bits = Vec::with_capacity(w);
    let mut lc = LinearCombination::zero();
    let mut packed = Fr::ZERO;
    for i in 0..w {
        let b = bit(&repr, i);
        let ab = AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(b))?;
        lc = lc + (pow[i], ab.get_variable());
        if b {
            packed += pow[i];
        }
        bits.push(ab);
    }
    Ok((bits, lc, packed))
}

/// Filler unit: `x' = x + Σ_{i<w} 2^i bit_i(x)`: `w + 1` constraints and
/// aux variables, `w ≤ 255`.
fn decompose<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    x: Num,
    w: usize,
) -> Result<Num, SynthesisError> {
    let (_, lc, packed) = alloc_bits(cs, &x.val, w)?;
    let val = x.val + packed;
    let var = cs.alloc(|| "sum", || Ok(val))?;
    cs.enforce(|| "pack", |_| lc + x.var, |l| l + CS::one(), |l| l + var);
    Ok(Num { var, val })
}

/// Filler unit: `x' = x³ + c`: 2 constraints, 2 aux variables.
fn round<CS: ConstraintSystem<Fr>>(cs: &mut CS, x: Num, c: Num) -> Result<Num, SynthesisError> {
    let sq_val = x.val.square();
    let sq = cs.alloc(|| "sq", || Ok(sq_val))?;
    cs.enforce(|| "square", |l| l + x.var, |l| l + x.var, |l| l + sq);
    let val = sq_val * x.val + c.val;
    let var = cs.alloc(|| "cube", || Ok(val))?;
    cs.enforce(
        || "cube + c",
        |l| l + sq,
        |l| l + x.var,
        |l| l + var - c.var,
    );
    Ok(Num { var, val })
}

/// Decomposes an input into its 255 canonical bits, checking the packing
/// against the input itself (256 constraints, 255 aux).
fn input_bits<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    s: Num,
) -> Result<Vec<Boolean>, SynthesisError> {
    let (bits, lc, _) = alloc_bits(cs, &s.val, FULL_BITS)?;
    cs.enforce(|| "pack", |_| lc, |l| l + CS::one(), |l| l + s.var);
    Ok(bits.into_iter().map(Boolean::Is).collect())
}

impl BenchCircuit {
    fn sha_chain<CS: ConstraintSystem<Fr>>(
        &self,
        cs: &mut CS,
        s: &[Num],
        x: Num,
    ) -> Result<Num, SynthesisError> {
        let mut block = input_bits(&mut cs.namespace(|| "s0 bits"), s[0])?;
        block.push(Boolean::constant(false));
        block.extend(input_bits(&mut cs.namespace(|| "s1 bits"), s[1])?);
        block.push(Boolean::constant(false));

        let mut prev: Vec<UInt32> = SHA256_IV.iter().map(|&v| UInt32::constant(v)).collect();
        let mut cur = prev.clone();
        for i in 0..self.layout.compressions {
            let next = sha256_compression_function(
                cs.namespace(|| format!("compression {i}")),
                &block,
                &cur,
            )?;
            prev = std::mem::replace(&mut cur, next);
            block = cur
                .iter()
                .chain(&prev)
                .flat_map(|u| u.clone().into_bits_be())
                .collect();
        }

        // Fold 253 bits of the final state into the chain value, so the
        // filler depends on the whole hash chain.
        let pow = powers_of_two();
        let mut lc = LinearCombination::zero() + x.var;
        let mut val = x.val;
        for (i, b) in block.iter().take(FOLD_BITS).enumerate() {
            lc = lc + &b.lc(CS::one(), pow[i]);
            if b.get_value().ok_or(SynthesisError::AssignmentMissing)? {
                val += pow[i];
            }
        }
        let var = cs.alloc(|| "fold", || Ok(val))?;
        cs.enforce(|| "fold sum", |_| lc, |l| l + CS::one(), |l| l + var);
        Ok(Num { var, val })
    }
}

impl Circuit<Fr> for BenchCircuit {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let publics = self.public_inputs();
        let mut s = Vec::with_capacity(NUM_PUBLIC);
        for (i, &val) in publics.iter().enumerate() {
            let var = cs.alloc_input(|| format!("s{i}"), || Ok(val))?;
            s.push(Num { var, val });
        }

        let x0_val = s[0].val * s[1].val + s[2].val;
        let x0 = cs.alloc(|| "x0", || Ok(x0_val))?;
        cs.enforce(
            || "start",
            |l| l + s[0].var,
            |l| l + s[1].var,
            |l| l + x0 - s[2].var,
        );
        let mut x = Num {
            var: x0,
            val: x0_val,
        };

        if self.layout.compressions > 0 {
            x = self.sha_chain(&mut cs.namespace(|| "sha"), &s, x)?;
        }

        let mut left = self.layout.filler;
        let mut unit = 0usize;
        while left > 0 {
            let cs = &mut cs.namespace(|| format!("filler {unit}"));
            unit += 1;
            if left >= PERIOD {
                x = decompose(cs, x, FULL_BITS)?;
                for r in 0..ROUNDS_PER_PERIOD {
                    x = round(&mut cs.namespace(|| format!("round {r}")), x, s[3])?;
                }
                left -= PERIOD;
            } else {
                let w = (left - 1).min(FULL_BITS);
                x = decompose(cs, x, w)?;
                left -= w + 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count_shape;

    /// Pins COMP_CONSTRAINTS / COMP_AUX to what the gadgets really emit.
    #[test]
    fn compression_costs_match_gadgets() {
        for c in 0..5 {
            let circ = BenchCircuit {
                seed: 1,
                total: MIN_CONSTRAINTS + sha_constraints(c),
                layout: BenchLayout {
                    compressions: c,
                    filler: 0,
                },
            };
            assert_eq!(
                count_shape(circ).unwrap(),
                circ.expected_shape(),
                "{c} compressions"
            );
        }
    }

    #[test]
    fn sha_only_has_no_filler_and_the_same_domain() {
        for k in [15, 16, 18] {
            let full = BenchCircuit::new(k, 3).unwrap();
            let sha = BenchCircuit::sha_only(k, 3).unwrap();
            assert_eq!(sha.layout().filler, 0);
            assert_eq!(sha.layout().compressions, full.layout().compressions);
            assert_eq!(count_shape(sha).unwrap(), sha.expected_shape(), "k={k}");
            let n = sha.expected_constraints();
            assert!(n <= 1 << k && n > 1 << (k - 1), "k={k}: {n}");
        }
        assert!(BenchCircuit::sha_only(14, 0).is_err());
    }

    #[test]
    fn layout_prefers_compressions_above_threshold() {
        let below = BenchCircuit::with_constraints(SHA_THRESHOLD - 1, 0).unwrap();
        assert_eq!(below.layout().compressions, 0);
        let at = BenchCircuit::with_constraints(SHA_THRESHOLD, 0).unwrap();
        assert_eq!(at.layout().compressions, 1);
        // The filler is always less than one more compression.
        for k in 15..=27 {
            let c = BenchCircuit::new(k, 0).unwrap();
            let l = c.layout();
            assert!(l.compressions >= 1);
            assert!(
                MIN_CONSTRAINTS + sha_constraints(l.compressions + 1) > 1 << k,
                "k={k}: {l:?}"
            );
            assert_eq!(
                MIN_CONSTRAINTS + sha_constraints(l.compressions) + l.filler,
                1 << k
            );
        }
        assert_eq!(
            BenchCircuit::new(27, 0).unwrap().layout().compressions,
            5124
        );
    }
}
