//! The device memory budget of a placement: how much a backend may use
//! ([`DeviceBudget`]: the configured limit, never more than the card has
//! free), what the bases, one partition in flight and one MSM's scratch
//! take, what a set needs at the least ([`min_device_bytes`]), and what is
//! left for shifted copies of the H bases. The one place these sizes are
//! computed.

use cuzk_field::{G1Affine, G2Affine};
use cuzk_msm::gpu::Precomputed;

use crate::params::{Parameters, QueryCounts};

/// Device memory left unused for the CUDA context's own allocations and
/// the stream-ordered pool's rounding.
pub const DEVICE_MARGIN: u64 = 1 << 30;

/// The device memory one backend may use: at most `limit` bytes in all
/// (the configured memory limit, or what was free when the backend
/// started, less [`DEVICE_MARGIN`]), and never more than is free now, so
/// another process that takes memory later (a shared card) shrinks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceBudget {
    /// Bytes this backend may hold in all.
    pub limit: u64,
    /// Free device bytes when the backend started (before its own use).
    baseline_free: u64,
    /// The card's memory.
    pub total: u64,
}

impl DeviceBudget {
    /// The budget of a backend starting now with `free` of `total` bytes
    /// free and an optional configured `limit`.
    pub fn new(limit: Option<u64>, free: u64, total: u64) -> Self {
        let cap = free.saturating_sub(DEVICE_MARGIN);
        DeviceBudget {
            limit: limit.map_or(cap, |l| l.min(cap)),
            baseline_free: free,
            total,
        }
    }

    /// Bytes still available to this backend when the device has `free`
    /// bytes free: the limit less what it holds (free at start less free
    /// now), and no more than `free` less the margin.
    pub fn available(&self, free: u64) -> u64 {
        let used = self.baseline_free.saturating_sub(free);
        self.limit
            .saturating_sub(used)
            .min(free.saturating_sub(DEVICE_MARGIN))
    }
}

/// Smallest chunk a streamed MSM uses: below it the per-chunk launches
/// and bucket reductions cost more than the transfer.
pub const MIN_STREAM_CHUNK: usize = 1 << 16;

/// Largest chunk: 2^25 G1 bases are 3 GiB a buffer; beyond, the pass gains
/// nothing (its time is the transfer or the accumulation either way).
pub const MAX_STREAM_CHUNK: usize = 1 << 25;

/// Device bytes of a streamed MSM over chunks of `chunk` bases of `C`: the
/// two chunk buffers, the input slots of the chunks' small inputs, the
/// pass's bucket accumulator and one chunk's accumulation scratch.
pub fn stream_bytes<C: cuzk_msm::gpu::GpuPoint>(chunk: usize) -> u64 {
    2 * (chunk * std::mem::size_of::<C>()) as u64
        + cuzk_msm::gpu::stream_input_bytes(chunk)
        + cuzk_msm::gpu::stream_scratch_bytes::<C>(chunk)
}

/// The largest power-of-two chunk (at most [`MAX_STREAM_CHUNK`], at most
/// `n` rounded up) whose streamed MSM fits in `avail` bytes; `None` when
/// not even [`MIN_STREAM_CHUNK`] does.
pub fn stream_chunk<C: cuzk_msm::gpu::GpuPoint>(n: usize, avail: u64) -> Option<usize> {
    let top = n
        .next_power_of_two()
        .clamp(MIN_STREAM_CHUNK, MAX_STREAM_CHUNK);
    let mut c = top;
    while c >= MIN_STREAM_CHUNK {
        if stream_bytes::<C>(c) <= avail {
            return Some(c);
        }
        c /= 2;
    }
    None
}

/// The chunk sizes of a streamed placement: G1 passes take two thirds of
/// `room` (the device memory left beside the H coefficients and any kept
/// matrices), G2
/// passes one third. The stream-ordered pool keeps the largest MSM scratch
/// between passes, so a pass of either curve must fit beside the other's
/// retained scratch: with this split, `stream_bytes::<G1>(g1)` plus G2's
/// scratch, and `stream_bytes::<G2>(g2)` plus G1's, are each within
/// `room`. `None` when `room` holds not even the smallest chunks.
pub fn stream_chunks(n: usize, room: u64) -> Option<(usize, usize)> {
    Some((
        stream_chunk::<G1Affine>(n, room / 3 * 2)?,
        stream_chunk::<G2Affine>(n, room / 3)?,
    ))
}

/// Device bytes of the lean H step (two domain-sized buffers) and the
/// small buffers beside it: a streamed partition's first phase.
pub fn lean_h_bytes(params: &Parameters) -> u64 {
    lean_bytes(params.domain_size())
}

fn lean_bytes(domain: usize) -> u64 {
    2 * domain as u64 * 32 + SMALL_BUFFERS
}

/// The small device buffers beside a partition's large ones (scale
/// tables, the assembly's points).
const SMALL_BUFFERS: u64 = 64 << 20;

/// Device bytes a streamed partition keeps beside its MSM passes: the H
/// coefficients (one domain-sized buffer, the H MSM's scalars) and the
/// small buffers.
fn coeffs_bytes(domain: usize) -> u64 {
    domain as u64 * 32 + SMALL_BUFFERS
}

/// Device bytes a streamed placement needs at the least: the larger of its
/// two phases, the lean H step, and the H coefficients beside the smallest
/// chunks of both curves ([`stream_chunks`]).
pub fn streamed_bytes(params: &Parameters) -> u64 {
    let n = params.domain_size();
    lean_bytes(n).max(coeffs_bytes(n) + min_chunk_room())
}

/// The least room [`stream_chunks`] accepts: G1 passes get two thirds of
/// it and G2 passes one third, each at least its smallest chunk. (G1's
/// scratch has fixed parts that G2's lacks, so neither bound implies the
/// other.)
fn min_chunk_room() -> u64 {
    let g1 = stream_bytes::<G1Affine>(MIN_STREAM_CHUNK).div_ceil(2);
    let g2 = stream_bytes::<G2Affine>(MIN_STREAM_CHUNK);
    3 * g1.max(g2)
}

/// The least device memory a placement of `params` needs (streamed from
/// host memory), and what it is made of.
pub fn min_device_bytes(params: &Parameters) -> (u64, String) {
    let gib = |x: u64| format!("{:.1} GiB", x as f64 / (1u64 << 30) as f64);
    let n = params.domain_size();
    let (h_step, passes) = (lean_bytes(n), coeffs_bytes(n) + min_chunk_room());
    let detail = if h_step >= passes {
        format!(
            "bases streamed from host memory; the H step's two buffers of 2^{} elements {}",
            n.trailing_zeros(),
            gib(h_step)
        )
    } else {
        format!(
            "bases streamed from host memory; the H coefficients ({}) beside the smallest chunks {}",
            gib(coeffs_bytes(n)),
            gib(passes)
        )
    };
    (streamed_bytes(params), detail)
}

/// Where a streamed placement computes a recorded circuit's a, b, c.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordMode {
    /// Its three matrices stay on the device, through both phases.
    Resident,
    /// One matrix at a time, uploaded from page-locked host memory for its
    /// product and freed (≈ 5.8 GB over the link per 32 GiB PoRep
    /// partition, ~0.1 s at link speed, against 5.9 s of CPU SpMV).
    PerMatrix,
}

/// The device plan of a placement whose bases stream from host memory.
/// One partition at a time has the device, in two phases that time-share
/// its memory:
/// - the H step: the lean step's two buffers, and for a recorded circuit
///   whose a, b, c are computed on the device its witness and its matrices
///   (all three kept, or the largest one at a time);
/// - the MSM passes: the H coefficients, the kept matrices and the chunks.
///
/// The room is the larger phase, not their sum: under a 16 GiB limit the
/// 32 GiB PoRep set's G1 chunks are 2^23 bases instead of 2^18, when each
/// chunk's fixed costs (its bitmap sums' dependent chains, the affine
/// rounds' inversions: ≈ 8 ms and ≈ 4 ms on the H200) made 16.8 s of
/// kernels per partition on an H100.
///
/// A recorded circuit is admitted once ([`StreamPlan::admit`]); the room it
/// reserves is never given back while the plan lives, so every circuit
/// admitted keeps fitting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamPlan {
    /// Device bytes the placement may use (what was available when placed).
    room: u64,
    /// Bytes of the lean H step ([`lean_h_bytes`]).
    lean: u64,
    /// Bytes kept beside the MSM passes ([`coeffs_bytes`]).
    coeffs: u64,
    /// The largest base set's length.
    bases: usize,
    /// The domain size.
    domain: usize,
    /// Bytes of the one circuit's matrices kept on the device.
    kept: u64,
    /// Bytes one partition of any admitted circuit needs beside them: its
    /// witness, plus its largest matrix when uploaded per product (one
    /// partition of a streamed placement is on the device at a time).
    transient: u64,
    /// The circuits admitted, each with its mode.
    admitted: Vec<(cuzk_synth::compiled::CircuitKey, RecordMode)>,
    /// The chunk sizes (G1, G2) of the streamed passes.
    pub chunks: (usize, usize),
}

impl StreamPlan {
    /// The plan of a set of `c` in `room` bytes: no circuit admitted, chunks as
    /// large as fit beside the H coefficients; `None` when the lean H step
    /// or the smallest chunks do not fit ([`streamed_bytes`]).
    pub fn new(c: QueryCounts, room: u64) -> Option<Self> {
        let bases = c.h.max(c.l).max(c.b);
        let lean = lean_bytes(c.domain_size());
        let coeffs = coeffs_bytes(c.domain_size());
        if lean > room {
            return None;
        }
        Some(StreamPlan {
            room,
            lean,
            coeffs,
            bases,
            domain: c.domain_size(),
            kept: 0,
            transient: 0,
            admitted: Vec::new(),
            chunks: stream_chunks(bases, room.checked_sub(coeffs)?)?,
        })
    }

    /// How `key`'s a, b, c are computed, if it was admitted.
    pub fn mode(&self, key: &cuzk_synth::compiled::CircuitKey) -> Option<RecordMode> {
        self.admitted
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, m)| *m)
    }

    /// The domain size of the set (the lean H step's buffer length).
    pub fn domain(&self) -> usize {
        self.domain
    }

    /// Bytes reserved for recorded circuits: the kept matrices and one
    /// partition's transient share (in the H step only).
    pub fn record_room(&self) -> u64 {
        self.kept + self.transient
    }

    /// The recorded circuits admitted, each with its mode.
    pub fn admitted(&self) -> &[(cuzk_synth::compiled::CircuitKey, RecordMode)] {
        &self.admitted
    }

    /// Device bytes the placement may use.
    pub fn room(&self) -> u64 {
        self.room
    }

    /// Admits a recorded circuit whose witness takes `witness` bytes on
    /// the device, its three matrices `matrices` and its largest one
    /// `largest`: kept on the device when it is the first circuit and its
    /// matrices and witness fit beside the lean H step, and its matrices
    /// beside the H coefficients and the smallest chunks; else one matrix
    /// at a time when that fits; the chunks shrink to what the kept
    /// matrices leave. `None` (nothing changes) when not even one matrix
    /// fits: its a, b, c are then computed on the CPU.
    pub fn admit(
        &mut self,
        key: cuzk_synth::compiled::CircuitKey,
        witness: u64,
        matrices: u64,
        largest: u64,
    ) -> Option<RecordMode> {
        if let Some(m) = self.mode(&key) {
            return Some(m);
        }
        // Chunks for a plan that keeps `kept` and passes `transient`
        // through the H step, if both phases fit.
        let try_room = |(kept, transient): (u64, u64)| {
            if self.lean.checked_add(kept)?.checked_add(transient)? > self.room {
                return None;
            }
            stream_chunks(self.bases, self.room.checked_sub(self.coeffs + kept)?)
        };
        let whole = (matrices, self.transient.max(witness));
        let one = (self.kept, self.transient.max(witness + largest));
        let (mode, (kept, transient), chunks) = match try_room(whole) {
            Some(c) if self.admitted.is_empty() => (RecordMode::Resident, whole, c),
            _ => (RecordMode::PerMatrix, one, try_room(one)?),
        };
        self.kept = kept;
        self.transient = transient;
        self.chunks = chunks;
        self.admitted.push((key, mode));
        Some(mode)
    }
}

/// Bytes the bases of `params` take on the device.
pub fn bases_bytes(params: &Parameters) -> u64 {
    params.counts().point_bytes()
}

/// Device bytes one partition in flight holds besides the bases: the H
/// step's three n-element buffers (staged uploads) and the witness of a
/// deferred assignment (inputs and aux), plus 64 MiB of small buffers.
pub fn partition_bytes(params: &Parameters) -> u64 {
    partition_of(params.counts(), params.vk.ic.len())
}

fn partition_of(c: QueryCounts, ic: usize) -> u64 {
    let n = c.domain_size() as u64;
    let witness = (c.l + ic) as u64 * 32;
    3 * n * 32 + witness + (64 << 20)
}

/// Host bytes a partition's L, A and B MSMs hold at worst beside its
/// assignment: the four zero/one/tail splits (`msms::split_all`, made at
/// once; [`cuzk_msm::classified_bytes_bound`] each, as if every selected
/// scalar were a tail) and, when the bases stream, one set's tails
/// regrouped per chunk once more (`cuzk_msm::chunks`, one set at a time).
/// PoRep's witness is mostly bits and comes nowhere near this; WindowPoSt's
/// (Poseidon values) does: ≈ 11 GB of splits at 32 GiB and 4.6 GB more
/// streamed, enough to take a 125 GiB host out of memory with two
/// partitions in the MSMs if left out of the budget.
pub fn split_host_bytes(params: &Parameters, streamed: bool) -> u64 {
    split_of(params.counts(), params.vk.ic.len(), streamed)
}

fn split_of(c: QueryCounts, ic: usize, streamed: bool) -> u64 {
    use cuzk_msm::classified_bytes_bound as bound;
    // L and A select among the aux variables, B among inputs and aux.
    let aux = c.l;
    let a_aux = c.a.saturating_sub(ic);
    let splits = bound(aux, aux) + bound(aux, a_aux) + bound(ic + aux, c.b);
    let regroup = if streamed {
        (4 + 32) * aux.max(a_aux).max(c.b) as u64
    } else {
        0
    };
    splits + regroup
}

/// Device bytes of the largest MSM's temporaries for `params`
/// ([`cuzk_msm::gpu::scratch_bytes`]: the pipeline's own allocations, ≈ 22
/// GB for the 2^27 H MSM). One MSM runs at a time per device (the device
/// lock), so this is counted once however many partitions are in flight.
pub fn msm_bytes(params: &Parameters) -> u64 {
    msm_of(params.counts())
}

fn msm_of(c: QueryCounts) -> u64 {
    use cuzk_msm::gpu::scratch_bytes;
    let g1 = c.h.max(c.l).max(c.a).max(c.b);
    scratch_bytes::<G1Affine>(g1).max(scratch_bytes::<G2Affine>(c.b))
}

/// Device bytes `depth` partitions in flight need besides the bases:
/// `depth` × [`partition_bytes`] + one [`msm_bytes`].
pub fn working_bytes(params: &Parameters, depth: usize) -> u64 {
    working_of(params.counts(), params.vk.ic.len(), depth)
}

fn working_of(c: QueryCounts, ic: usize, depth: usize) -> u64 {
    (depth as u64)
        .saturating_mul(partition_of(c, ic))
        .saturating_add(msm_of(c))
}

/// How a set of `c` queries with `ic` public inputs + 1 would be placed
/// in `avail` device bytes, and why, in one line (`cuzk info --params`):
/// resident, streamed with its chunk sizes, or too small.
pub fn preview(c: QueryCounts, ic: usize, avail: u64) -> String {
    let gib = |b: u64| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64);
    let resident = c.point_bytes() + working_of(c, ic, 1);
    if resident <= avail {
        return format!(
            "resident (bases {} and one partition's working set {} in {})",
            gib(c.point_bytes()),
            gib(working_of(c, ic, 1)),
            gib(avail)
        );
    }
    match StreamPlan::new(c, avail) {
        Some(p) => format!(
            "streamed from page-locked host memory (resident would need {}, {} available): chunks 2^{} G1, 2^{} G2 beside the H step's two buffers {}",
            gib(resident),
            gib(avail),
            p.chunks.0.trailing_zeros(),
            p.chunks.1.trailing_zeros(),
            gib(2 * c.domain_size() as u64 * 32)
        ),
        None => format!(
            "too small: needs at least {} (bases streamed), {} available",
            gib(lean_bytes(c.domain_size()) + min_chunk_room()),
            gib(avail)
        ),
    }
}

/// Device memory a resident placement leaves unused beside the bases and the
/// working sets of two partitions, before shifted H copies are considered.
const H_COPIES_MARGIN: u64 = 2 << 30;

/// The shifted copies of the H bases a resident placement keeps
/// ([`cuzk_msm::gpu::Precomputed`]): as many as fit in `free` device
/// memory beside all bases, two partitions' working sets (so pipelining is
/// never given up for them) and [`H_COPIES_MARGIN`], at the width the MSM's
/// cost model picks for that many copies; `None` when not even one extra
/// copy fits. `cap` bounds the copies (1: none; the tuning's
/// `h_copies_cap`, for A/B runs).
pub fn h_precomputed(params: &Parameters, free: u64, cap: Option<u32>) -> Option<Precomputed> {
    let n = params.counts().h;
    let cap = cap.unwrap_or(u32::MAX);
    let h_bytes = (n * std::mem::size_of::<G1Affine>()) as u64;
    if n == 0 || cap < 2 {
        return None;
    }
    let spare =
        free.checked_sub(bases_bytes(params) + working_bytes(params, 2) + H_COPIES_MARGIN)?;
    let mut max = u32::try_from(spare / h_bytes)
        .unwrap_or(u32::MAX)
        .saturating_add(1)
        .min(cap);
    while max >= 2 {
        let p = Precomputed::for_points(n, max);
        let extra_scratch = cuzk_msm::gpu::scratch_bytes_precomputed::<G1Affine>(n, p)
            .saturating_sub(msm_bytes(params));
        let need = u64::from(p.copies - 1) * h_bytes + extra_scratch;
        if p.copies < 2 {
            return None;
        }
        if need <= spare {
            return Some(p);
        }
        max = p.copies - 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The splits' bound covers the four `classify` calls of a partition
    /// whose every scalar is a tail, and grows by one set's tails when the
    /// bases stream.
    #[test]
    fn split_bound_covers_an_all_tail_witness() {
        let c = QueryCounts {
            h: (1 << 20) - 1,
            l: 900_000,
            a: 700_000,
            b: 600_000,
        };
        let ic = 10;
        let resident = split_of(c, ic, false);
        let all_tail = 36 * (c.l + (c.a - ic) + c.b) as u64;
        assert!(resident >= all_tail && resident < all_tail + all_tail / 20);
        assert_eq!(split_of(c, ic, true) - resident, 36 * c.l as u64);
    }

    #[test]
    fn stream_chunks_fit_what_is_available() {
        const G: u64 = 1 << 30;
        // (The smallest G1 chunk needs ≈ 240 MB: an MSM's scratch has
        // fixed parts, ≈ 215 MB at 2^16 bases.)
        for avail in [G / 2, G, 4 * G, 16 * G] {
            let c = stream_chunk::<G1Affine>(1 << 27, avail).unwrap();
            assert!(stream_bytes::<G1Affine>(c) <= avail, "{avail}");
            assert!(
                c == MAX_STREAM_CHUNK || stream_bytes::<G1Affine>(2 * c) > avail,
                "{avail}: {c} is not the largest"
            );
            // G2's points are twice G1's, but G1's MSM scratch (its affine
            // rounds) is the larger per point: either chunk may be larger.
            let c2 = stream_chunk::<G2Affine>(1 << 27, avail).unwrap();
            assert!(stream_bytes::<G2Affine>(c2) <= avail, "{avail}");
        }
        // The split: either curve's pass fits beside the other's scratch.
        let room = 6 * G;
        let (c1, c2) = stream_chunks(1 << 27, room).unwrap();
        use cuzk_msm::gpu::scratch_bytes;
        assert!(stream_bytes::<G1Affine>(c1) + scratch_bytes::<G2Affine>(c2) <= room);
        assert!(stream_bytes::<G2Affine>(c2) + scratch_bytes::<G1Affine>(c1) <= room);
        assert!(stream_chunks(1 << 27, min_chunk_room()).is_some());
        assert!(stream_chunks(1 << 27, stream_bytes::<G2Affine>(MIN_STREAM_CHUNK)).is_none());
        // Small sets take one chunk of their own size.
        assert_eq!(stream_chunk::<G1Affine>(70_000, 16 * G), Some(1 << 17));
        assert_eq!(stream_chunk::<G1Affine>(10, 16 * G), Some(MIN_STREAM_CHUNK));
        assert_eq!(stream_chunk::<G1Affine>(1 << 27, 1 << 20), None);
    }

    #[test]
    fn the_budget_is_the_limit_and_never_more_than_is_free() {
        const G: u64 = 1 << 30;
        // No limit: what was free at start, less the margin.
        let b = DeviceBudget::new(None, 100 * G, 140 * G);
        assert_eq!(b.limit, 99 * G);
        assert_eq!(b.available(100 * G), 99 * G);
        // 30 GiB used by this backend: 69 left.
        assert_eq!(b.available(70 * G), 69 * G);
        // A limit below what is free.
        let b = DeviceBudget::new(Some(16 * G), 100 * G, 140 * G);
        assert_eq!(b.available(100 * G), 16 * G);
        assert_eq!(b.available(90 * G), 6 * G);
        assert_eq!(b.available(80 * G), 0);
        // Another process takes memory later: what is free bounds it.
        assert_eq!(b.available(4 * G), 0);
        let b = DeviceBudget::new(Some(16 * G), 100 * G, 140 * G);
        assert_eq!(b.available(100 * G - 95 * G), 0);
        // A limit above what is free is what is free.
        let b = DeviceBudget::new(Some(64 * G), 24 * G, 140 * G);
        assert_eq!(b.limit, 23 * G);
    }

    #[test]
    fn a_streamed_plan_admits_a_record_whole_then_one_matrix_at_a_time() {
        use cuzk_synth::compiled::CircuitKey;
        const G: u64 = 1 << 30;
        let key = |h: u64| CircuitKey {
            shape: cuzk_synth::Shape {
                num_inputs: 1,
                num_aux: 1,
                num_constraints: 1,
            },
            trace_hash: 0,
            structure_hash: h,
        };
        // A set of `n` variables over a domain of `n`.
        let square = |n: usize| QueryCounts {
            h: n - 1,
            l: n,
            a: n,
            b: n,
        };
        let n = 1usize << 20;
        let p = square(n);
        let (lean, coeffs) = (lean_bytes(n), coeffs_bytes(n));
        let room = lean + 3 * G;
        // The MSM phase of a plan: the coefficients, the kept matrices and
        // the G1 chunks' share of the rest.
        let msm_phase_fits = |plan: &StreamPlan| {
            let rest = room - coeffs - plan.kept;
            stream_bytes::<G1Affine>(plan.chunks.0) <= rest / 3 * 2
                && stream_bytes::<G2Affine>(plan.chunks.1) <= rest / 3
        };
        // Room for the lean step and 3 GiB: a 1 GiB record plus a 1 GiB
        // witness stays whole (the H step: lean + 2 GiB); the chunks take
        // what the matrices leave beside the coefficients (2 GiB and the
        // lean step's second buffer), not what the H step leaves.
        let mut plan = StreamPlan::new(p, room).unwrap();
        let wide = plan.chunks;
        assert_eq!(plan.chunks, stream_chunks(n, room - coeffs).unwrap());
        assert_eq!(plan.admit(key(1), G, G, G / 2), Some(RecordMode::Resident));
        assert_eq!(plan.record_room(), 2 * G);
        assert!(plan.chunks.0 <= wide.0 && plan.chunks.1 <= wide.1);
        assert_eq!(plan.chunks, stream_chunks(n, room - coeffs - G).unwrap());
        assert!(msm_phase_fits(&plan));
        assert!(stream_bytes::<G1Affine>(plan.chunks.0) > G / 2);
        // Admitting it again changes nothing.
        let before = plan.clone();
        assert_eq!(plan.admit(key(1), G, G, G / 2), Some(RecordMode::Resident));
        assert_eq!(plan, before);
        // A second circuit never takes the first's matrices' place: one
        // matrix at a time beside them (one partition on the device at a
        // time, so the witnesses share their room). Its matrix and witness
        // pass through the H step only: the chunks stay.
        assert_eq!(plan.admit(key(2), G, G, G / 2), Some(RecordMode::PerMatrix));
        assert_eq!(plan.record_room(), 2 * G + G / 2);
        assert_eq!(plan.chunks, before.chunks);
        assert!(msm_phase_fits(&plan));
        // Too large whole: one matrix at a time, and the chunks keep the
        // whole MSM phase; too large even so: refused.
        let mut plan = StreamPlan::new(p, room).unwrap();
        assert_eq!(plan.admit(key(3), G, 4 * G, G), Some(RecordMode::PerMatrix));
        assert_eq!(plan.record_room(), 2 * G);
        assert_eq!(plan.chunks, wide);
        let mut plan = StreamPlan::new(p, room).unwrap();
        assert_eq!(plan.admit(key(4), 2 * G, 4 * G, 2 * G), None);
        assert_eq!(plan, StreamPlan::new(p, room).unwrap());
        assert_eq!(plan.mode(&key(4)), None);
        // Every phase must fit: the lean step alone (no room for chunks
        // beside the coefficients), or chunks without the lean step, give
        // no plan; the least a streamed placement needs is exactly enough.
        assert!(StreamPlan::new(p, lean).is_none());
        let least = lean.max(coeffs + min_chunk_room());
        let plan = StreamPlan::new(p, least).expect("the minimum admits a plan");
        // Each curve's share holds at least its smallest chunk (the one
        // with the larger need exactly that).
        assert!(plan.chunks.0 >= MIN_STREAM_CHUNK && plan.chunks.1 >= MIN_STREAM_CHUNK);
        assert!(plan.chunks.0 == MIN_STREAM_CHUNK || plan.chunks.1 == MIN_STREAM_CHUNK);
        assert!(StreamPlan::new(p, least - 1).is_none());
        let big = 1usize << 27;
        let q = square(big);
        let chunks_only = coeffs_bytes(big) + 3 * G;
        assert!(chunks_only < lean_bytes(big));
        assert!(StreamPlan::new(q, chunks_only).is_none());
        assert!(StreamPlan::new(q, lean_bytes(big)).is_some());
    }

    /// The case the time-sharing is for: 32 GiB PoRep (2^27 domain, 130 M
    /// aux variables; a 4.2 GB witness, matrices of 5.77 GB, the largest
    /// ≈ 2.3 GB) under a 16 GiB limit: one matrix at a time, and G1 chunks
    /// of 2^23 bases (with the H step's memory counted beside the chunks
    /// too, they were 2^18, and each chunk's fixed costs made the passes
    /// 16.8 s of kernels per partition on an H100).
    #[test]
    fn a_32_gib_porep_partition_streams_large_chunks_under_16_gib() {
        const G: u64 = 1 << 30;
        let n = 1usize << 27;
        let q = QueryCounts {
            h: n - 1,
            l: 130_278_869,
            a: 130_278_878,
            b: 130_278_878,
        };
        let mut plan = StreamPlan::new(q, 16 * G).unwrap();
        let mode = plan.admit(
            cuzk_synth::compiled::CircuitKey {
                shape: cuzk_synth::Shape {
                    num_inputs: 1,
                    num_aux: 1,
                    num_constraints: 1,
                },
                trace_hash: 0,
                structure_hash: 32,
            },
            4_197_989_600,
            5_770_000_000,
            2_300_000_000,
        );
        assert_eq!(mode, Some(RecordMode::PerMatrix));
        // G1: 2/3 of 16 GiB less the coefficients (4.06 GiB) holds 2^23
        // (6.5 GiB with its scratch), G2: 1/3 holds 2^22 (2.9 GiB).
        assert_eq!(plan.chunks, (1 << 23, 1 << 22));
    }
}
