//! The recorded matrices on the device and the SpMV kernel's launch
//! (`cuda` feature).
#![allow(unsafe_code)]

use cuzk_field::Fr;
use cuzk_gpu::{DeviceBuffer, Stream};
use cuzk_synth::compiled::{CircuitKey, CompiledR1cs, SparseMatrix};
use cuzk_synth::Shape;

use crate::sys::{cuzk_spmv_gpu, cuzk_spmv_matrix};
use crate::SpmvError;

/// One matrix in device memory, in the kernel's layout.
#[derive(Debug)]
struct DeviceMatrix {
    row_ptr: DeviceBuffer<u32>,
    cols: DeviceBuffer<u32>,
    idx: DeviceBuffer<u8>,
    table: DeviceBuffer<Fr>,
    kinds: DeviceBuffer<u8>,
    rows: usize,
    nnz: usize,
    idx_width: u32,
}

impl DeviceMatrix {
    fn upload(stream: &Stream, m: &SparseMatrix) -> Result<Self, SpmvError> {
        Ok(Self {
            row_ptr: DeviceBuffer::from_slice(stream, m.row_ptr())?,
            cols: DeviceBuffer::from_slice(stream, m.cols())?,
            idx: DeviceBuffer::from_slice(stream, m.coeff_idx().as_bytes())?,
            table: DeviceBuffer::from_slice(stream, m.table())?,
            kinds: DeviceBuffer::from_slice(stream, &crate::kinds(m.table()))?,
            rows: m.rows(),
            nnz: m.nonzeros(),
            idx_width: m.coeff_idx().width() as u32,
        })
    }

    fn bytes(&self) -> usize {
        self.row_ptr.bytes()
            + self.cols.bytes()
            + self.idx.bytes()
            + self.table.bytes()
            + self.kinds.bytes()
    }

    fn desc(&self) -> cuzk_spmv_matrix {
        cuzk_spmv_matrix {
            row_ptr: self.row_ptr.as_ptr().cast(),
            cols: self.cols.as_ptr().cast(),
            idx: self.idx.as_ptr(),
            table: self.table.as_ptr(),
            kinds: self.kinds.as_ptr().cast(),
            rows: self.rows as u64,
            nnz: self.nnz as u64,
            idx_width: self.idx_width,
            table_len: self.table.len() as u32,
        }
    }
}

/// A, B, C of one recorded circuit on one device: all three
/// ([`DeviceR1cs::upload`], kept for every partition) or one of them
/// ([`DeviceR1cs::upload_matrix`], for a device that cannot hold the
/// three beside the H step: uploaded, used for one product, freed).
#[derive(Debug)]
pub struct DeviceR1cs {
    key: CircuitKey,
    matrices: [Option<DeviceMatrix>; 3],
}

impl DeviceR1cs {
    /// Copies the three matrices of `r` to `stream`'s device (waits for
    /// the copies). [`crate::device_bytes`] says how much this takes.
    pub fn upload(stream: &Stream, r: &CompiledR1cs) -> Result<Self, SpmvError> {
        let [a, b, c] = r.matrices();
        Ok(Self {
            key: r.key(),
            matrices: [
                Some(DeviceMatrix::upload(stream, a)?),
                Some(DeviceMatrix::upload(stream, b)?),
                Some(DeviceMatrix::upload(stream, c)?),
            ],
        })
    }

    /// Copies matrix `which` (0: A, 1: B, 2: C) of `r` alone (waits for
    /// the copies; from page-locked host memory they run at link speed).
    /// [`crate::matrix_device_bytes`] says how much this takes.
    pub fn upload_matrix(
        stream: &Stream,
        r: &CompiledR1cs,
        which: usize,
    ) -> Result<Self, SpmvError> {
        let m = r.matrices().get(which).ok_or(SpmvError::NoMatrix(which))?;
        let mut matrices = [None, None, None];
        matrices[which] = Some(DeviceMatrix::upload(stream, m)?);
        Ok(Self {
            key: r.key(),
            matrices,
        })
    }

    /// The identity of the recorded circuit.
    pub fn key(&self) -> CircuitKey {
        self.key
    }

    /// The counts of the recorded circuit.
    pub fn shape(&self) -> Shape {
        self.key.shape
    }

    /// Device bytes held.
    pub fn bytes(&self) -> usize {
        self.matrices
            .iter()
            .flatten()
            .map(DeviceMatrix::bytes)
            .sum()
    }

    /// Enqueues `out[0] = A·z`, `out[1] = B·z`, `out[2] = C·z` on `stream`
    /// for `z = (inputs, aux)` already on the device, each output zero from
    /// the constraint count to its end (the H step's padding). Returns
    /// before the device finishes: keep every buffer alive until `stream`
    /// has passed this point.
    pub fn evaluate(
        &self,
        stream: &Stream,
        inputs: &DeviceBuffer<Fr>,
        aux: &DeviceBuffer<Fr>,
        out: [&mut DeviceBuffer<Fr>; 3],
    ) -> Result<(), SpmvError> {
        for (which, o) in out.into_iter().enumerate() {
            self.evaluate_one(stream, which, inputs, aux, o)?;
        }
        Ok(())
    }

    /// Enqueues `out = M·z` for matrix `which` (0: A, 1: B, 2: C), as
    /// [`DeviceR1cs::evaluate`] does for all three.
    pub fn evaluate_one(
        &self,
        stream: &Stream,
        which: usize,
        inputs: &DeviceBuffer<Fr>,
        aux: &DeviceBuffer<Fr>,
        out: &mut DeviceBuffer<Fr>,
    ) -> Result<(), SpmvError> {
        let m = self
            .matrices
            .get(which)
            .and_then(Option::as_ref)
            .ok_or(SpmvError::NoMatrix(which))?;
        let shape = self.shape();
        if inputs.len() != shape.num_inputs || aux.len() != shape.num_aux {
            return Err(cuzk_synth::compiled::CompiledError::ShapeMismatch {
                recorded: shape,
                found: Shape {
                    num_inputs: inputs.len(),
                    num_aux: aux.len(),
                    num_constraints: shape.num_constraints,
                },
            }
            .into());
        }
        let want = m.row_ptr.device().ordinal();
        for d in [inputs.device(), aux.device(), stream.device(), out.device()] {
            if d.ordinal() != want {
                return Err(SpmvError::WrongDevice {
                    want,
                    got: d.ordinal(),
                });
            }
        }
        if out.len() < m.rows {
            return Err(SpmvError::OutputTooShort {
                rows: m.rows,
                got: out.len(),
            });
        }
        let desc = m.desc();
        // SAFETY: every pointer is a live device allocation on this
        // device of the length the descriptor and arguments give; the
        // matrix came from a CompiledR1cs (columns and indices in range
        // for its shape) and `inputs`/`aux` have that shape's lengths
        // (checked above). The kernel is enqueued on `stream`; the caller
        // keeps the buffers alive until it has run (`DeviceBuffer`'s drop
        // frees with cudaFree, which waits for pending work).
        let e = unsafe {
            cuzk_spmv_gpu(
                &desc,
                inputs.as_ptr(),
                inputs.len() as u64,
                aux.as_ptr(),
                aux.len() as u64,
                out.as_mut_ptr(),
                out.len() as u64,
                stream.raw(),
            )
        };
        // SAFETY: `e` is the value the shim function just returned.
        unsafe { cuzk_gpu::check_shim_error(e) }?;
        Ok(())
    }
}
