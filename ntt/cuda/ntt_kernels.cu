// ntt_kernels.cu: the NTT passes, the bit-reversal permutation and the
// pointwise H-step operations on the device. The per-thread logic lives in
// ntt.cuh (shared with the host twin ntt_host.cpp); this file only launches.
#include "cuzk_error.cuh"
#include "cuzk_ntt.h"
#include "ntt.cuh"

using namespace cuzk;
using namespace cuzk::ntt;

namespace {

// One block = 2^q sub-transforms of 2^p points in shared memory (≤ 32 KiB),
// 2^(p+q−2) threads, one radix-4 group (two levels) each per step.
// kMulIn / kSubOut: the pass that reads the fused factors / subtrahends
// (their own instantiations, see ntt.cuh).
template <bool kMulIn, bool kSubOut>
__global__ void __launch_bounds__(INNER / 4) pass_kernel(Ctx c) {
    extern __shared__ uint4 smem_raw[];
    fr_t *smem = reinterpret_cast<fr_t *>(smem_raw);
    size_t block = blockIdx.x;
    uint32_t tid = threadIdx.x;
    pass_load<kMulIn>(c, block, tid, smem);
    __syncthreads();
    for (uint32_t l = 0; l < c.ps.p;) {
        uint32_t levels = step_levels(c, l);
        pass_step(c, l, levels, tid, smem);
        __syncthreads();
        l += levels;
    }
    pass_store<kSubOut>(c, block, tid, smem);
}

__global__ void single_point_kernel(fr_t *d, uint32_t flags, const fr_t *sc, const fr_t *mul, const fr_t *sub) {
    single_point(d[0], flags, sc, mul, sub);
}

__global__ void bitrev_kernel(fr_t *d, uint32_t log_n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (1u << log_n)) return;
    uint32_t j = bitrev(i, log_n);
    if (i < j) {
        fr_t x = d[i];
        d[i] = d[j];
        d[j] = x;
    }
}

__global__ void pointwise_kernel(int32_t op, fr_t *a, const fr_t *b, fr_t k, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    pointwise(op, a[i], b ? b + i : nullptr, k);
}

constexpr uint32_t kThreads = 256;

}  // namespace

extern "C" {

cuzk_error cuzk_ntt_gpu_run(void *data, uint32_t log_n, uint32_t flags, const void *tw, const void *sc,
                            const void *mul, const void *sub, cuzk_stream stream) {
    return guard([&] {
        if (!run_args_ok(data, log_n, flags, tw, sc, mul, sub))
            return invalid("ntt: bad arguments (a scale flag needs a table, F_MUL_IN factors, F_SUB_OUT subtrahends)");
        cudaStream_t s = static_cast<cudaStream_t>(stream);
        fr_t *d = static_cast<fr_t *>(data);
        const fr_t *t = static_cast<const fr_t *>(tw);
        const fr_t *k = static_cast<const fr_t *>(sc);
        const fr_t *m = static_cast<const fr_t *>(mul);
        const fr_t *u = static_cast<const fr_t *>(sub);
        if (log_n == 0) {
            if (!(flags & (F_SCALE_IN | F_SCALE_OUT | F_MUL_IN | F_SUB_OUT))) return ok();
            single_point_kernel<<<1, 1, 0, s>>>(d, flags, k, m, u);
            return after_launch();
        }
        Plan pl = make_plan(log_n);
        for (uint32_t step = 0; step < pl.count; step++) {
            Ctx c{d, t, k, m, u, flags, pl.pass[exec_index(pl, step, flags)]};
            size_t smem = size_t(block_elems(c.ps)) * sizeof(fr_t);
            const unsigned grid = (unsigned)grid_blocks(c.ps), threads = block_threads(c.ps);
            const bool mul_in = multiplies_in(c), sub_out = subtracts_out(c);
            if (mul_in && sub_out)
                pass_kernel<true, true><<<grid, threads, smem, s>>>(c);
            else if (mul_in)
                pass_kernel<true, false><<<grid, threads, smem, s>>>(c);
            else if (sub_out)
                pass_kernel<false, true><<<grid, threads, smem, s>>>(c);
            else
                pass_kernel<false, false><<<grid, threads, smem, s>>>(c);
            cuzk_error e = after_launch();
            if (e.code != 0) return e;
        }
        return ok();
    });
}

cuzk_error cuzk_ntt_gpu_bitrev(void *data, uint32_t log_n, cuzk_stream stream) {
    return guard([&] {
        if (!data || log_n > MAX_LOG) return invalid("bitrev: bad arguments");
        uint32_t n = 1u << log_n;
        bitrev_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<fr_t *>(data), log_n);
        return after_launch();
    });
}

cuzk_error cuzk_ntt_gpu_pointwise(int32_t op, void *a, const void *b, const void *k, size_t n,
                                  cuzk_stream stream) {
    return guard([&] {
        if ((op != PW_MUL && op != PW_SCALE) || !a || !k || (op == PW_MUL && !b))
            return invalid("pointwise: bad arguments");
        if (n == 0) return ok();
        size_t blocks = (n + kThreads - 1) / kThreads;
        if (blocks > 0x7fffffffu) return invalid("pointwise: n too large");
        fr_t kk = *static_cast<const fr_t *>(k);
        pointwise_kernel<<<(unsigned)blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
            op, static_cast<fr_t *>(a), static_cast<const fr_t *>(b), kk, n);
        return after_launch();
    });
}

}  // extern "C"
