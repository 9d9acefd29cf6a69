// field_host.cpp: the field/curve templates compiled as plain host C++ (no
// nvcc), exported for the CPU differential tests against blst.
#include "cuzk_guard.hpp"
#include "field_ops.cuh"

using namespace cuzk;

namespace {

template <class F>
void run_field(int32_t op, const void *a, const void *b, void *out, size_t n) {
    const F *A = static_cast<const F *>(a);
    const F *B = static_cast<const F *>(b);
    F *O = static_cast<F *>(out);
    for (size_t i = 0; i < n; i++) ft::field_op(op, A[i], B[i], O[i]);
}

template <class F>
void run_curve(int32_t op, const void *a, const void *b, const void *la, const void *lb, void *out, size_t n) {
    const affine_t<F> *A = static_cast<const affine_t<F> *>(a);
    const affine_t<F> *B = static_cast<const affine_t<F> *>(b);
    const F *LA = static_cast<const F *>(la);
    const F *LB = static_cast<const F *>(lb);
    xyzz_t<F> *O = static_cast<xyzz_t<F> *>(out);
    for (size_t i = 0; i < n; i++) ft::curve_op(op, A[i], B[i], LA[i], LB[i], O[i]);
}

}  // namespace

extern "C" {

cuzk_error cuzk_ft_field_host(int32_t field, int32_t op, const void *a, const void *b, void *out, size_t n) {
    if (!ft::field_op_valid(field, op)) return invalid("unknown field or operation");
    if (n == 0) return ok();
    if (!a || !b || !out) return invalid("null pointer");
    return guard([&] {
        switch (field) {
            case CUZK_FT_FR: run_field<fr_t>(op, a, b, out, n); break;
            case CUZK_FT_FP: run_field<fp_t>(op, a, b, out, n); break;
            default: run_field<fp2_t>(op, a, b, out, n); break;
        }
        return ok();
    });
}

cuzk_error cuzk_ft_curve_host(int32_t curve, int32_t op, const void *a, const void *b, const void *la,
                              const void *lb, void *out, size_t n) {
    if (!ft::curve_op_valid(curve, op)) return invalid("unknown curve or operation");
    if (n == 0) return ok();
    if (!a || !b || !la || !lb || !out) return invalid("null pointer");
    return guard([&] {
        if (curve == CUZK_FT_G1)
            run_curve<fp_t>(op, a, b, la, lb, out, n);
        else
            run_curve<fp2_t>(op, a, b, la, lb, out, n);
        return ok();
    });
}

cuzk_error cuzk_ft_host_is_portable(int32_t *portable) {
    if (!portable) return invalid("null pointer");
    *portable = CUZK_DEVICE_PATH == 0;
    return ok();
}

}  // extern "C"
