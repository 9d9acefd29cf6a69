//! The crate's only `unsafe` code: blstrs points viewed as blst's C structs,
//! and thin safe wrappers around blst's bulk routines (tiled Pippenger,
//! small-input multi-scalar multiplication, batch-affine summation).
//!
//! Layout facts relied on (checked at compile time below): blstrs 0.7.1's
//! `G1Affine`/`G2Affine` are `#[repr(transparent)]` over `blst_p1_affine` /
//! `blst_p2_affine`, so a `&[G1Affine]` *is* a `&[blst_p1_affine]` and can be
//! handed to C without copying a single point.
//!
//! blst's bulk routines take points as `const P *const points[]`: entry `i`
//! is used when non-null, and a null entry means "continue contiguously after
//! the previous point". So `[first, null]` describes a contiguous array, and a
//! list of non-null pointers describes a gather. Scalars use the same
//! convention; ours are always contiguous canonical little-endian bytes.

use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::ptr;

use blst::{blst_p1, blst_p1_affine, blst_p2, blst_p2_affine, limb_t};
use cuzk_field::{
    Fp, Fp2, G1Affine, G1Projective, G2Affine, G2Projective, Group, PrimeCurveAffine,
};

/// Width of the scalars we feed blst: canonical `Fr` values are < r < 2^255.
pub(crate) const NBITS: usize = 255;
/// Bytes per canonical scalar.
pub(crate) const SCALAR_BYTES: usize = 32;

const _: () = {
    assert!(size_of::<G1Affine>() == size_of::<blst_p1_affine>());
    assert!(align_of::<G1Affine>() == align_of::<blst_p1_affine>());
    assert!(size_of::<G2Affine>() == size_of::<blst_p2_affine>());
    assert!(align_of::<G2Affine>() == align_of::<blst_p2_affine>());
    assert!(size_of::<G1Projective>() == size_of::<blst_p1>());
    assert!(size_of::<G2Projective>() == size_of::<blst_p2>());
};

/// Per-curve hooks into blst. Public only in name: the module is private, so
/// the trait is sealed (only G1Affine and G2Affine implement it).
pub trait BlstPoint: PrimeCurveAffine {
    /// blst's affine struct this type is a transparent wrapper of.
    type Raw;
    /// blst's Jacobian point struct.
    type RawProj: Default + Copy;

    /// Limbs of one XYZZ bucket (`scratch_sizeof(0)`, i.e. one bucket).
    fn bucket_limbs() -> usize;

    /// Scratch bytes blst's single-call Pippenger needs for `n` points.
    fn scratch_bytes(n: usize) -> usize;

    /// # Safety
    /// Arguments must satisfy blst's `*_tile_pippenger` contract: `points`
    /// and `scalars` describe `n >= 2` valid entries, `scratch` holds
    /// `bucket_limbs() << (window - 1)` zeroed limbs, `bit0 < NBITS`.
    unsafe fn raw_tile(
        ret: *mut Self::RawProj,
        points: *const *const Self::Raw,
        n: usize,
        scalars: *const *const u8,
        scratch: *mut limb_t,
        bit0: usize,
        window: usize,
    );

    /// # Safety
    /// `points`/`scalars` describe `n >= 1` valid entries; `scratch` holds
    /// `scratch_bytes(n)` writable bytes.
    unsafe fn raw_mult(
        ret: *mut Self::RawProj,
        points: *const *const Self::Raw,
        n: usize,
        scalars: *const *const u8,
        scratch: *mut limb_t,
    );

    /// # Safety
    /// `points` describes `n >= 1` valid entries.
    unsafe fn raw_sum(ret: *mut Self::RawProj, points: *const *const Self::Raw, n: usize);

    /// A blst Jacobian point as the blstrs projective type (safe constructor).
    fn from_raw(p: Self::RawProj) -> Self::Curve;

    /// blst's own threaded Pippenger (`MultiPoint::mult`, blst's thread
    /// pool) over `points` in place; `scalars` holds 32 bytes per point.
    fn pool_mult(points: &[Self], scalars: &[u8]) -> Self::Curve;
}

macro_rules! impl_blst_point {
    ($affine:ty, $raw:ty, $proj:ty, $field:ty,
     $tile:ident, $mult:ident, $sizeof:ident, $add:ident) => {
        impl BlstPoint for $affine {
            type Raw = $raw;
            type RawProj = $proj;

            fn bucket_limbs() -> usize {
                // SAFETY: a pure size computation; the window for 0 points is 1,
                // so this is the size of exactly one bucket.
                unsafe { blst::$sizeof(0) / size_of::<limb_t>() }
            }

            fn scratch_bytes(n: usize) -> usize {
                // SAFETY: a pure size computation.
                unsafe { blst::$sizeof(n) }
            }

            unsafe fn raw_tile(
                ret: *mut $proj,
                points: *const *const $raw,
                n: usize,
                scalars: *const *const u8,
                scratch: *mut limb_t,
                bit0: usize,
                window: usize,
            ) {
                // SAFETY: forwarded contract (see the trait).
                unsafe { blst::$tile(ret, points, n, scalars, NBITS, scratch, bit0, window) }
            }

            unsafe fn raw_mult(
                ret: *mut $proj,
                points: *const *const $raw,
                n: usize,
                scalars: *const *const u8,
                scratch: *mut limb_t,
            ) {
                // SAFETY: forwarded contract (see the trait).
                unsafe { blst::$mult(ret, points, n, scalars, NBITS, scratch) }
            }

            unsafe fn raw_sum(ret: *mut $proj, points: *const *const $raw, n: usize) {
                // SAFETY: forwarded contract (see the trait).
                unsafe { blst::$add(ret, points, n) }
            }

            fn from_raw(p: $proj) -> <$affine as PrimeCurveAffine>::Curve {
                <$affine as PrimeCurveAffine>::Curve::from_raw_unchecked(
                    <$field>::from(p.x),
                    <$field>::from(p.y),
                    <$field>::from(p.z),
                )
            }

            fn pool_mult(
                points: &[$affine],
                scalars: &[u8],
            ) -> <$affine as PrimeCurveAffine>::Curve {
                assert!(!points.is_empty() && scalars.len() >= points.len() * SCALAR_BYTES);
                let raw: &[$raw] = {
                    // SAFETY: `$affine` is a transparent wrapper of `$raw`
                    // (same size and alignment, asserted above), so the slice
                    // of one is a valid slice of the other, same lifetime.
                    unsafe {
                        std::slice::from_raw_parts(points.as_ptr().cast::<$raw>(), points.len())
                    }
                };
                Self::from_raw(blst::MultiPoint::mult(raw, scalars, NBITS))
            }
        }
    };
}

impl_blst_point!(
    G1Affine,
    blst_p1_affine,
    blst_p1,
    Fp,
    blst_p1s_tile_pippenger,
    blst_p1s_mult_pippenger,
    blst_p1s_mult_pippenger_scratch_sizeof,
    blst_p1s_add
);
impl_blst_point!(
    G2Affine,
    blst_p2_affine,
    blst_p2,
    Fp2,
    blst_p2s_tile_pippenger,
    blst_p2s_mult_pippenger,
    blst_p2s_mult_pippenger_scratch_sizeof,
    blst_p2s_add
);

/// A run of bases: either contiguous, or gathered through pointers.
#[derive(Debug)]
pub(crate) enum Points<'a, C> {
    Slice(&'a [C]),
    Ptrs(PtrSlice<'a, C>),
}

impl<C> Clone for Points<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C> Copy for Points<'_, C> {}

impl<'a, C> Points<'a, C> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Points::Slice(s) => s.len(),
            Points::Ptrs(p) => p.ptrs.len(),
        }
    }

    /// Points `start .. start + len`. Panics when out of range.
    pub(crate) fn sub(&self, start: usize, len: usize) -> Points<'a, C> {
        match *self {
            Points::Slice(s) => Points::Slice(&s[start..start + len]),
            Points::Ptrs(p) => Points::Ptrs(PtrSlice {
                ptrs: &p.ptrs[start..start + len],
                _bases: PhantomData,
            }),
        }
    }
}

/// Pointers into a borrowed base slice, all non-null and in bounds.
#[derive(Debug)]
pub(crate) struct PtrSlice<'a, C> {
    ptrs: &'a [*const C],
    _bases: PhantomData<&'a [C]>,
}

impl<C> Clone for PtrSlice<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C> Copy for PtrSlice<'_, C> {}

// SAFETY: the pointers only ever point into a `&'a [C]` borrowed for 'a and
// are only read through; sharing them is sharing `&C`, fine when `C: Sync`.
unsafe impl<C: Sync> Send for PtrSlice<'_, C> {}
// SAFETY: as above.
unsafe impl<C: Sync> Sync for PtrSlice<'_, C> {}

/// Owned list of pointers to selected bases (a gather without copying points).
#[derive(Debug)]
pub(crate) struct Gather<'a, C> {
    /// One pointer per selected base, then a trailing null so that blst can
    /// never read past the list into unrelated memory.
    ptrs: Vec<*const C>,
    _bases: PhantomData<&'a [C]>,
}

// SAFETY: see `PtrSlice`: read-only pointers into a borrowed `&'a [C]`.
unsafe impl<C: Sync> Send for Gather<'_, C> {}
// SAFETY: as above.
unsafe impl<C: Sync> Sync for Gather<'_, C> {}

impl<'a, C> Gather<'a, C> {
    /// Pointers to `bases[i]` for each `i` yielded. `None` when an index is
    /// out of range.
    /// `capacity` is a hint: the expected number of indices.
    pub(crate) fn new(
        bases: &'a [C],
        indices: impl IntoIterator<Item = usize>,
        capacity: usize,
    ) -> Option<Self> {
        let mut ptrs = Vec::with_capacity(capacity + 1);
        for i in indices {
            ptrs.push(bases.get(i)? as *const C);
        }
        ptrs.push(ptr::null());
        Some(Self {
            ptrs,
            _bases: PhantomData,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.ptrs.len() - 1
    }

    pub(crate) fn points(&self) -> Points<'_, C> {
        Points::Ptrs(PtrSlice {
            ptrs: &self.ptrs[..self.len()],
            _bases: PhantomData,
        })
    }
}

/// Calls `f` with blst's `points[]` argument for `points`.
fn with_point_array<C: BlstPoint, R>(
    points: Points<'_, C>,
    f: impl FnOnce(*const *const C::Raw) -> R,
) -> R {
    match points {
        Points::Slice(s) => {
            // `C` is a transparent wrapper of `C::Raw` (checked above for
            // both implementors), so the cast preserves meaning.
            let arr: [*const C::Raw; 2] = [s.as_ptr().cast::<C::Raw>(), ptr::null()];
            f(arr.as_ptr())
        }
        Points::Ptrs(p) => f(p.ptrs.as_ptr().cast::<*const C::Raw>()),
    }
}

/// One Pippenger tile: Σ over `points` of (window `bit0 .. bit0 + window` of
/// the scalar, signed digits) · point, *without* the `2^bit0` factor.
///
/// `scalars` holds 32 canonical little-endian bytes per point; `scratch`
/// holds `C::bucket_limbs() << (window - 1)` limbs and must be all zero (blst
/// leaves it zeroed again afterwards, so it can be reused). The top tile must
/// be partial (`bit0 + window > 255`) or the signed top digit loses its carry;
/// the planner guarantees that.
pub(crate) fn tile<C: BlstPoint>(
    points: Points<'_, C>,
    scalars: &[u8],
    bit0: usize,
    window: usize,
    scratch: &mut [limb_t],
) -> C::Curve {
    let n = points.len();
    // blst's tile reads one point/scalar ahead, so it needs at least two.
    assert!(n >= 2, "tile needs at least two points");
    assert_eq!(scalars.len(), n * SCALAR_BYTES);
    assert!(window >= 1 && bit0 < NBITS);
    assert!(scratch.len() >= C::bucket_limbs() << (window - 1));
    let s: [*const u8; 2] = [scalars.as_ptr(), ptr::null()];
    let mut ret = C::RawProj::default();
    with_point_array(points, |p| {
        // SAFETY: `p` describes `n >= 2` live points (slice or in-bounds
        // pointers), `s` describes `n` 32-byte scalars (length asserted),
        // scratch is large enough (asserted), `bit0 < NBITS`.
        unsafe {
            C::raw_tile(
                &mut ret,
                p,
                n,
                s.as_ptr(),
                scratch.as_mut_ptr(),
                bit0,
                window,
            );
        }
    });
    C::from_raw(ret)
}

/// Σ scalarᵢ · pointᵢ in one single-threaded blst call; for small inputs.
pub(crate) fn mult<C: BlstPoint>(points: Points<'_, C>, scalars: &[u8]) -> C::Curve {
    let n = points.len();
    assert_eq!(scalars.len(), n * SCALAR_BYTES);
    if n == 0 {
        return C::Curve::identity();
    }
    let mut scratch: Vec<limb_t> = vec![0; C::scratch_bytes(n).div_ceil(size_of::<limb_t>())];
    let s: [*const u8; 2] = [scalars.as_ptr(), ptr::null()];
    let mut ret = C::RawProj::default();
    with_point_array(points, |p| {
        // SAFETY: `p` and `s` describe `n >= 1` points/scalars (checked),
        // scratch has `scratch_sizeof(n)` bytes.
        unsafe { C::raw_mult(&mut ret, p, n, s.as_ptr(), scratch.as_mut_ptr()) };
    });
    C::from_raw(ret)
}

/// See [`BlstPoint::pool_mult`].
pub(crate) fn blst_pool_mult<C: BlstPoint>(points: &[C], scalars: &[u8]) -> C::Curve {
    C::pool_mult(points, scalars)
}

/// Σ pointᵢ by blst's batch-affine addition (one shared inversion per batch
/// of ~1000 points; handles infinity, P + P and P + (−P)).
pub(crate) fn sum<C: BlstPoint>(points: Points<'_, C>) -> C::Curve {
    let n = points.len();
    if n == 0 {
        return C::Curve::identity();
    }
    let mut ret = C::RawProj::default();
    with_point_array(points, |p| {
        // SAFETY: `p` describes `n >= 1` live points.
        unsafe { C::raw_sum(&mut ret, p, n) };
    });
    C::from_raw(ret)
}
