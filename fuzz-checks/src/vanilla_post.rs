//! Vanilla PoSt proofs as they reach `cuzk prove winning-post|window-post`
//! and the daemon: bincode `FallbackPoStSectorProof`s for a registered
//! proof type picked by the first byte, in either form of
//! `vanilla_input.rs`. They are decoded, shape-checked against the kind
//! and verified with storage-proofs' vanilla verifier before any circuit
//! is built. No panic; accepted proofs give one public-input vector per
//! partition.
use crate::vanilla_input;
use cuzk_filecoin::post::{post_public_inputs, PostInput, PostProofKind};

/// The randomness and prover id the committed seeds were generated with
/// (`cuzk testdata winning-post|window-post --randomness R --prover-id
/// f01000`), so the seeds reach the vanilla verifier.
const RANDOMNESS: &str = "a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a727";

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    let Some((sel, vanilla_proofs)) = vanilla_input::decode(data) else {
        return;
    };
    let Ok(kind) = PostProofKind::from_registered_id(sel % 15) else {
        return;
    };
    let n = vanilla_proofs.len();
    let input = PostInput {
        kind,
        randomness: vanilla_input::hex32(RANDOMNESS),
        prover_id: cuzk_filecoin::c1::parse_prover_id("f01000").unwrap(),
        vanilla_proofs,
        partition: None,
    };
    if let Ok(inputs) = post_public_inputs(&input) {
        assert!(!inputs.is_empty() && inputs.len() <= n.max(1));
    }
}
