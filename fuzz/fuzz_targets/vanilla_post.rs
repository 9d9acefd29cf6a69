//! Vanilla PoSt proofs as they reach `cuzk prove winning-post|window-post`
//! and the daemon: bincode `FallbackPoStSectorProof`s for a registered
//! proof type picked by the first byte, either length-prefixed raw bytes
//! or (top bit of that byte) Curio's JSON array of base64 strings. They are
//! decoded, shape-checked against the kind and verified with
//! storage-proofs' vanilla verifier before any circuit is built. No panic;
//! accepted proofs give one public-input vector per partition.
#![no_main]
use cuzk_filecoin::post::{parse_vanilla_json, post_public_inputs, PostInput, PostProofKind};
use libfuzzer_sys::fuzz_target;

/// The randomness and prover id the committed seeds were generated with
/// (`cuzk testdata winning-post|window-post --randomness R --prover-id
/// f01000`), so the seeds reach the vanilla verifier.
const RANDOMNESS: &str = "a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a727";

/// Length-prefixed (u32 little-endian) byte strings; a short tail ends
/// the list.
fn split(mut b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while b.len() >= 4 {
        let n = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        b = &b[4..];
        let n = n.min(b.len());
        out.push(b[..n].to_vec());
        b = &b[n..];
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((sel, body)) = data.split_first() else {
        return;
    };
    let Ok(kind) = PostProofKind::from_registered_id(u64::from(sel & 0x7f) % 15) else {
        return;
    };
    let vanilla_proofs = if sel & 0x80 != 0 {
        match parse_vanilla_json(body) {
            Ok(v) => v,
            Err(_) => return,
        }
    } else {
        split(body)
    };
    let mut randomness = [0u8; 32];
    for (i, r) in randomness.iter_mut().enumerate() {
        *r = u8::from_str_radix(&RANDOMNESS[2 * i..2 * i + 2], 16).unwrap();
    }
    let prover_id = cuzk_filecoin::c1::parse_prover_id("f01000").unwrap();
    let n = vanilla_proofs.len();
    let input = PostInput {
        kind,
        randomness,
        prover_id,
        vanilla_proofs,
        partition: None,
    };
    if let Ok(inputs) = post_public_inputs(&input) {
        assert!(!inputs.is_empty() && inputs.len() <= n.max(1));
    }
});
