//! Device memory: [`DeviceBuffer<T>`] and the [`DeviceCopy`] marker.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::mem::size_of;

use crate::fault::Fault;
use crate::{check, sys, Device, GpuError, Result, Stream};

/// Types that may be copied to and from the device as raw bytes.
///
/// # Safety
/// Implementors must be `Copy`, contain no pointers or references, have no
/// padding whose value matters, and be valid for *every* bit pattern
/// (device memory starts uninitialised and kernels may write anything).
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => { $(
        // SAFETY: plain integers/floats: every bit pattern is valid.
        unsafe impl DeviceCopy for $t {}
    )* };
}
device_copy!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, f32, f64, usize, isize);

// SAFETY: arrays of valid-for-all-bits types are valid for all bits.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

// The blstrs types are #[repr(transparent)] over blst's #[repr(C)] structs
// of u64 limbs (Fr: 4, Fp: 6, Fp2: 12, G1Affine: 12, G2Affine: 24,
// Fp12: 72 limbs).
// Any bits are memory-safe; values ≥ p are merely unreduced, which the
// differential tests detect.
// SAFETY: see above: u64 limbs only, no padding, no pointers.
unsafe impl DeviceCopy for cuzk_field::Fr {}
// SAFETY: as above.
unsafe impl DeviceCopy for cuzk_field::Fp {}
// SAFETY: as above.
unsafe impl DeviceCopy for cuzk_field::Fp2 {}
// SAFETY: as above.
unsafe impl DeviceCopy for cuzk_field::G1Affine {}
// SAFETY: as above.
unsafe impl DeviceCopy for cuzk_field::G2Affine {}
// SAFETY: as above (blst_fp12: 72 limbs).
unsafe impl DeviceCopy for cuzk_field::Fp12 {}

/// `len` elements of `T` in device memory, freed on drop.
#[derive(Debug)]
pub struct DeviceBuffer<T: DeviceCopy> {
    ptr: *mut c_void,
    len: usize,
    device: Device,
    _t: PhantomData<T>,
}

// SAFETY: the buffer owns device memory; moving the owner between threads
// is fine, and all device access goes through CUDA calls.
unsafe impl<T: DeviceCopy> Send for DeviceBuffer<T> {}
// SAFETY: &self methods only read (download), which CUDA allows concurrently.
unsafe impl<T: DeviceCopy> Sync for DeviceBuffer<T> {}

fn bytes_of<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>())
        .ok_or_else(|| GpuError::InvalidArgument(format!("{len} elements overflow usize bytes")))
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Allocates `len` elements (contents unspecified but valid: see
    /// [`DeviceCopy`]). `len == 0` allocates nothing.
    pub fn alloc(device: &Device, len: usize) -> Result<Self> {
        let bytes = bytes_of::<T>(len)?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        if bytes > 0 {
            let r = crate::fault::hit(Fault::Alloc).and_then(|()| {
                // SAFETY: `ptr` is a valid out-pointer.
                check(unsafe { sys::cuzk_malloc(device.raw(), bytes, &mut ptr) })
            });
            if let Err(e) = r {
                return Err(match e {
                    GpuError::OutOfMemory { .. } => GpuError::OutOfMemory {
                        requested: Some(bytes as u64),
                        free: device.mem_info().ok().map(|(free, _)| free),
                    },
                    e => e,
                });
            }
        }
        Ok(DeviceBuffer {
            ptr,
            len,
            device: *device,
            _t: PhantomData,
        })
    }

    /// Allocates and uploads `src` (waits for the copy).
    pub fn from_slice(stream: &Stream, src: &[T]) -> Result<Self> {
        let mut b = Self::alloc(&stream.device(), src.len())?;
        b.upload(stream, src)?;
        Ok(b)
    }

    /// Element count.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// The owning device.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Device address, for kernel launches through FFI.
    pub fn as_ptr(&self) -> *const c_void {
        self.ptr
    }

    /// Mutable device address, for kernel launches through FFI.
    pub fn as_mut_ptr(&mut self) -> *mut c_void {
        self.ptr
    }

    fn same_len(&self, n: usize) -> Result<()> {
        if n != self.len {
            return Err(GpuError::InvalidArgument(format!(
                "host slice has {n} elements, device buffer {}",
                self.len
            )));
        }
        Ok(())
    }

    /// Copies `src` to the device on `stream` and waits for it.
    pub fn upload(&mut self, stream: &Stream, src: &[T]) -> Result<()> {
        self.same_len(src.len())?;
        // SAFETY: src is valid for self.bytes() bytes of reads and we wait
        // for completion before returning, so it outlives the copy.
        unsafe { self.upload_async(stream, src.as_ptr())? };
        stream.synchronize()
    }

    /// Copies the device contents into `dst` on `stream` and waits for it.
    pub fn download(&self, stream: &Stream, dst: &mut [T]) -> Result<()> {
        self.same_len(dst.len())?;
        // SAFETY: dst is valid for self.bytes() bytes of writes and we wait
        // before returning; T is DeviceCopy, so any bytes are a valid T.
        unsafe { self.download_async(stream, dst.as_mut_ptr())? };
        stream.synchronize()
    }

    /// Downloads into a new vector.
    pub fn to_vec(&self, stream: &Stream) -> Result<Vec<T>> {
        let mut v = Vec::with_capacity(self.len);
        // SAFETY: capacity is len; the copy writes all len elements before
        // we set the length (we synchronise first), and any bytes are valid T.
        unsafe {
            self.download_async(stream, v.as_mut_ptr())?;
            stream.synchronize()?;
            v.set_len(self.len);
        }
        Ok(v)
    }

    /// Enqueues a host-to-device copy of `self.len()` elements from `src`.
    ///
    /// # Safety
    /// `src` must be valid for reads of `self.bytes()` bytes until the
    /// stream has passed this copy (for pageable memory CUDA stages it
    /// before returning; for pinned memory the copy is truly asynchronous).
    pub unsafe fn upload_async(&mut self, stream: &Stream, src: *const T) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        crate::fault::hit(Fault::Copy)?;
        // SAFETY: caller guarantees src; self.ptr owns self.bytes() bytes.
        check(unsafe { sys::cuzk_memcpy_async(self.ptr, src.cast(), self.bytes(), stream.raw()) })
    }

    /// Enqueues a device-to-host copy of `self.len()` elements into `dst`.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `self.bytes()` bytes, and not read
    /// or freed, until the stream has passed this copy.
    pub unsafe fn download_async(&self, stream: &Stream, dst: *mut T) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        crate::fault::hit(Fault::Copy)?;
        // SAFETY: caller guarantees dst; self.ptr holds self.bytes() bytes.
        check(unsafe { sys::cuzk_memcpy_async(dst.cast(), self.ptr, self.bytes(), stream.raw()) })
    }

    /// Device-to-device copy from `src` (same length), enqueued on `stream`.
    pub fn copy_from(&mut self, stream: &Stream, src: &DeviceBuffer<T>) -> Result<()> {
        self.same_len(src.len)?;
        if self.len == 0 {
            return Ok(());
        }
        crate::fault::hit(Fault::Copy)?;
        // SAFETY: both allocations hold self.bytes() bytes and live until
        // drop; cudaFree in drop synchronises with pending work.
        check(unsafe { sys::cuzk_memcpy_async(self.ptr, src.ptr, self.bytes(), stream.raw()) })
    }

    /// Enqueues a host-to-device copy of `len` elements from `src` into
    /// elements `offset .. offset + len` of the buffer.
    ///
    /// # Safety
    /// `src` must be valid for reads of `len` elements, and not written or
    /// freed, until the stream has passed this copy (for pinned memory the
    /// copy is truly asynchronous: record an event and wait for it).
    pub unsafe fn upload_range_async(
        &mut self,
        stream: &Stream,
        offset: usize,
        src: *const T,
        len: usize,
    ) -> Result<()> {
        let Some((dst, bytes)) = self.range_ptr(offset, len)? else {
            return Ok(());
        };
        crate::fault::hit(Fault::Copy)?;
        // SAFETY: `dst` and `bytes` lie inside our allocation; the caller
        // guarantees src for `len` elements.
        check(unsafe { sys::cuzk_memcpy_async(dst, src.cast(), bytes, stream.raw()) })
    }

    /// Copies `src` into elements `offset .. offset + src.len()` on
    /// `stream` and waits for the stream (so for the work enqueued before
    /// the copy too).
    pub fn upload_range(&mut self, stream: &Stream, offset: usize, src: &[T]) -> Result<()> {
        // SAFETY: `src` is valid for reads of src.len() elements, and we
        // wait for the stream before returning, so it outlives the copy.
        unsafe { self.upload_range_async(stream, offset, src.as_ptr(), src.len())? };
        stream.synchronize()
    }

    /// Fills elements `offset .. offset + len` byte-wise with `byte`,
    /// enqueued on `stream` (zero padding after a partial upload).
    pub fn memset_range(
        &mut self,
        stream: &Stream,
        offset: usize,
        len: usize,
        byte: u8,
    ) -> Result<()> {
        let Some((dst, bytes)) = self.range_ptr(offset, len)? else {
            return Ok(());
        };
        // SAFETY: `dst` and `bytes` lie inside our allocation; any bytes
        // are a valid T.
        check(unsafe { sys::cuzk_memset_async(dst, i32::from(byte), bytes, stream.raw()) })
    }

    /// The device address and byte length of elements `offset .. offset +
    /// len`, or `None` when the range is empty; an error when it does not
    /// lie inside the buffer.
    fn range_ptr(&mut self, offset: usize, len: usize) -> Result<Option<(*mut c_void, usize)>> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => {}
            _ => {
                return Err(GpuError::InvalidArgument(format!(
                    "elements {offset} + {len} outside a buffer of {}",
                    self.len
                )))
            }
        }
        if len == 0 {
            return Ok(None);
        }
        // SAFETY: offset < len ≤ self.len, so the address stays inside the
        // allocation of self.len elements.
        let p = unsafe { self.ptr.cast::<u8>().add(offset * size_of::<T>()) };
        Ok(Some((p.cast(), len * size_of::<T>())))
    }

    /// Fills every byte with `byte`, enqueued on `stream` (e.g. poison
    /// outputs with 0xA5 before a kernel writes them).
    pub fn memset(&mut self, stream: &Stream, byte: u8) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        // SAFETY: self.ptr owns self.bytes() bytes; any bytes are a valid T.
        check(unsafe { sys::cuzk_memset_async(self.ptr, byte as i32, self.bytes(), stream.raw()) })
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: ptr came from cuzk_malloc and is freed once. cudaFree
            // waits for work using it to finish.
            let _ = check(unsafe { sys::cuzk_free(self.ptr) });
        }
    }
}
