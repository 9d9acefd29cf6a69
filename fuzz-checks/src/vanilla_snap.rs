//! Vanilla SnapDeals partition proofs as they reach `cuzk prove snap` and
//! the daemon: bincode `PartitionProof`s for the update proof type picked
//! by the first byte, in either form of `vanilla_input.rs`, with the
//! commitments the committed seed was made with. They are decoded,
//! shape-checked and verified with storage-proofs-update's vanilla
//! verifier before any circuit is built. No panic; accepted proofs give
//! one public-input vector per partition.
use crate::vanilla_input::{self, hex32};
use cuzk_filecoin::snap::{snap_public_inputs, SnapInput, SnapProofKind};

/// `cuzk testdata snap`'s 2 KiB update (comm_r_old, comm_r_new,
/// comm_d_new): the seed's vanilla proofs are for these.
const COMMS: [&str; 3] = [
    "5dfa6bec77512e4b598f737dc7052ba7a54db471317cde0e50812cc5a7340859",
    "a4d4aa441422124a5327603416f653ee13c17bbc5fc7356a37a025a801001d57",
    "6470786d352624fe4f4c427fe250b64e3f0d58cc51ce9d115b688c7723dd0d0b",
];

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    let Some((sel, vanilla_proofs)) = vanilla_input::decode(data) else {
        return;
    };
    let Ok(kind) = SnapProofKind::from_registered_id(sel % 5) else {
        return;
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
}
