//! [`Stager`]: host→device copies of ordinary (pageable) memory through a
//! small ring of pinned chunks.
//!
//! Why it exists: memory written once and copied once — a Groth16
//! partition's a, b, c vectors, 1.6 GB at 2^24 — has no good direct path.
//! Copied as it is, the driver stages it through its own pinned buffer on one
//! thread (~8 GB/s on the H200 host); page-locking it first
//! ([`crate::Registered`]) costs ~14 GB/s of `cudaHostRegister` before the
//! ~55 GB/s copy (docs/GPU.md §8), together 113 ms of a 576 ms proof at 2^24. The
//! stager copies each chunk into one of a few page-locked buffers with every
//! core (rayon), and the DMA of chunk k runs while the CPU fills chunk k+1,
//! so the copy runs at the slower of memcpy and PCIe.
//!
//! Architecture invariant: a slot's pinned buffer is rewritten only after
//! the event recorded behind its last DMA has completed, and dropping the
//! stager waits for every pending DMA, so no copy ever reads a buffer that
//! changed or was freed under it.

use cuzk_gpu::{Device, DeviceBuffer, DeviceCopy, Event, GpuError, Stream};
use rayon::prelude::*;

use crate::{PinnedBuffer, PinnedError, Result};

/// Elements one rayon task copies: large enough that task overhead (~µs)
/// is noise, small enough that 16 cores share a chunk.
const TASK_ELEMS: usize = 1 << 15;

struct Slot<T: DeviceCopy> {
    buf: PinnedBuffer<T>,
    /// Recorded on the copy's stream after the slot's last DMA.
    done: Event,
    pending: bool,
}

impl<T: DeviceCopy> Slot<T> {
    fn wait(&mut self) -> Result<()> {
        if self.pending {
            self.done.synchronize()?;
            self.pending = false;
        }
        Ok(())
    }
}

/// A ring of page-locked chunk buffers for staged uploads to one device.
pub struct Stager<T: DeviceCopy> {
    device: Device,
    chunk: usize,
    slots: Vec<Slot<T>>,
    next: usize,
    /// The copying threads: a pool of the stager's own, so staging neither
    /// queues behind (nor steals) whatever the global rayon pool is doing,
    /// e.g. another partition's synthesis or classification.
    pool: rayon::ThreadPool,
}

impl<T: DeviceCopy> Stager<T> {
    /// `slots` buffers (at least 2) of `chunk` elements each (> 0) for
    /// uploads to `device`. Buffers are pinned when the runtime allows
    /// ([`Stager::is_pinned`]); pageable ones still copy correctly, without
    /// the overlap.
    pub fn new(device: &Device, slots: usize, chunk: usize) -> Result<Self> {
        let threads = std::thread::available_parallelism().map_or(4, |n| n.get() / 2);
        Self::with_threads(device, slots, chunk, threads)
    }

    /// [`Stager::new`] with `threads` copying threads (at least 1; default
    /// half the cores, at most 8: memcpy saturates memory bandwidth before
    /// it runs out of cores).
    pub fn with_threads(
        device: &Device,
        slots: usize,
        chunk: usize,
        threads: usize,
    ) -> Result<Self> {
        if slots < 2 || chunk == 0 {
            return Err(PinnedError::Gpu(GpuError::InvalidArgument(format!(
                "a stager needs at least 2 slots of at least 1 element (got {slots} × {chunk})"
            ))));
        }
        let slots = (0..slots)
            .map(|_| {
                Ok(Slot {
                    buf: PinnedBuffer::new(chunk)?,
                    done: Event::new(device)?,
                    pending: false,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.clamp(1, 8))
            .thread_name(|i| format!("cuzk-stage-{i}"))
            .build()
            .map_err(|e| {
                PinnedError::Gpu(GpuError::InvalidArgument(format!(
                    "cannot start the stager's threads: {e}"
                )))
            })?;
        Ok(Stager {
            device: *device,
            chunk,
            slots,
            next: 0,
            pool,
        })
    }

    /// True when every slot is page-locked (the copies overlap the CPU).
    pub fn is_pinned(&self) -> bool {
        self.slots.iter().all(|s| s.buf.is_pinned())
    }

    /// Pinned bytes held by the ring.
    pub fn bytes(&self) -> usize {
        self.slots.iter().map(|s| s.buf.bytes()).sum()
    }

    /// Copies `src` into elements `offset .. offset + src.len()` of `dst`,
    /// enqueued on `stream`. Returns once every chunk has been copied into
    /// the ring and its DMA enqueued: `src` is free to change from then on;
    /// the last DMAs may still run (order later work after them on `stream`,
    /// or with an event recorded there).
    pub fn upload(
        &mut self,
        stream: &Stream,
        dst: &mut DeviceBuffer<T>,
        offset: usize,
        src: &[T],
    ) -> Result<()> {
        if stream.device() != self.device || dst.device() != self.device {
            return Err(PinnedError::Gpu(GpuError::InvalidArgument(format!(
                "stager of device {} used with stream on {} and buffer on {}",
                self.device.ordinal(),
                stream.device().ordinal(),
                dst.device().ordinal()
            ))));
        }
        if offset
            .checked_add(src.len())
            .map_or(true, |e| e > dst.len())
        {
            return Err(PinnedError::Gpu(GpuError::InvalidArgument(format!(
                "upload of {} elements at {offset} into a buffer of {}",
                src.len(),
                dst.len()
            ))));
        }
        for (k, part) in src.chunks(self.chunk).enumerate() {
            let n_slots = self.slots.len();
            let slot = &mut self.slots[self.next];
            self.next = (self.next + 1) % n_slots;
            slot.wait()?;
            let staged = &mut slot.buf[..part.len()];
            self.pool.install(|| {
                staged
                    .par_chunks_mut(TASK_ELEMS)
                    .zip(part.par_chunks(TASK_ELEMS))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            });
            // SAFETY: `staged` is the slot's buffer, which is neither
            // rewritten (we wait on `done` first) nor freed (Drop waits)
            // before the event recorded right after this copy completes.
            // The destination range was checked above.
            unsafe {
                dst.upload_range_async(
                    stream,
                    offset + k * self.chunk,
                    staged.as_ptr(),
                    part.len(),
                )?;
            }
            if let Err(e) = slot.done.record(stream) {
                // Without the event nothing guards the slot: wait for the
                // copy here before the slot can be reused.
                let _ = stream.synchronize();
                return Err(e.into());
            }
            slot.pending = true;
        }
        Ok(())
    }

    /// Waits for every DMA the stager has enqueued.
    pub fn synchronize(&mut self) -> Result<()> {
        self.slots.iter_mut().try_for_each(Slot::wait)
    }
}

impl<T: DeviceCopy> Drop for Stager<T> {
    fn drop(&mut self) {
        // Every slot, even after one fails: errors cannot be reported from
        // drop, and a failed wait means the context (and its copies) is gone.
        for s in &mut self.slots {
            let _ = s.wait();
        }
    }
}

impl<T: DeviceCopy> std::fmt::Debug for Stager<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stager")
            .field("device", &self.device.ordinal())
            .field("slots", &self.slots.len())
            .field("chunk", &self.chunk)
            .field("pinned", &self.is_pinned())
            .field("threads", &self.pool.current_num_threads())
            .finish()
    }
}
