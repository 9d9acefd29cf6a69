//! # cuzk-pinned-mem
//!
//! Page-locked ("pinned") host memory, so host↔device copies run at PCIe
//! speed and can overlap with kernels, with a pageable fallback that keeps
//! the same API when cuzk is built without CUDA or runs without a GPU.
//!
//! Main entry points:
//! - [`PinnedBuffer<T>`]: an owned, zero-initialised buffer from
//!   `cudaHostAlloc` (or a plain heap allocation as fallback); derefs to `[T]`.
//! - [`Registered<'a, T>`]: page-locks memory you already have (a `Vec`, or
//!   an mmap'd file) with `cudaHostRegister` for as long as the borrow
//!   lives, and unregisters on drop.
//! - [`PinnedPool`]: reusable buffers under a byte budget, with counters
//!   ([`PoolStats`]: allocated, in use, hits, misses, peak, evictions);
//!   buffers return to the pool when the [`PooledBuffer`] drops.
//! - [`WitnessPool`]: page-locked `Fr` buffers, made and registered once,
//!   that witness synthesis writes into (as pooled `cuzk_field::FrVec`s)
//!   and the GPU reads by DMA; they come back when the vector drops.
//! - [`Stager<T>`]: uploads ordinary memory to the device through a ring of
//!   pinned chunks, the CPU filling one chunk (all cores) while the DMA of
//!   the last runs: for data copied once, where pinning it would cost more
//!   than the copy.
//!
//! Who owns what: the CUDA calls (`cudaHostAlloc`, `cudaFreeHost`,
//! `cudaHostRegister`, `cudaHostUnregister`) live in `cuzk_gpu::host`, the
//! one FFI crate; this crate owns the policy: RAII, pooling, budget and
//! fallback. Element types are `cuzk_gpu::DeviceCopy` (valid for any bytes),
//! which is what makes zero-filled and reused buffers sound.
//!
//! Features:
//! - `cuda` (forwards to `cuzk-gpu/cuda`): real pinned memory when a GPU is
//!   present. Without it, or with no GPU/driver, everything is pageable and
//!   [`PinnedBuffer::is_pinned`] says so.

mod buffer;
mod pool;
mod raw;
mod registered;
mod stager;
mod witness;

pub use buffer::PinnedBuffer;
pub use cuzk_gpu::DeviceCopy;
pub use pool::{PinnedPool, PoolStats, PooledBuffer, GRANULE};
pub use registered::{Registered, SharedRegistration};
pub use stager::Stager;
pub use witness::{WitnessPool, WitnessPoolStats};

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum PinnedError {
    /// The CUDA call failed (other than "no GPU", which falls back).
    #[error(transparent)]
    Gpu(#[from] cuzk_gpu::GpuError),
    /// `len × size_of::<T>()` does not fit in `usize`.
    #[error("{len} elements of {elem_size} bytes overflow the address space")]
    TooLarge { len: usize, elem_size: usize },
    /// The pageable fallback allocation failed.
    #[error("host allocation of {bytes} bytes failed")]
    HostAlloc { bytes: usize },
    /// The pool cannot grant the request within its budget, even after
    /// freeing every idle buffer.
    #[error("pinned pool over budget: need {requested} bytes, budget {budget}, in use {in_use}")]
    OverBudget {
        requested: usize,
        budget: usize,
        in_use: usize,
    },
}

/// `Result` with [`PinnedError`].
pub type Result<T, E = PinnedError> = std::result::Result<T, E>;

/// Whether this process can pin memory: built with `cuda` and a GPU present.
/// When false, every buffer of this crate is pageable.
pub fn pinning_available() -> bool {
    cuzk_gpu::device_count() > 0
}
