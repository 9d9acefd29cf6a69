//! The host twin of the device SpMV: `cuda/spmv.cuh` compiled as plain C++
//! and run over host memory, for tests (it is sequential: not a CPU
//! backend; synth's rayon SpMV is that).
#![allow(unsafe_code)]

use cuzk_field::Fr;
use cuzk_synth::compiled::{CompiledR1cs, SparseMatrix};

use crate::sys::{cuzk_spmv_host, cuzk_spmv_matrix};
use crate::SpmvError;

/// a, b, c of `(inputs, aux)` through the host twin, each `out_len` long
/// (rows, then zeros). `inputs` and `aux` must have the record's lengths.
pub fn abc(
    r: &CompiledR1cs,
    inputs: &[Fr],
    aux: &[Fr],
    out_len: usize,
) -> Result<[Vec<Fr>; 3], SpmvError> {
    r.check_lengths(inputs, aux)?;
    let [ma, mb, mc] = r.matrices();
    Ok([
        one(ma, inputs, aux, out_len)?,
        one(mb, inputs, aux, out_len)?,
        one(mc, inputs, aux, out_len)?,
    ])
}

fn one(m: &SparseMatrix, inputs: &[Fr], aux: &[Fr], out_len: usize) -> Result<Vec<Fr>, SpmvError> {
    if out_len < m.rows() {
        return Err(SpmvError::OutputTooShort {
            rows: m.rows(),
            got: out_len,
        });
    }
    let kinds = crate::kinds(m.table());
    let desc = cuzk_spmv_matrix {
        row_ptr: m.row_ptr().as_ptr(),
        cols: m.cols().as_ptr(),
        idx: m.coeff_idx().as_bytes().as_ptr().cast(),
        table: m.table().as_ptr().cast(),
        kinds: kinds.as_ptr(),
        rows: m.rows() as u64,
        nnz: m.nonzeros() as u64,
        idx_width: m.coeff_idx().width() as u32,
        table_len: m.table().len() as u32,
    };
    let mut out = vec![Fr::default(); out_len];
    // SAFETY: every pointer addresses a live host slice of the length the
    // descriptor gives; the matrix comes from a CompiledR1cs (columns and
    // indices in range for its shape, row pointers monotone up to nnz) and
    // the caller checked `inputs`/`aux` against that shape; `out` holds
    // `out_len` elements. The call is synchronous and keeps no pointer.
    let e = unsafe {
        cuzk_spmv_host(
            &desc,
            inputs.as_ptr().cast(),
            inputs.len() as u64,
            aux.as_ptr().cast(),
            aux.len() as u64,
            out.as_mut_ptr().cast(),
            out_len as u64,
        )
    };
    // SAFETY: `e` is the value the host twin's entry point just returned.
    unsafe { cuzk_gpu::check_twin_error(e) }.map_err(|_| SpmvError::Twin)?;
    Ok(out)
}
