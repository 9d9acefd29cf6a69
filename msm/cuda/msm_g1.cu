// msm_g1.cu: the MSM kernels for G1. Multiplication inlined, with the
// portable C++ Montgomery product (1.34× the PTX one on the H200 in
// isolation, docs/GPU.md §8). Inlining costs ~3 min of ptxas on 2 busy
// cores (148–255 registers per kernel, a few spills in the reductions);
// CUZK_NOINLINE_MUL selects calls instead, for faster builds.
#define CUZK_DEVICE_MUL_PORTABLE 1
#include "msm_device.cuh"

namespace cuzk {
namespace msm {

cuzk_error g1_msm(const void *bases, const uint32_t *idx, const void *scalars, uint32_t n, uint32_t c,
                   uint32_t copies, uint32_t stride, void *out, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return dev_msm<fp_t>(bases, idx, scalars, n, c, copies, stride, out, tuning, stream);
}

cuzk_error g1_bitmap_sum(const void *bases, const uint64_t *words, uint32_t nbits, void *out, cuzk_msm_tuning tuning,
                         cuzk_stream stream) {
    return dev_bitmap_sum<fp_t>(bases, words, nbits, out, tuning, stream);
}

cuzk_error g1_accumulate(const void *bases, const uint32_t *idx, const void *scalars, uint32_t n, uint32_t c,
                         void *acc, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return dev_accumulate<fp_t>(bases, idx, scalars, n, c, acc, tuning, stream);
}

cuzk_error g1_buckets(uint32_t c, void *acc, void *out, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return dev_buckets<fp_t>(c, acc, out, tuning, stream);
}

}  // namespace msm
}  // namespace cuzk
