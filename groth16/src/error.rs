//! One error type for the whole protocol layer.

use std::path::PathBuf;

/// Everything that can go wrong reading parameters, proving or verifying.
/// Every variant carries enough context for a one-line message a user can act on.
#[derive(Debug, thiserror::Error)]
pub enum Groth16Error {
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An error found inside a named file.
    #[error("{path}: {source}")]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: Box<Groth16Error>,
    },
    /// A file read whole (a `.vk`, proofs, inputs, a C1 output, a config)
    /// is larger than the limit for its kind: refused before it is read.
    #[error("{path}: larger than the {limit}-byte limit for {what}")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What it was read as.
        what: &'static str,
        /// The most bytes accepted.
        limit: u64,
    },
    /// A path that must name a regular file names a directory or a device.
    #[error("{path}: not a regular file ({kind})")]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// A memory-mapped file changed size while it was decoded (replaced or
    /// truncated underneath the process): what was read cannot be trusted.
    #[error("{path}: the file changed size while it was read ({before} -> {after} bytes)")]
    Changed {
        /// The file.
        path: PathBuf,
        /// Its size when mapped.
        before: u64,
        /// Its size after decoding.
        after: u64,
    },
    /// A plain I/O error (e.g. writing to a stream).
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// The input ended before a complete structure was read.
    #[error("truncated {what}: needed {needed} bytes at offset {offset}, only {available} left")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Byte offset where reading stopped.
        offset: usize,
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// Bytes that do not decode to a valid point (bad flags, not on the curve,
    /// not in the subgroup, or the point at infinity where it is not allowed).
    #[error("corrupt {what} #{index}: {reason}")]
    BadPoint {
        /// Which section (e.g. "H query").
        what: &'static str,
        /// Index of the point inside its section.
        index: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The input has bytes after the last section.
    #[error("{extra} unexpected trailing bytes after the {what}")]
    TrailingBytes {
        /// What was read.
        what: &'static str,
        /// How many bytes follow it.
        extra: usize,
    },
    /// Parameters and circuit disagree (sizes of the queries).
    #[error("parameters do not match the circuit: {0}")]
    Mismatch(String),
    /// Public input count does not match the verifying key.
    #[error("wrong number of public inputs: the verifying key expects {expected}, got {got}")]
    InputCount {
        /// Inputs the key expects (without the leading ONE).
        expected: usize,
        /// Inputs supplied.
        got: usize,
    },
    /// A malformed proof encoding.
    #[error("malformed proof: {0}")]
    MalformedProof(String),
    /// The circuit failed to synthesize.
    #[error("synthesis failed: {0}")]
    Synthesis(#[from] bellpepper_core::SynthesisError),
    /// The NTT layer rejected its input (a failure of the device itself is
    /// [`Groth16Error::Gpu`]).
    #[error("ntt: {0}")]
    Ntt(cuzk_ntt::NttError),
    /// The MSM layer rejected its input (a failure of the device itself is
    /// [`Groth16Error::Gpu`]).
    #[error("msm: {0}")]
    Msm(cuzk_msm::MsmError),
    /// The GPU failed: out of device memory
    /// ([`cuzk_gpu::GpuError::OutOfMemory`], which a caller can match to
    /// try a smaller placement), a CUDA fault, no device. Every layer's GPU
    /// failure (NTT, MSM, SpMV, the backend's own calls) lands here.
    #[error("gpu: {0}")]
    Gpu(#[from] cuzk_gpu::GpuError),
    /// A freshly made proof did not verify (self-check): never returned silently.
    #[error("self-check failed: the proof just made does not verify (backend {backend})")]
    SelfCheck {
        /// The backend that produced it.
        backend: String,
    },
    /// A deferred assignment does not fit the record its a, b, c come from.
    #[error("a, b, c from the recorded circuit: {0}")]
    Compiled(#[from] cuzk_synth::compiled::CompiledError),
    /// A parameter set needs more device memory than the backend may use
    /// (its memory limit, or what the card has free): refused when the set
    /// is placed, before any partition is synthesized for it.
    #[error(
        "{backend}: these parameters need {} of device memory ({detail}); {} is available \
         (memory limit {}, {} on the card)",
        gib(*need), gib(*available), gib(*limit), gib(*total)
    )]
    DeviceTooSmall {
        /// The backend.
        backend: String,
        /// Bytes the set needs at the least.
        need: u64,
        /// What the need is made of.
        detail: String,
        /// Bytes the backend may use now.
        available: u64,
        /// The backend's memory limit.
        limit: u64,
        /// The card's memory.
        total: u64,
    },
    /// A backend-specific failure (e.g. the GPU ran out of memory).
    #[error("backend {backend}: {message}")]
    Backend {
        /// Which backend.
        backend: String,
        /// What happened.
        message: String,
    },
}

impl From<cuzk_ntt::NttError> for Groth16Error {
    fn from(e: cuzk_ntt::NttError) -> Self {
        match e {
            #[cfg(feature = "cuda")]
            cuzk_ntt::NttError::Gpu(g) => Groth16Error::Gpu(g),
            e => Groth16Error::Ntt(e),
        }
    }
}

impl From<cuzk_msm::MsmError> for Groth16Error {
    fn from(e: cuzk_msm::MsmError) -> Self {
        match e {
            cuzk_msm::MsmError::Gpu(g) => Groth16Error::Gpu(g),
            e => Groth16Error::Msm(e),
        }
    }
}

impl Groth16Error {
    /// The GPU error underneath, if the failure was the device's.
    pub fn gpu(&self) -> Option<&cuzk_gpu::GpuError> {
        match self {
            Groth16Error::Gpu(g) => Some(g),
            Groth16Error::InFile { source, .. } => source.gpu(),
            _ => None,
        }
    }

    /// True when the device ran out of memory
    /// ([`cuzk_gpu::GpuError::OutOfMemory`]).
    pub fn is_out_of_memory(&self) -> bool {
        self.gpu().is_some_and(cuzk_gpu::GpuError::is_out_of_memory)
    }
}

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}

/// Result alias.
pub type Result<T, E = Groth16Error> = std::result::Result<T, E>;

/// The text of a caught panic's payload (`&str` or `String`; anything
/// else reads "unknown panic"): the one place that turns a panic caught
/// with `catch_unwind` (or seen by a panic hook) into an error message.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[cfg(test)]
mod tests {
    use super::Groth16Error;
    use cuzk_gpu::GpuError;

    #[test]
    fn gpu_failures_of_every_layer_are_one_typed_variant() {
        let oom = GpuError::OutOfMemory {
            requested: Some(1 << 30),
            free: Some(1 << 20),
        };
        let from_msm: Groth16Error = cuzk_msm::MsmError::Gpu(oom.clone()).into();
        #[cfg(feature = "cuda")]
        let from_ntt: Groth16Error = cuzk_ntt::NttError::Gpu(oom.clone()).into();
        #[cfg(not(feature = "cuda"))]
        let from_ntt = Groth16Error::Gpu(oom.clone());
        for e in [from_msm, from_ntt] {
            assert!(
                matches!(&e, Groth16Error::Gpu(GpuError::OutOfMemory { requested: Some(r), .. }) if *r == 1 << 30),
                "{e:?}"
            );
            assert!(e.is_out_of_memory());
        }
        let shape: Groth16Error = cuzk_msm::MsmError::TooManyPoints(7).into();
        assert!(matches!(
            shape,
            Groth16Error::Msm(cuzk_msm::MsmError::TooManyPoints(7))
        ));
        assert!(!shape.is_out_of_memory());
        let fault: Groth16Error = GpuError::Exception("x".into()).into();
        assert!(fault.gpu().is_some() && !fault.is_out_of_memory());
    }

    #[test]
    fn panic_messages_of_every_payload() {
        let text = |f: fn()| super::panic_message(&*std::panic::catch_unwind(f).unwrap_err());
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        assert_eq!(text(|| panic!("plain")), "plain");
        assert_eq!(text(|| panic!("formatted {}", 7)), "formatted 7");
        assert_eq!(text(|| std::panic::panic_any(42u32)), "unknown panic");
        std::panic::set_hook(hook);
    }
}
