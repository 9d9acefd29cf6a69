// msm_g1.cu: the MSM kernels for G1. Multiplication is a call
// (CUZK_NOINLINE_MUL) for now: correctness first, and ptxas on fully
// inlined curve formulas takes many minutes (docs/GPU.md). Dropping the
// define is the first speed step to measure on the H200.
#define CUZK_NOINLINE_MUL 1
#include "msm_device.cuh"

namespace cuzk {
namespace msm {

cuzk_error g1_msm(const void *bases, const uint32_t *idx, const void *scalars, uint32_t n, uint32_t c, void *out,
                   cuzk_stream stream) {
    return dev_msm<fp_t>(bases, idx, scalars, n, c, out, stream);
}

cuzk_error g1_bitmap_sum(const void *bases, const uint64_t *words, uint32_t nbits, void *out, cuzk_stream stream) {
    return dev_bitmap_sum<fp_t>(bases, words, nbits, out, stream);
}

}  // namespace msm
}  // namespace cuzk
