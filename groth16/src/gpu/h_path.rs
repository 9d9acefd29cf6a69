//! The H path of a partition on the device: the witness uploaded (by DMA
//! from the page-locked pool, or staged), a, b, c computed from the
//! recorded circuit's resident matrices, and the H step.

use std::sync::Arc;

use cuzk_field::Fr;
use cuzk_gpu::{DeviceBuffer, Stream};
use cuzk_spmv::gpu::DeviceR1cs;
use cuzk_synth::compiled::CompiledR1cs;
use cuzk_synth::ProvingAssignment;

use super::{spmv_err, working_bytes, GpuBackend, RecordMode};
use crate::error::{Groth16Error, Result};
use crate::params::Parameters;
use crate::timings::Timings;

impl GpuBackend {
    /// The device copy of `rec`'s matrices, uploaded on first use (one
    /// recorded circuit per backend: another one replaces it). Two
    /// partitions then no longer fit beside it? The pipeline depth drops
    /// to 1 rather than risk a failed allocation mid-proof.
    pub(super) fn device_r1cs(
        &self,
        rec: &CompiledR1cs,
        params: &Parameters,
        times: &mut Timings,
    ) -> Result<Arc<DeviceR1cs>> {
        let mut slot = self.r1cs.lock();
        if let Some(d) = slot.as_ref().filter(|d| d.key() == rec.key()) {
            return Ok(Arc::clone(d));
        }
        *slot = None; // free the old copy before allocating the new one
        let stream = Stream::new(&self.device)?;
        let d = times
            .time("upload_r1cs", || DeviceR1cs::upload(&stream, rec))
            .map_err(spmv_err)?;
        let d = Arc::new(d);
        *slot = Some(Arc::clone(&d));
        let depth = self.depth.load(std::sync::atomic::Ordering::Relaxed);
        // Buffers the H step keeps are working memory, free for this.
        let free = self.available() + self.ntt.buffers().held_bytes() as u64;
        if depth > 1 && free < working_bytes(params, depth) {
            self.depth.store(1, std::sync::atomic::Ordering::Relaxed);
            self.keep_h_buffers(1, params);
        }
        Ok(d)
    }

    /// The witness of `pa` (inputs, aux) in device buffers from the H
    /// step's pool. Aux in pooled page-locked memory (the engine's witness
    /// buffers, [`GpuBackend::witness_alloc`]) goes up by DMA on a copy
    /// stream of this call's own, with no CPU copy and no lock shared with
    /// the other GPU worker, overlapping whatever kernels run meanwhile; it
    /// has landed when this returns. Other memory goes through the NTT's
    /// staging ring (a CPU copy into pinned chunks), enqueued ahead of the
    /// backend stream's next work.
    pub(super) fn upload_witness(
        &self,
        pa: &ProvingAssignment,
    ) -> Result<(DeviceBuffer<Fr>, DeviceBuffer<Fr>)> {
        let pool = self.ntt.buffers();
        if pa.aux_assignment.is_page_locked() {
            // The copy stream writes the buffers first, so it is the one
            // that waits for their previous users (the pool's events).
            let copy = Stream::new(&self.device)?;
            let mut inputs = pool.take(pa.input_assignment.len(), &copy)?;
            let mut aux = pool.take(pa.aux_assignment.len(), &copy)?;
            inputs.upload(&copy, &pa.input_assignment)?;
            aux.upload(&copy, &pa.aux_assignment)?;
            return Ok((inputs, aux));
        }
        let s = &self.stream;
        let mut inputs = pool.take(pa.input_assignment.len(), s)?;
        let mut aux = pool.take(pa.aux_assignment.len(), s)?;
        self.ntt.upload(s, &mut inputs, &pa.input_assignment)?;
        self.ntt.upload(s, &mut aux, &pa.aux_assignment)?;
        Ok((inputs, aux))
    }

    /// The H step of a deferred assignment: the witness uploaded, a, b, c
    /// computed on the device from `rec`'s resident matrices straight into
    /// the H step's buffers (zero-padded to the domain), then the
    /// transforms. Returns the buffer holding h; the stage split comes
    /// from CUDA events, so nothing synchronises inside.
    pub(super) fn h_from_record(
        &self,
        rec: &CompiledR1cs,
        params: &Parameters,
        pa: &ProvingAssignment,
        times: &mut Timings,
    ) -> Result<DeviceBuffer<Fr>> {
        use cuzk_gpu::Event;
        let dev = self.device_r1cs(rec, params, times)?;
        let n = params.domain_size();
        let s = &self.stream;
        let pool = self.ntt.buffers();
        let take = |len: usize| pool.take(len, s).map_err(Groth16Error::from);
        let (mut a, mut b, mut c) = (take(n)?, take(n)?, take(n)?);
        let ev = (0..3)
            .map(|_| Event::new(&self.device))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let t = std::time::Instant::now();
        // Returns once the witness is on the device (DMA) or its copies are
        // enqueued ahead of `s`'s next work (staged): the host clock then
        // measures the upload, the events the rest.
        let (inputs, aux) = self.upload_witness(pa)?;
        let up = t.elapsed();
        ev[0].record(s)?;
        dev.evaluate(s, &inputs, &aux, [&mut a, &mut b, &mut c])
            .map_err(spmv_err)?;
        ev[1].record(s)?;
        self.ntt.h_step_device(s, &mut a, &mut b, &mut c)?;
        ev[2].record(s)?;
        ev[2].synchronize()?;
        let wall = t.elapsed();
        // A failed measurement reads as zero: a timing never fails a step
        // whose result is good.
        let ms = |i: usize, j: usize| f64::from(ev[i].elapsed_ms(&ev[j]).unwrap_or(0.0).max(0.0));
        let d = |m: f64| std::time::Duration::from_secs_f64(m / 1e3);
        let spmv = d(ms(0, 1)).min(wall.saturating_sub(up));
        times.add_at("upload_z", t, up);
        times.add_at("spmv", t + up, spmv);
        times.add_at("ntt_h", t + up + spmv, wall.saturating_sub(up + spmv));
        for buf in [inputs, aux, b, c] {
            pool.put(buf, s);
        }
        Ok(a)
    }

    /// [`GpuBackend::h_from_record`] for a streamed placement, in the
    /// lean H step's two buffers: the witness uploaded, then a, b and c
    /// each computed into its buffer as the step needs it, from the
    /// matrices kept on the device ([`RecordMode::Resident`]) or from one
    /// matrix at a time, uploaded from page-locked host memory on a copy
    /// stream of its own (so C's upload overlaps the transforms of a and b)
    /// and freed after its product ([`RecordMode::PerMatrix`]). Stages:
    /// `upload_z`, `upload_r1cs` (per matrix: the host's wait for each
    /// upload), `spmv` (CUDA events) and `ntt_h` (the rest).
    pub(super) fn h_from_record_lean(
        &self,
        rec: &CompiledR1cs,
        mode: RecordMode,
        params: &Parameters,
        pa: &ProvingAssignment,
        times: &mut Timings,
    ) -> Result<DeviceBuffer<Fr>> {
        use cuzk_gpu::Event;
        let resident = match mode {
            RecordMode::Resident => Some(self.device_r1cs(rec, params, times)?),
            RecordMode::PerMatrix => None,
        };
        let s = &self.stream;
        let copy = Stream::new(&self.device)?;
        let ev = (0..6)
            .map(|_| Event::new(&self.device))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let t = std::time::Instant::now();
        let (inputs, aux) = self.upload_witness(pa)?;
        let up = t.elapsed();
        let mut matrices = std::time::Duration::ZERO;
        let h = self
            .ntt
            .h_step_lean_with(s, params.domain_size(), |i, out| -> Result<()> {
                let one;
                let dev = match &resident {
                    Some(d) => d.as_ref(),
                    None => {
                        let tm = std::time::Instant::now();
                        one = DeviceR1cs::upload_matrix(&copy, rec, i).map_err(spmv_err)?;
                        matrices += tm.elapsed();
                        &one
                    }
                };
                ev[2 * i].record(s)?;
                dev.evaluate_one(s, i, &inputs, &aux, out)
                    .map_err(spmv_err)?;
                ev[2 * i + 1].record(s)?;
                // A matrix uploaded for this product is freed here: cudaFree
                // waits for the device, the product included.
                Ok(())
            })?;
        s.synchronize()?;
        let wall = t.elapsed();
        let ms = |i: usize| f64::from(ev[2 * i].elapsed_ms(&ev[2 * i + 1]).unwrap_or(0.0).max(0.0));
        let spmv = std::time::Duration::from_secs_f64((ms(0) + ms(1) + ms(2)) / 1e3);
        let rest = wall.saturating_sub(up);
        let matrices = matrices.min(rest);
        let spmv = spmv.min(rest - matrices);
        times.add_at("upload_z", t, up);
        times.add_at("upload_r1cs", t + up, matrices);
        times.add_at("spmv", t + up + matrices, spmv);
        times.add_at("ntt_h", t + up + matrices + spmv, rest - matrices - spmv);
        let pool = self.ntt.buffers();
        for buf in [inputs, aux] {
            pool.put(buf, s);
        }
        Ok(h)
    }
}
