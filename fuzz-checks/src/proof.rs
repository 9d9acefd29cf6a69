//! Proof bytes, one and concatenated: no panic; a proof that decodes
//! re-encodes to its bytes; a concatenation decodes exactly when each of
//! its 192-byte pieces does.
use cuzk_groth16::{Proof, PROOF_BYTES};

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    if let Ok(p) = Proof::from_bytes(data) {
        assert_eq!(&p.to_bytes()[..], data);
    }
    match Proof::many_from_bytes(data) {
        Ok(ps) => {
            assert_eq!(ps.len() * PROOF_BYTES, data.len());
            assert_eq!(Proof::many_to_bytes(&ps), data);
        }
        Err(_) => {
            let whole = !data.is_empty() && data.len() % PROOF_BYTES == 0;
            assert!(
                !whole
                    || data
                        .chunks(PROOF_BYTES)
                        .any(|c| Proof::from_bytes(c).is_err()),
                "every piece decodes but the concatenation does not"
            );
        }
    }
}
