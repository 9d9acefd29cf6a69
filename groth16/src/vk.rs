//! Verifying keys: bellperson's `VerifyingKey` byte format and a prepared form.

use crate::encoding::{
    decode_point, write_section, CheckMode, Reader, G1_UNCOMPRESSED, G2_UNCOMPRESSED,
};
use crate::error::{Groth16Error, Result};
use cuzk_field::{Bls12, G1Affine, G2Affine, G2Prepared, Gt};
use pairing::Engine;

/// A Groth16 verifying key. Written as α₁ ‖ β₁ ‖ β₂ ‖ γ₂ ‖ δ₁ ‖ δ₂ ‖ u32 n ‖ IC[n]
/// (uncompressed, big-endian count), exactly like bellperson's `VerifyingKey::write`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    /// α in G1.
    pub alpha_g1: G1Affine,
    /// β in G1.
    pub beta_g1: G1Affine,
    /// β in G2.
    pub beta_g2: G2Affine,
    /// γ in G2.
    pub gamma_g2: G2Affine,
    /// δ in G1.
    pub delta_g1: G1Affine,
    /// δ in G2.
    pub delta_g2: G2Affine,
    /// (β·Aᵢ(τ) + α·Bᵢ(τ) + Cᵢ(τ))/γ · G1 for each input, ONE first.
    pub ic: Vec<G1Affine>,
}

impl VerifyingKey {
    /// Encoded size in bytes.
    pub fn encoded_len(&self) -> usize {
        3 * G1_UNCOMPRESSED + 3 * G2_UNCOMPRESSED + 4 + self.ic.len() * G1_UNCOMPRESSED
    }

    /// Number of public inputs it verifies (not counting the implicit ONE).
    pub fn num_public_inputs(&self) -> usize {
        self.ic.len().saturating_sub(1)
    }

    pub(crate) fn read_from(r: &mut Reader<'_>, mode: CheckMode) -> Result<Self> {
        let g1 = |r: &mut Reader<'_>, what| -> Result<G1Affine> {
            decode_point(r.take(G1_UNCOMPRESSED, what)?, mode, what, 0)
        };
        let g2 = |r: &mut Reader<'_>, what| -> Result<G2Affine> {
            decode_point(r.take(G2_UNCOMPRESSED, what)?, mode, what, 0)
        };
        let alpha_g1 = g1(r, "vk alpha_g1")?;
        let beta_g1 = g1(r, "vk beta_g1")?;
        let beta_g2 = g2(r, "vk beta_g2")?;
        let gamma_g2 = g2(r, "vk gamma_g2")?;
        let delta_g1 = g1(r, "vk delta_g1")?;
        let delta_g2 = g2(r, "vk delta_g2")?;
        let ic = crate::encoding::read_section::<G1Affine>(r, mode, "vk IC")?;
        if ic.is_empty() {
            return Err(Groth16Error::Mismatch(
                "verifying key has no IC points".into(),
            ));
        }
        Ok(Self {
            alpha_g1,
            beta_g1,
            beta_g2,
            gamma_g2,
            delta_g1,
            delta_g2,
            ic,
        })
    }

    /// Decodes a `.vk` file's bytes (a key alone, nothing after it).
    pub fn from_bytes(bytes: &[u8], mode: CheckMode) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let vk = Self::read_from(&mut r, mode)?;
        if r.remaining() != 0 {
            return Err(Groth16Error::TrailingBytes {
                what: "verifying key",
                extra: r.remaining(),
            });
        }
        Ok(vk)
    }

    /// Reads a `.vk` file (at most [`crate::file::VK_LIMIT`] bytes).
    pub fn load(path: &std::path::Path, mode: CheckMode) -> Result<Self> {
        let bytes = crate::file::read_capped(path, crate::file::VK_LIMIT, "a verifying key")?;
        Self::from_bytes(&bytes, mode).map_err(|e| crate::params::with_path(e, path))
    }

    /// Writes the key in bellperson's format.
    pub fn write(&self, w: &mut impl std::io::Write) -> Result<()> {
        w.write_all(&self.alpha_g1.to_uncompressed())?;
        w.write_all(&self.beta_g1.to_uncompressed())?;
        w.write_all(&self.beta_g2.to_uncompressed())?;
        w.write_all(&self.gamma_g2.to_uncompressed())?;
        w.write_all(&self.delta_g1.to_uncompressed())?;
        w.write_all(&self.delta_g2.to_uncompressed())?;
        write_section(&self.ic, w)
    }

    /// The key as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.encoded_len());
        self.write(&mut v).expect("writing to a Vec cannot fail");
        v
    }

    /// Precomputes what every verification needs.
    pub fn prepare(&self) -> PreparedVerifyingKey {
        PreparedVerifyingKey {
            alpha_g1_beta_g2: Bls12::pairing(&self.alpha_g1, &self.beta_g2),
            neg_gamma_g2: G2Prepared::from(-self.gamma_g2),
            neg_delta_g2: G2Prepared::from(-self.delta_g2),
            ic: self.ic.clone(),
        }
    }
}

/// A verifying key with e(α, β) computed and −γ, −δ prepared for Miller loops.
#[derive(Clone, Debug)]
pub struct PreparedVerifyingKey {
    pub(crate) alpha_g1_beta_g2: Gt,
    pub(crate) neg_gamma_g2: G2Prepared,
    pub(crate) neg_delta_g2: G2Prepared,
    pub(crate) ic: Vec<G1Affine>,
}
