//! # cuzk-ntt
//!
//! Number-theoretic transforms (FFTs) over the BLS12-381 scalar field
//! [`Fr`](cuzk_field::Fr) and the Groth16 quotient step built on them.
//!
//! Main entry points:
//! - [`Domain`]: a radix-2 domain of `2^k` points (`k ≤ 28`) with cached
//!   twiddle tables; in-place [`Domain::fft`], [`Domain::ifft`],
//!   [`Domain::coset_fft`], [`Domain::icoset_fft`] (shift
//!   `Fr::MULTIPLICATIVE_GENERATOR`, as bellperson), `*_with` variants for any
//!   shift, and bit-reversed-order variants that skip the permutation pass;
//! - [`h_step`]: `H = (A·B − C)/Z` on a coset, bit-for-bit what bellperson
//!   0.26's CPU prover computes in `execute_fft`;
//! - [`bit_reverse_permute`];
//! - `reference` (doc-hidden): naive O(n²) transforms and a literal
//!   transcription of bellperson's quotient sequence, for tests here and in
//!   other crates.
//!
//! The CPU backend ([`cpu`], re-exported here) is rayon-parallel and
//! cache-blocked. Features: none yet; a `cuda` backend will join it.
// The only unsafe code is the FFI call into blst's fused butterflies
// (`cpu::blst_ops`), which opts back in.
#![deny(unsafe_code)]

pub mod cpu;
mod error;
pub mod reference;

#[doc(hidden)]
pub use cpu::Tuning;
pub use cpu::{bit_reverse_permute, coset_generator, h_step, root_of_unity, Domain};
pub use error::NttError;

/// Largest supported domain: 2^28 points.
pub const MAX_LOG_SIZE: u32 = 28;
