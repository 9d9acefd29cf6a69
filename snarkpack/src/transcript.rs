//! SnarkPack's Fiat–Shamir transcript: SHA-256 over a fixed prefix, a tag
//! and the bincode 1 encodings of the values written, as bellperson's
//! aggregation hashes them (the verifier recomputes every challenge, so
//! each byte must be the same).

use cuzk_field::{Field, Fr, PrimeField};
use serde::Serialize;
use sha2::{Digest, Sha256};

const PREFIX: &[u8] = b"snarkpack-v1";

/// A transcript under one tag; [`Transcript::challenge`] ends it.
pub(crate) struct Transcript(Sha256);

impl Transcript {
    pub(crate) fn new(tag: &str) -> Self {
        let mut h = Sha256::new();
        h.update(PREFIX);
        h.update(tag.as_bytes());
        Transcript(h)
    }

    /// Appends `v`'s bincode encoding. Points are their compressed affine
    /// form, field elements their canonical limbs, a byte slice has a u64
    /// length prefix.
    pub(crate) fn write<S: Serialize + ?Sized>(mut self, v: &S) -> Self {
        // Encoding into a Vec fails only for types bincode cannot size
        // (maps, sequences of unknown length), none of which is written.
        let bytes = bincode::serialize(v).unwrap_or_default();
        self.0.update(&bytes);
        self
    }

    /// The first digest of the transcript followed by a counter 1, 2, …
    /// (big-endian u64, each appended to the running hash) whose low 255
    /// bits are a canonical scalar other than 0 and 1.
    pub(crate) fn challenge(mut self) -> Fr {
        let mut counter: u64 = 0;
        loop {
            counter += 1;
            self.0.update(counter.to_be_bytes());
            let digest = self.0.clone().finalize();
            let mut repr = <Fr as PrimeField>::Repr::default();
            repr.as_mut().copy_from_slice(&digest);
            // 256 − 255 = 1 bit over the field size
            repr.as_mut()[31] &= 0x7f;
            if let Some(c) = Fr::from_repr_vartime(repr) {
                if c != Fr::ONE && !bool::from(c.is_zero()) {
                    return c;
                }
            }
        }
    }
}
