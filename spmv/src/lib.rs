//! # cuzk-spmv
//!
//! `a = A·z, b = B·z, c = C·z` for a circuit whose R1CS was recorded once
//! ([`cuzk_synth::compiled::CompiledR1cs`]), on the GPU: the matrices stay
//! on the device ([`gpu::DeviceR1cs`], `cuda` feature), the witness `z`
//! is uploaded per partition, and a, b, c are written straight into the
//! H step's device buffers, zero-padded to the domain. So a, b, c never
//! exist in host memory (12.9 GB per 32 GiB PoRep partition), and the
//! upload is the witness (4.2 GB) instead of a, b, c.
//!
//! The kernel (`cuda/spmv_kernels.cu`) computes one output element per
//! thread with the code in `cuda/spmv.cuh`; [`twin`] runs the same code on
//! the host, so CI checks the device arithmetic against synth's rayon SpMV
//! without a GPU.
//!
//! Safety: the C side trusts the matrices' columns and coefficient indices.
//! They come only from a [`CompiledR1cs`], whose columns are checked
//! against its shape when it is recorded or loaded, and the Rust side
//! checks the witness's lengths against that shape before every call.

mod error;
mod sys;
pub mod twin;

#[cfg(feature = "cuda")]
pub mod gpu;

pub use error::SpmvError;

use cuzk_field::{Field, Fr};
use cuzk_synth::compiled::{CompiledR1cs, SparseMatrix};

/// The product each table entry needs (`CUZK_SPMV_KIND_*`): ±1 take none.
fn kinds(table: &[Fr]) -> Vec<u8> {
    table
        .iter()
        .map(|c| {
            if *c == Fr::ONE {
                sys::CUZK_SPMV_KIND_ONE as u8
            } else if *c == -Fr::ONE {
                sys::CUZK_SPMV_KIND_MINUS_ONE as u8
            } else {
                sys::CUZK_SPMV_KIND_OTHER as u8
            }
        })
        .collect()
}

/// Bytes one matrix takes in the kernel's layout: row pointers, columns,
/// indices, table and kinds.
fn matrix_bytes(m: &SparseMatrix) -> usize {
    4 * m.row_ptr().len()
        + 4 * m.cols().len()
        + m.coeff_idx().as_bytes().len()
        + (std::mem::size_of::<Fr>() + 1) * m.table().len()
}

/// Bytes the three matrices of `r` take on the device
/// ([`gpu::DeviceR1cs::upload`]).
pub fn device_bytes(r: &CompiledR1cs) -> usize {
    r.matrices().iter().map(matrix_bytes).sum()
}

/// Bytes the largest single matrix of `r` takes on the device
/// ([`gpu::DeviceR1cs::upload_matrix`]): what a device that takes the
/// matrices one at a time needs for them.
pub fn matrix_device_bytes(r: &CompiledR1cs) -> usize {
    r.matrices().iter().map(matrix_bytes).max().unwrap_or(0)
}
