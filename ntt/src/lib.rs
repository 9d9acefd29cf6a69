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
//! cache-blocked.
//!
//! The CUDA backend (`gpu::GpuNtt`, feature `cuda`): radix-2 passes of up to
//! 10 levels in shared memory with fused twiddles, cached per-device tables,
//! every mode of [`Domain`] on device buffers or host slices, and the H step
//! leaving `h` on the device. Its kernel code (`cuda/ntt.cuh`) is also built
//! as host C++ in every build: the doc-hidden [`twin`] module runs it on the
//! CPU so tests check the device algorithm without a GPU.
//!
//! Features: `cuda` — compile the kernels with nvcc (cuzk-cuda-build) and
//! add the [`gpu`](crate) module; without it nothing needs nvcc.
// The only unsafe code is the FFI into blst's fused butterflies
// (`cpu::blst_ops`) and into our C++/CUDA kernels (`ffi`, the safe wrappers
// over the generated bindings in `sys`), which opt back in.
#![deny(unsafe_code)]

pub mod cpu;
mod error;
mod ffi;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod reference;
mod sys;
pub mod twin;

#[doc(hidden)]
pub use cpu::Tuning;
pub use cpu::{bit_reverse_permute, coset_generator, h_step, root_of_unity, Domain};
pub use error::NttError;

/// Largest supported domain: 2^28 points.
pub const MAX_LOG_SIZE: u32 = 28;
