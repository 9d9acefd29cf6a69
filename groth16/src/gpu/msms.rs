//! The L, A and B MSMs of a partition: the zero/one/tail split of the
//! witness on the CPU, then bitmap sums and gathered tails per base set.

use cuzk_field::{Fr, G1Affine, G1Projective, G2Projective};
use cuzk_gpu::DeviceBuffer;
use cuzk_msm::chunks::StreamOp;
use cuzk_msm::gpu::{GpuBases, GpuPoint, StreamedBases};
use cuzk_msm::{classify, Classified, MsmError, Projective};
use cuzk_synth::ProvingAssignment;
use group::Group;

use super::GpuBackend;
use crate::error::Result;
use crate::params::Parameters;
use crate::timings::Timings;

/// The zero/one/tail splits of one partition.
pub(super) struct Splits {
    pub(super) l: Classified,
    pub(super) a_aux: Classified,
    pub(super) b_inputs: Classified,
    pub(super) b_aux: Classified,
}

pub(super) fn split_all(pa: &ProvingAssignment) -> std::result::Result<Splits, MsmError> {
    let aux = &pa.aux_assignment;
    let ((l, a_aux), (b_inputs, b_aux)) = rayon::join(
        || {
            rayon::join(
                || classify(aux, None),
                || classify(aux, Some(&pa.a_aux_density)),
            )
        },
        || {
            rayon::join(
                || classify(&pa.input_assignment, Some(&pa.b_input_density)),
                || classify(aux, Some(&pa.b_aux_density)),
            )
        },
    );
    Ok(Splits {
        l: l?,
        a_aux: a_aux?,
        b_inputs: b_inputs?,
        b_aux: b_aux?,
    })
}

/// The two halves of the split MSMs against one base set: the bitmap sums
/// (scalars equal to one) and the Pippenger tails, kept apart so `--timings`
/// can report them as separate stages.
pub(super) fn split_parts<C: GpuPoint>(
    bases: &GpuBases<C>,
    parts: &[(usize, &Classified)],
    timings: &mut Timings,
    ones_stage: &'static str,
    tail_stage: &'static str,
) -> std::result::Result<Projective<C>, MsmError> {
    let mut acc = Projective::<C>::identity();
    timings.time(ones_stage, || -> std::result::Result<(), MsmError> {
        for &(start, c) in parts {
            if c.ones.count_ones() > 0 {
                acc += bases.bitmap_sum(start, &c.ones)?;
            }
        }
        Ok(())
    })?;
    timings.time(tail_stage, || -> std::result::Result<(), MsmError> {
        for &(start, c) in parts {
            if !c.tail_indices.is_empty() {
                acc += bases.msm_gather(start, &c.tail_indices, &c.tail_scalars)?;
            }
        }
        Ok(())
    })?;
    Ok(acc)
}

/// The ops of split MSMs against one base set: for each `(start, split)`,
/// its bitmap sum and its gathered tail.
pub(super) fn split_ops<'a>(parts: &[(usize, &'a Classified)], ops: &mut Vec<StreamOp<'a>>) {
    for &(start, c) in parts {
        if c.ones.count_ones() > 0 {
            ops.push(StreamOp::Bitmap {
                start,
                ones: &c.ones,
            });
        }
        if !c.tail_indices.is_empty() {
            ops.push(StreamOp::Gather {
                start,
                indices: &c.tail_indices,
                scalars: &c.tail_scalars,
            });
        }
    }
}

/// The four results of the L, A, B MSMs.
pub(super) struct Lab {
    pub(super) l: G1Projective,
    pub(super) a: G1Projective,
    pub(super) b_g1: G1Projective,
    pub(super) b_g2: G2Projective,
}

impl GpuBackend {
    /// Σ of `ops` against `host` bases streamed through the device in the
    /// placement's chunks for the curve (fixed at placement: the
    /// stream-ordered pool keeps the last pass's scratch, so what is free
    /// now would undercount the room); the pass is timed as `stage` and its
    /// bytes counted as `stream_bytes`.
    pub(super) fn stream_msm<C: GpuPoint>(
        &self,
        host: &[C],
        ops: &[StreamOp<'_>],
        device_scalars: Option<&DeviceBuffer<Fr>>,
        timings: &mut Timings,
        stage: &'static str,
    ) -> Result<Projective<C>> {
        let min = super::budget::MIN_STREAM_CHUNK;
        let (g1, g2) = self.plan.lock().as_ref().map_or((min, min), |p| p.chunks);
        let chunk = if C::GPU_CURVE == G1Affine::GPU_CURVE {
            g1
        } else {
            g2
        };
        let t = std::time::Instant::now();
        let (sum, stats) = timings.time(stage, || {
            StreamedBases::new(&self.device, host, chunk).run(ops, device_scalars)
        })?;
        timings.count("stream_bytes", stats.bytes);
        // Where the pass's time went, for timelines (the parts overlap).
        timings.beside("stream_plan", t, stats.plan);
        timings.beside("stream_host", t + stats.plan, stats.host);
        timings.beside("stream_upload", t + stats.plan, stats.upload);
        timings.beside("stream_kernels", t + stats.plan, stats.kernels);
        Ok(sum)
    }

    /// L, A, B(G1), B(G2) of a partition against bases in host memory:
    /// one streamed pass per base set, every split MSM of the set in it.
    pub(super) fn streamed_lab(
        &self,
        params: &Parameters,
        inputs: &[Fr],
        s: &Splits,
        timings: &mut Timings,
    ) -> Result<Lab> {
        let ni = inputs.len();
        let nbi = s.b_inputs.selected();
        let mut ops = Vec::new();
        split_ops(&[(0, &s.l)], &mut ops);
        let l = self.stream_msm(&params.l, &ops, None, timings, "msm_l")?;
        let mut ops = vec![StreamOp::Dense {
            start: 0,
            scalars: inputs,
        }];
        split_ops(&[(ni, &s.a_aux)], &mut ops);
        let a = self.stream_msm(&params.a, &ops, None, timings, "msm_a")?;
        let mut ops = Vec::new();
        split_ops(&[(0, &s.b_inputs), (nbi, &s.b_aux)], &mut ops);
        let b_g1 = self.stream_msm(&params.b_g1, &ops, None, timings, "msm_b_g1")?;
        let b_g2 = self.stream_msm(&params.b_g2, &ops, None, timings, "msm_b_g2")?;
        Ok(Lab { l, a, b_g1, b_g2 })
    }

    /// L, A, B(G1), B(G2) against resident bases: bitmap sums and tails.
    pub(super) fn resident_lab(
        &self,
        bases: &super::Bases,
        inputs: &[Fr],
        s: &Splits,
        timings: &mut Timings,
    ) -> Result<Lab> {
        let ni = inputs.len();
        let nbi = s.b_inputs.selected();
        // G1 first (L, A, B), each half timed as one stage over the three
        // base sets; A's public inputs are dense and join the tails.
        let (bits, tails) = ("bitmap_sums", "tails");
        let l = split_parts(&bases.l, &[(0, &s.l)], timings, bits, tails)?;
        let a_inputs = timings.time(tails, || bases.a.msm(0, inputs))?;
        let a = a_inputs + split_parts(&bases.a, &[(ni, &s.a_aux)], timings, bits, tails)?;
        let b_parts = [(0, &s.b_inputs), (nbi, &s.b_aux)];
        let b_g1 = split_parts(&bases.b_g1, &b_parts, timings, bits, tails)?;
        let b_g2 = split_parts(&bases.b_g2, &b_parts, timings, "g2_bitmap_sums", "g2_tails")?;
        Ok(Lab { l, a, b_g1, b_g2 })
    }
}
