//! # cuzk-field
//!
//! BLS12-381 on the host, in the exact types the Filecoin ecosystem uses:
//! the scalar field `Fr` *is* [`blstrs::Scalar`], so a circuit written for
//! bellpepper-core 0.2 / bellperson hands its values to cuzk without a copy.
//!
//! What this crate adds on top of blstrs:
//! - [`bitmap::Bitmap`]: the compact density bitmaps synthesis produces and
//!   the MSMs consume (which variables appear in A and in B, which scalars are 1);
//! - [`frvec::FrVec`]: a vector of `Fr` whose storage may belong to a pool
//!   (the page-locked witness buffers a GPU reads by DMA), returned on drop;
//! - [`batch`]: parallel batch inversion and random vectors;
//! - [`repr`]: canonical and Montgomery byte/limb views of `Fr` and `Fp`; the
//!   Montgomery limbs are the layout the GPU kernels use, so host buffers
//!   upload as they are (layout guarantee, see ARCHITECTURE.md);
//! - `laws` (tests): algebraic-law property tests generated for every field and group.
//!
//! Features: none. The CUDA headers for the same arithmetic live in `cuda/`
//! beside this crate and are consumed by the GPU crates' build scripts.
#![forbid(unsafe_code)]

pub mod batch;
pub mod bitmap;
pub mod frvec;
pub mod repr;

pub use blstrs::{
    Bls12, Fp, Fp12, Fp2, G1Affine, G1Projective, G2Affine, G2Prepared, G2Projective, Gt,
    Scalar as Fr,
};
pub use ff::{Field, PrimeField};
pub use group::{prime::PrimeCurveAffine, Curve, Group};

pub use batch::{batch_inverse, random_vec};
pub use bitmap::Bitmap;
pub use frvec::{AllocCounts, FrAlloc, FrVec, VecHome};
