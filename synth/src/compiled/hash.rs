//! A small, stable 64-bit hash for shapes and recorded structures.
//!
//! Not `std`'s `DefaultHasher`: its algorithm may change between Rust
//! releases, and these hashes are meant to key on-disk matrix caches (a
//! later slice). Not cryptographic either: it detects a wrong circuit or a
//! damaged matrix, it does not resist someone forging one.

/// Word-at-a-time mixer (a multiply–xorshift per word, splitmix64's
/// finalizer at the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mixer(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl Mixer {
    pub(crate) fn new(domain: u64) -> Self {
        Self(domain ^ K)
    }

    #[inline(always)]
    pub(crate) fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(K).rotate_left(29);
    }

    pub(crate) fn words(&mut self, ws: impl IntoIterator<Item = u64>) {
        for w in ws {
            self.word(w);
        }
    }

    pub(crate) fn finish(self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The event trace of a synthesis: which of alloc / alloc_input / enforce
/// happened, in order. The recorder and the witness-only system both keep
/// it, so a witness from a circuit whose allocations and constraints
/// interleave differently is refused even when the counts agree.
///
/// A polynomial hash, `h = Σ eᵢ·R^(n−1−i) mod 2^61 − 1`, because it
/// composes: the trace of a concatenation is `h(A)·R^|B| + h(B)`. That
/// lets the witness-only system synthesize independent sub-circuits in
/// parallel (bellpepper's `extend`) and still produce the trace the
/// sequential recording has. Two different event sequences of length n
/// collide with probability at most n/2^61 for the fixed, arbitrary R.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trace {
    h: u64,
    n: u64,
}

/// 2^61 − 1, a Mersenne prime: reduction is a shift and an add.
const P: u64 = (1 << 61) - 1;
/// The evaluation point (any element other than 0 and 1 works).
const R: u64 = 0x0b5a_d4ec_eda1_ce2a % P;

#[inline(always)]
fn mul_mod(a: u64, b: u64) -> u64 {
    let x = u128::from(a) * u128::from(b);
    let r = (x as u64 & P) + (x >> 61) as u64;
    let r = (r & P) + (r >> 61);
    if r >= P {
        r - P
    } else {
        r
    }
}

#[inline(always)]
fn add_mod(a: u64, b: u64) -> u64 {
    let r = a + b;
    if r >= P {
        r - P
    } else {
        r
    }
}

fn pow_mod(mut b: u64, mut e: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, b);
        }
        b = mul_mod(b, b);
        e >>= 1;
    }
    r
}

impl Trace {
    pub(crate) const AUX: u64 = 1;
    pub(crate) const INPUT: u64 = 2;
    pub(crate) const ENFORCE: u64 = 3;

    #[inline(always)]
    pub(crate) fn event(&mut self, e: u64) {
        self.h = add_mod(mul_mod(self.h, R), e);
        self.n += 1;
    }

    /// Number of events.
    pub(crate) fn len(&self) -> u64 {
        self.n
    }

    /// Appends `other`'s events after ours.
    pub(crate) fn append(&mut self, other: &Trace) {
        self.h = add_mod(mul_mod(self.h, pow_mod(R, other.n)), other.h);
        self.n += other.n;
    }

    /// The trace without its first event, which was `first`. None when
    /// the trace is empty.
    pub(crate) fn without_first(&self, first: u64) -> Option<Trace> {
        let n = self.n.checked_sub(1)?;
        let lead = mul_mod(first, pow_mod(R, n));
        Some(Trace {
            h: add_mod(self.h, P - lead),
            n,
        })
    }

    pub(crate) fn finish(self) -> u64 {
        let mut m = Mixer::new(0x0074_7261_6365);
        m.words([self.h, self.n]);
        m.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_matters_and_is_stable() {
        let h = |ws: &[u64]| {
            let mut m = Mixer::new(1);
            m.words(ws.iter().copied());
            m.finish()
        };
        assert_ne!(h(&[1, 2]), h(&[2, 1]));
        assert_ne!(h(&[0]), h(&[0, 0]));
        // Pinned: the value must not change between builds (disk caches).
        assert_eq!(h(&[1, 2, 3]), 15_874_488_286_777_236_801);
        let mut t = Trace::default();
        t.event(Trace::AUX);
        t.event(Trace::ENFORCE);
        let mut u = Trace::default();
        u.event(Trace::ENFORCE);
        u.event(Trace::AUX);
        assert_ne!(t.finish(), u.finish());
        // Pinned like the mixer: records on disk carry trace hashes.
        let mut v = Trace::default();
        for e in [Trace::INPUT, Trace::AUX, Trace::ENFORCE] {
            v.event(e);
        }
        assert_eq!(v.finish(), PINNED_TRACE);
    }

    const PINNED_TRACE: u64 = 15_048_608_423_456_576_870;

    fn trace(events: &[u64]) -> Trace {
        let mut t = Trace::default();
        for &e in events {
            t.event(e);
        }
        t
    }

    #[test]
    fn traces_compose_like_concatenation() {
        let mut rng = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % 3 + 1
        };
        for len in [0usize, 1, 2, 7, 100, 1000] {
            let a: Vec<u64> = (0..len).map(|_| next()).collect();
            let b: Vec<u64> = (0..len / 2 + 1).map(|_| next()).collect();
            let mut joined = a.clone();
            joined.extend(&b);
            let mut t = trace(&a);
            t.append(&trace(&b));
            assert_eq!(t, trace(&joined), "len {len}");
            assert_eq!(t.finish(), trace(&joined).finish());
            // Dropping a known first event.
            let rest = trace(&joined).without_first(joined[0]).unwrap();
            assert_eq!(rest, trace(&joined[1..]));
        }
        assert_eq!(Trace::default().without_first(Trace::AUX), None);
        // Order and length both count.
        assert_ne!(trace(&[1, 2]).finish(), trace(&[2, 1]).finish());
        assert_ne!(trace(&[]).finish(), trace(&[0]).finish());
        assert_ne!(trace(&[1]).finish(), trace(&[0, 1]).finish());
    }

    #[test]
    fn modular_arithmetic_matches_u128() {
        for (a, b) in [(P - 1, P - 1), (1 << 60, 3), (12345, P - 2), (0, 5)] {
            assert_eq!(
                u128::from(mul_mod(a, b)),
                u128::from(a) * u128::from(b) % u128::from(P)
            );
        }
        assert_eq!(pow_mod(R, 0), 1);
        assert_eq!(pow_mod(R, 3), mul_mod(R, mul_mod(R, R)));
    }
}
