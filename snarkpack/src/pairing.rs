//! Inner pairing products Π e(Pᵢ, Qᵢ), the commitments of SnarkPack.
//!
//! Every value SnarkPack keeps is a product of pairings after the final
//! exponentiation, which is unique whatever order and grouping the Miller
//! loops were multiplied in. So a product is computed here as one
//! multi-Miller loop over all its pairs (blst's `miller_loop_n`: 16 pairs
//! share each step's Fp12 squaring, and its thread pool spreads the groups
//! over every core) and one final exponentiation. bellperson runs each
//! product as sequential single Miller loops on one thread, with its
//! products side by side (4 to 14 at a time).

use blst::{blst_fp12, blst_p1_affine, blst_p2_affine};
use cuzk_field::{Fp12, G1Affine, G2Affine, Group, Gt, PrimeCurveAffine};
use rayon::prelude::*;

/// One product: G1 and G2 slices paired element by element, all terms
/// multiplied together.
pub(crate) type Terms<'a> = Vec<(&'a [G1Affine], &'a [G2Affine])>;

/// Π over every pair of every term. A pair with the point at infinity on
/// either side contributes 1 (bellperson's convention), so it is left out.
pub(crate) fn product(terms: &[(&[G1Affine], &[G2Affine])]) -> Gt {
    let len: usize = terms.iter().map(|(p, _)| p.len()).sum();
    let mut ps: Vec<blst_p1_affine> = Vec::with_capacity(len);
    let mut qs: Vec<blst_p2_affine> = Vec::with_capacity(len);
    for (l, r) in terms {
        debug_assert_eq!(l.len(), r.len());
        for (p, q) in l.iter().zip(r.iter()) {
            if bool::from(p.is_identity() | q.is_identity()) {
                continue;
            }
            ps.push(*p.as_ref());
            qs.push(*q.as_ref());
        }
    }
    if ps.is_empty() {
        return Gt::identity();
    }
    let f = blst_fp12::miller_loop_n(&qs, &ps).final_exp();
    Gt::from(Fp12::from(f))
}

/// Several products at once (the products of one GIPA round), in order.
pub(crate) fn products(all: &[Terms<'_>]) -> Vec<Gt> {
    all.par_iter().map(|t| product(t)).collect()
}
