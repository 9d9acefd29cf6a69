//! bellpepper 0.2's SHA-256 gadget (`gadgets::sha256`), allocations only.
//!
//! The gadget works on `UInt32`s of 32 `Boolean`s, least significant bit
//! first. Rotations and shifts move bits without allocating; `xor`,
//! `sha256_ch` and `sha256_maj` allocate per bit by the case rules of
//! [`super::xor`], [`super::ch`] and [`super::maj`]; `addmany` allocates
//! the sum's bits, as many as the largest possible sum has, unless every
//! operand bit is a constant. Its `MultiEq` only batches constraints, so
//! it allocates nothing and does not appear here.

use super::{ch, maj, xor, Aux, Bit};

const ROUND_CONSTANTS: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// bellpepper's `UInt32`: 32 bits, least significant first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    bits: [Bit; 32],
}

impl Word {
    /// `UInt32::constant`.
    pub fn constant(v: u32) -> Self {
        Self {
            bits: std::array::from_fn(|i| Bit::Constant((v >> i) & 1 == 1)),
        }
    }

    /// `UInt32::from_bits_be`: 32 bits, most significant first.
    pub fn from_bits_be(bits: &[Bit]) -> Self {
        assert_eq!(bits.len(), 32);
        Self {
            bits: std::array::from_fn(|i| bits[31 - i]),
        }
    }

    /// `UInt32::into_bits_be`.
    pub fn into_bits_be(self) -> impl Iterator<Item = Bit> {
        self.bits.into_iter().rev()
    }

    /// The value the bits stand for.
    pub fn value(&self) -> u32 {
        self.bits
            .iter()
            .enumerate()
            .fold(0, |v, (i, b)| v | (u32::from(b.value()) << i))
    }

    fn rotr(&self, by: usize) -> Self {
        Self {
            bits: std::array::from_fn(|i| self.bits[(i + by) % 32]),
        }
    }

    fn shr(&self, by: usize) -> Self {
        Self {
            bits: std::array::from_fn(|i| {
                self.bits
                    .get(i + by)
                    .copied()
                    .unwrap_or(Bit::Constant(false))
            }),
        }
    }

    fn xor(&self, aux: &mut impl Aux, other: &Self) -> Self {
        let mut bits = [Bit::Constant(false); 32];
        for (i, r) in bits.iter_mut().enumerate() {
            *r = xor(aux, self.bits[i], other.bits[i]);
        }
        Self { bits }
    }

    fn ch(aux: &mut impl Aux, a: &Self, b: &Self, c: &Self) -> Self {
        let mut bits = [Bit::Constant(false); 32];
        for (i, r) in bits.iter_mut().enumerate() {
            *r = ch(aux, a.bits[i], b.bits[i], c.bits[i]);
        }
        Self { bits }
    }

    fn maj(aux: &mut impl Aux, a: &Self, b: &Self, c: &Self) -> Self {
        let mut bits = [Bit::Constant(false); 32];
        for (i, r) in bits.iter_mut().enumerate() {
            *r = maj(aux, a.bits[i], b.bits[i], c.bits[i]);
        }
        Self { bits }
    }

    /// `UInt32::addmany`: the sum modulo 2^32. Unless every operand bit is
    /// a constant, it allocates as many bits as `n · (2^32 − 1)` has
    /// (34 for 3 or 4 operands, 35 for 5 to 7) and keeps the low 32.
    fn addmany(aux: &mut impl Aux, operands: &[Word]) -> Self {
        assert!((2..=10).contains(&operands.len()));
        let sum: u64 = operands.iter().map(|w| u64::from(w.value())).sum();
        if operands
            .iter()
            .all(|w| w.bits.iter().all(|b| b.is_constant()))
        {
            return Self::constant(sum as u32);
        }
        let max = operands.len() as u64 * u64::from(u32::MAX);
        let n = 64 - max.leading_zeros() as usize;
        let mut bits = [Bit::Constant(false); 32];
        for i in 0..n {
            let b = aux.bit((sum >> i) & 1 == 1);
            if i < 32 {
                bits[i] = b;
            }
        }
        Self { bits }
    }
}

/// `sha256_compression_function`: one 512-bit block into the state.
pub fn compression(aux: &mut impl Aux, input: &[Bit], state: &[Word; 8]) -> [Word; 8] {
    assert_eq!(input.len(), 512);
    let mut w: Vec<Word> = input.chunks(32).map(Word::from_bits_be).collect();
    for i in 16..64 {
        let s0 = w[i - 15].rotr(7).xor(aux, &w[i - 15].rotr(18));
        let s0 = s0.xor(aux, &w[i - 15].shr(3));
        let s1 = w[i - 2].rotr(17).xor(aux, &w[i - 2].rotr(19));
        let s1 = s1.xor(aux, &w[i - 2].shr(10));
        let next = Word::addmany(aux, &[w[i - 16], s0, w[i - 7], s1]);
        w.push(next);
    }

    // The gadget defers the additions into a and e: each round's new a
    // and e are sums computed at the start of the round that uses them
    // (or at the end, with the state word added).
    enum Maybe {
        Deferred(Vec<Word>),
        Concrete(Word),
    }
    impl Maybe {
        fn compute(self, aux: &mut impl Aux, others: &[Word]) -> Word {
            match self {
                Maybe::Concrete(v) => v,
                Maybe::Deferred(mut v) => {
                    v.extend_from_slice(others);
                    Word::addmany(aux, &v)
                }
            }
        }
    }

    let mut a = Maybe::Concrete(state[0]);
    let (mut b, mut c, mut d) = (state[1], state[2], state[3]);
    let mut e = Maybe::Concrete(state[4]);
    let (mut f, mut g, mut h) = (state[5], state[6], state[7]);
    for i in 0..64 {
        let new_e = e.compute(aux, &[]);
        let s1 = new_e.rotr(6).xor(aux, &new_e.rotr(11));
        let s1 = s1.xor(aux, &new_e.rotr(25));
        let ch = Word::ch(aux, &new_e, &f, &g);
        let temp1 = [h, s1, ch, Word::constant(ROUND_CONSTANTS[i]), w[i]];
        let new_a = a.compute(aux, &[]);
        let s0 = new_a.rotr(2).xor(aux, &new_a.rotr(13));
        let s0 = s0.xor(aux, &new_a.rotr(22));
        let maj = Word::maj(aux, &new_a, &b, &c);
        h = g;
        g = f;
        f = new_e;
        e = Maybe::Deferred(temp1.iter().copied().chain([d]).collect());
        d = c;
        c = b;
        b = new_a;
        a = Maybe::Deferred(temp1.iter().copied().chain([s0, maj]).collect());
    }
    [
        a.compute(aux, &[state[0]]),
        Word::addmany(aux, &[state[1], b]),
        Word::addmany(aux, &[state[2], c]),
        Word::addmany(aux, &[state[3], d]),
        e.compute(aux, &[state[4]]),
        Word::addmany(aux, &[state[5], f]),
        Word::addmany(aux, &[state[6], g]),
        Word::addmany(aux, &[state[7], h]),
    ]
}

/// `sha256_block_no_padding`: one 512-bit block from the IV; the digest's
/// 256 bits, most significant first per word.
pub fn block_no_padding(aux: &mut impl Aux, input: &[Bit]) -> Vec<Bit> {
    let iv = IV.map(Word::constant);
    compression(aux, input, &iv)
        .into_iter()
        .flat_map(Word::into_bits_be)
        .collect()
}

/// `sha256`: a whole number of bytes, padded with constant bits as the
/// gadget pads them.
pub fn sha256(aux: &mut impl Aux, input: &[Bit]) -> Vec<Bit> {
    assert!(input.len() % 8 == 0);
    let mut padded = input.to_vec();
    let len = padded.len() as u64;
    padded.push(Bit::Constant(true));
    while (padded.len() + 64) % 512 != 0 {
        padded.push(Bit::Constant(false));
    }
    padded.extend((0..64).rev().map(|i| Bit::Constant((len >> i) & 1 == 1)));
    let mut state = IV.map(Word::constant);
    for block in padded.chunks(512) {
        state = compression(aux, block, &state);
    }
    state.into_iter().flat_map(Word::into_bits_be).collect()
}
