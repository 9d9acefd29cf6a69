// field_kernels.cu: the field/curve templates on the device, for the
// differential tests (cuzk_fk_field / cuzk_fk_curve) and the multiplication
// throughput benchmark (cuzk_fk_bench, in field_bench.cu). See cuzk_field_kernels.h.
// Multiplication is a call here (CUZK_NOINLINE_MUL): correctness, not
// speed, is tested, and fully inlined G2 formulas take ptxas many minutes.
#define CUZK_NOINLINE_MUL 1
#include "cuzk_error.cuh"
#include "field_ops.cuh"

using namespace cuzk;

namespace {

constexpr int kThreads = 256;

template <class F>
__global__ void field_kernel(int32_t op, const F *a, const F *b, F *out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    F r;
    ft::field_op(op, a[i], b[i], r);
    out[i] = r;
}

template <class F>
__global__ void curve_kernel(int32_t op, const affine_t<F> *a, const affine_t<F> *b, const F *la, const F *lb,
                             xyzz_t<F> *out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    xyzz_t<F> r;
    ft::curve_op(op, a[i], b[i], la[i], lb[i], r);
    out[i] = r;
}

inline unsigned blocks_for(size_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

}  // namespace

extern "C" {

cuzk_error cuzk_fk_field(int32_t field, int32_t op, const void *a, const void *b, void *out, size_t n,
                         cuzk_stream stream) {
    return guard([&] {
        if (!ft::field_op_valid(field, op)) return invalid("unknown field or operation");
        if (n == 0) return ok();
        if (!a || !b || !out) return invalid("null pointer");
        if (blocks_for(n) > 0x7fffffffu) return invalid("n too large");
        cudaStream_t s = static_cast<cudaStream_t>(stream);
        switch (field) {
            case CUZK_FT_FR:
                field_kernel<fr_t><<<blocks_for(n), kThreads, 0, s>>>(
                    op, static_cast<const fr_t *>(a), static_cast<const fr_t *>(b), static_cast<fr_t *>(out), n);
                break;
            case CUZK_FT_FP:
                field_kernel<fp_t><<<blocks_for(n), kThreads, 0, s>>>(
                    op, static_cast<const fp_t *>(a), static_cast<const fp_t *>(b), static_cast<fp_t *>(out), n);
                break;
            default:
                field_kernel<fp2_t><<<blocks_for(n), kThreads, 0, s>>>(
                    op, static_cast<const fp2_t *>(a), static_cast<const fp2_t *>(b), static_cast<fp2_t *>(out), n);
                break;
        }
        return cuzk::after_launch();
    });
}

cuzk_error cuzk_fk_curve(int32_t curve, int32_t op, const void *a, const void *b, const void *la,
                         const void *lb, void *out, size_t n, cuzk_stream stream) {
    return guard([&] {
        if (!ft::curve_op_valid(curve, op)) return invalid("unknown curve or operation");
        if (n == 0) return ok();
        if (!a || !b || !la || !lb || !out) return invalid("null pointer");
        cudaStream_t s = static_cast<cudaStream_t>(stream);
        if (curve == CUZK_FT_G1) {
            curve_kernel<fp_t><<<blocks_for(n), kThreads, 0, s>>>(
                op, static_cast<const g1_affine_t *>(a), static_cast<const g1_affine_t *>(b),
                static_cast<const fp_t *>(la), static_cast<const fp_t *>(lb), static_cast<g1_xyzz_t *>(out), n);
        } else {
            curve_kernel<fp2_t><<<blocks_for(n), kThreads, 0, s>>>(
                op, static_cast<const g2_affine_t *>(a), static_cast<const g2_affine_t *>(b),
                static_cast<const fp2_t *>(la), static_cast<const fp2_t *>(lb), static_cast<g2_xyzz_t *>(out), n);
        }
        return cuzk::after_launch();
    });
}

}  // extern "C"
