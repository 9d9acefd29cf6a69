//! # cuzk-pairing
//!
//! Many BLS12-381 pairing products Π e(Pᵢ, Qᵢ) at once, as SnarkPack's
//! commitments and GIPA rounds need them. A product's value after the
//! final exponentiation does not depend on how its Miller loops were
//! grouped, so each product is Miller loops (in any grouping) multiplied
//! together, then one final exponentiation.
//!
//! Where the Miller loops run ([`Pairing`]):
//! - [`Pairing::cpu`]: blst's `miller_loop_n` (16 pairs share each step's
//!   Fp12 squaring, its thread pool spreads the groups over every core),
//!   the products side by side on rayon;
//! - `Pairing::gpu` (`cuda` feature): one device thread per task of a few
//!   pairs, a product tree per product on the device
//!   (`cuda/miller_products.cuh`); calls with fewer than
//!   [`GPU_MIN_PAIRS`] pairs stay on the CPU, where one Miller loop's
//!   latency is shorter;
//! - [`Pairing::host_twin`]: the device's code run on the CPU, for the
//!   differential tests against blst.
//!
//! In every case the final exponentiations are blst's, on the CPU.
#![deny(unsafe_code)]

#[allow(unsafe_code)]
mod ffi;
#[cfg(feature = "cuda")]
mod gpu;
mod plan;
#[allow(unsafe_code)]
mod sys;

use blst::{blst_fp12, blst_p1_affine, blst_p2_affine};
use cuzk_field::{Fp12, G1Affine, G2Affine, Group, Gt, PrimeCurveAffine};
use cuzk_gpu::GpuError;
use rayon::prelude::*;

/// One term of a product: G1 and G2 points paired element by element.
pub type Term<'a> = (&'a [G1Affine], &'a [G2Affine]);

/// Calls with fewer pairs than this take the CPU even on a GPU
/// [`Pairing`]: a device thread runs one Miller loop in about the time 16
/// CPU cores run 16 (derived: ~8,000 Fp products per loop at a thread's
/// serial speed), so small calls are latency, not work.
pub const GPU_MIN_PAIRS: usize = 256;

/// Why a product could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum PairingError {
    /// A term pairs slices of different lengths.
    #[error("product {product}, term {term}: {g1} G1 points against {g2} G2 points")]
    Length {
        product: usize,
        term: usize,
        g1: usize,
        g2: usize,
    },
    /// More pairs or products in one call than the device path counts (32
    /// bits).
    #[error("{0} pairs in one call; the device path takes at most 2³² − 1")]
    TooMany(usize),
    /// The device failed (out of memory, a CUDA error).
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// Where the Miller loops of [`Pairing::products`] run.
#[derive(Debug)]
pub struct Pairing {
    kind: Kind,
    /// [`Pairing::auto`]'s GPU: a device failure other than a full card
    /// moves this pairing to the CPU for good (the values are the same),
    /// recorded here.
    fallback: Option<parking_lot::Mutex<Option<GpuError>>>,
}

#[derive(Debug)]
enum Kind {
    Cpu,
    HostTwin(usize),
    #[cfg(feature = "cuda")]
    Gpu(gpu::GpuMiller),
}

impl Pairing {
    /// blst's Miller loops on every core.
    pub fn cpu() -> Pairing {
        Pairing {
            kind: Kind::Cpu,
            fallback: None,
        }
    }

    /// The device's Miller-loop code run on the CPU, slowly, whatever the
    /// call's size, with `pairs_per_task` pairs per device thread: what the
    /// tests compare with blst.
    pub fn host_twin(pairs_per_task: usize) -> Pairing {
        Pairing {
            kind: Kind::HostTwin(pairs_per_task),
            fallback: None,
        }
    }

    /// The Miller loops of calls with at least [`GPU_MIN_PAIRS`] pairs on
    /// `device`; a device failure is the call's error.
    #[cfg(feature = "cuda")]
    pub fn gpu(device: &cuzk_gpu::Device) -> Result<Pairing, PairingError> {
        Ok(Pairing {
            kind: Kind::Gpu(gpu::GpuMiller::new(device)?),
            fallback: None,
        })
    }

    /// GPU 0 where this build has CUDA and a device answers, else the CPU.
    /// Unlike [`Pairing::gpu`], a device failure does not fail the call:
    /// a card too full for the call's buffers moves that call to the CPU;
    /// any other device error moves it and every later call there, and
    /// [`Pairing::gpu_failure`] says why.
    pub fn auto() -> Pairing {
        #[cfg(feature = "cuda")]
        if let Ok(mut p) = cuzk_gpu::Device::new(0)
            .map_err(PairingError::from)
            .and_then(|d| Pairing::gpu(&d))
        {
            p.fallback = Some(parking_lot::Mutex::new(None));
            return p;
        }
        Pairing::cpu()
    }

    /// Why an [`Pairing::auto`] GPU pairing moved to the CPU, if it did.
    pub fn gpu_failure(&self) -> Option<String> {
        let f = self.fallback.as_ref()?;
        f.lock().as_ref().map(|e| e.to_string())
    }

    /// The device, for a GPU pairing.
    pub fn device(&self) -> Option<cuzk_gpu::Device> {
        match &self.kind {
            #[cfg(feature = "cuda")]
            Kind::Gpu(g) => Some(g.device()),
            _ => None,
        }
    }

    /// Π over every pair of every term, one value per product, in order.
    /// A pair with the point at infinity on either side contributes 1.
    pub fn products<'a, P: AsRef<[Term<'a>]> + Sync>(
        &self,
        products: &[P],
    ) -> Result<Vec<Gt>, PairingError> {
        let pairs = Pairs::gather(products)?;
        let miller: Vec<Fp12> = match &self.kind {
            Kind::Cpu => return Ok(pairs.on_cpu()),
            Kind::HostTwin(chunk) => {
                let plan = plan::Plan::new(&pairs.lens, *chunk)?;
                ffi::host_miller(&pairs.p, &pairs.q, &plan)?
            }
            #[cfg(feature = "cuda")]
            Kind::Gpu(g) => {
                let failed = self.fallback.as_ref().is_some_and(|f| f.lock().is_some());
                if pairs.p.len() < GPU_MIN_PAIRS || failed {
                    return Ok(pairs.on_cpu());
                }
                match (g.miller(&pairs.p, &pairs.q, &pairs.lens), &self.fallback) {
                    (Ok(m), _) => m,
                    // A card that is full now (the engine's partitions
                    // hold it) may have room for the next call: this call
                    // alone moves to the CPU.
                    (Err(PairingError::Gpu(GpuError::OutOfMemory { .. })), Some(_)) => {
                        return Ok(pairs.on_cpu());
                    }
                    (Err(PairingError::Gpu(e)), Some(f)) => {
                        f.lock().get_or_insert(e);
                        return Ok(pairs.on_cpu());
                    }
                    (Err(e), _) => return Err(e),
                }
            }
        };
        Ok(miller
            .into_par_iter()
            .map(|f| Gt::from(Fp12::from(blst_fp12::from(f).final_exp())))
            .collect())
    }

    /// One product (see [`Pairing::products`]).
    pub fn product(&self, terms: &[Term<'_>]) -> Result<Gt, PairingError> {
        Ok(self.products(&[terms])?[0])
    }
}

/// A call's non-trivial pairs, product after product.
struct Pairs {
    p: Vec<G1Affine>,
    q: Vec<G2Affine>,
    /// Pairs per product.
    lens: Vec<usize>,
}

impl Pairs {
    fn gather<'a, P: AsRef<[Term<'a>]>>(products: &[P]) -> Result<Pairs, PairingError> {
        let mut len = 0;
        for (i, terms) in products.iter().enumerate() {
            for (j, (g1, g2)) in terms.as_ref().iter().enumerate() {
                if g1.len() != g2.len() {
                    return Err(PairingError::Length {
                        product: i,
                        term: j,
                        g1: g1.len(),
                        g2: g2.len(),
                    });
                }
                len += g1.len();
            }
        }
        let mut out = Pairs {
            p: Vec::with_capacity(len),
            q: Vec::with_capacity(len),
            lens: Vec::with_capacity(products.len()),
        };
        for terms in products {
            let before = out.p.len();
            for (g1, g2) in terms.as_ref() {
                for (p, q) in g1.iter().zip(g2.iter()) {
                    if bool::from(p.is_identity() | q.is_identity()) {
                        continue;
                    }
                    out.p.push(*p);
                    out.q.push(*q);
                }
            }
            out.lens.push(out.p.len() - before);
        }
        Ok(out)
    }

    /// Each product as one blst multi-Miller loop and final
    /// exponentiation, the products side by side.
    fn on_cpu(&self) -> Vec<Gt> {
        let mut at = 0;
        let ranges: Vec<_> = self
            .lens
            .iter()
            .map(|&n| {
                at += n;
                at - n..at
            })
            .collect();
        ranges
            .into_par_iter()
            .map(|r| {
                if r.is_empty() {
                    return Gt::identity();
                }
                let ps: Vec<blst_p1_affine> =
                    self.p[r.clone()].iter().map(|p| *p.as_ref()).collect();
                let qs: Vec<blst_p2_affine> = self.q[r].iter().map(|q| *q.as_ref()).collect();
                Gt::from(Fp12::from(blst_fp12::miller_loop_n(&qs, &ps).final_exp()))
            })
            .collect()
    }
}
