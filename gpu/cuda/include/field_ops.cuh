// field_ops.cuh: one element-wise step of the differential tests, shared by
// the host twin (host/field_host.cpp) and the device kernels
// (field_kernels.cu) so both run literally the same code.
#pragma once

#include "bls12_381.cuh"
#include "cuzk_field_kernels.h"

namespace cuzk {
namespace ft {

template <class F>
CUZK_HD inline void field_op(int32_t op, const F &a, const F &b, F &out) {
    switch (op) {
        case CUZK_FT_ADD: out = a + b; break;
        case CUZK_FT_SUB: out = a - b; break;
        case CUZK_FT_MUL: out = a * b; break;
        case CUZK_FT_SQR: out = a.sqr(); break;
        case CUZK_FT_NEG: out = -a; break;
        case CUZK_FT_DBL: out = a.dbl(); break;
        case CUZK_FT_INV: out = a.inverse(); break;
        default: out = F::zero(); break;
    }
}

// to/from Montgomery exist for the prime fields only.
template <class P>
CUZK_HD inline void field_op(int32_t op, const mont_t<P> &a, const mont_t<P> &b, mont_t<P> &out) {
    using F = mont_t<P>;
    switch (op) {
        case CUZK_FT_ADD: out = a + b; break;
        case CUZK_FT_SUB: out = a - b; break;
        case CUZK_FT_MUL: out = a * b; break;
        case CUZK_FT_SQR: out = a.sqr(); break;
        case CUZK_FT_NEG: out = -a; break;
        case CUZK_FT_DBL: out = a.dbl(); break;
        case CUZK_FT_INV: out = a.inverse(); break;
        case CUZK_FT_TO_MONT: out = a.to_mont(); break;
        case CUZK_FT_FROM_MONT: out = a.from_mont(); break;
        case CUZK_FT_MUL_PORTABLE: {
            F r;
            F::mul_portable(r.v, a.v, b.v);
            out = r;
            break;
        }
        default: out = F::zero(); break;
    }
}

inline bool field_op_valid(int32_t field, int32_t op) {
    if (op < CUZK_FT_ADD || op > CUZK_FT_MUL_PORTABLE) return false;
    if (field == CUZK_FT_FP2) return op <= CUZK_FT_INV;
    return field == CUZK_FT_FR || field == CUZK_FT_FP;
}

inline bool curve_op_valid(int32_t curve, int32_t op) {
    return (curve == CUZK_FT_G1 || curve == CUZK_FT_G2) && op >= CUZK_FT_P_ADD && op <= CUZK_FT_P_AFFINE;
}

template <class F>
CUZK_HD inline void curve_op(int32_t op, const affine_t<F> &a, const affine_t<F> &b, const F &la, const F &lb,
                             xyzz_t<F> &out) {
    using P = xyzz_t<F>;
    P A = P::from_affine_scaled(a, la);
    switch (op) {
        case CUZK_FT_P_ADD: out = A.add(P::from_affine_scaled(b, lb)); break;
        case CUZK_FT_P_MADD: out = A.add(b); break;
        case CUZK_FT_P_DBL: out = A.dbl(); break;
        case CUZK_FT_P_NEG: out = -A; break;
        case CUZK_FT_P_AFFINE: {
            affine_t<F> r = A.add(P::from_affine_scaled(b, lb)).to_affine();
            if (r.is_inf()) {
                out = P::inf();
            } else {
                out = P{r.x, r.y, F::one(), F::one()};
            }
            break;
        }
        default: out = P::inf(); break;
    }
}

}  // namespace ft
}  // namespace cuzk
