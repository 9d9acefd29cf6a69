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
    /// The device had too little free memory for an allocation
    /// (`cudaErrorMemoryAllocation`). `requested` and `free` are known
    /// where the allocation was ours ([`crate::DeviceBuffer::alloc`]); an
    /// allocation inside a kernel entry point reports neither.
    #[error("out of device memory: {}", oom_detail(*.requested, *.free))]
    OutOfMemory {
        /// Bytes asked for, when known.
        requested: Option<u64>,
        /// Bytes the device had free right after the failure, when known.
        free: Option<u64>,
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

/// `cudaErrorMemoryAllocation`.
pub(crate) const CUDA_OUT_OF_MEMORY: i32 = 2;

fn oom_detail(requested: Option<u64>, free: Option<u64>) -> String {
    let gib = |b: u64| format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64);
    match (requested, free) {
        (Some(r), Some(f)) => format!("{} requested, {} free", gib(r), gib(f)),
        (Some(r), None) => format!("{} requested", gib(r)),
        (None, Some(f)) => format!("{} free", gib(f)),
        (None, None) => "cudaErrorMemoryAllocation".into(),
    }
}

impl GpuError {
    /// Maps a shim error code and its message.
    pub(crate) fn from_code(code: i32, msg: String) -> GpuError {
        match code {
            sys::CUZK_ERR_NOT_BUILT => GpuError::NotBuilt,
            sys::CUZK_ERR_NO_DEVICE => GpuError::NoDevice(msg),
            sys::CUZK_ERR_INVALID_ARG => GpuError::InvalidArgument(msg),
            sys::CUZK_ERR_HOST_ALLOC => GpuError::HostAlloc(msg),
            sys::CUZK_ERR_EXCEPTION => GpuError::Exception(msg),
            CUDA_OUT_OF_MEMORY => GpuError::OutOfMemory {
                requested: None,
                free: None,
            },
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

    /// True for [`GpuError::OutOfMemory`].
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, GpuError::OutOfMemory { .. })
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
            GpuError::OutOfMemory {
                requested: None,
                free: None
            }
        );
        assert!(e.is_out_of_memory());
        assert!(e.to_string().contains("cudaErrorMemoryAllocation"));
        let sized = GpuError::OutOfMemory {
            requested: Some(3 << 30),
            free: Some(1 << 30),
        };
        assert_eq!(
            sized.to_string(),
            "out of device memory: 3.00 GiB requested, 1.00 GiB free"
        );
        let e = GpuError::from_code(
            700,
            "cudaErrorIllegalAddress: an illegal memory access".into(),
        );
        assert!(matches!(e, GpuError::Cuda { code: 700, .. }) && !e.is_out_of_memory());
        let odd = GpuError::from_code(77, "no separator".into());
        assert!(matches!(odd, GpuError::Cuda { name, .. } if name == "cudaError(77)"));
        assert!(GpuError::NotBuilt.is_unavailable());
        assert!(!GpuError::InvalidArgument(String::new()).is_unavailable());
    }
}
