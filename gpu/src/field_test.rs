//! Differential-test and benchmark hooks for the BLS12-381 CUDA headers in
//! `field/cuda` (`mont_t`, `fp2`, `affine_t`, `xyzz_t`).
//!
//! The same C++ templates run in two places:
//! - the host twin, compiled as plain C++ by `cc` (always built): the
//!   `host_*` functions, which CPU tests compare with blst;
//! - the device kernels (`cuda` feature): the `device_*` functions on
//!   [`DeviceBuffer`]s, which the GPU tests compare with blst.
//!
//! Elements are blst's Montgomery limbs as they are; points go in affine
//! (blst layout) and come out as [`Xyzz`].

use cuzk_field::{Fp, Fp2, Fr, G1Affine, G2Affine};

use crate::field_sys as fs;
use crate::{DeviceBuffer, DeviceCopy, GpuError, Result, Stream};

/// Field operations of the test kernels (`out = op(a, b)`; unary ops ignore `b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldOp {
    Add,
    Sub,
    Mul,
    Sqr,
    Neg,
    Dbl,
    /// Fermat inverse; 0 ↦ 0.
    Inv,
    /// Treats the limbs as a canonical integer and returns its Montgomery form.
    ToMont,
    /// Returns the canonical integer's limbs of a Montgomery element.
    FromMont,
    /// Multiplication through the portable C++ twin even on the device
    /// (prime fields only); `Mul` is the PTX carry-chain version there.
    MulPortable,
}

impl FieldOp {
    /// Every operation, in code order.
    pub const ALL: [FieldOp; 10] = [
        FieldOp::Add,
        FieldOp::Sub,
        FieldOp::Mul,
        FieldOp::Sqr,
        FieldOp::Neg,
        FieldOp::Dbl,
        FieldOp::Inv,
        FieldOp::ToMont,
        FieldOp::FromMont,
        FieldOp::MulPortable,
    ];

    /// Whether the operation exists for a field ([`GpuField::PRIME`]).
    pub fn applies_to<F: GpuField>(self) -> bool {
        F::PRIME
            || !matches!(
                self,
                FieldOp::ToMont | FieldOp::FromMont | FieldOp::MulPortable
            )
    }

    fn code(self) -> i32 {
        (match self {
            FieldOp::Add => fs::CUZK_FT_ADD,
            FieldOp::Sub => fs::CUZK_FT_SUB,
            FieldOp::Mul => fs::CUZK_FT_MUL,
            FieldOp::Sqr => fs::CUZK_FT_SQR,
            FieldOp::Neg => fs::CUZK_FT_NEG,
            FieldOp::Dbl => fs::CUZK_FT_DBL,
            FieldOp::Inv => fs::CUZK_FT_INV,
            FieldOp::ToMont => fs::CUZK_FT_TO_MONT,
            FieldOp::FromMont => fs::CUZK_FT_FROM_MONT,
            FieldOp::MulPortable => fs::CUZK_FT_MUL_PORTABLE,
        }) as i32
    }
}

/// Curve operations. `A` is `a[i]` in XYZZ scaled by `la[i]`
/// (X = x·λ², Y = y·λ³, ZZ = λ², ZZZ = λ³), `B` likewise with `lb[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurveOp {
    /// A + B (general XYZZ addition).
    Add,
    /// A + b[i] (mixed addition with the affine point).
    MAdd,
    /// 2·A.
    Dbl,
    /// −A.
    Neg,
    /// A + B converted to affine: (x, y, 1, 1), or all zero for infinity.
    Affine,
}

impl CurveOp {
    /// Every operation.
    pub const ALL: [CurveOp; 5] = [
        CurveOp::Add,
        CurveOp::MAdd,
        CurveOp::Dbl,
        CurveOp::Neg,
        CurveOp::Affine,
    ];

    fn code(self) -> i32 {
        (match self {
            CurveOp::Add => fs::CUZK_FT_P_ADD,
            CurveOp::MAdd => fs::CUZK_FT_P_MADD,
            CurveOp::Dbl => fs::CUZK_FT_P_DBL,
            CurveOp::Neg => fs::CUZK_FT_P_NEG,
            CurveOp::Affine => fs::CUZK_FT_P_AFFINE,
        }) as i32
    }
}

/// A field the kernels are instantiated for.
pub trait GpuField: DeviceCopy + ff::Field {
    /// `CUZK_FT_FR` / `CUZK_FT_FP` / `CUZK_FT_FP2`.
    const ID: i32;
    /// Whether [`FieldOp::ToMont`], [`FieldOp::FromMont`] and
    /// [`FieldOp::MulPortable`] exist (prime fields only).
    const PRIME: bool;
}

impl GpuField for Fr {
    const ID: i32 = fs::CUZK_FT_FR as i32;
    const PRIME: bool = true;
}
impl GpuField for Fp {
    const ID: i32 = fs::CUZK_FT_FP as i32;
    const PRIME: bool = true;
}
impl GpuField for Fp2 {
    const ID: i32 = fs::CUZK_FT_FP2 as i32;
    const PRIME: bool = false;
}

/// A curve the kernels are instantiated for (named by its affine type).
pub trait GpuCurve: DeviceCopy {
    /// The coordinate field.
    type Base: GpuField;
    /// `CUZK_FT_G1` / `CUZK_FT_G2`.
    const ID: i32;
}

impl GpuCurve for G1Affine {
    type Base = Fp;
    const ID: i32 = fs::CUZK_FT_G1 as i32;
}
impl GpuCurve for G2Affine {
    type Base = Fp2;
    const ID: i32 = fs::CUZK_FT_G2 as i32;
}

/// A point in XYZZ coordinates as the kernels write it:
/// (X/ZZ, Y/ZZZ), infinity when ZZ = 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Xyzz<F> {
    pub x: F,
    pub y: F,
    pub zz: F,
    pub zzz: F,
}

// SAFETY: four DeviceCopy values, repr(C), no padding (all the same type).
unsafe impl<F: DeviceCopy> DeviceCopy for Xyzz<F> {}

fn same_len(lens: &[usize]) -> Result<usize> {
    let n = lens[0];
    if lens.iter().any(|&l| l != n) {
        return Err(GpuError::InvalidArgument(format!(
            "length mismatch: {lens:?}"
        )));
    }
    Ok(n)
}

/// Runs `op` element-wise on the host twin of the CUDA templates.
pub fn host_field<F: GpuField>(op: FieldOp, a: &[F], b: &[F]) -> Result<Vec<F>> {
    let n = same_len(&[a.len(), b.len()])?;
    let mut out = vec![<F as ff::Field>::ZERO; n];
    // SAFETY: a, b, out each hold n elements of the layout the C side
    // expects (DeviceCopy types mirroring blst); the call is synchronous.
    crate::check(unsafe {
        fs::cuzk_ft_field_host(
            F::ID,
            op.code(),
            a.as_ptr().cast(),
            b.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            n,
        )
    })?;
    Ok(out)
}

/// Runs `op` element-wise on the host twin of the curve templates.
pub fn host_curve<C: GpuCurve>(
    op: CurveOp,
    a: &[C],
    b: &[C],
    la: &[C::Base],
    lb: &[C::Base],
) -> Result<Vec<Xyzz<C::Base>>> {
    let n = same_len(&[a.len(), b.len(), la.len(), lb.len()])?;
    let z = <C::Base as ff::Field>::ZERO;
    let mut out = vec![
        Xyzz {
            x: z,
            y: z,
            zz: z,
            zzz: z
        };
        n
    ];
    // SAFETY: as in host_field; every array holds n elements.
    crate::check(unsafe {
        fs::cuzk_ft_curve_host(
            C::ID,
            op.code(),
            a.as_ptr().cast(),
            b.as_ptr().cast(),
            la.as_ptr().cast(),
            lb.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            n,
        )
    })?;
    Ok(out)
}

/// True: the host twin always takes the portable (non-PTX) multiplier.
pub fn host_is_portable() -> Result<bool> {
    let mut portable = 0;
    // SAFETY: `portable` is a valid out-pointer for the synchronous call.
    crate::check(unsafe { fs::cuzk_ft_host_is_portable(&mut portable) })?;
    Ok(portable != 0)
}

/// Enqueues `op` on the device: `out[i] = op(a[i], b[i])`.
pub fn device_field<F: GpuField>(
    stream: &Stream,
    op: FieldOp,
    a: &DeviceBuffer<F>,
    b: &DeviceBuffer<F>,
    out: &mut DeviceBuffer<F>,
) -> Result<()> {
    let n = same_len(&[a.len(), b.len(), out.len()])?;
    #[cfg(feature = "cuda")]
    {
        // SAFETY: the buffers are live device allocations of n elements;
        // the kernel is ordered on `stream`, and the buffers cannot be
        // dropped while borrowed here; later users order on the stream too
        // (and cudaFree synchronises).
        crate::check(unsafe {
            fs::cuzk_fk_field(
                F::ID,
                op.code(),
                a.as_ptr(),
                b.as_ptr(),
                out.as_mut_ptr(),
                n,
                stream.raw(),
            )
        })
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (stream, op, n);
        Err(GpuError::NotBuilt)
    }
}

/// Enqueues the curve `op` on the device.
pub fn device_curve<C: GpuCurve>(
    stream: &Stream,
    op: CurveOp,
    a: &DeviceBuffer<C>,
    b: &DeviceBuffer<C>,
    la: &DeviceBuffer<C::Base>,
    lb: &DeviceBuffer<C::Base>,
    out: &mut DeviceBuffer<Xyzz<C::Base>>,
) -> Result<()> {
    let n = same_len(&[a.len(), b.len(), la.len(), lb.len(), out.len()])?;
    #[cfg(feature = "cuda")]
    {
        // SAFETY: as in device_field.
        crate::check(unsafe {
            fs::cuzk_fk_curve(
                C::ID,
                op.code(),
                a.as_ptr(),
                b.as_ptr(),
                la.as_ptr(),
                lb.as_ptr(),
                out.as_mut_ptr(),
                n,
                stream.raw(),
            )
        })
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (stream, op, n);
        Err(GpuError::NotBuilt)
    }
}

/// Which multiplier the throughput kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchOp {
    /// x = x·y, PTX carry chains.
    Mul,
    /// x = x·y, the portable C++ twin compiled for the device.
    MulPortable,
    /// x = x².
    Sqr,
}

/// Enqueues the throughput kernel: every element runs `iters` dependent
/// multiplications of the kind `op` (x·y with y its neighbour, or x²).
/// `F` must be [`Fr`] or [`Fp`]. Work: `data.len() · iters` products.
pub fn device_bench<F: GpuField>(
    stream: &Stream,
    data: &mut DeviceBuffer<F>,
    iters: u32,
    op: BenchOp,
) -> Result<()> {
    if !F::PRIME {
        return Err(GpuError::InvalidArgument("bench supports Fr and Fp".into()));
    }
    let iters = i32::try_from(iters)
        .map_err(|_| GpuError::InvalidArgument(format!("iters {iters} too large")))?;
    let op = match op {
        BenchOp::Mul => FieldOp::Mul,
        BenchOp::MulPortable => FieldOp::MulPortable,
        BenchOp::Sqr => FieldOp::Sqr,
    };
    #[cfg(feature = "cuda")]
    {
        let n = data.len();
        // SAFETY: `data` is a live device allocation of n elements, ordered on `stream`.
        crate::check(unsafe {
            fs::cuzk_fk_bench(F::ID, op.code(), data.as_mut_ptr(), n, iters, stream.raw())
        })
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (stream, data, iters, op);
        Err(GpuError::NotBuilt)
    }
}
