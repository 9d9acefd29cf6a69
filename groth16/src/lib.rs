//! # cuzk-groth16
//!
//! Groth16 over BLS12-381, byte-compatible with bellperson 0.26/0.27 (and so
//! with Filecoin's `.params` files and proofs).
//!
//! - [`Parameters`] / [`VerifyingKey`]: read and write bellperson's `.params`
//!   and `.vk` formats through memmap2, points decoded in parallel, with a
//!   full-check ([`CheckMode::Full`]: on-curve + subgroup) and a trusted
//!   fast mode; truncated, corrupt or mismatched files are typed errors.
//! - [`setup`]: test parameters for any circuit from seeded toxic waste
//!   (**not for production**).
//! - [`prove`] / [`prove_batch`]: the prover, over a [`Backend`] (the CPU
//!   backend, or the GPU backend with feature `cuda`). Every proof
//!   is verified before it is returned unless the caller opts out.
//! - [`verify_proof`] / [`verify_proofs_batch`]: the verifier, through blst
//!   pairings.
//! - [`Proof`]: 192 bytes, compressed A ‖ B ‖ C.
//!
//! Features: `cuda` adds [`gpu::GpuBackend`]: the H step and every MSM on an
//! NVIDIA GPU, parameters resident on the device.
#![deny(unsafe_code)] // one exception: mapping a file read-only (mmap.rs)

pub mod backend;
mod encoding;
pub mod error;
pub mod file;
mod fixed_base;
#[cfg(feature = "cuda")]
pub mod gpu;
mod mmap;
pub mod params;
pub mod proof;
pub mod prover;
pub mod setup;
pub mod timings;
pub mod verifier;
pub mod vk;

pub use backend::{check_shape, released_error, Backend, CpuBackend, Placement, ProofParts};
pub use encoding::CheckMode;
pub use error::{panic_message, Groth16Error, Result};
pub use params::{Parameters, ParamsInfo, QueryCounts};
pub use proof::{Proof, PROOF_BYTES};
pub use prover::{assemble, prove, prove_assignment, prove_batch, ProofOutput, ProveOptions};
pub use setup::{generate_parameters, parameters_from_record, ToxicWaste};
#[cfg(feature = "cuda")]
pub use setup::{generate_parameters_gpu, parameters_from_record_gpu};
pub use timings::Timings;
pub use verifier::{verify_proof, verify_proofs_batch};
pub use vk::{PreparedVerifyingKey, VerifyingKey};
