//! # cuzk-msm
//!
//! Multi-scalar multiplication (MSM) over BLS12-381 G1 and G2 in the shapes a
//! Groth16 prover needs:
//!
//! - [`msm`]: Σ sᵢ·Pᵢ over matching base and scalar slices (the H and L
//!   queries); [`msm_batch`] for several scalar vectors against one base set;
//! - [`msm_density`]: bellperson's density-filtered MSM (the A and B queries):
//!   the bases are compacted to the positions whose density bit is set, the
//!   scalars are not;
//! - the Filecoin fast path inside it, usable on its own: [`classify()`] splits
//!   the selected scalars into zeros (skipped), ones (a [`bitmap_sum`] of the
//!   selected bases, by batch-affine addition) and the rest, a small "tail"
//!   MSM ([`msm_gather`]) over just those bases. Filecoin circuits have mostly
//!   0/1 aux values (SHA-256 bits), so this is most of the work saved.
//!
//! Everything is generic over [`MsmCurve`], implemented for [`G1Affine`] and
//! [`G2Affine`]: `msm(&g1_bases, &scalars)` returns a `G1Projective`.
//! Bad input (length mismatches, too few bases, bad indices) is a typed
//! [`MsmError`], never a panic.
//!
//! The CPU backend ([`cpu`], re-exported here) runs blst's Pippenger tiles
//! (XYZZ buckets, signed digits) under rayon, so nested parallel prover code
//! composes; the points are passed to blst in place, never copied.
//! The GPU backend ([`gpu`]) is a Pippenger pipeline written once as
//! `__host__ __device__` C++ (signed digits from Montgomery scalars, a
//! per-window counting sort of points by bucket, XYZZ buckets, running-sum
//! reduction); its host twin ([`gpu::host`]) is always built and tested
//! against [`msm`] on the CPU.
//!
//! Features:
//! - `cuda`: compile the device pipeline with nvcc and enable
//!   [`gpu::GpuBases`] (device-resident bases: full, sub-range, batch,
//!   gather/tail, bitmap sum, density split; scalars from host or device)
//!   and `gpu::StreamedBases` (base sets larger than device memory,
//!   streamed from host memory in double-buffered chunks; the plan,
//!   [`chunks`], is host code tested in CI). Without it the CPU code builds
//!   exactly as before.
#![deny(unsafe_code)]

pub mod chunks;
pub mod classify;
pub mod cpu;
mod error;
#[allow(unsafe_code)]
mod ffi;
pub mod gpu;
mod plan;
mod sys;

pub use classify::{classified_bytes_bound, classify, Classified};
pub use cpu::{bitmap_sum, msm, msm_batch, msm_density, msm_gather};
pub use error::MsmError;

use cuzk_field::{Fr, G1Affine, G2Affine, PrimeCurveAffine};

/// A group the MSMs run over, named by its affine point type (the type of
/// the bases): implemented for [`G1Affine`] and [`G2Affine`]. Results are in
/// the matching projective type, [`Projective<C>`] (`C::Curve`).
///
/// Sealed: the blst hooks behind it exist only for these two groups.
pub trait MsmCurve: PrimeCurveAffine<Scalar = Fr> + ffi::BlstPoint {
    /// "G1" or "G2", for messages and benchmark names.
    const NAME: &'static str;
}

/// The projective (result) type of curve `C`.
pub type Projective<C> = <C as PrimeCurveAffine>::Curve;

impl MsmCurve for G1Affine {
    const NAME: &'static str = "G1";
}

impl MsmCurve for G2Affine {
    const NAME: &'static str = "G2";
}
