// msm_g2.cu: the MSM kernels for G2. Multiplication is a call
// (CUZK_NOINLINE_MUL): ptxas on fully inlined Fp2 curve formulas takes
// many minutes. The product itself is the portable one (faster on the
// H200, docs/GPU.md §8).
#define CUZK_NOINLINE_MUL 1
#define CUZK_DEVICE_MUL_PORTABLE 1
#include "msm_device.cuh"

namespace cuzk {
namespace msm {

cuzk_error g2_msm(const void *bases, const uint32_t *idx, const void *scalars, uint32_t n, uint32_t c,
                   uint32_t copies, uint32_t stride, void *out, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return dev_msm<fp2_t>(bases, idx, scalars, n, c, copies, stride, out, tuning, stream);
}

cuzk_error g2_bitmap_sum(const void *bases, const uint64_t *words, uint32_t nbits, void *out, cuzk_msm_tuning tuning,
                         cuzk_stream stream) {
    return dev_bitmap_sum<fp2_t>(bases, words, nbits, out, tuning, stream);
}

cuzk_error g2_accumulate(const void *bases, const uint32_t *idx, const void *scalars, uint32_t n, uint32_t c,
                         void *acc, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return dev_accumulate<fp2_t>(bases, idx, scalars, n, c, acc, tuning, stream);
}

cuzk_error g2_buckets(uint32_t c, void *acc, void *out, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return dev_buckets<fp2_t>(c, acc, out, tuning, stream);
}

}  // namespace msm
}  // namespace cuzk
