//! [`StreamedBases`]: a base set that stays in host memory (page-locked,
//! so its copies are DMA at link speed) and passes through two device
//! chunk buffers, for devices too small to hold it. One call runs every
//! MSM of a partition against the set ([`StreamOp`]s, split by
//! [`chunks::plan`]) in one pass over the chunks: chunk k+1 uploads on a
//! copy stream while chunk k's kernels run, so a pass costs about
//! max(transfer, compute) rather than their sum.
//!
//! Every MSM part of a pass (dense, device-scalar and gathered, whatever
//! its op) adds into one bucket accumulator on the device, at the pass's
//! window ([`super::stream_window`]), and the buckets are reduced once at
//! the end. (An MSM per part and chunk, each with its own window and
//! reduction, cost 4.3 s of kernels for a 2^24 bench partition under a
//! 2 GiB limit on the H200, 0.87 s under 6 GiB, against 0.8 s for the
//! whole resident partition.) A bitmap part sums its bases into a point
//! of its own.
//!
//! The host never waits for the kernels inside a pass: each chunk's small
//! inputs (host scalars, gather indices, bitmap words) go up on a second
//! copy stream into one of three input slots, two chunks ahead, and every
//! output buffer is allocated before the first kernel. (A synchronous
//! upload per part, as a resident MSM does, would drain the compute
//! stream before each part's kernels.)
//!
//! Memory: the two chunk buffers (2 · chunk points), three input slots
//! (the largest chunk's inputs each), the accumulator, one point per
//! bitmap part and one chunk's accumulation scratch
//! ([`super::stream_scratch_bytes`] of the chunk size), whatever the set's
//! size.

use std::time::{Duration, Instant};

use cuzk_field::Fr;
use cuzk_gpu::{Device, DeviceBuffer, Event, Stream};
use group::Group;

use super::ffi::{self, IndexArena, IndexRange, SyncOnDrop};
use super::{accumulator_slots, bucket_slots, combine_windows, stream_window, GpuPoint};
use crate::chunks::{self, ChunkPart, InputOffsets, StreamOp};
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
    /// Host time staging the chunks' small inputs (scalars, indices, bits:
    /// pageable copies) and enqueuing their kernels: while it exceeds the
    /// kernels' time the device waits on the host.
    pub host: Duration,
    /// Device time of the base uploads (CUDA events, summed over chunks).
    pub upload: Duration,
    /// Device time of the chunks' kernels (CUDA events, from a chunk's
    /// first kernel to its last, summed over chunks).
    pub kernels: Duration,
}

/// One input slot: a chunk's host scalars, gather indices and bitmap words.
struct InputSlot {
    fr: DeviceBuffer<Fr>,
    idx: IndexArena,
    words: DeviceBuffer<u64>,
}

/// A part's staged gather indices, once its chunk's inputs are up.
type Staged = Option<IndexRange>;

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

    /// The sum of every op of `ops`, in one pass over the chunks they
    /// touch. `device_scalars` holds the scalars of the
    /// [`StreamOp::DenseDevice`] ops: scalar `k` of such an op is element
    /// `k` of the buffer.
    pub fn run(
        &self,
        ops: &[StreamOp<'_>],
        device_scalars: Option<&DeviceBuffer<Fr>>,
    ) -> Result<(Projective<C>, StreamStats), MsmError> {
        let t = Instant::now();
        let plan = chunks::plan(ops, self.host.len(), self.chunk)?;
        let order = plan.chunks();
        let mut sum = Projective::<C>::identity();
        if order.is_empty() {
            return Ok((sum, StreamStats::default()));
        }
        let (at, max) = plan.input_layout(ops);
        // The parts of chunk i: `first[i] .. first[i + 1]` of plan.parts.
        let mut first = vec![0; order.len() + 1];
        {
            let mut i = 0;
            for (p, part) in plan.parts.iter().enumerate() {
                while order[i] != part.0 {
                    i += 1;
                    first[i] = p;
                }
            }
            first[order.len()] = plan.parts.len();
        }
        let plan_time = t.elapsed();
        let dev = &self.device;
        let chunk_len = self.chunk.min(self.host.len());
        let window = stream_window(chunk_len);
        let streams = [Stream::new(dev)?, Stream::new(dev)?, Stream::new(dev)?];
        let (copy, small, comp) = (&streams[0], &streams[1], &streams[2]);
        let mut bufs = (0..order.len().min(2))
            .map(|_| DeviceBuffer::<C>::alloc(dev, chunk_len))
            .collect::<Result<Vec<_>, _>>()?;
        let mut inputs = (0..order.len().min(3))
            .map(|_| -> Result<InputSlot, MsmError> {
                Ok(InputSlot {
                    fr: DeviceBuffer::alloc(dev, max.fr.max(1))?,
                    idx: IndexArena::zeroed(dev, comp, max.idx, chunk_len)?,
                    words: DeviceBuffer::alloc(dev, max.words.max(1))?,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Every bitmap part's point, poisoned (a kernel that never ran
        // reads as garbage, not as a plausible sum).
        let mut points = plan
            .parts
            .iter()
            .map(
                |(_, _, part)| -> Result<Option<DeviceBuffer<C>>, MsmError> {
                    if !matches!(part, ChunkPart::Bitmap { .. }) {
                        return Ok(None);
                    }
                    let mut out = DeviceBuffer::alloc(dev, 1)?;
                    out.memset(comp, 0xA5)?;
                    Ok(Some(out))
                },
            )
            .collect::<Result<Vec<_>, _>>()?;
        // The buckets of every MSM part, and their window sums (poisoned),
        // when the pass has an MSM part.
        let mut acc = match points.iter().any(Option::is_none) {
            true => {
                let mut acc = DeviceBuffer::alloc(dev, accumulator_slots(window))?;
                ffi::dev_buckets_clear(&mut acc, window, comp)?;
                let mut win = DeviceBuffer::<C>::alloc(dev, bucket_slots(window, 1))?;
                win.memset(comp, 0xA5)?;
                Some((acc, win))
            }
            false => None,
        };
        let uploaded = [Event::new(dev)?, Event::new(dev)?];
        let consumed = [Event::new(dev)?, Event::new(dev)?];
        let staged_ev = [Event::new(dev)?, Event::new(dev)?, Event::new(dev)?];
        let used = [Event::new(dev)?, Event::new(dev)?, Event::new(dev)?];
        // Per chunk: upload start, upload end, kernels start, kernels end;
        // then the reduction's start and end.
        let marks = (0..4 * order.len() + 2)
            .map(|_| Event::new(dev))
            .collect::<Result<Vec<_>, _>>()?;
        let mut stats = StreamStats {
            chunks: order.len(),
            plan: plan_time,
            ..StreamStats::default()
        };
        let mut staged: Vec<Staged> = vec![None; plan.parts.len()];
        {
            // Declared after every buffer the streams use, so it waits for
            // them before any is freed (errors included).
            let sync = SyncOnDrop(&streams);
            // Chunk i's bases into base slot i % 2, once chunk i − 2's
            // kernels are done with it (an asynchronous wait: page-locked
            // copies never block the host).
            let upload_bases =
                |i: usize, bufs: &mut Vec<DeviceBuffer<C>>| -> Result<u64, MsmError> {
                    let slot = i % 2;
                    if i >= 2 {
                        copy.wait(&consumed[slot])?;
                    }
                    let src = &self.host[plan.range(order[i])];
                    marks[4 * i].record(copy)?;
                    ffi::upload_at(&mut bufs[slot], 0, src, copy, &sync)?;
                    marks[4 * i + 1].record(copy)?;
                    uploaded[slot].record(copy)?;
                    Ok(std::mem::size_of_val(src) as u64)
                };
            // Chunk i's small inputs into input slot i % 3, once chunk
            // i − 3's kernels are done with it. Pageable sources: the host
            // stages each copy, so this returns once they are staged.
            let stage_inputs = |i: usize,
                                inputs: &mut Vec<InputSlot>,
                                staged: &mut Vec<Staged>|
             -> Result<(), MsmError> {
                let slot = i % 3;
                if i >= 3 {
                    small.wait(&used[slot])?;
                }
                let inp = &mut inputs[slot];
                for p in first[i]..first[i + 1] {
                    let (_, o, part) = &plan.parts[p];
                    let at = at[p];
                    match (part, &ops[*o]) {
                        (
                            ChunkPart::Dense { scalars, .. },
                            StreamOp::Dense { scalars: all, .. },
                        ) => {
                            ffi::upload_at(
                                &mut inp.fr,
                                at.fr,
                                &all[scalars.clone()],
                                small,
                                &sync,
                            )?;
                        }
                        (ChunkPart::Bitmap { ones, .. }, _) => {
                            ffi::upload_at(
                                &mut inp.words,
                                at.words,
                                ones.as_words(),
                                small,
                                &sync,
                            )?;
                        }
                        (ChunkPart::Gather { .. }, _) => {
                            let run = plan
                                .gather(ops, p)
                                .ok_or(MsmError::TooFewBases { have: 0, need: 1 })?;
                            ffi::upload_at(&mut inp.fr, at.fr, run.scalars, small, &sync)?;
                            staged[p] = Some(inp.idx.stage(
                                at.idx,
                                run.indices,
                                run.shift,
                                small,
                                &sync,
                            )?);
                        }
                        _ => {}
                    }
                }
                staged_ev[slot].record(small)?;
                Ok(())
            };
            let th = Instant::now();
            for i in 0..order.len().min(2) {
                stats.bytes += upload_bases(i, &mut bufs)?;
                stage_inputs(i, &mut inputs, &mut staged)?;
            }
            stats.host += th.elapsed();
            for (i, &k) in order.iter().enumerate() {
                let th = Instant::now();
                let (slot, islot) = (i % 2, i % 3);
                comp.wait(&uploaded[slot])?;
                comp.wait(&staged_ev[islot])?;
                let len = plan.range(k).len();
                marks[4 * i + 2].record(comp)?;
                for p in first[i]..first[i + 1] {
                    let (_, o, part) = &plan.parts[p];
                    let out = match (&mut points[p], &mut acc) {
                        (Some(point), _) => Out::Point(point),
                        (None, Some((acc, _))) => Out::Buckets(acc, window),
                        (None, None) => return Err(MsmError::TooFewBases { have: 0, need: 1 }),
                    };
                    self.enqueue(
                        &bufs[slot],
                        len,
                        &ops[*o],
                        part,
                        (&inputs[islot], at[p], staged[p]),
                        device_scalars,
                        out,
                        comp,
                    )?;
                }
                marks[4 * i + 3].record(comp)?;
                consumed[slot].record(comp)?;
                used[islot].record(comp)?;
                if i + 2 < order.len() {
                    stats.bytes += upload_bases(i + 2, &mut bufs)?;
                    stage_inputs(i + 2, &mut inputs, &mut staged)?;
                }
                stats.host += th.elapsed();
            }
            let r = 4 * order.len();
            marks[r].record(comp)?;
            if let Some((acc, win)) = &mut acc {
                ffi::dev_buckets_reduce(acc, window, win, comp)?;
            }
            marks[r + 1].record(comp)?;
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
        stats.kernels += span(4 * order.len());
        for point in points.iter().flatten() {
            sum += point.to_vec(comp)?[0].to_curve();
        }
        if let Some((_, win)) = &acc {
            sum += combine_windows(&win.to_vec(comp)?, window);
        }
        stats.wall = t.elapsed();
        Ok((sum, stats))
    }

    /// Enqueues one part on `comp` against the chunk in `buf` (`len`
    /// bases), its host inputs already in `input` (the slot, the part's
    /// offsets in it and its staged indices): a bitmap sum into its point,
    /// an MSM into the buckets.
    #[allow(clippy::too_many_arguments)]
    fn enqueue(
        &self,
        buf: &DeviceBuffer<C>,
        len: usize,
        op: &StreamOp<'_>,
        part: &ChunkPart,
        input: (&InputSlot, InputOffsets, Staged),
        device_scalars: Option<&DeviceBuffer<Fr>>,
        out: Out<'_, C>,
        comp: &Stream,
    ) -> Result<(), MsmError> {
        let (slot, at, staged) = input;
        let missing = || MsmError::TooFewBases { have: 0, need: 1 };
        // (local start, gathered indices, scalars, their first element, count)
        let (start, idx, scalars, first, n) = match (part, op) {
            (ChunkPart::Bitmap { local_start, ones }, _) => {
                let Out::Point(point) = out else {
                    return Err(missing());
                };
                return ffi::dev_bitmap_sum(
                    buf,
                    *local_start,
                    &slot.words,
                    at.words,
                    ones.len(),
                    point,
                    comp,
                );
            }
            (
                ChunkPart::Dense {
                    local_start,
                    scalars,
                },
                StreamOp::Dense { .. },
            ) => (*local_start, None, &slot.fr, at.fr, scalars.len()),
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
                (*local_start, None, d, scalars.start, scalars.len())
            }
            (ChunkPart::Gather { entries, .. }, _) => {
                let idx = staged.ok_or_else(missing)?;
                // The arena's bound is the chunk buffer's length; the plan
                // keeps every index below this chunk's own `len`.
                debug_assert!(len <= buf.len());
                (0, Some((&slot.idx, idx)), &slot.fr, at.fr, entries.len())
            }
            _ => return Err(missing()),
        };
        let Out::Buckets(acc, window) = out else {
            return Err(missing());
        };
        ffi::dev_accumulate(buf, start, idx, scalars, first, n, window, acc, comp)
    }
}

/// Where a part's result goes: a bitmap sum's own point, or an MSM's
/// share into the pass's buckets (of that width).
enum Out<'a, C: GpuPoint> {
    Point(&'a mut DeviceBuffer<C>),
    Buckets(&'a mut DeviceBuffer<C>, u32),
}
