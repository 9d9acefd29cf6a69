//! What the CUDA NTT and its host twin share on the Rust side: the twiddle
//! and scale tables (built here with blstrs, uploaded once per device), the
//! choice of passes for each mode ([`Kind`] × [`Order`]), and the host twin
//! itself — the kernels' per-thread code from `cuda/ntt.cuh` run in host
//! loops over blocks and threads — so CPU CI checks the device algorithm
//! against [`crate::Domain`].
//!
//! Doc-hidden: a test hook, not a fast path (the twin is single-threaded
//! and about as slow as a naive radix-2 transform).
#![doc(hidden)]

pub use crate::ffi::Fused;
use crate::ffi::{self, SC_LEN, TW_LEN};
use crate::{coset_generator, root_of_unity, NttError, MAX_LOG_SIZE};
use cuzk_field::{Field, Fr};
use std::sync::OnceLock;

/// Length of [`twiddle_table`].
pub const TWIDDLE_TABLE_LEN: usize = TW_LEN;
/// Length of a [`scale_table`].
pub const SCALE_TABLE_LEN: usize = SC_LEN;

/// `cuzk_ntt.h` flags.
pub const F_INVERSE: u32 = 1;
/// Bit-reversed in, natural out (else natural in, bit-reversed out).
pub const F_DIT: u32 = 2;
/// Multiply inputs by the scale table's factor for their logical index.
pub const F_SCALE_IN: u32 = 4;
/// Multiply outputs likewise.
pub const F_SCALE_OUT: u32 = 8;
/// Fused factor: input `x[i] ← x[i]·mul[i]` in the first pass (set by the
/// entry points exactly when [`Fused::mul`] is given).
pub const F_MUL_IN: u32 = 16;
/// Fused subtrahend: output `x[i] ← x[i] − sub[i]` in the last pass, after
/// any output scaling (set exactly when [`Fused::sub`] is given).
pub const F_SUB_OUT: u32 = 32;
/// `a ← a·b`.
pub const PW_MUL: i32 = 0;
/// `a ← a·k`.
pub const PW_SCALE: i32 = 2;

const INNER: usize = 1024;
const SPLIT: u32 = 14;
const MID_LOG: u32 = 18;

/// The twiddle table of `cuda/ntt.cuh` (same for every size: all entries are
/// powers of bellperson's roots `ω_m = ROOT_OF_UNITY^(2^32/m)`), 9.06 MiB.
pub fn twiddle_table() -> &'static [Fr] {
    static T: OnceLock<Vec<Fr>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = vec![Fr::ONE; TW_LEN];
        let mut h = 1;
        while h < INNER {
            let w = root_of_unity(h.trailing_zeros() + 1).unwrap_or(Fr::ONE);
            let wi = w.invert().unwrap_or(Fr::ONE);
            let (mut f, mut b) = (Fr::ONE, Fr::ONE);
            for x in 0..h {
                t[h + x] = f;
                t[INNER + h + x] = b;
                f *= w;
                b *= wi;
            }
            h *= 2;
        }
        let lo = root_of_unity(MAX_LOG_SIZE).unwrap_or(Fr::ONE);
        let hi = root_of_unity(MAX_LOG_SIZE - SPLIT).unwrap_or(Fr::ONE);
        let (mut a, mut b) = (Fr::ONE, Fr::ONE);
        for j in 0..1 << SPLIT {
            t[2 * INNER + j] = a;
            t[2 * INNER + (1 << SPLIT) + j] = b;
            a *= lo;
            b *= hi;
        }
        let mid = root_of_unity(MID_LOG).unwrap_or(Fr::ONE);
        let base = 2 * INNER + (2 << SPLIT);
        let mut m = Fr::ONE;
        for x in &mut t[base..base + (1 << MID_LOG)] {
            *x = m;
            m *= mid;
        }
        t
    })
}

/// The scale table for shift `s` and constant `k`: the factor for logical
/// index `e < 2^28` is `k·s^e` = `t[e mod 2^14]·t[2^14 + e / 2^14]`.
pub fn scale_table(s: Fr, k: Fr) -> Vec<Fr> {
    let mut t = vec![Fr::ONE; SC_LEN];
    let step = s.pow_vartime([1u64 << SPLIT]);
    let (mut a, mut b) = (Fr::ONE, k);
    for j in 0..1 << SPLIT {
        t[j] = a;
        t[(1 << SPLIT) + j] = b;
        a *= s;
        b *= step;
    }
    t
}

/// Element order of a transform's input or output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Position `i` holds index `i`.
    Natural,
    /// Position `i` holds index `bitrev(i)` (over `log n` bits).
    BitReversed,
}

/// Which transform; the same meanings as [`crate::Domain`]'s methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Coefficients → evaluations at `ω^j` ([`crate::Domain::fft`]).
    Fft,
    /// Evaluations → coefficients, with `1/n` ([`crate::Domain::ifft`]).
    Ifft,
    /// Coefficients → evaluations at `s·ω^j` ([`crate::Domain::coset_fft_with`]).
    CosetFft(Fr),
    /// Inverse of `CosetFft(s)` ([`crate::Domain::icoset_fft_with`]); `s ≠ 0`.
    ICosetFft(Fr),
}

impl Kind {
    /// [`Kind::CosetFft`] with bellperson's shift (`Fr::MULTIPLICATIVE_GENERATOR`).
    pub fn coset() -> Kind {
        Kind::CosetFft(coset_generator())
    }
    /// [`Kind::ICosetFft`] with bellperson's shift.
    pub fn icoset() -> Kind {
        Kind::ICosetFft(coset_generator())
    }
}

/// One launch of a transform's sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `cuzk_ntt_*_run` with these flags and, when a scale flag is set, the
    /// scale table of `(s, k)`.
    Run {
        /// `F_*` flags.
        flags: u32,
        /// `(shift, constant)` of the scale table.
        scale: Option<(Fr, Fr)>,
    },
    /// In-place bit reversal.
    Bitrev,
}

/// The launches that compute `kind` from `input` order to `output` order on
/// `2^log_n` points. Forward cosets scale the coefficients on the way in;
/// inverses scale them (`1/n`, `s^−j`) on the way out, fused into the pass
/// that reads or writes them.
pub fn steps(kind: Kind, log_n: u32, input: Order, output: Order) -> Result<Vec<Step>, NttError> {
    if log_n > MAX_LOG_SIZE {
        return Err(NttError::DomainTooLarge {
            log_size: log_n,
            max_log_size: MAX_LOG_SIZE,
        });
    }
    let n_inv = Fr::from(1u64 << log_n).invert().unwrap_or(Fr::ONE);
    let (inverse, scale, on_input) = match kind {
        Kind::Fft => (false, None, true),
        Kind::Ifft => (true, Some((Fr::ONE, n_inv)), false),
        Kind::CosetFft(s) => (false, Some((s, Fr::ONE)), true),
        Kind::ICosetFft(s) => {
            let si = Option::<Fr>::from(s.invert()).ok_or(NttError::ZeroShift)?;
            (true, Some((si, n_inv)), false)
        }
    };
    let mut flags = if inverse { F_INVERSE } else { 0 };
    if input == Order::BitReversed {
        flags |= F_DIT;
    }
    if scale.is_some() {
        flags |= if on_input { F_SCALE_IN } else { F_SCALE_OUT };
    }
    let mut v = vec![Step::Run { flags, scale }];
    if input == output {
        v.push(Step::Bitrev);
    }
    Ok(v)
}

/// The launches of the Groth16 H step on three padded vectors `a`, `b`, `c`
/// of `2^log_n` points (what both the device and the twin run). With `A`,
/// `B` the coset evaluations of a and b, `Z = g^n − 1` and `icoset` the
/// inverse coset transform, `h = (icoset(A·B) − icoset(C))/Z`, and
/// `icoset(C)` is c's own coefficients (c has degree < n): so c needs only
/// its inverse transform, not the two transforms of a and b (6 transforms
/// instead of 7; the results are the same field elements).
/// - a, b: [`HPlan::to_coset`]: inverse DIF with the output scaled by
///   `g^j/n` (bit-reversed coefficients of the coset polynomial), then
///   forward DIT (natural coset evaluations);
/// - c: [`HPlan::c_coeffs`]: inverse DIF with the output scaled by
///   `1/(n·Z)` (bit-reversed coefficients of `c/Z`);
/// - [`HPlan::back`]: inverse DIF whose first pass reads `A·B` (`F_MUL_IN`,
///   operand b), whose output is scaled by `g^−j/(n·Z)` and then has c's
///   result subtracted (`F_SUB_OUT`, the same bit-reversed positions);
///   bit reversal. No permutation before the last step.
#[derive(Debug, Clone)]
pub struct HPlan {
    /// The steps of a and b into coset evaluations.
    pub to_coset: [Step; 2],
    /// The step of c into the bit-reversed coefficients of `c/Z`.
    pub c_coeffs: Step,
    /// The steps from `A`, `B` and c's result to `h` in natural order; the
    /// first takes `mul` and `sub` as its fused operands.
    pub back: [Step; 2],
}

/// [`HPlan`] for `2^log_n` points.
pub fn h_plan(log_n: u32) -> Result<HPlan, NttError> {
    if log_n > MAX_LOG_SIZE {
        return Err(NttError::DomainTooLarge {
            log_size: log_n,
            max_log_size: MAX_LOG_SIZE,
        });
    }
    let g = coset_generator();
    let n_inv = Fr::from(1u64 << log_n).invert().unwrap_or(Fr::ONE);
    // 1/Z on the coset, folded into the output scalings of c's transform and
    // of the last one: icoset((A·B − C)/Z) = (icoset(A·B) − icoset(C))/Z.
    let z_inv = (g.pow_vartime([1u64 << log_n]) - Fr::ONE)
        .invert()
        .unwrap_or(Fr::ZERO);
    let g_inv = g.invert().unwrap_or(Fr::ONE);
    Ok(HPlan {
        to_coset: [
            Step::Run {
                flags: F_INVERSE | F_SCALE_OUT,
                scale: Some((g, n_inv)),
            },
            Step::Run {
                flags: F_DIT,
                scale: None,
            },
        ],
        c_coeffs: Step::Run {
            flags: F_INVERSE | F_SCALE_OUT,
            scale: Some((Fr::ONE, n_inv * z_inv)),
        },
        back: [
            Step::Run {
                flags: F_INVERSE | F_SCALE_OUT,
                scale: Some((g_inv, n_inv * z_inv)),
            },
            Step::Bitrev,
        ],
    })
}

fn host_step(data: &mut [Fr], step: &Step, fused: Fused<'_, [Fr]>) -> Result<(), NttError> {
    match step {
        Step::Run { flags, scale } => {
            let sc = scale.map(|(s, k)| scale_table(s, k));
            ffi::host_run(data, *flags, twiddle_table(), sc.as_deref(), fused)
        }
        Step::Bitrev if !fused.is_none() => Err(NttError::Twin("fused operands need a transform")),
        Step::Bitrev => ffi::host_bitrev(data),
    }
}

/// One transform through the host twin (power-of-two length ≤ 2^28).
pub fn host_transform(
    data: &mut [Fr],
    kind: Kind,
    input: Order,
    output: Order,
) -> Result<(), NttError> {
    if !data.len().is_power_of_two() {
        return Err(NttError::NotPowerOfTwo(data.len()));
    }
    for s in steps(kind, data.len().trailing_zeros(), input, output)? {
        host_step(data, &s, Fused::NONE)?;
    }
    Ok(())
}

/// One raw launch through the host twin (flags and scale as given).
pub fn host_run(
    data: &mut [Fr],
    flags: u32,
    scale: Option<&[Fr]>,
    fused: Fused<'_, [Fr]>,
) -> Result<(), NttError> {
    ffi::host_run(data, flags, twiddle_table(), scale, fused)
}

/// The host twin of the pointwise kernel.
pub fn host_pointwise(op: i32, a: &mut [Fr], b: Option<&[Fr]>, k: Fr) -> Result<(), NttError> {
    ffi::host_pointwise(op, a, b, k)
}

/// The H step through the host twin, as the device runs it; returns all `n`
/// coefficients (compare with `Domain::h_step_full`).
pub fn host_h_step(mut a: Vec<Fr>, mut b: Vec<Fr>, mut c: Vec<Fr>) -> Result<Vec<Fr>, NttError> {
    let len = a.len();
    if b.len() != len || c.len() != len {
        return Err(NttError::UnequalLengths {
            a: len,
            b: b.len(),
            c: c.len(),
        });
    }
    let n = len.max(1).next_power_of_two();
    if n > 1 << MAX_LOG_SIZE {
        return Err(NttError::DomainTooLarge {
            log_size: n.trailing_zeros(),
            max_log_size: MAX_LOG_SIZE,
        });
    }
    let plan = h_plan(n.trailing_zeros())?;
    for v in [&mut a, &mut b, &mut c] {
        v.resize(n, Fr::ZERO);
    }
    for v in [&mut a, &mut b] {
        for s in &plan.to_coset {
            host_step(v, s, Fused::NONE)?;
        }
    }
    host_step(&mut c, &plan.c_coeffs, Fused::NONE)?;
    let [first, rest] = &plan.back;
    let fused = Fused {
        mul: Some(&b[..]),
        sub: Some(&c[..]),
    };
    host_step(&mut a, first, fused)?;
    host_step(&mut a, rest, Fused::NONE)?;
    Ok(a)
}
