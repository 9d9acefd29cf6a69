//! Fixed-base scalar multiplication for parameter generation: one base
//! (the generator) times millions of scalars.
//!
//! [`GeneratorMul`] is the one step where the CPU and the GPU setup differ:
//! it turns a vector of scalars into the points `sᵢ·G` of G1 or G2.
//! [`CpuGeneratorMul`] uses [`FixedBase`] tables on the CPU; with feature
//! `cuda`, [`GpuGeneratorMul`] uses cuzk-msm's device fixed-base kernels.
//! Both return the same (unique) affine points.
//!
//! CPU method: a table of `k·2^(8w)·G` for every byte position `w` and byte
//! value `k` turns one multiplication into at most 32 mixed additions
//! instead of ~255 doublings and ~128 additions: about 10× fewer group
//! operations. The table is 32 × 256 affine points (768 KiB for G1, 1.5 MiB
//! for G2).

use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rayon::prelude::*;
use std::ops::AddAssign;

use crate::error::Result;
use cuzk_field::{Fr, G1Affine, G1Projective, G2Affine, G2Projective};

/// Progress of one multiplication: called with the number of points just
/// finished (the calls add up to the vector's length).
pub(crate) type Done<'a> = &'a (dyn Fn(usize) + Sync);

/// `scalarsᵢ · G` for the generator G of G1 or G2, affine.
pub(crate) trait GeneratorMul {
    /// In G1.
    fn g1(&self, scalars: &[Fr], progress: Done<'_>) -> Result<Vec<G1Affine>>;
    /// In G2.
    fn g2(&self, scalars: &[Fr], progress: Done<'_>) -> Result<Vec<G2Affine>>;
}

/// The CPU multiplier: byte-window tables of both generators.
#[derive(Debug)]
pub(crate) struct CpuGeneratorMul {
    g1: FixedBase<G1Projective>,
    g2: FixedBase<G2Projective>,
}

impl CpuGeneratorMul {
    pub(crate) fn new() -> Self {
        Self {
            g1: FixedBase::new(G1Projective::generator()),
            g2: FixedBase::new(G2Projective::generator()),
        }
    }
}

impl GeneratorMul for CpuGeneratorMul {
    fn g1(&self, scalars: &[Fr], progress: Done<'_>) -> Result<Vec<G1Affine>> {
        Ok(self.g1.mul_many(scalars, progress))
    }
    fn g2(&self, scalars: &[Fr], progress: Done<'_>) -> Result<Vec<G2Affine>> {
        Ok(self.g2.mul_many(scalars, progress))
    }
}

#[cfg(feature = "cuda")]
pub(crate) use gpu::GpuGeneratorMul;

#[cfg(feature = "cuda")]
mod gpu {
    use cuzk_field::{Fr, G1Affine, G2Affine, PrimeCurveAffine};
    use cuzk_msm::gpu::{fixed_base_window, GpuFixedBase};

    use super::{Done, GeneratorMul};
    use crate::error::Result;

    /// The GPU multiplier: both generators' tables resident on one device
    /// (cuzk-msm's `GpuFixedBase`), scalars in chunks of up to 2^22.
    #[derive(Debug)]
    pub(crate) struct GpuGeneratorMul {
        g1: GpuFixedBase<G1Affine>,
        g2: GpuFixedBase<G2Affine>,
    }

    impl GpuGeneratorMul {
        /// Tables for vectors of up to about `max_len` scalars (the window
        /// width follows from it) on device `ordinal`.
        pub(crate) fn new(ordinal: usize, max_len: usize) -> Result<Self> {
            let device = cuzk_gpu::Device::new(ordinal)?;
            let w = fixed_base_window(max_len);
            Ok(Self {
                g1: GpuFixedBase::new(&device, &G1Affine::generator(), w)?,
                g2: GpuFixedBase::new(&device, &G2Affine::generator(), w)?,
            })
        }
    }

    impl GeneratorMul for GpuGeneratorMul {
        fn g1(&self, scalars: &[Fr], progress: Done<'_>) -> Result<Vec<G1Affine>> {
            Ok(self.g1.mul_with_progress(scalars, progress)?)
        }
        fn g2(&self, scalars: &[Fr], progress: Done<'_>) -> Result<Vec<G2Affine>> {
            Ok(self.g2.mul_with_progress(scalars, progress)?)
        }
    }
}

/// Precomputed multiples of one base point.
#[derive(Debug)]
pub(crate) struct FixedBase<G: Curve> {
    table: Vec<G::AffineRepr>,
}

impl<G> FixedBase<G>
where
    G: Curve + Group<Scalar = Fr> + Send + Sync + for<'a> AddAssign<&'a G::AffineRepr>,
    G::AffineRepr: PrimeCurveAffine<Curve = G> + Send + Sync + Copy,
{
    pub(crate) fn new(base: G) -> Self {
        let mut proj = Vec::with_capacity(32 * 256);
        let mut row_base = base;
        for _ in 0..32 {
            let mut acc = G::identity();
            for _ in 0..256 {
                proj.push(acc);
                acc += row_base;
            }
            // acc is now 256·row_base = the next row's base.
            row_base = acc;
        }
        let mut table = vec![G::AffineRepr::identity(); proj.len()];
        G::batch_normalize(&proj, &mut table);
        Self { table }
    }

    /// `scalar · base`.
    pub(crate) fn mul(&self, scalar: &Fr) -> G {
        let bytes = scalar.to_bytes_le();
        let mut acc = G::identity();
        for (w, &b) in bytes.iter().enumerate() {
            if b != 0 {
                acc += &self.table[w * 256 + b as usize];
            }
        }
        acc
    }

    /// `scalarᵢ · base` for all i, in parallel, normalised to affine.
    pub(crate) fn mul_many(&self, scalars: &[Fr], progress: Done<'_>) -> Vec<G::AffineRepr> {
        let mut out = vec![G::AffineRepr::identity(); scalars.len()];
        out.par_chunks_mut(4096)
            .zip(scalars.par_chunks(4096))
            .for_each(|(o, s)| {
                let proj: Vec<G> = s.iter().map(|x| self.mul(x)).collect();
                G::batch_normalize(&proj, o);
                progress(s.len());
            });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn matches_plain_multiplication() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let g1 = G1Projective::random(&mut rng);
        let g2 = G2Projective::random(&mut rng);
        let t1 = FixedBase::new(g1);
        let t2 = FixedBase::new(g2);
        let mut scalars: Vec<Fr> = (0..50).map(|_| Fr::random(&mut rng)).collect();
        scalars.extend([
            Fr::ZERO,
            Fr::ONE,
            -Fr::ONE,
            Fr::from(256u64),
            Fr::from(255u64),
        ]);
        let a1 = t1.mul_many(&scalars, &|_| {});
        let a2 = t2.mul_many(&scalars, &|_| {});
        for (i, s) in scalars.iter().enumerate() {
            assert_eq!(a1[i], (g1 * s).to_affine(), "G1 scalar {i}");
            assert_eq!(a2[i], (g2 * s).to_affine(), "G2 scalar {i}");
        }
    }
}
