//! [`StreamedBases`]: a base set that stays in host memory (page-locked,
//! so its copies are DMA at link speed) and passes through two device
//! chunk buffers, for devices too small to hold it. One call runs every
//! MSM of a partition against the set ([`StreamOp`]s, split by
//! [`chunks::plan`]) in one pass over the chunks: chunk k+1 uploads on a
//! copy stream while chunk k's kernels run, so a pass costs about
//! max(transfer, compute) rather than their sum.
//!
//! Memory: the two chunk buffers (2 · chunk points) plus
//! the largest per-chunk MSM's scratch ([`super::scratch_bytes`] of the
//! chunk size), whatever the set's size.

use std::time::{Duration, Instant};

use cuzk_field::Fr;
use cuzk_gpu::{Device, DeviceBuffer, Event, Stream};
use group::Group;

use super::ffi::{self, CheckedIndices, SyncOnDrop};
use super::{bucket_slots, combine_windows, window_for, GpuPoint};
use crate::chunks::{self, ChunkPart, StreamOp};
use crate::{MsmError, Projective};

/// A base set streamed from host memory in chunks of `chunk` bases.
#[derive(Debug)]
pub struct StreamedBases<'h, C: GpuPoint> {
    device: Device,
    host: &'h [C],
    chunk: usize,
}

/// What one streamed pass moved and how long it took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StreamStats {
    /// Bytes of bases copied host → device.
    pub bytes: u64,
    /// Chunks uploaded.
    pub chunks: usize,
    /// Wall time of the pass (uploads and kernels overlapped), the plan
    /// included.
    pub wall: Duration,
    /// Host time splitting the ops by chunk ([`chunks::plan`]).
    pub plan: Duration,
    /// Host time enqueuing the chunks' kernels, their small synchronous
    /// uploads (scalars, indices, bits) included: while it exceeds the
    /// kernels' time the device waits on the host.
    pub host: Duration,
    /// Device time of the base uploads (CUDA events, summed over chunks).
    pub upload: Duration,
    /// Device time of the chunks' kernels (CUDA events, from a chunk's
    /// first kernel to its last, summed over chunks).
    pub kernels: Duration,
}

/// One per-chunk result waiting on the device: which op it adds to, the
/// window its sums use (`None`: a bitmap sum, one point).
struct Pending<C: GpuPoint> {
    op: usize,
    window: Option<u32>,
    out: DeviceBuffer<C>,
    /// Inputs the kernels read, freed after the pass: dropping a device
    /// buffer is a `cudaFree`, which waits for the whole device (the next
    /// chunk's copy included).
    _scalars: Option<DeviceBuffer<Fr>>,
    _words: Option<DeviceBuffer<u64>>,
    _indices: Option<CheckedIndices>,
}

impl<C: GpuPoint> Pending<C> {
    /// A result in `out` (window sums at width `window`, or one point).
    fn of(window: Option<u32>, out: DeviceBuffer<C>) -> Self {
        Pending {
            op: 0,
            window,
            out,
            _scalars: None,
            _words: None,
            _indices: None,
        }
    }
}

impl<'h, C: GpuPoint> StreamedBases<'h, C> {
    /// Bases `host` (page-locked for overlap: cuzk-pinned-mem's
    /// `SharedRegistration`; pageable memory works, its copies are staged
    /// by the driver) on `device`, `chunk` bases at a time.
    pub fn new(device: &Device, host: &'h [C], chunk: usize) -> Self {
        StreamedBases {
            device: *device,
            host,
            chunk: chunk.max(1),
        }
    }

    /// One sum per op of `ops`, in one pass over the chunks they touch.
    /// `device_scalars` holds the scalars of the [`StreamOp::DenseDevice`]
    /// ops: scalar `k` of such an op is element `k` of the buffer.
    pub fn run(
        &self,
        ops: &[StreamOp<'_>],
        device_scalars: Option<&DeviceBuffer<Fr>>,
    ) -> Result<(Vec<Projective<C>>, StreamStats), MsmError> {
        let t = Instant::now();
        let plan = chunks::plan(ops, self.host.len(), self.chunk)?;
        let order = plan.chunks();
        let mut sums = vec![Projective::<C>::identity(); ops.len()];
        if order.is_empty() {
            return Ok((sums, StreamStats::default()));
        }
        let plan_time = t.elapsed();
        let dev = &self.device;
        let slots = order.len().min(2);
        let mut bufs = (0..slots)
            .map(|_| DeviceBuffer::<C>::alloc(dev, self.chunk.min(self.host.len())))
            .collect::<Result<Vec<_>, _>>()?;
        let uploaded = [Event::new(dev)?, Event::new(dev)?];
        let consumed = [Event::new(dev)?, Event::new(dev)?];
        let streams = [Stream::new(dev)?, Stream::new(dev)?];
        let (copy, comp) = (&streams[0], &streams[1]);
        // Declared before the guard below, so freed after it synchronised.
        let mut pending: Vec<Pending<C>> = Vec::new();
        let mut stats = StreamStats {
            chunks: order.len(),
            plan: plan_time,
            ..StreamStats::default()
        };
        // Per chunk: upload start, upload end, kernels start, kernels end.
        let marks = (0..4 * order.len())
            .map(|_| Event::new(dev))
            .collect::<Result<Vec<_>, _>>()?;
        {
            // Declared after every buffer the streams use, so it waits for
            // them before any is freed (errors included).
            let sync = SyncOnDrop(&streams);
            // Chunk i+1's upload is enqueued before chunk i's kernels, so
            // the copy engine works while the host prepares and the device
            // computes chunk i.
            let upload = |i: usize, bufs: &mut Vec<DeviceBuffer<C>>| -> Result<u64, MsmError> {
                let slot = i % 2;
                if i >= 2 {
                    copy.wait(&consumed[slot])?;
                }
                let src = &self.host[plan.range(order[i])];
                marks[4 * i].record(copy)?;
                ffi::upload_prefix(&mut bufs[slot], src, copy, &sync)?;
                marks[4 * i + 1].record(copy)?;
                uploaded[slot].record(copy)?;
                Ok(std::mem::size_of_val(src) as u64)
            };
            stats.bytes += upload(0, &mut bufs)?;
            let mut parts = plan.parts.iter().peekable();
            for (i, &k) in order.iter().enumerate() {
                if i + 1 < order.len() {
                    stats.bytes += upload(i + 1, &mut bufs)?;
                }
                let slot = i % 2;
                comp.wait(&uploaded[slot])?;
                let len = plan.range(k).len();
                let th = Instant::now();
                marks[4 * i + 2].record(comp)?;
                while let Some((_, o, part)) = parts.next_if(|p| p.0 == k) {
                    let p = self.enqueue(&bufs[slot], len, &ops[*o], part, device_scalars, comp)?;
                    pending.push(Pending { op: *o, ..p });
                }
                marks[4 * i + 3].record(comp)?;
                consumed[slot].record(comp)?;
                stats.host += th.elapsed();
            }
            comp.synchronize()?;
        }
        // A failed measurement reads as zero: a timing never fails a pass
        // whose result is good.
        let span = |a: usize| {
            let ms = marks[a].elapsed_ms(&marks[a + 1]).unwrap_or(0.0).max(0.0);
            Duration::from_secs_f64(f64::from(ms) / 1e3)
        };
        for i in 0..order.len() {
            stats.upload += span(4 * i);
            stats.kernels += span(4 * i + 2);
        }
        for p in &pending {
            let v = p.out.to_vec(comp)?;
            sums[p.op] += match p.window {
                Some(c) => combine_windows(&v, c),
                None => v[0].to_curve(),
            };
        }
        stats.wall = t.elapsed();
        Ok((sums, stats))
    }

    /// Enqueues one part on `comp` against the chunk in `buf` (`len`
    /// bases). Small inputs (bits, indices, host scalars) are uploaded
    /// synchronously on `comp`: the next chunk's copy runs meanwhile.
    fn enqueue(
        &self,
        buf: &DeviceBuffer<C>,
        len: usize,
        op: &StreamOp<'_>,
        part: &ChunkPart,
        device_scalars: Option<&DeviceBuffer<Fr>>,
        comp: &Stream,
    ) -> Result<Pending<C>, MsmError> {
        let dev = &self.device;
        let poisoned = |slots: usize| -> Result<DeviceBuffer<C>, MsmError> {
            let mut out = DeviceBuffer::alloc(dev, slots)?;
            out.memset(comp, 0xA5)?;
            Ok(out)
        };
        match (part, op) {
            (
                ChunkPart::Dense {
                    local_start,
                    scalars,
                },
                StreamOp::Dense { scalars: all, .. },
            ) => {
                let d = DeviceBuffer::from_slice(comp, &all[scalars.clone()])?;
                let n = scalars.len();
                let w = window_for(n);
                let mut out = poisoned(bucket_slots(w, 1))?;
                ffi::dev_run(buf, *local_start, None, &d, 0, n, w, 1, &mut out, comp)?;
                Ok(Pending {
                    _scalars: Some(d),
                    ..Pending::of(Some(w), out)
                })
            }
            (
                ChunkPart::Dense {
                    local_start,
                    scalars,
                },
                StreamOp::DenseDevice { .. },
            ) => {
                let d = device_scalars.ok_or(MsmError::LengthMismatch {
                    bases: scalars.len(),
                    scalars: 0,
                })?;
                let n = scalars.len();
                let w = window_for(n);
                let mut out = poisoned(bucket_slots(w, 1))?;
                ffi::dev_run(
                    buf,
                    *local_start,
                    None,
                    d,
                    scalars.start,
                    n,
                    w,
                    1,
                    &mut out,
                    comp,
                )?;
                Ok(Pending::of(Some(w), out))
            }
            (ChunkPart::Bitmap { local_start, ones }, _) => {
                let words = DeviceBuffer::from_slice(comp, ones.as_words())?;
                let mut out = poisoned(1)?;
                ffi::dev_bitmap_sum(buf, *local_start, &words, ones.len(), &mut out, comp)?;
                Ok(Pending {
                    _words: Some(words),
                    ..Pending::of(None, out)
                })
            }
            (ChunkPart::Gather { indices, scalars }, _) => {
                let idx = CheckedIndices::new(comp, indices, len)?;
                let d = DeviceBuffer::from_slice(comp, scalars)?;
                let w = window_for(scalars.len());
                let mut out = poisoned(bucket_slots(w, 1))?;
                ffi::dev_run(
                    buf,
                    0,
                    Some(&idx),
                    &d,
                    0,
                    scalars.len(),
                    w,
                    1,
                    &mut out,
                    comp,
                )?;
                Ok(Pending {
                    _scalars: Some(d),
                    _indices: Some(idx),
                    ..Pending::of(Some(w), out)
                })
            }
            _ => Err(MsmError::TooFewBases { have: 0, need: 1 }),
        }
    }
}
