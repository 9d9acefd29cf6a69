//! `.vk` bytes in both check modes: no panic, bounded allocation, and a
//! key that loads re-encodes to exactly its bytes.
use cuzk_groth16::{CheckMode, VerifyingKey};

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    for mode in [CheckMode::Trusted, CheckMode::Full] {
        if let Ok(vk) = VerifyingKey::from_bytes(data, mode) {
            assert_eq!(vk.to_bytes(), data, "{mode:?}: key re-encodes differently");
            assert_eq!(vk.encoded_len(), data.len());
        }
    }
}
