//! Proofs: compressed A (48) ‖ B (96) ‖ C (48) = 192 bytes, as bellperson's
//! `Proof::write`.

use crate::encoding::{G1_COMPRESSED, G2_COMPRESSED};
use crate::error::{Groth16Error, Result};
use cuzk_field::{G1Affine, G2Affine};
use rayon::prelude::*;

/// A Groth16 proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    /// A in G1.
    pub a: G1Affine,
    /// B in G2.
    pub b: G2Affine,
    /// C in G1.
    pub c: G1Affine,
}

/// Encoded size of one proof.
pub const PROOF_BYTES: usize = 2 * G1_COMPRESSED + G2_COMPRESSED;

impl Proof {
    /// The 192 proof bytes.
    pub fn to_bytes(&self) -> [u8; PROOF_BYTES] {
        let mut out = [0u8; PROOF_BYTES];
        out[..48].copy_from_slice(&self.a.to_compressed());
        out[48..144].copy_from_slice(&self.b.to_compressed());
        out[144..].copy_from_slice(&self.c.to_compressed());
        out
    }

    /// Decodes 192 bytes, with on-curve and subgroup checks.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != PROOF_BYTES {
            return Err(Groth16Error::MalformedProof(format!(
                "expected {PROOF_BYTES} bytes, got {}",
                bytes.len()
            )));
        }
        let bad = |what: &str| Groth16Error::MalformedProof(format!("{what} is not a valid point"));
        let a: Option<G1Affine> = Option::from(G1Affine::from_compressed(
            bytes[..48].try_into().expect("48 bytes"),
        ));
        let b: Option<G2Affine> = Option::from(G2Affine::from_compressed(
            bytes[48..144].try_into().expect("96 bytes"),
        ));
        let c: Option<G1Affine> = Option::from(G1Affine::from_compressed(
            bytes[144..].try_into().expect("48 bytes"),
        ));
        Ok(Self {
            a: a.ok_or_else(|| bad("A"))?,
            b: b.ok_or_else(|| bad("B"))?,
            c: c.ok_or_else(|| bad("C"))?,
        })
    }

    /// Concatenated proofs (e.g. the partitions of a PoRep) as bytes.
    pub fn many_to_bytes(proofs: &[Proof]) -> Vec<u8> {
        proofs.iter().flat_map(|p| p.to_bytes()).collect()
    }

    /// Splits concatenated proof bytes, decoding in parallel.
    pub fn many_from_bytes(bytes: &[u8]) -> Result<Vec<Proof>> {
        if bytes.len() % PROOF_BYTES != 0 || bytes.is_empty() {
            return Err(Groth16Error::MalformedProof(format!(
                "{} bytes is not a positive multiple of {PROOF_BYTES}",
                bytes.len()
            )));
        }
        bytes
            .par_chunks(PROOF_BYTES)
            .enumerate()
            .map(|(i, c)| {
                Proof::from_bytes(c)
                    .map_err(|e| Groth16Error::MalformedProof(format!("proof #{i}: {e}")))
            })
            .collect()
    }
}
