//! Device buffers kept between calls instead of freed.
//!
//! `cudaFree` waits for the whole device, every stream included, so a
//! partition that frees its H-step buffers waits for the other partition's
//! MSMs, and `cudaMalloc` of gigabytes costs milliseconds per call. A
//! [`BufferPool`] keeps returned buffers (up to a byte limit the owner sets
//! from its memory budget) and hands them out again by exact length.
//!
//! Reuse is stream-ordered: [`BufferPool::put`] records an event on the
//! stream whose queued work last touches the buffer, and
//! [`BufferPool::take`] makes the taking stream wait for that event, so the
//! next user's work starts only after the previous user's has finished, on
//! the device, with no host synchronisation.

use std::sync::Mutex;

use crate::{Device, DeviceBuffer, DeviceCopy, Event, Result, Stream};

/// Reusable device buffers of one element type on one device.
#[derive(Debug)]
pub struct BufferPool<T: DeviceCopy> {
    device: Device,
    inner: Mutex<Inner<T>>,
}

#[derive(Debug)]
struct Inner<T: DeviceCopy> {
    /// Returned buffers, oldest first, each with the event after which it
    /// is free on the device.
    free: Vec<(DeviceBuffer<T>, Event)>,
    /// Bytes `free` may hold.
    limit: usize,
}

impl<T: DeviceCopy> Inner<T> {
    fn held(&self) -> usize {
        self.free.iter().map(|(b, _)| b.bytes()).sum()
    }
}

impl<T: DeviceCopy> BufferPool<T> {
    /// An empty pool with limit 0: returned buffers are freed at once,
    /// until the owner calls [`BufferPool::set_limit`].
    pub fn new(device: &Device) -> Self {
        BufferPool {
            device: *device,
            inner: Mutex::new(Inner {
                free: Vec::new(),
                limit: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<T>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets how many bytes the pool may hold; frees the oldest buffers
    /// beyond it.
    pub fn set_limit(&self, bytes: usize) {
        let mut g = self.lock();
        g.limit = bytes;
        while g.held() > g.limit {
            g.free.remove(0);
        }
    }

    /// Frees every held buffer and sets the limit to 0.
    pub fn clear(&self) {
        let mut g = self.lock();
        g.limit = 0;
        g.free.clear();
    }

    /// Frees every held buffer; the limit stays, so buffers returned later
    /// are held again. For an owner that lends the memory to other work
    /// for a while (a streamed placement's MSM passes).
    pub fn release_held(&self) {
        self.lock().free.clear();
    }

    /// Bytes held (device memory that reads as used but is the pool's).
    pub fn held_bytes(&self) -> usize {
        self.lock().held()
    }

    /// A buffer of exactly `len` elements for work enqueued next on `on`:
    /// a held one (`on` then waits for its last user's work), else a new
    /// allocation. Contents are unspecified. When the allocation fails
    /// while the pool holds buffers of other lengths, those are freed and
    /// it is tried once more.
    pub fn take(&self, len: usize, on: &Stream) -> Result<DeviceBuffer<T>> {
        let found = {
            let mut g = self.lock();
            g.free
                .iter()
                .position(|(b, _)| b.len() == len)
                .map(|i| g.free.remove(i))
        };
        if let Some((buf, ev)) = found {
            on.wait(&ev)?;
            return Ok(buf);
        }
        match DeviceBuffer::alloc(&self.device, len) {
            Err(_) if self.held_bytes() > 0 => {
                self.lock().free.clear();
                DeviceBuffer::alloc(&self.device, len)
            }
            r => r,
        }
    }

    /// Returns `buf` for reuse once the work now queued on `after` (the
    /// last stream to touch it) has finished. Freed instead when it would
    /// take the pool past its limit (held buffers of other lengths are
    /// freed first, oldest first), or when the event cannot be recorded.
    pub fn put(&self, buf: DeviceBuffer<T>, after: &Stream) {
        let b = buf.bytes();
        let mut g = self.lock();
        if b > g.limit {
            return;
        }
        while g.held() + b > g.limit {
            match g.free.iter().position(|(x, _)| x.len() != buf.len()) {
                Some(i) => drop(g.free.remove(i)),
                None => return,
            }
        }
        let Ok(ev) = Event::new(&self.device) else {
            return;
        };
        if ev.record(after).is_err() {
            return;
        }
        g.free.push((buf, ev));
    }
}
