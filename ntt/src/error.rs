//! The one error type of this crate.

/// What can go wrong when asking for a transform.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NttError {
    /// The requested domain is larger than [`crate::MAX_LOG_SIZE`] allows.
    #[error("domain of 2^{log_size} points requested; at most 2^{max_log_size} are supported")]
    DomainTooLarge {
        /// log2 of the requested size (rounded up for lengths).
        log_size: u32,
        /// The supported maximum, [`crate::MAX_LOG_SIZE`].
        max_log_size: u32,
    },
    /// A vector does not have the length the operation needs.
    #[error("input has {got} elements, the domain needs {expected}")]
    LengthMismatch {
        /// The length required.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// The three quotient inputs differ in length.
    #[error("a, b and c must have equal lengths; got {a}, {b} and {c}")]
    UnequalLengths {
        /// Length of `a`.
        a: usize,
        /// Length of `b`.
        b: usize,
        /// Length of `c`.
        c: usize,
    },
    /// The quotient inputs need another domain than the one given.
    #[error("inputs of length {len} need another domain than this one of {size} points")]
    WrongDomain {
        /// Input length.
        len: usize,
        /// Size of the domain given.
        size: usize,
    },
    /// A slice given to a power-of-two operation has another length.
    #[error("length {0} is not a power of two")]
    NotPowerOfTwo(usize),
    /// A tuning parameter is out of range.
    #[error("invalid tuning: {0}")]
    InvalidTuning(&'static str),
    /// An inverse coset transform with a zero shift (which has no inverse).
    #[error("coset shift is zero, so the inverse coset transform does not exist")]
    ZeroShift,
    /// The C++ side (host twin or device launcher) rejected its arguments.
    #[error("NTT kernel arguments rejected: {0}")]
    Twin(&'static str),
    /// A CUDA call failed (only with the `cuda` feature).
    #[cfg(feature = "cuda")]
    #[error("GPU: {0}")]
    Gpu(#[from] cuzk_gpu::GpuError),
}
