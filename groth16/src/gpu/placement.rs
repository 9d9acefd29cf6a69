//! Placing a parameter set on one device: resident (bases uploaded once)
//! or streamed from page-locked host memory under a [`StreamPlan`], the
//! recorded circuits a streamed placement admits, and the one-line
//! account of each placement that reports print ([`Backend::describe`]).

use std::sync::Arc;

use cuzk_field::{Fr, G1Affine};
use cuzk_pinned_mem::SharedRegistration;
use cuzk_synth::compiled::CompiledR1cs;

use super::*;
use crate::backend::Backend;
use crate::error::{Groth16Error, Result};
use crate::params::Parameters;

/// The placement note's account of the warm-up ([`GpuBackend::warm_up`]).
pub(super) fn warmed(t: std::time::Duration) -> String {
    if t.is_zero() {
        String::new()
    } else {
        format!("; warmed up in {:.2} s", t.as_secs_f64())
    }
}

impl GpuBackend {
    /// Uploads `params`' bases once so every later partition proved against
    /// this same `Arc` uses them from device memory. With
    /// [`Residency::Auto`], decides from free device memory; returns the
    /// residency in effect. Replaces any previously preloaded set.
    pub fn preload(&self, params: &Arc<Parameters>, mode: Residency) -> Result<Residency> {
        self.preload_keyed(params, params, mode)
    }

    /// [`GpuBackend::preload`] of the queries of `set`, with later
    /// partitions recognised by `key` (the same set, possibly without its
    /// queries: [`Parameters::without_queries`]). A transient placement
    /// needs the queries in `key`.
    pub fn preload_keyed(
        &self,
        set: &Parameters,
        key: &Arc<Parameters>,
        mode: Residency,
    ) -> Result<Residency> {
        if !set.has_queries() {
            return Err(crate::backend::released_error(self.name()));
        }
        let params = set;
        let asked = mode;
        let mut slot = self.resident.lock();
        self.notes.lock().clear();
        *slot = None; // free the old set before measuring free memory
        *self.r1cs.lock() = None; // the old placement's matrices
        self.ntt.buffers().clear(); // and the old set's H-step buffers
        self.depth.store(1, std::sync::atomic::Ordering::Relaxed);
        self.unpin();
        let need = bases_bytes(params) + working_bytes(params, 1);
        let free = self.available();
        let mode = match mode {
            Residency::Auto if need <= free => Residency::Resident,
            Residency::Auto => Residency::Transient,
            m => m,
        };
        // Admission: a set this device cannot prove with at all is refused
        // here, with what it needs, never by an allocation failing later.
        let (least, detail) = match mode {
            Residency::Resident => (
                need,
                format!(
                    "resident: bases {:.1} GiB and one partition's working set {:.1} GiB",
                    bases_bytes(params) as f64 / (1u64 << 30) as f64,
                    working_bytes(params, 1) as f64 / (1u64 << 30) as f64
                ),
            ),
            _ => min_device_bytes(params),
        };
        if least > free {
            return Err(Groth16Error::DeviceTooSmall {
                backend: self.name(),
                need: least,
                detail,
                available: free,
                limit: self.budget.limit,
                total: self.budget.total,
            });
        }
        if mode == Residency::Resident {
            let _g = self.device_lock.lock();
            let cap = cuzk_gpu::tuning::Tuning::get().h_copies_cap;
            let h_pre = h_precomputed(params, self.available(), cap);
            let bases = Arc::new(self.upload(params, h_pre)?);
            *slot = Some(ResidentSet {
                params: Arc::clone(key),
                bases: Arc::clone(&bases),
            });
            // Two partitions in flight (one's H step beside the other's
            // MSMs) only when both working sets fit beside the bases.
            // (An unreadable free-memory figure just means no pipelining.)
            let depth = if self.available() >= working_bytes(params, 2) {
                2
            } else {
                1
            };
            self.depth
                .store(depth, std::sync::atomic::Ordering::Relaxed);
            self.keep_h_buffers(depth, params);
            let warm = match self.warm_up(params, Some(&bases)) {
                Ok(t) => t,
                Err(e) => {
                    // Nothing of a failed placement stays on the device.
                    *slot = None;
                    self.ntt.buffers().clear();
                    return Err(e);
                }
            };
            let copies = match h_pre {
                Some(p) if p.copies > 1 => {
                    format!(", H bases with {} shifted copies", p.copies - 1)
                }
                _ => String::new(),
            };
            self.note(
                key,
                format!(
                    "resident: bases {} and {depth} partition working set{} {} in {} free of the {} limit{copies}{}",
                    gib(bases_bytes(params)),
                    if depth == 1 { "" } else { "s" },
                    gib(working_bytes(params, depth)),
                    gib(free),
                    gib(self.budget.limit),
                    warmed(warm)
                ),
            );
        } else {
            if !key.has_queries() {
                // Streamed sets are recognised by the full set, which
                // `place` passes next (pins need the queries).
                return Ok(Residency::Transient);
            }
            self.pin(key);
            self.plan_stream(params, free)?;
            let warm = {
                let _g = self.device_lock.lock();
                self.warm_up(params, None)?
            };
            let why = match asked {
                Residency::Transient => "residency transient (configured)".to_string(),
                _ => format!(
                    "resident would need {} (bases {}, one partition {}), {} free of the {} limit",
                    gib(need),
                    gib(bases_bytes(params)),
                    gib(working_bytes(params, 1)),
                    gib(free),
                    gib(self.budget.limit)
                ),
            };
            self.note(key, format!("{why}{}", warmed(warm)));
        }
        Ok(mode)
    }

    /// Records why `key` is placed as it is, for [`Backend::describe`].
    pub(super) fn note(&self, key: &Arc<Parameters>, why: String) {
        let id = Arc::as_ptr(key) as usize;
        let mut notes = self.notes.lock();
        notes.retain(|(k, _)| *k != id);
        notes.push((id, why));
    }

    /// [`Backend::describe`]: the placement's reason and, for the
    /// streamed set, its plan as it stands (chunks shrink and recorded
    /// circuits join as partitions arrive).
    pub(super) fn describe_placement(&self, key: &Parameters) -> String {
        let id = key as *const Parameters as usize;
        let why = self
            .notes
            .lock()
            .iter()
            .find(|(k, _)| *k == id)
            .map(|(_, w)| w.clone());
        let Some(why) = why else {
            return "not placed on this device".into();
        };
        if why.starts_with("resident") {
            return why;
        }
        let plan = match self.plan.try_lock().map(|p| p.clone()) {
            Some(Some(p)) => p,
            _ => return format!("streamed from page-locked host memory: {why}"),
        };
        let log = |n: usize| n.trailing_zeros();
        let abc = if plan.admitted().is_empty() {
            "a, b, c on the device once a recorded circuit fits, else on the CPU".to_string()
        } else {
            plan.admitted()
                .iter()
                .map(|(_, m)| match m {
                    RecordMode::Resident => "a, b, c on the device (matrices kept)",
                    RecordMode::PerMatrix => {
                        "a, b, c on the device (one matrix at a time from page-locked memory)"
                    }
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        format!(
            "streamed from page-locked host memory ({} pinned): {why}; chunks 2^{} G1, 2^{} G2 in {}; {abc}",
            gib(self.pinned_bytes() as u64),
            log(plan.chunks.0),
            log(plan.chunks.1),
            gib(plan.room()),
        )
    }

    /// Marks the backend as streaming `params` and fixes the chunk sizes
    /// from `free`, the bytes it may use (admission checked that the
    /// smallest chunks fit: [`streamed_bytes`]); the H step keeps its two
    /// lean buffers.
    pub(super) fn plan_stream(&self, params: &Parameters, free: u64) -> Result<()> {
        let plan = StreamPlan::new(params.counts(), free).ok_or_else(|| {
            let (need, detail) = min_device_bytes(params);
            Groth16Error::DeviceTooSmall {
                backend: self.name(),
                need,
                detail,
                available: free,
                limit: self.budget.limit,
                total: self.budget.total,
            }
        })?;
        *self.plan.lock() = Some(plan);
        self.record_pins.lock().clear();
        let two = 2 * params.domain_size() * std::mem::size_of::<Fr>();
        self.ntt.buffers().set_limit(two);
        Ok(())
    }

    /// How a streamed placement computes `key`'s a, b, c on the device
    /// (`None`: not admitted, or nothing streams).
    pub(super) fn record_mode(&self, key: &cuzk_synth::compiled::CircuitKey) -> Option<RecordMode> {
        self.plan.lock().as_ref().and_then(|p| p.mode(key))
    }

    /// Page-locks the matrices of `rec` for one-at-a-time uploads. A
    /// failure leaves them pageable: slower uploads, same proofs.
    pub(super) fn pin_record(&self, rec: &Arc<CompiledR1cs>) {
        let mut pins = self.record_pins.lock();
        if pins.iter().any(|p| p.owner().key() == rec.key()) {
            return;
        }
        for which in 0..3 {
            pins.extend(
                [
                    SharedRegistration::new(Arc::clone(rec), move |c: &CompiledR1cs| {
                        c.matrices()[which].row_ptr()
                    }),
                    SharedRegistration::new(Arc::clone(rec), move |c: &CompiledR1cs| {
                        c.matrices()[which].cols()
                    }),
                ]
                .into_iter()
                .filter_map(|r| r.ok()),
            );
            pins.extend(
                SharedRegistration::new(Arc::clone(rec), move |c: &CompiledR1cs| {
                    c.matrices()[which].coeff_idx().as_bytes()
                })
                .ok(),
            );
            pins.extend(
                SharedRegistration::new(Arc::clone(rec), move |c: &CompiledR1cs| {
                    c.matrices()[which].table()
                })
                .ok(),
            );
        }
    }

    /// Lets the H step keep the buffers of `depth` partitions between
    /// calls: the working memory the placement reserved for them
    /// ([`partition_bytes`] each), so the pool never holds more than the
    /// budget already counts as used. Keeping them saves an allocation and a
    /// `cudaFree` (which waits for the whole device, the other partition's
    /// MSMs included) per buffer and partition.
    pub(super) fn keep_h_buffers(&self, depth: usize, params: &Parameters) {
        let bytes = (depth as u64).saturating_mul(partition_bytes(params));
        self.ntt
            .buffers()
            .set_limit(usize::try_from(bytes).unwrap_or(usize::MAX));
    }

    /// The set preloaded as resident, if any.
    pub(super) fn resident_key(&self) -> Option<Arc<Parameters>> {
        self.resident.lock().as_ref().map(|r| Arc::clone(&r.params))
    }

    /// Page-locks the five queries of `params` for transient uploads. A
    /// failure (memory-lock limits) leaves them pageable: slower uploads,
    /// same proofs.
    pub(super) fn pin(&self, params: &Arc<Parameters>) {
        let g1 = |f: fn(&Parameters) -> &[G1Affine]| SharedRegistration::new(Arc::clone(params), f);
        let pins = [
            g1(|p| &p.h),
            g1(|p| &p.l),
            g1(|p| &p.a),
            g1(|p| &p.b_g1),
            SharedRegistration::new(Arc::clone(params), |p: &Parameters| &p.b_g2[..]),
        ];
        *self.pinned.lock() = pins.into_iter().filter_map(|r| r.ok()).collect();
    }

    /// Ends a streamed placement: unregisters the pinned queries and
    /// matrices (outside any transient upload) and forgets its plan.
    pub(super) fn unpin(&self) {
        let _g = self.device_lock.lock();
        self.pinned.lock().clear();
        self.record_pins.lock().clear();
        *self.plan.lock() = None;
    }
}
