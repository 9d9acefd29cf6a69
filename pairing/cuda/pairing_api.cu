// pairing_api.cu: the device kernels and extern "C" entry point of
// cuzk_pairing.h.
//
// Multiplication is a call (CUZK_NOINLINE_MUL), as in the MSM's G2
// kernels. Inlined, ptxas took 585 s for task_kernel at sm_90 on the
// 2-core build machine and it still spilled (255 registers, 3.1 KB
// stack: an Fp12 alone is 144 registers); as a call, 16 s, 255
// registers and a 1.3 KB stack, each call saving 48 bytes of registers.
// The product itself is the portable one, faster on the H200
// (docs/GPU.md §8).
#define CUZK_NOINLINE_MUL 1
#define CUZK_DEVICE_MUL_PORTABLE 1
#include "cuzk_error.cuh"
#include "cuzk_pairing.h"
#include "miller_products.cuh"

using namespace cuzk;
using namespace cuzk::pairing;

namespace {

// A Miller loop thread holds an Fp12, a Jacobian point and a line: small
// blocks keep many resident under the register file's limit.
constexpr unsigned kMillerThreads = 64;
constexpr unsigned kThreads = 128;

inline unsigned blocks_for(uint32_t n, unsigned threads) { return (n + threads - 1) / threads; }

__global__ void task_kernel(const g1_affine_t *P, const g2_affine_t *Q, const uint32_t *task_starts, uint32_t tasks,
                            miller_point_t *T, fp12_t *partials) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < tasks) miller_task(P, Q, task_starts, t, T, partials);
}

__global__ void reduce_kernel(fp12_t *partials, const uint32_t *group_starts, uint32_t groups, uint32_t tasks,
                              uint32_t s) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < tasks) reduce_step(partials, group_starts, groups, t, s);
}

__global__ void gather_kernel(const fp12_t *partials, const uint32_t *group_starts, uint32_t groups, fp12_t *out) {
    const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < groups) gather(partials, group_starts, g, out);
}

}  // namespace

extern "C" {

cuzk_error cuzk_pairing_dev_miller(const void *g1, const void *g2, const uint32_t *task_starts, uint32_t tasks,
                                   const uint32_t *group_starts, uint32_t groups, uint32_t max_group_tasks,
                                   void *points, void *partials, void *out, cuzk_stream stream) {
    if (groups == 0) return ok();
    if (!group_starts || !out) return invalid("null pointer");
    if (tasks && (!g1 || !g2 || !task_starts || !points || !partials)) return invalid("null pointer");
    return guard([&] {
        cudaStream_t st = static_cast<cudaStream_t>(stream);
        fp12_t *part = static_cast<fp12_t *>(partials);
        if (tasks) {
            task_kernel<<<blocks_for(tasks, kMillerThreads), kMillerThreads, 0, st>>>(
                static_cast<const g1_affine_t *>(g1), static_cast<const g2_affine_t *>(g2), task_starts, tasks,
                static_cast<miller_point_t *>(points), part);
            CUZK_TRY(cudaGetLastError());
            for (uint32_t s = 1; s < max_group_tasks; s *= 2) {
                reduce_kernel<<<blocks_for(tasks, kThreads), kThreads, 0, st>>>(part, group_starts, groups, tasks, s);
                CUZK_TRY(cudaGetLastError());
            }
        }
        gather_kernel<<<blocks_for(groups, kThreads), kThreads, 0, st>>>(part, group_starts, groups,
                                                                         static_cast<fp12_t *>(out));
        return after_launch();
    });
}

}  // extern "C"
