//! The placement's warm-up: a partition's device work run once on made-up
//! inputs, so that the first proof of a process costs what later ones do.
//!
//! Without it the first proof pays for the kernels' lazy loading (CUDA's
//! default since 12.2: each kernel is loaded at its first launch): on an
//! H100 at 2^27 the first H MSM took 1.708 s against 1.655 s later, and
//! 1.663 s after a 1.04 s warm-up (docs/PERFORMANCE.md).
//! A deadline proof (WinningPoSt, WindowPoSt) is often the first one a
//! daemon proves against its set; the first placement is not on a
//! deadline. Loaded kernels stay loaded, so each kind of placement warms
//! up once per device; a later set switch, which may be on a deadline,
//! skips it. The MSM's scratch is handed back after it (`warm_resident`
//! says why). `CUZK_WARMUP=0` skips it ([`cuzk_gpu::tuning::Tuning`]).
//!
//! The inputs are byte patterns: every element is `0x0101…01`, `0x0202…02`
//! or `0x0303…03`, each below the scalar field's modulus, so the H step's
//! output is a dense vector of field elements and the MSMs do the work of
//! a real one. Results are discarded.

use std::time::{Duration, Instant};

use cuzk_field::Fr;
use cuzk_msm::chunks::StreamOp;
use cuzk_msm::gpu::{GpuBases, GpuPoint};
use cuzk_msm::{classify, Classified};

use super::msms::{split_ops, split_parts};
use super::{Bases, GpuBackend};
use crate::error::Result;
use crate::params::Parameters;
use crate::timings::Timings;

/// Scalars of the small L, A, B warm-up MSMs: enough for the bitmap sums'
/// and the gathered tails' kernels to launch, a millisecond of work.
const SMALL: usize = 4096;

/// The size of a streamed placement's warm-up H step (a whole one would
/// stream every H base through the device; the kernels are the same).
const SMALL_DOMAIN: usize = 1 << 16;

/// `m` scalars with zeros, ones and other values interleaved, so that
/// [`classify`] gives a bitmap and a tail.
fn mixed_scalars(m: usize) -> Vec<Fr> {
    (0..m as u64)
        .map(|i| match i % 3 {
            0 => Fr::from(0u64),
            1 => Fr::from(1u64),
            _ => Fr::from(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 2),
        })
        .collect()
}

/// The split of [`mixed_scalars`] for a base set of `len` points.
fn split_for(len: usize) -> Result<Classified> {
    Ok(classify(&mixed_scalars(len.min(SMALL)), None)?)
}

/// A bitmap sum and a gathered tail against `bases` (results discarded).
fn small_parts<C: GpuPoint>(bases: &GpuBases<C>) -> Result<()> {
    if bases.is_empty() {
        return Ok(());
    }
    let split = split_for(bases.len())?;
    let mut t = Timings::default();
    split_parts(bases, &[(0, &split)], &mut t, "warm_bits", "warm_tails")?;
    Ok(())
}

impl GpuBackend {
    /// Runs the warm-up for the placement just made, unless
    /// `CUZK_WARMUP=0` or this kind of placement has warmed up on this
    /// device before; returns how long it took (zero when skipped). Resident bases get the
    /// H step and H MSM at the set's own shape (the sizes pick the
    /// kernels and the scratch) and small bitmap sums and tails on every
    /// base set; a streamed placement gets small ones of each pass.
    /// Called under the device lock.
    pub(super) fn warm_up(
        &self,
        params: &Parameters,
        resident: Option<&Bases>,
    ) -> Result<Duration> {
        let done = &self.warmed[usize::from(resident.is_none())];
        if cuzk_gpu::tuning::Tuning::get().no_warmup
            || done.load(std::sync::atomic::Ordering::Relaxed)
        {
            return Ok(Duration::ZERO);
        }
        let t = Instant::now();
        match resident {
            Some(b) => self.warm_resident(params, b)?,
            None => self.warm_streamed(params)?,
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(t.elapsed())
    }

    fn warm_resident(&self, params: &Parameters, b: &Bases) -> Result<()> {
        let n = params.domain_size();
        let s = &self.stream;
        let pool = self.ntt.buffers();
        let take = |byte: u8| -> Result<_> {
            let mut buf = pool.take(n, s)?;
            buf.memset(s, byte)?;
            Ok(buf)
        };
        let (mut a, mut bb, mut c) = (take(1)?, take(2)?, take(3)?);
        self.ntt.h_step_device(s, &mut a, &mut bb, &mut c)?;
        let n_h = params.counts().h;
        let h = b.h.msm_device_prefix(0, &a, n_h.min(a.len()));
        for buf in [a, bb, c] {
            pool.put(buf, s);
        }
        h?;
        small_parts(&b.l)?;
        small_parts(&b.a)?;
        small_parts(&b.b_g1)?;
        small_parts(&b.b_g2)?;
        // The MSM's scratch goes back to the device: a recorded circuit's
        // matrices are placed on first use against the free memory, which
        // does not count what the stream-ordered pool holds, so a kept
        // scratch (22 GB at 2^27) could cost the set its second partition.
        cuzk_msm::gpu::release_scratch(&self.device)?;
        Ok(())
    }

    fn warm_streamed(&self, params: &Parameters) -> Result<()> {
        let n = params.domain_size().min(SMALL_DOMAIN);
        let s = &self.stream;
        let h = self.ntt.h_step_lean_with(s, n, |i, out| -> Result<()> {
            out.memset(s, i as u8 + 1)?;
            Ok(())
        })?;
        let mut t = Timings::default();
        let len = params.h.len().min(n);
        let dense = [StreamOp::DenseDevice { start: 0, len }];
        let r = self.stream_msm(&params.h, &dense, Some(&h), &mut t, "warm_h");
        drop(h);
        r?;
        self.stream_small(&params.l, &mut t, "warm_g1")?;
        self.stream_small(&params.b_g2, &mut t, "warm_g2")?;
        // The lean buffers of the small domain and the passes' scratch are
        // of no later use.
        self.ntt.buffers().release_held();
        cuzk_msm::gpu::release_scratch(&self.device)?;
        Ok(())
    }

    /// A streamed pass of a small bitmap sum and gathered tail.
    fn stream_small<C: GpuPoint>(
        &self,
        host: &[C],
        t: &mut Timings,
        stage: &'static str,
    ) -> Result<()> {
        if host.is_empty() {
            return Ok(());
        }
        let split = split_for(host.len())?;
        let mut ops = Vec::new();
        split_ops(&[(0, &split)], &mut ops);
        self.stream_msm(host, &ops, None, t, stage)?;
        Ok(())
    }
}
