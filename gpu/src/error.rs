//! The typed error of every cuzk-gpu call, built from the `cuzk_error` the C
//! shim returns by value.

use crate::sys;

/// What went wrong in a GPU call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    /// This build has no CUDA code (the `cuda` feature was off).
    #[error(
        "built without CUDA: enable the `cuda` feature (and run `cargo xtask cuda` to get nvcc)"
    )]
    NotBuilt,
    /// CUDA is compiled in, but there is no usable GPU or driver.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// A device ordinal beyond the device count.
    #[error("device {ordinal} does not exist ({count} devices)")]
    InvalidDevice { ordinal: usize, count: usize },
    /// A CUDA runtime call failed: the `cudaError_t` value, its name and text.
    #[error("CUDA error {name} ({code}): {message}")]
    Cuda {
        code: i32,
        name: String,
        message: String,
    },
    /// Host and device sizes disagree, or another argument is invalid.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A host allocation inside the C++ shim failed.
    #[error("host allocation failed in the CUDA shim: {0}")]
    HostAlloc(String),
    /// A C++ exception was caught at the C boundary.
    #[error("C++ exception in the CUDA shim: {0}")]
    Exception(String),
}

/// `Result` with [`GpuError`].
pub type Result<T, E = GpuError> = std::result::Result<T, E>;

impl GpuError {
    /// Maps a shim error code and its message.
    pub(crate) fn from_code(code: i32, msg: String) -> GpuError {
        match code {
            sys::CUZK_ERR_NOT_BUILT => GpuError::NotBuilt,
            sys::CUZK_ERR_NO_DEVICE => GpuError::NoDevice(msg),
            sys::CUZK_ERR_INVALID_ARG => GpuError::InvalidArgument(msg),
            sys::CUZK_ERR_HOST_ALLOC => GpuError::HostAlloc(msg),
            sys::CUZK_ERR_EXCEPTION => GpuError::Exception(msg),
            _ => {
                // The shim writes "cudaErrorName: description".
                let (name, message) = match msg.split_once(": ") {
                    Some((n, m)) => (n.to_string(), m.to_string()),
                    None => (format!("cudaError({code})"), msg),
                };
                GpuError::Cuda {
                    code,
                    name,
                    message,
                }
            }
        }
    }

    /// True for the two "no GPU here" outcomes ([`GpuError::NotBuilt`],
    /// [`GpuError::NoDevice`]), which callers usually answer with a CPU path.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, GpuError::NotBuilt | GpuError::NoDevice(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_variants() {
        assert_eq!(
            GpuError::from_code(sys::CUZK_ERR_NOT_BUILT, "x".into()),
            GpuError::NotBuilt
        );
        assert!(matches!(
            GpuError::from_code(sys::CUZK_ERR_NO_DEVICE, "cudaErrorNoDevice: none".into()),
            GpuError::NoDevice(m) if m.contains("NoDevice")
        ));
        let e = GpuError::from_code(2, "cudaErrorMemoryAllocation: out of memory".into());
        assert_eq!(
            e,
            GpuError::Cuda {
                code: 2,
                name: "cudaErrorMemoryAllocation".into(),
                message: "out of memory".into()
            }
        );
        assert!(e.to_string().contains("cudaErrorMemoryAllocation"));
        let odd = GpuError::from_code(77, "no separator".into());
        assert!(matches!(odd, GpuError::Cuda { name, .. } if name == "cudaError(77)"));
        assert!(GpuError::NotBuilt.is_unavailable());
        assert!(!GpuError::InvalidArgument(String::new()).is_unavailable());
    }
}
