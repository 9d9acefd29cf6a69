//! Streams and events (RAII: destroyed on drop).

use crate::{check, sys, Device, Result};

/// A non-blocking CUDA stream on one device.
#[derive(Debug)]
pub struct Stream {
    raw: sys::cuzk_stream,
    device: Device,
}

// SAFETY: a cudaStream_t may be used from any host thread; the runtime
// serialises access internally. We never hand out aliasing mutable state.
unsafe impl Send for Stream {}
// SAFETY: as above; all methods take &self and are thread-safe in CUDA.
unsafe impl Sync for Stream {}

impl Stream {
    /// A new stream on `device`.
    pub fn new(device: &Device) -> Result<Stream> {
        let mut raw: sys::cuzk_stream = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer.
        check(unsafe { sys::cuzk_stream_create(device.raw(), &mut raw) })?;
        Ok(Stream {
            raw,
            device: *device,
        })
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The raw `cudaStream_t`, for FFI calls that launch on this stream.
    pub fn raw(&self) -> sys::cuzk_stream {
        self.raw
    }

    /// Blocks until all work queued on the stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: `raw` is a live stream owned by self.
        check(unsafe { sys::cuzk_stream_synchronize(self.raw) })
    }

    /// Makes later work on this stream wait for `event`.
    pub fn wait(&self, event: &Event) -> Result<()> {
        // SAFETY: both handles are live (owned by their wrappers).
        check(unsafe { sys::cuzk_stream_wait_event(self.raw, event.raw) })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: destroys the stream we created, once; pending work still
        // completes (CUDA semantics). Errors cannot be reported from drop.
        let _ = check(unsafe { sys::cuzk_stream_destroy(self.raw) });
    }
}

/// A CUDA event with timing enabled.
#[derive(Debug)]
pub struct Event {
    raw: sys::cuzk_event,
}

// SAFETY: CUDA events may be recorded, queried and destroyed from any thread.
unsafe impl Send for Event {}
// SAFETY: as above.
unsafe impl Sync for Event {}

impl Event {
    /// A new timing event on `device`.
    pub fn new(device: &Device) -> Result<Event> {
        let mut raw: sys::cuzk_event = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer.
        check(unsafe { sys::cuzk_event_create(device.raw(), 1, &mut raw) })?;
        Ok(Event { raw })
    }

    /// Records the event at the current end of `stream`.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        // SAFETY: both handles are live.
        check(unsafe { sys::cuzk_event_record(self.raw, stream.raw()) })
    }

    /// Blocks until the event has completed.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::cuzk_event_synchronize(self.raw) })
    }

    /// True when the work before the event has finished.
    pub fn is_done(&self) -> Result<bool> {
        let mut d = 0i32;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::cuzk_event_query(self.raw, &mut d) })?;
        Ok(d != 0)
    }

    /// Milliseconds from `self` to `end` (both recorded and completed).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        let mut ms = 0f32;
        // SAFETY: live handles, valid out-pointer.
        check(unsafe { sys::cuzk_event_elapsed_ms(self.raw, end.raw, &mut ms) })?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: destroys the event we created, once.
        let _ = check(unsafe { sys::cuzk_event_destroy(self.raw) });
    }
}
