use cuzk_synth::compiled::CompiledError;

/// Errors of the SpMV.
#[derive(Debug, thiserror::Error)]
pub enum SpmvError {
    /// The witness does not fit the recorded circuit.
    #[error(transparent)]
    Compiled(#[from] CompiledError),
    /// An output buffer shorter than the matrix's rows.
    #[error("output of {got} elements for a matrix of {rows} rows")]
    OutputTooShort {
        /// Rows of the matrix.
        rows: usize,
        /// Elements of the output.
        got: usize,
    },
    /// Buffers of another device than the matrices'.
    #[error("buffers on device {got}, the matrices on device {want}")]
    WrongDevice {
        /// The matrices' device.
        want: usize,
        /// The buffer's device.
        got: usize,
    },
    /// A matrix index other than 0, 1, 2 (A, B, C), or one this device
    /// copy does not hold ([`crate::gpu::DeviceR1cs::upload_matrix`]).
    #[error("matrix {0} is not on the device")]
    NoMatrix(usize),
    /// The host twin refused its arguments (a bug on the Rust side: every
    /// size is checked before the call).
    #[error("the SpMV host twin refused its arguments")]
    Twin,
    /// A CUDA call failed (allocation, copy, launch).
    #[error(transparent)]
    Gpu(#[from] cuzk_gpu::GpuError),
}
