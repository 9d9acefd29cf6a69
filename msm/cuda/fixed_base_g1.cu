// fixed_base_g1.cu: the fixed-base multiplication kernels for G1.
// Fully inlined multiplication (the kernels hold mixed additions, one
// doubling and one inversion: ptxas takes about a minute for G1, two and a
// half for G2 on 2 shared cores) with the portable multiplier,
// the faster of the two on the H200 (docs/GPU.md: 1.60e10 vs 1.20e10 Fp
// products/s). Device code of each .cu is its own module, so this choice
// does not leak into the MSM kernels.
#define CUZK_DEVICE_MUL_PORTABLE 1
#include "fixed_base_device.cuh"

namespace cuzk {
namespace fb {

cuzk_error g1_fixed_base(const void *table, uint32_t w, const void *scalars, uint32_t n, void *scratch, void *out,
                         cuzk_stream stream) {
    return dev_fixed_base<fp_t>(table, w, scalars, n, scratch, out, stream);
}

cuzk_error g1_fixed_base_table(const void *rows, uint32_t w, void *scratch, void *table, cuzk_stream stream) {
    return dev_fixed_base_table<fp_t>(rows, w, scratch, table, stream);
}

cuzk_error g1_shift(void *table, uint32_t n, uint32_t shift, uint32_t copies, void *scratch, uint32_t chunk,
                    cuzk_stream stream) {
    return dev_shift<fp_t>(table, n, shift, copies, scratch, chunk, stream);
}

}  // namespace fb
}  // namespace cuzk
