// field_bench.cu: multiplication throughput kernels (cuzk_fk_bench), with
// the multiplier inlined as production kernels will have it.
#include "bls12_381.cuh"
#include "cuzk_error.cuh"
#include "cuzk_field_kernels.h"

using namespace cuzk;

namespace {

constexpr int kThreads = 256;

// One dependent chain per thread (x ← x·y or x ← x², y = x₀ + 1); enough threads (≥ 8 warps per SM
// scheduler) hide the multiplier latency, so n·iters / time is throughput.
template <class F, int OP>
__global__ void bench_kernel(F *data, size_t n, int32_t iters) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x = data[i];
    // y comes from this thread's own element: reading a neighbour's would
    // race with that thread's final store.
    const F y = x + F::one();
#pragma unroll 1
    for (int32_t k = 0; k < iters; k++) {
        if (OP == CUZK_FT_SQR) {
            x = x.sqr();
        } else if (OP == CUZK_FT_MUL_PORTABLE) {
            F r;
            F::mul_portable(r.v, x.v, y.v);
            x = r;
        } else {
            x = x * y;
        }
    }
    data[i] = x;
}

inline unsigned blocks_for(size_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

template <class F>
cuzk_error launch_bench(int32_t op, void *data, size_t n, int32_t iters, cudaStream_t s) {
    F *d = static_cast<F *>(data);
    switch (op) {
        case CUZK_FT_SQR: bench_kernel<F, CUZK_FT_SQR><<<blocks_for(n), kThreads, 0, s>>>(d, n, iters); break;
        case CUZK_FT_MUL_PORTABLE:
            bench_kernel<F, CUZK_FT_MUL_PORTABLE><<<blocks_for(n), kThreads, 0, s>>>(d, n, iters);
            break;
        default: bench_kernel<F, CUZK_FT_MUL><<<blocks_for(n), kThreads, 0, s>>>(d, n, iters); break;
    }
    return cuzk::after_launch();
}

}  // namespace

extern "C" {

cuzk_error cuzk_fk_bench(int32_t field, int32_t op, void *data, size_t n, int32_t iters, cuzk_stream stream) {
    return guard([&] {
        if ((field != CUZK_FT_FR && field != CUZK_FT_FP) ||
            (op != CUZK_FT_MUL && op != CUZK_FT_SQR && op != CUZK_FT_MUL_PORTABLE))
            return invalid("bench supports Fr/Fp with MUL, SQR, MUL_PORTABLE");
        if (n == 0 || iters < 0) return ok();
        if (!data) return invalid("null pointer");
        cudaStream_t s = static_cast<cudaStream_t>(stream);
        return field == CUZK_FT_FR ? launch_bench<fr_t>(op, data, n, iters, s)
                                   : launch_bench<fp_t>(op, data, n, iters, s);
    });
}

}  // extern "C"
