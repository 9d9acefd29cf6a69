//! Vanilla SnapDeals partition proofs as they reach `cuzk prove snap` and
//! the daemon: bincode `PartitionProof`s for the update proof type picked
//! by the first byte, length-prefixed raw bytes or (top bit of that byte)
//! Curio's JSON array of base64 strings, with the commitments the
//! committed seed was made with. They are decoded, shape-checked and
//! verified with storage-proofs-update's vanilla verifier before any
//! circuit is built. No panic; accepted proofs give one public-input
//! vector per partition.
#![no_main]
use cuzk_filecoin::post::parse_vanilla_json;
use cuzk_filecoin::snap::{snap_public_inputs, SnapInput, SnapProofKind};
use libfuzzer_sys::fuzz_target;

/// `cuzk testdata snap`'s 2 KiB update (comm_r_old, comm_r_new,
/// comm_d_new): the seed's vanilla proofs are for these.
const COMMS: [&str; 3] = [
    "5dfa6bec77512e4b598f737dc7052ba7a54db471317cde0e50812cc5a7340859",
    "a4d4aa441422124a5327603416f653ee13c17bbc5fc7356a37a025a801001d57",
    "6470786d352624fe4f4c427fe250b64e3f0d58cc51ce9d115b688c7723dd0d0b",
];

fn hex32(s: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, r) in out.iter_mut().enumerate() {
        *r = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

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
    let Ok(kind) = SnapProofKind::from_registered_id(u64::from(sel & 0x7f) % 5) else {
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
    let n = vanilla_proofs.len();
    let input = SnapInput {
        kind,
        comm_r_old: hex32(COMMS[0]),
        comm_r_new: hex32(COMMS[1]),
        comm_d_new: hex32(COMMS[2]),
        vanilla_proofs,
    };
    if let Ok(inputs) = snap_public_inputs(&input) {
        assert_eq!(inputs.len(), n);
    }
});
