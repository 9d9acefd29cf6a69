//! Device-resident base sets (`cuda` feature).

use std::ops::Range;

use cuzk_field::{Bitmap, Fr};
use cuzk_gpu::{Device, DeviceBuffer, Stream};

use super::ffi::{self, IndexArena, SyncOnDrop};
use super::Precomputed;
use super::{bucket_slots, combine_windows, fixed_base_ffi, window_for, GpuPoint};
use crate::classify::classify;
use crate::{MsmError, Projective};

/// A set of bases uploaded once to one device, for many MSMs against it
/// (the SRS of a circuit: every proof, every partition).
///
/// Each call enqueues its work on the set's own stream and waits for the
/// result, so calls through one `GpuBases` run one at a time; use one set
/// per stream for concurrency.
///
/// A set uploaded with [`GpuBases::upload_precomputed`] also holds shifted
/// copies of its bases ([`Precomputed`]): its dense MSMs then run at the
/// set's window with fewer bucket windows; gathered MSMs and bitmap sums
/// use the first copy (the bases) as before.
#[derive(Debug)]
pub struct GpuBases<C: GpuPoint> {
    /// `copies · n` points: copy t at `t·n` (one copy without `pre`).
    bases: DeviceBuffer<C>,
    n: usize,
    pre: Option<Precomputed>,
    stream: Stream,
}

/// XYZZ points per chunk when building shifted copies: 2^20 G1 points are
/// 192 MiB of scratch, and 2^20 threads fill the device.
const SHIFT_CHUNK: usize = 1 << 20;

fn check_range(range: &Range<usize>, len: usize) -> Result<(), MsmError> {
    if range.start > range.end || range.end > len {
        return Err(MsmError::TooFewBases {
            have: len,
            need: range.end.max(range.start),
        });
    }
    Ok(())
}

impl<C: GpuPoint> GpuBases<C> {
    /// Uploads `bases` to `device` (waits for the copy). For the fastest
    /// copy register the host memory first (cuzk-pinned-mem's
    /// `Registered`): ~55 GB/s instead of ~8 GB/s pageable (docs/GPU.md).
    pub fn upload(device: &Device, bases: &[C]) -> Result<Self, MsmError> {
        let stream = Stream::new(device)?;
        let n = bases.len();
        let bases = DeviceBuffer::from_slice(&stream, bases)?;
        Ok(GpuBases {
            bases,
            n,
            pre: None,
            stream,
        })
    }

    /// Uploads `bases` and builds `pre.copies − 1` shifted copies of them
    /// on the device (waits for both): `pre.copies` times the memory of
    /// [`GpuBases::upload`], and every dense MSM against the set runs at
    /// `pre.window` with [`Precomputed::bucket_windows`] bucket windows.
    pub fn upload_precomputed(
        device: &Device,
        bases: &[C],
        pre: Precomputed,
    ) -> Result<Self, MsmError> {
        let pre = Precomputed::new(pre.window, pre.copies)?;
        let n = bases.len();
        let total = n
            .checked_mul(pre.copies as usize)
            .filter(|&t| t < 1 << 31)
            .ok_or(MsmError::GpuShape {
                n,
                window: pre.window,
            })?;
        let streams = [Stream::new(device)?];
        let mut table = DeviceBuffer::<C>::alloc(device, total)?;
        {
            let sync = SyncOnDrop(&streams);
            ffi::upload_at(&mut table, 0, bases, &streams[0], &sync)?;
        }
        if pre.copies > 1 && n > 0 {
            let mut scratch = DeviceBuffer::<C>::alloc(device, 2 * n.min(SHIFT_CHUNK))?;
            fixed_base_ffi::dev_shift(&mut table, n, pre, &mut scratch, &streams[0])?;
            streams[0].synchronize()?;
        }
        let [stream] = streams;
        Ok(GpuBases {
            bases: table,
            n,
            pre: Some(pre),
            stream,
        })
    }

    /// The shifted copies this set holds, if any.
    pub fn precomputed(&self) -> Option<Precomputed> {
        self.pre
    }

    /// Device bytes the set holds (all copies).
    pub fn device_bytes(&self) -> u64 {
        (self.bases.len() * std::mem::size_of::<C>()) as u64
    }

    /// Number of bases held.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when no bases are held.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The stream every call of this set runs on (for callers that prepare
    /// device scalars on it).
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The device buffer, copy 0 (the bases) first: the gathered and bitmap
    /// paths read copy 0 only (their ranges are checked against `len()`).
    fn first_copy(&self) -> &DeviceBuffer<C> {
        &self.bases
    }

    fn result(&self, out: &DeviceBuffer<C>) -> Result<Projective<C>, MsmError> {
        let v = out.to_vec(&self.stream)?; // synchronises the stream
        Ok(v[0].to_curve())
    }

    /// Downloads the window sums of an MSM with width `c` (any number of
    /// them) and combines them.
    fn windows_result(&self, out: &DeviceBuffer<C>, c: u32) -> Result<Projective<C>, MsmError> {
        let v = out.to_vec(&self.stream)?; // synchronises the stream
        Ok(combine_windows(&v, c))
    }

    /// Σ `scalars[k]` · `bases[start + k]`: an MSM over the sub-range
    /// `start .. start + scalars.len()`, scalars from the host.
    pub fn msm(&self, start: usize, scalars: &[Fr]) -> Result<Projective<C>, MsmError> {
        check_range(&(start..start.saturating_add(scalars.len())), self.len())?;
        let d = DeviceBuffer::from_slice(&self.stream, scalars)?;
        self.msm_device(start, &d)
    }

    /// As [`GpuBases::msm`] with the scalars already on the device (e.g.
    /// the H coefficients straight out of the NTT): all of `scalars`.
    pub fn msm_device(
        &self,
        start: usize,
        scalars: &DeviceBuffer<Fr>,
    ) -> Result<Projective<C>, MsmError> {
        self.msm_device_window(start, scalars, window_for(scalars.len()))
    }

    /// As [`GpuBases::msm_device`] over the first `len` device scalars only
    /// (the Groth16 H MSM: the H step leaves n coefficients, the H query has
    /// n − 1 points).
    pub fn msm_device_prefix(
        &self,
        start: usize,
        scalars: &DeviceBuffer<Fr>,
        len: usize,
    ) -> Result<Projective<C>, MsmError> {
        if len > scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: len,
                scalars: scalars.len(),
            });
        }
        self.run_dense(start, scalars, len, window_for(len))
    }
    /// [`GpuBases::msm_device`] with a forced window width (benchmarks; a
    /// precomputed set always runs at its own width).
    #[doc(hidden)]
    pub fn msm_device_window(
        &self,
        start: usize,
        scalars: &DeviceBuffer<Fr>,
        window: u32,
    ) -> Result<Projective<C>, MsmError> {
        self.run_dense(start, scalars, scalars.len(), window)
    }

    /// Σ `scalars[k]` · `bases[start + k]` over the first `len` device
    /// scalars with window `window`: the one dense device path.
    fn run_dense(
        &self,
        start: usize,
        scalars: &DeviceBuffer<Fr>,
        len: usize,
        window: u32,
    ) -> Result<Projective<C>, MsmError> {
        check_range(&(start..start.saturating_add(len)), self.len())?;
        let (window, copies) = match self.pre {
            Some(p) => (p.window, p.copies),
            None => (window, 1),
        };
        let mut out = poisoned(&self.stream, bucket_slots(window, copies))?;
        ffi::dev_run(
            &self.bases,
            start,
            None,
            scalars,
            0,
            len,
            window,
            copies,
            &mut out,
            &self.stream,
        )?;
        self.windows_result(&out, window)
    }

    /// One MSM per scalar vector against `bases[start ..]` (the partitions
    /// of a proof), without re-uploading bases.
    pub fn msm_batch<S: AsRef<[Fr]>>(
        &self,
        start: usize,
        scalar_sets: &[S],
    ) -> Result<Vec<Projective<C>>, MsmError> {
        scalar_sets
            .iter()
            .map(|s| self.msm(start, s.as_ref()))
            .collect()
    }

    /// Σ `scalars[k]` · `bases[start + indices[k]]`: the sparse "tail" MSM
    /// over a gathered subset (indices relative to `start`, may repeat).
    pub fn msm_gather(
        &self,
        start: usize,
        indices: &[u32],
        scalars: &[Fr],
    ) -> Result<Projective<C>, MsmError> {
        if indices.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: indices.len(),
                scalars: scalars.len(),
            });
        }
        check_range(&(start..start), self.len())?;
        let idx = IndexArena::from_slice(&self.stream, indices, self.len() - start)?;
        let d = DeviceBuffer::from_slice(&self.stream, scalars)?;
        let window = window_for(scalars.len());
        let mut out = poisoned(&self.stream, bucket_slots(window, 1))?;
        ffi::dev_run(
            self.first_copy(),
            start,
            Some((&idx.0, idx.1)),
            &d,
            0,
            scalars.len(),
            window,
            1,
            &mut out,
            &self.stream,
        )?;
        self.windows_result(&out, window)
    }

    /// Σ `bases[start + j]` over the set bits `j` of `ones` (the "scalar is
    /// one" part of the Groth16 split).
    pub fn bitmap_sum(&self, start: usize, ones: &Bitmap) -> Result<Projective<C>, MsmError> {
        check_range(&(start..start.saturating_add(ones.len())), self.len())?;
        let words = DeviceBuffer::from_slice(&self.stream, ones.as_words())?;
        let mut out = poisoned(&self.stream, 1)?;
        ffi::dev_bitmap_sum(
            self.first_copy(),
            start,
            &words,
            0,
            ones.len(),
            &mut out,
            &self.stream,
        )?;
        self.result(&out)
    }

    /// bellperson's density-filtered MSM (see [`crate::msm_density`]) against
    /// the compacted bases `bases[start ..]`: the scalars are classified on
    /// the CPU into zeros (skipped), ones (a [`GpuBases::bitmap_sum`]) and
    /// the tail (a [`GpuBases::msm_gather`]), both on the device.
    pub fn msm_density(
        &self,
        start: usize,
        scalars: &[Fr],
        density: Option<&Bitmap>,
    ) -> Result<Projective<C>, MsmError> {
        let c = classify(scalars, density)?;
        let have = self.len().saturating_sub(start);
        if c.selected() > have {
            return Err(MsmError::TooFewBases {
                have,
                need: c.selected(),
            });
        }
        let ones = self.bitmap_sum(start, &c.ones)?;
        let tail = self.msm_gather(start, &c.tail_indices, &c.tail_scalars)?;
        Ok(ones + tail)
    }
}

/// `slots` points of device memory filled with 0xA5 bytes (not a reduced
/// field element), so that output a kernel never wrote cannot pass a check.
fn poisoned<C: GpuPoint>(stream: &Stream, slots: usize) -> Result<DeviceBuffer<C>, MsmError> {
    let mut out = DeviceBuffer::alloc(&stream.device(), slots)?;
    out.memset(stream, 0xA5)?;
    Ok(out)
}
