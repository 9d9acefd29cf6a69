//! # cuzk-snarkpack
//!
//! SnarkPack aggregation of Groth16 proofs over BLS12-381: [`aggregate`]
//! makes, for the same proofs, SRS, transcript input and version, the
//! same [`AggregateProof`] as bellperson's `aggregate_proofs` (the one
//! filecoin-proofs' `aggregate_seal_commit_proofs` calls), so its
//! `write` gives the same bytes and bellperson's verifier accepts it.
//!
//! What differs is how it is computed:
//! - the inner pairing products of a step are one call of the caller's
//!   [`Pairing`] (cuzk-pairing: blst's multi-Miller loop over every core,
//!   or the Miller loops on the GPU), where bellperson runs each product's
//!   Miller loops one after another on one thread;
//! - the SRS is used as plain point slices (a [`GenericSRS`] read once
//!   serves every size), with no per-size precomputed tables;
//! - the MSMs are cuzk-msm's;
//! - the KZG quotient is a synthetic division, without the evaluation.
//!
//! The protocol (for n proofs, n a power of two): commit to A, B (pairs
//! with the keys v, w) and C (with v); draw r from the commitments and the
//! caller's transcript input; prove with GIPA that Π e(Aᵢ, Bᵢ^{rⁱ}) and
//! Σ rⁱ·Cᵢ are what the commitments hold (`gipa`); open the final keys
//! with KZG (`kzg`).
#![forbid(unsafe_code)]

mod gipa;
mod kzg;
mod transcript;

pub use bellperson::groth16::aggregate::{AggregateProof, AggregateVersion, GenericSRS};
pub use bellperson::groth16::Proof;
pub use cuzk_pairing::{Pairing, PairingError};

use bellperson::groth16::aggregate::TippMippProof;
use cuzk_field::{batch_inverse, Bls12, Curve, Field, Fr, G1Affine, G2Affine, G2Projective};
use cuzk_msm::MsmError;
use rayon::prelude::*;

use transcript::Transcript;

/// Why an aggregate could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SnarkpackError {
    /// SnarkPack aggregates 2, 4, 8, … proofs (callers pad).
    #[error("SnarkPack aggregates a power of two (at least 2) of proofs, not {0}")]
    Count(usize),
    /// The SRS has fewer powers than 2n in one of its four vectors.
    #[error("the SRS holds {have} powers in one of its vectors; {proofs} proofs need {need}")]
    SrsTooShort {
        proofs: usize,
        need: usize,
        have: usize,
    },
    /// An MSM refused its input (lengths).
    #[error(transparent)]
    Msm(#[from] MsmError),
    /// A pairing product failed (on the GPU: out of memory, a CUDA error).
    #[error(transparent)]
    Pairing(#[from] PairingError),
}

/// Aggregates `proofs` (a power of two, at least 2) with `srs`, binding
/// `include` (the caller's public context, e.g. filecoin-proofs' hash of
/// seeds and comm_rs) into the transcript; the pairing products run where
/// `pairing` says.
pub fn aggregate(
    pairing: &Pairing,
    srs: &GenericSRS<Bls12>,
    include: &[u8],
    proofs: &[Proof<Bls12>],
    version: AggregateVersion,
) -> Result<AggregateProof<Bls12>, SnarkpackError> {
    let n = proofs.len();
    if n < 2 || !n.is_power_of_two() {
        return Err(SnarkpackError::Count(n));
    }
    let have = srs
        .g_alpha_powers
        .len()
        .min(srs.g_beta_powers.len())
        .min(srs.h_alpha_powers.len())
        .min(srs.h_beta_powers.len());
    if have < 2 * n {
        return Err(SnarkpackError::SrsTooShort {
            proofs: n,
            need: 2 * n,
            have,
        });
    }
    // v = (h^{αⁱ}, h^{βⁱ}), i < n; w = (g^{αⁱ}, g^{βⁱ}), n ≤ i < 2n; the
    // openings use g's powers from 0.
    let (g_a, g_b) = (&srs.g_alpha_powers[..2 * n], &srs.g_beta_powers[..2 * n]);
    let (h_a, h_b) = (&srs.h_alpha_powers[..n], &srs.h_beta_powers[..n]);
    let (w_a, w_b) = (&g_a[n..], &g_b[n..]);

    let a: Vec<G1Affine> = proofs.iter().map(|p| p.a).collect();
    let b: Vec<G2Affine> = proofs.iter().map(|p| p.b).collect();
    let c: Vec<G1Affine> = proofs.iter().map(|p| p.c).collect();

    let com = pairing.products(&[
        vec![(&a[..], h_a), (w_a, &b[..])],
        vec![(&a[..], h_b), (w_b, &b[..])],
        vec![(&c[..], h_a)],
        vec![(&c[..], h_b)],
    ])?;
    let com_ab = (com[0], com[1]);
    let com_c = (com[2], com[3]);
    let hcom = Transcript::new("hcom")
        .write(&com_ab)
        .write(&com_c)
        .challenge();
    let r = Transcript::new("random-r")
        .write(&hcom)
        .write(include)
        .challenge();

    // rⁱ and r⁻ⁱ
    let mut r_vec = Vec::with_capacity(n);
    let mut acc = Fr::ONE;
    for _ in 0..n {
        r_vec.push(acc);
        acc *= r;
    }
    let mut r_inv = r_vec.clone();
    batch_inverse(&mut r_inv);

    // B^{rⁱ}, and w scaled by r⁻ⁱ so that the pair commitment of (A, B^r)
    // under (v, w^{r⁻¹}) is still com_ab.
    let b_r: Vec<G2Projective> = b.par_iter().zip(&r_vec).map(|(b, r)| b * r).collect();
    let mut b_r_aff = vec![G2Affine::default(); n];
    G2Projective::batch_normalize(&b_r, &mut b_r_aff);
    let scale = |w: &[G1Affine]| -> Vec<G1Affine> {
        let p: Vec<_> = w.par_iter().zip(&r_inv).map(|(w, r)| w * r).collect();
        let mut out = vec![G1Affine::default(); n];
        cuzk_field::G1Projective::batch_normalize(&p, &mut out);
        out
    };
    let (w_r, (ip_ab, agg_c)) = rayon::join(
        || (scale(w_a), scale(w_b)),
        || {
            rayon::join(
                || pairing.product(&[(&a[..], &b_r_aff[..])]),
                || cuzk_msm::msm(&c, &r_vec),
            )
        },
    );
    let (ip_ab, agg_c) = (ip_ab?, agg_c?);

    let g = gipa::prove(
        pairing,
        gipa::Inputs {
            a: &a,
            b: b_r_aff,
            c: &c,
            r: r_vec.clone(),
            v: (h_a.to_vec(), h_b.to_vec()),
            w: w_r,
            ip_ab,
            agg_c,
            hcom,
        },
        version,
    )?;

    // The KZG point, from the last GIPA challenge (version 1) or the link
    // challenge and the final elements (version 2).
    let p = &g.proof;
    let z = match version {
        AggregateVersion::V1 => Transcript::new("random-z")
            .write(&g.challenges[g.challenges.len() - 1])
            .write(&p.final_vkey.0)
            .write(&p.final_vkey.1)
            .write(&p.final_wkey.0)
            .write(&p.final_wkey.1)
            .challenge(),
        AggregateVersion::V2 => Transcript::new("random-z")
            .write(&g.extra)
            .write(&p.final_vkey.0)
            .write(&p.final_vkey.1)
            .write(&p.final_wkey.0)
            .write(&p.final_wkey.1)
            .write(&p.final_a)
            .write(&p.final_b)
            .write(&p.final_c)
            .challenge(),
    };

    // f_v = Π (1 + x⁻¹_{l−j} X^{2^j}); f_w = X^n Π (1 + x_{l−j} (X/r)^{2^j})
    let xs_inv: Vec<Fr> = g.challenges_inv.iter().rev().copied().collect();
    let xs: Vec<Fr> = g.challenges.iter().rev().copied().collect();
    let f_v = kzg::fold_coefficients(&xs_inv, &Fr::ONE);
    let r_shift_inv = r_inv[1];
    let mut f_w = vec![Fr::ZERO; n];
    f_w.extend(kzg::fold_coefficients(&xs, &r_shift_inv));
    let (vkey_opening, wkey_opening) = rayon::join(
        || kzg::open(h_a, h_b, &f_v, &z),
        || kzg::open(g_a, g_b, &f_w, &z),
    );

    Ok(AggregateProof {
        com_ab,
        com_c,
        ip_ab,
        agg_c,
        tmipp: TippMippProof {
            gipa: g.proof,
            vkey_opening: vkey_opening?,
            wkey_opening: wkey_opening?,
        },
    })
}
