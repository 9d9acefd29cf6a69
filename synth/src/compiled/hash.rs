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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trace(Mixer);

impl Default for Trace {
    fn default() -> Self {
        Self(Mixer::new(0x0074_7261_6365))
    }
}

impl Trace {
    pub(crate) const AUX: u64 = 1;
    pub(crate) const INPUT: u64 = 2;
    pub(crate) const ENFORCE: u64 = 3;

    #[inline(always)]
    pub(crate) fn event(&mut self, e: u64) {
        self.0.word(e);
    }

    pub(crate) fn finish(self) -> u64 {
        self.0.finish()
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
    }
}
