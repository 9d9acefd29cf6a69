//! The CPU backend: rayon-parallel, cache-blocked radix-2 transforms over
//! [`Fr`] and the Groth16 quotient step built from them.
//!
//! Cost model (measured on the 2-core AMD EPYC development VM): a blst `Fr`
//! multiplication is ~20–25 ns, and blst's fused butterfly ~22 ns against
//! ~37 ns for the same butterfly through blstrs operators (see `blst_ops`);
//! streaming memory runs at ~3 GB/s per core. A transform of `n = 2^L`
//! points does `n/2·L − (n − 1)` multiplications (every twiddle comes from a
//! table, trivial ones are skipped) and sweeps main memory once per
//! recursion level of the blocked driver (twice for 2^20, see `kernels`).
//! Coset shifts and `1/n` factors are folded into small leaf twiddle tables
//! plus one multiply per element while the leaf is in cache.
//!
//! [`h_step`] per vector: inverse DIF, leaf scale, coset DIT in one
//! recursion (no permutation, three memory sweeps at 2^20); `a·b − c` with
//! every constant folded into the leaf scales; one inverse-coset DIF; one
//! bit-reversal. About `7·(n/2·L) + 5n` multiplications, against roughly
//! twice that (recomputed twiddles, separate scaling passes, a data shuffle
//! per parallel FFT) in bellperson 0.26.
//!
//! Measured with `cargo bench -p cuzk-ntt --bench ntt`, 2 threads
//! (bellperson 0.26 `EvaluationDomain` in the same binary):
//!
//! | | 2^16 | 2^18 | 2^20 |
//! |---|---|---|---|
//! | fft, ours / bellperson, Xeon pinned to 2 cores | 10.7 / 37.2 ms | 42.2 / 141 ms | 166 / 515 ms |
//! | h_step, ours / bellperson, same | 64 / 228 ms | 277 / 889 ms | 1.45 / 3.64 s |
//! | fft, ours / bellperson, dev VM (shared, loaded) | 18.4 / 63.4 ms | 99 / 166 ms | 160 / 471 ms |

mod bitrev;
mod blst_ops;
mod kernels;

pub use bitrev::bit_reverse_permute;

use crate::{NttError, MAX_LOG_SIZE};
use cuzk_field::{Field, Fr, PrimeField};
use kernels::{drive, Plan, Stage};
use rayon::prelude::*;
use std::fmt;
use std::sync::Arc;

/// Block sizes of the cache-blocked driver. Only tests and benchmarks need
/// to change them; [`Tuning::default`] is what [`Domain::new`] uses.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// log2 of the leaf size: sub-transforms this small run all their levels
    /// at once. 2^12 points are 128 KiB, well inside a 1 MiB L2; leaves of
    /// 2^10 to 2^14 measured within noise of each other (2^20 forward
    /// transform, one thread: 270–290 ms CPU).
    pub leaf_log: u32,
    /// At most this many levels per column pass (2^10 rows).
    pub split_log: u32,
    /// log2 of the elements in one column group's buffer (2^12: 128 KiB).
    pub group_log: u32,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            leaf_log: 12,
            split_log: 10,
            group_log: 12,
        }
    }
}

struct Inner {
    log_n: u32,
    n: usize,
    omega: Fr,
    omega_inv: Fr,
    size_inv: Fr,
    tuning: Tuning,
    /// `tw[h + x] = ω_{2h}^x` for every level `h < n`; `tw[0] = 1`.
    tw: Vec<Fr>,
    /// Leaf levels only (`h <` leaf size): `ω_{2h}^{-x}`.
    tw_inv_leaf: Vec<Fr>,
    /// Leaf levels of a DIT with coset shift `g`: `g^{n/2h}·ω_{2h}^x`.
    coset_leaf: Vec<Fr>,
    /// Leaf levels of a DIF with post-scale `g^{-k}`: `g^{-n/2h}·ω_{2h}^{-x}`.
    icoset_leaf: Vec<Fr>,
}

/// A radix-2 evaluation domain of `n = 2^k` points (`k ≤ 28`), the powers of
/// `ω`, a primitive `n`-th root of unity (`Fr::ROOT_OF_UNITY` squared
/// `32 − k` times, as bellperson derives it), with cached twiddle tables
/// (`32·n` bytes plus a few KiB). Cloning is cheap (shared tables).
#[derive(Clone)]
pub struct Domain {
    inner: Arc<Inner>,
}

impl fmt::Debug for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Domain")
            .field("log_size", &self.inner.log_n)
            .field("tuning", &self.inner.tuning)
            .finish_non_exhaustive()
    }
}

/// The coset shift bellperson uses: `Fr::MULTIPLICATIVE_GENERATOR` (7).
pub fn coset_generator() -> Fr {
    Fr::MULTIPLICATIVE_GENERATOR
}

/// The primitive `2^log_n`-th root of unity bellperson uses.
pub fn root_of_unity(log_n: u32) -> Result<Fr, NttError> {
    if log_n > Fr::S {
        return Err(NttError::DomainTooLarge {
            log_size: log_n,
            max_log_size: Fr::S,
        });
    }
    let mut w = Fr::ROOT_OF_UNITY;
    for _ in log_n..Fr::S {
        w = w.square();
    }
    Ok(w)
}

/// log2 of the smallest power of two ≥ `len` (0 for `len ≤ 1`).
fn log_for_len(len: usize) -> u32 {
    // Overflow-free for every usize (usize::MAX gives 64).
    usize::BITS - (len.max(1) - 1).leading_zeros()
}

impl Domain {
    /// The domain of `2^log_n` points.
    pub fn new(log_n: u32) -> Result<Domain, NttError> {
        Self::with_tuning(log_n, Tuning::default())
    }

    /// The smallest domain with at least `len` points (one point for `len ≤ 1`).
    pub fn for_len(len: usize) -> Result<Domain, NttError> {
        if len > 1usize << MAX_LOG_SIZE {
            return Err(NttError::DomainTooLarge {
                log_size: log_for_len(len),
                max_log_size: MAX_LOG_SIZE,
            });
        }
        Self::new(log_for_len(len))
    }

    /// [`Domain::new`] with explicit block sizes (tests use tiny ones to
    /// exercise the multi-pass code paths at small sizes).
    #[doc(hidden)]
    pub fn with_tuning(log_n: u32, tuning: Tuning) -> Result<Domain, NttError> {
        if log_n > MAX_LOG_SIZE {
            return Err(NttError::DomainTooLarge {
                log_size: log_n,
                max_log_size: MAX_LOG_SIZE,
            });
        }
        if tuning.split_log == 0 || tuning.leaf_log > MAX_LOG_SIZE || tuning.group_log > 24 {
            return Err(NttError::InvalidTuning(
                "need split_log ≥ 1, leaf_log ≤ 28, group_log ≤ 24",
            ));
        }
        let n = 1usize << log_n;
        let omega = root_of_unity(log_n)?;
        let omega_inv = omega.invert().unwrap_or(Fr::ONE);
        let size_inv = Fr::from(n as u64).invert().unwrap_or(Fr::ONE);
        let tw = build_twiddles(n, omega);
        let leaf_n = n.min(1 << tuning.leaf_log);
        let mut tw_inv_leaf = vec![Fr::ONE; leaf_n];
        let mut h = 1;
        while h < leaf_n {
            for x in 1..h {
                tw_inv_leaf[h + x] = -tw[2 * h - x];
            }
            h *= 2;
        }
        let g = coset_generator();
        let g_inv = g.invert().unwrap_or(Fr::ONE);
        let coset_leaf = coset_leaf_table(&tw[..leaf_n], n, g);
        let icoset_leaf = coset_leaf_table(&tw_inv_leaf, n, g_inv);
        Ok(Domain {
            inner: Arc::new(Inner {
                log_n,
                n,
                omega,
                omega_inv,
                size_inv,
                tuning,
                tw,
                tw_inv_leaf,
                coset_leaf,
                icoset_leaf,
            }),
        })
    }

    /// Number of points, `2^log_size`.
    pub fn size(&self) -> usize {
        self.inner.n
    }

    /// log2 of the number of points.
    pub fn log_size(&self) -> u32 {
        self.inner.log_n
    }

    /// The generator `ω` of the domain.
    pub fn omega(&self) -> Fr {
        self.inner.omega
    }

    /// `ω^{-1}`.
    pub fn omega_inv(&self) -> Fr {
        self.inner.omega_inv
    }

    /// `1/n` in the field.
    pub fn size_inv(&self) -> Fr {
        self.inner.size_inv
    }

    fn check(&self, v: &[Fr]) -> Result<(), NttError> {
        if v.len() == self.inner.n {
            Ok(())
        } else {
            Err(NttError::LengthMismatch {
                expected: self.inner.n,
                got: v.len(),
            })
        }
    }

    fn plan<'a>(&'a self, dif: Option<Stage<'a>>, dit: Option<Stage<'a>>) -> Plan<'a> {
        let t = &self.inner.tuning;
        Plan {
            tw: &self.inner.tw,
            leaf_log: t.leaf_log,
            split_log: t.split_log,
            group_elems: 1 << t.group_log,
            dif,
            dit,
        }
    }

    fn leaf_n(&self) -> usize {
        self.inner.n.min(1 << self.inner.tuning.leaf_log)
    }

    fn fwd_stage(&self) -> Stage<'_> {
        Stage {
            inverse: false,
            leaf: &self.inner.tw[..self.leaf_n()],
            first_one: true,
        }
    }

    fn inv_stage(&self) -> Stage<'_> {
        Stage {
            inverse: true,
            leaf: &self.inner.tw_inv_leaf,
            first_one: true,
        }
    }

    /// Per-leaf hook: multiply the leaf at `offset` by `k·base^{bitrev(offset)}`.
    /// Leaf positions `offset + q` hold index `bitrev(offset) + bitrev(q)`;
    /// the `bitrev(q)` part of the power lives in the coset leaf tables.
    fn block_scale(&self, base: Fr, k: Fr) -> impl Fn(&mut [Fr], usize) + Sync {
        let log_n = self.inner.log_n;
        move |leaf: &mut [Fr], offset: usize| {
            let e = kernels::bitrev(offset, log_n) as u64;
            kernels::scale(leaf, &(k * base.pow_vartime([e])));
        }
    }

    /// Coefficients (natural order) → evaluations at `ω^i` (natural order).
    pub fn fft(&self, v: &mut [Fr]) -> Result<(), NttError> {
        self.fft_to_bitrev(v)?;
        bitrev::permute(v, self.inner.log_n);
        Ok(())
    }

    /// Evaluations (natural order) → coefficients (natural order), with `1/n`.
    pub fn ifft(&self, v: &mut [Fr]) -> Result<(), NttError> {
        self.ifft_to_bitrev(v)?;
        bitrev::permute(v, self.inner.log_n);
        Ok(())
    }

    /// Natural-order coefficients → evaluations in bit-reversed order
    /// (position `p` holds the value at `ω^{bitrev(p)}`). No permutation pass.
    pub fn fft_to_bitrev(&self, v: &mut [Fr]) -> Result<(), NttError> {
        self.check(v)?;
        drive(&self.plan(Some(self.fwd_stage()), None), v, 0, &|_, _| {});
        Ok(())
    }

    /// Bit-reversed coefficients → natural-order evaluations.
    pub fn fft_from_bitrev(&self, v: &mut [Fr]) -> Result<(), NttError> {
        self.check(v)?;
        drive(&self.plan(None, Some(self.fwd_stage())), v, 0, &|_, _| {});
        Ok(())
    }

    /// Natural-order evaluations → bit-reversed coefficients (with `1/n`).
    pub fn ifft_to_bitrev(&self, v: &mut [Fr]) -> Result<(), NttError> {
        self.check(v)?;
        let k = self.inner.size_inv;
        drive(
            &self.plan(Some(self.inv_stage()), None),
            v,
            0,
            &|leaf: &mut [Fr], _| kernels::scale(leaf, &k),
        );
        Ok(())
    }

    /// Bit-reversed evaluations → natural-order coefficients (with `1/n`).
    pub fn ifft_from_bitrev(&self, v: &mut [Fr]) -> Result<(), NttError> {
        self.check(v)?;
        let k = self.inner.size_inv;
        drive(
            &self.plan(None, Some(self.inv_stage())),
            v,
            0,
            &|leaf: &mut [Fr], _| kernels::scale(leaf, &k),
        );
        Ok(())
    }

    /// Evaluations on the coset `g·ω^i`, `g = Fr::MULTIPLICATIVE_GENERATOR`:
    /// coefficient `i` times `g^i`, then [`Domain::fft`]. Natural order.
    pub fn coset_fft(&self, v: &mut [Fr]) -> Result<(), NttError> {
        self.check(v)?;
        bitrev::permute(v, self.inner.log_n);
        self.coset_from_bitrev(v, coset_generator(), Fr::ONE, &self.inner.coset_leaf);
        Ok(())
    }

    /// Inverse of [`Domain::coset_fft`]: [`Domain::ifft`], then coefficient `i`
    /// times `g^{-i}`.
    pub fn icoset_fft(&self, v: &mut [Fr]) -> Result<(), NttError> {
        self.check(v)?;
        let g_inv = coset_generator().invert().unwrap_or(Fr::ONE);
        let k = self.inner.size_inv;
        self.icoset_to_bitrev(v, g_inv, k, &self.inner.icoset_leaf);
        bitrev::permute(v, self.inner.log_n);
        Ok(())
    }

    /// [`Domain::coset_fft`] with any shift `s` (evaluations at `s·ω^i`;
    /// `s = 0` evaluates at 0 everywhere).
    pub fn coset_fft_with(&self, v: &mut [Fr], shift: Fr) -> Result<(), NttError> {
        self.check(v)?;
        let table = coset_leaf_table(&self.inner.tw[..self.leaf_n()], self.inner.n, shift);
        bitrev::permute(v, self.inner.log_n);
        self.coset_from_bitrev(v, shift, Fr::ONE, &table);
        Ok(())
    }

    /// Inverse of [`Domain::coset_fft_with`]; errors for a zero shift.
    pub fn icoset_fft_with(&self, v: &mut [Fr], shift: Fr) -> Result<(), NttError> {
        self.check(v)?;
        let inv = Option::<Fr>::from(shift.invert()).ok_or(NttError::ZeroShift)?;
        let table = coset_leaf_table(&self.inner.tw_inv_leaf, self.inner.n, inv);
        self.icoset_to_bitrev(v, inv, self.inner.size_inv, &table);
        bitrev::permute(v, self.inner.log_n);
        Ok(())
    }

    /// Bit-reversed coefficients `x` → natural-order `k·Σ x_i (s·ω^j)^i`.
    /// `table` is `coset_leaf_table(tw, n, s)`.
    fn coset_from_bitrev(&self, v: &mut [Fr], s: Fr, k: Fr, table: &[Fr]) {
        let stage = Stage {
            inverse: false,
            leaf: table,
            first_one: false,
        };
        drive(&self.plan(None, Some(stage)), v, 0, &self.block_scale(s, k));
    }

    /// Natural-order evaluations `y` → bit-reversed `k·u^i·Σ_j y_j ω^{-ij}`.
    /// `table` is `coset_leaf_table(tw_inv_leaf, n, u)`.
    fn icoset_to_bitrev(&self, v: &mut [Fr], u: Fr, k: Fr, table: &[Fr]) {
        let stage = Stage {
            inverse: true,
            leaf: table,
            first_one: false,
        };
        drive(&self.plan(Some(stage), None), v, 0, &self.block_scale(u, k));
    }

    /// Natural-order evaluations → natural-order evaluations on the coset,
    /// times `k` (and times `n`: the inverse's `1/n` is left to the caller).
    /// One pass structure: DIF inverse, leaf scale, DIT coset forward.
    fn evals_to_coset_evals(&self, v: &mut [Fr], k: Fr) {
        let g = coset_generator();
        let dit = Stage {
            inverse: false,
            leaf: &self.inner.coset_leaf,
            first_one: false,
        };
        let plan = self.plan(Some(self.inv_stage()), Some(dit));
        drive(&plan, v, 0, &self.block_scale(g, k));
    }

    /// The Groth16 quotient exactly as bellperson 0.26 computes it (see
    /// [`h_step`]), for inputs whose bellperson domain is this one:
    /// equal lengths `len` with `Domain::for_len(len)` of this size.
    pub fn h_step(&self, a: Vec<Fr>, b: Vec<Fr>, c: Vec<Fr>) -> Result<Vec<Fr>, NttError> {
        let mut h = self.h_step_full(a, b, c)?;
        h.truncate(self.inner.n - 1);
        Ok(h)
    }

    /// [`Domain::h_step`] without dropping the top coefficient (always zero
    /// for a satisfied system).
    #[doc(hidden)]
    pub fn h_step_full(
        &self,
        mut a: Vec<Fr>,
        mut b: Vec<Fr>,
        mut c: Vec<Fr>,
    ) -> Result<Vec<Fr>, NttError> {
        let len = a.len();
        if b.len() != len || c.len() != len {
            return Err(NttError::UnequalLengths {
                a: len,
                b: b.len(),
                c: c.len(),
            });
        }
        if log_for_len(len) != self.inner.log_n {
            return Err(NttError::WrongDomain {
                len,
                size: self.inner.n,
            });
        }
        let n = self.inner.n;
        for v in [&mut a, &mut b, &mut c] {
            v.resize(n, Fr::ZERO);
        }
        let g = coset_generator();
        // Z(g·ω^j) = g^n − 1 for every j; g generates Fr^*, so g^n ≠ 1.
        let z_inv = (g.pow_vartime([n as u64]) - Fr::ONE)
            .invert()
            .unwrap_or(Fr::ZERO);
        // Unscaled transforms: a', b', c' are n·(coset evaluations) times the
        // factors below, chosen so that a'·b' − c' needs no further scaling
        // and the final unscaled inverse lands exactly on H:
        // a' = (z⁻¹/n³)·n·A, b' = n·B, c' = (z⁻¹/n²)·n·C, so
        // a'·b' − c' = (z⁻¹/n)·(A·B − C), and the inverse (×n) gives z⁻¹·(A·B − C).
        let ninv = self.inner.size_inv;
        let ka = z_inv * ninv * ninv * ninv;
        let kc = z_inv * ninv * ninv;
        rayon::join(
            || self.evals_to_coset_evals(&mut a, ka),
            || {
                rayon::join(
                    || self.evals_to_coset_evals(&mut b, Fr::ONE),
                    || self.evals_to_coset_evals(&mut c, kc),
                )
            },
        );
        const CHUNK: usize = 1 << 12;
        a.par_chunks_mut(CHUNK)
            .zip(b.par_chunks(CHUNK))
            .zip(c.par_chunks(CHUNK))
            .for_each(|((a, b), c)| {
                for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
                    *a *= b;
                    *a -= c;
                }
            });
        drop(b);
        drop(c);
        let g_inv = g.invert().unwrap_or(Fr::ONE);
        self.icoset_to_bitrev(&mut a, g_inv, Fr::ONE, &self.inner.icoset_leaf);
        bitrev::permute(&mut a, self.inner.log_n);
        Ok(a)
    }
}

/// The Groth16 quotient step of bellperson 0.26's prover (`execute_fft`):
/// with `m` the smallest power of two ≥ `len`, pad `a`, `b`, `c` to `m`;
/// each ← coset_fft(ifft(·)); `a ← (a·b − c)·(g^m − 1)^{-1}`;
/// `a ← icoset_fft(a)`; return the first `m − 1` coefficients.
///
/// Equal lengths are required; lengths above 2^28 are rejected.
pub fn h_step(a: Vec<Fr>, b: Vec<Fr>, c: Vec<Fr>) -> Result<Vec<Fr>, NttError> {
    if b.len() != a.len() || c.len() != a.len() {
        return Err(NttError::UnequalLengths {
            a: a.len(),
            b: b.len(),
            c: c.len(),
        });
    }
    Domain::for_len(a.len())?.h_step(a, b, c)
}

/// `tw[h + x] = ω_{2h}^x` for every level `h < n`, built in parallel.
fn build_twiddles(n: usize, omega: Fr) -> Vec<Fr> {
    let mut tw = vec![Fr::ONE; n];
    if n < 2 {
        return tw;
    }
    const CHUNK: usize = 1 << 10;
    tw[n / 2..]
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(i, chunk)| {
            let mut cur = omega.pow_vartime([(i * CHUNK) as u64]);
            for t in chunk {
                *t = cur;
                cur *= omega;
            }
        });
    // Level h is every other entry of level 2h: ω_{2h}^x = ω_{4h}^{2x}.
    let mut h = n / 4;
    while h >= 1 {
        let (lo, hi) = tw.split_at_mut(2 * h);
        lo[h..]
            .par_iter_mut()
            .enumerate()
            .for_each(|(x, t)| *t = hi[2 * x]);
        h /= 2;
    }
    tw
}

/// Leaf levels of a coset table: `base[h + x]·s^{n/2h}` for `h < base.len()`.
/// With `base` the forward table this is the DIT that pre-multiplies input
/// `i` by `s^i`; with the inverse table, the DIF that post-multiplies output
/// `k` by `s^k` (for the leaf's share of the index; see `block_scale`).
fn coset_leaf_table(base: &[Fr], n: usize, s: Fr) -> Vec<Fr> {
    let leaf_n = base.len();
    let mut t = vec![Fr::ONE; leaf_n];
    let mut h = leaf_n / 2;
    if h == 0 {
        return t;
    }
    let mut sigma = s.pow_vartime([(n / leaf_n) as u64]);
    while h >= 1 {
        for x in 0..h {
            t[h + x] = sigma * base[h + x];
        }
        sigma = sigma.square();
        h /= 2;
    }
    t
}
