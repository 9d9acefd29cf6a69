//! Errors of the MSM entry points (bad input never panics).

/// Why an MSM could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MsmError {
    /// `msm`/`msm_batch`/`msm_gather`: one scalar per base (or index) needed.
    #[error("{bases} bases (or indices) for {scalars} scalars")]
    LengthMismatch {
        /// Number of bases or indices given.
        bases: usize,
        /// Number of scalars given.
        scalars: usize,
    },
    /// The density bitmap must have one bit per scalar.
    #[error("density bitmap has {density} bits for {scalars} scalars")]
    DensityLength {
        /// Bits in the density bitmap.
        density: usize,
        /// Number of scalars.
        scalars: usize,
    },
    /// Fewer bases than the density (or the ones bitmap) selects.
    #[error("{have} bases, but {need} are selected")]
    TooFewBases {
        /// Bases given.
        have: usize,
        /// Bases the density or bitmap refers to.
        need: usize,
    },
    /// A gather index points past the bases.
    #[error("base index {index} out of range for {bases} bases")]
    IndexOutOfRange {
        /// The offending index.
        index: u64,
        /// Number of bases.
        bases: usize,
    },
    /// Base indices are `u32` (shared with the GPU backend); more points than
    /// that cannot be classified.
    #[error("{0} selected bases exceed the u32 index range")]
    TooManyPoints(usize),
    /// GPU MSM: the window width is outside 2..=24, or ceil(256/w)·n does
    /// not fit the pipeline's u32 offsets.
    #[error("GPU MSM cannot run {n} points with window {window}")]
    GpuShape {
        /// Number of points (scalars).
        n: usize,
        /// Window width in bits.
        window: u32,
    },
    /// A GPU call failed (no device, CUDA error, built without `cuda`).
    #[error(transparent)]
    Gpu(#[from] cuzk_gpu::GpuError),
}
