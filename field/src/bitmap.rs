//! A growable bit vector with fast rank/popcount, used for density trackers
//! (one bit per variable) and for "scalar is one" selections in the MSMs.
//!
//! We keep our own small type rather than `bitvec` so that the word layout is
//! fixed (little-endian `u64` words, bit `i` of the vector is bit `i % 64` of
//! word `i / 64`) and can be copied to the GPU as it is.

/// Bit vector with `len` bits stored in little-endian `u64` words.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Bitmap {
    words: Vec<u64>,
    len: usize,
}

impl std::fmt::Debug for Bitmap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bitmap(len={}, ones={})", self.len, self.count_ones())
    }
}

impl Bitmap {
    /// An empty bitmap.
    pub fn new() -> Self {
        Self::default()
    }

    /// `len` bits, all zero.
    pub fn zeros(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// `len` bits, all one.
    pub fn ones(len: usize) -> Self {
        let mut b = Self {
            words: vec![u64::MAX; len.div_ceil(64)],
            len,
        };
        b.clear_tail();
        b
    }

    /// A bitmap of `len` bits over little-endian words (bits past `len` in
    /// the last word are cleared). `None` when `words` is too short or too long.
    pub fn from_words(mut words: Vec<u64>, len: usize) -> Option<Self> {
        if words.len() != len.div_ceil(64) {
            return None;
        }
        words.shrink_to_fit();
        let mut b = Self { words, len };
        b.clear_tail();
        Some(b)
    }

    /// Builds a bitmap from booleans.
    pub fn from_bools(bits: impl IntoIterator<Item = bool>) -> Self {
        let mut b = Self::new();
        for bit in bits {
            b.push(bit);
        }
        b
    }

    fn clear_tail(&mut self) {
        let r = self.len % 64;
        if r != 0 {
            if let Some(w) = self.words.last_mut() {
                *w &= (1u64 << r) - 1;
            }
        }
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the bitmap holds no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends one bit.
    pub fn push(&mut self, bit: bool) {
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        if bit {
            self.words[self.len / 64] |= 1 << (self.len % 64);
        }
        self.len += 1;
    }

    /// Bit `i`. Panics when `i >= len` (an indexing bug, like slice indexing).
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// Sets bit `i` to one.
    pub fn set(&mut self, i: usize) {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Sets bit `i` to `v`.
    pub fn assign(&mut self, i: usize, v: bool) {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        if v {
            self.words[i / 64] |= 1 << (i % 64);
        } else {
            self.words[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Number of one bits.
    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Appends all bits of `other`.
    pub fn extend_from(&mut self, other: &Bitmap) {
        // Word at a time: a recorded circuit's density maps are appended
        // part by part, 10^8 bits each at 32 GiB.
        let shift = self.len % 64;
        if shift == 0 {
            self.words.extend_from_slice(&other.words);
        } else {
            for &w in &other.words {
                // Not empty: `shift > 0` means a partly filled last word.
                if let Some(last) = self.words.last_mut() {
                    *last |= w << shift;
                }
                self.words.push(w >> (64 - shift));
            }
        }
        self.len += other.len;
        // Bits past `other.len` are clear, so the dropped word is zero.
        self.words.truncate(self.len.div_ceil(64));
    }

    /// Indices of the one bits, ascending.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let t = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + t)
            })
        })
    }

    /// All bits as booleans.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(move |i| self.get(i))
    }

    /// The backing words (little-endian bit order), e.g. for upload to a GPU.
    pub fn as_words(&self) -> &[u64] {
        &self.words
    }

    /// Number of one bits strictly before position `i` (the index of bit `i`
    /// among the compacted, density-filtered bases).
    pub fn rank(&self, i: usize) -> usize {
        assert!(i <= self.len);
        let full: usize = self.words[..i / 64]
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum();
        let r = i % 64;
        if r == 0 {
            full
        } else {
            full + (self.words[i / 64] & ((1u64 << r) - 1)).count_ones() as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn matches_vec_bool(bits in proptest::collection::vec(any::<bool>(), 0..300), cut in 0..300usize) {
            let b = Bitmap::from_bools(bits.iter().copied());
            prop_assert_eq!(b.len(), bits.len());
            prop_assert_eq!(b.count_ones(), bits.iter().filter(|x| **x).count());
            let ones: Vec<usize> = bits.iter().enumerate().filter(|(_, x)| **x).map(|(i, _)| i).collect();
            prop_assert_eq!(b.iter_ones().collect::<Vec<_>>(), ones);
            for i in 0..=bits.len() {
                prop_assert_eq!(b.rank(i), bits[..i].iter().filter(|x| **x).count());
            }
            let cut = cut % (bits.len() + 1);
            let mut c = Bitmap::from_bools(bits.iter().copied().take(cut));
            c.extend_from(&Bitmap::from_bools(bits.iter().copied().skip(cut)));
            prop_assert_eq!(c.as_words(), b.as_words());
            prop_assert_eq!(c, b);
        }
    }

    #[test]
    fn from_words_checks_length_and_clears_tail() {
        let b = Bitmap::from_words(vec![u64::MAX, u64::MAX], 70).unwrap();
        assert_eq!(b.count_ones(), 70);
        assert_eq!(b, Bitmap::ones(70));
        assert!(Bitmap::from_words(vec![0], 70).is_none());
        assert!(Bitmap::from_words(vec![0, 0, 0], 70).is_none());
        assert_eq!(Bitmap::from_words(vec![], 0).unwrap(), Bitmap::new());
    }

    #[test]
    fn ones_and_zeros() {
        for n in [0, 1, 63, 64, 65, 1000] {
            assert_eq!(Bitmap::ones(n).count_ones(), n);
            assert_eq!(Bitmap::zeros(n).count_ones(), 0);
            assert_eq!(Bitmap::ones(n).iter_ones().count(), n);
        }
    }
}
