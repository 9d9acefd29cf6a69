// fixed_base_api.cu: the extern "C" device entry point of cuzk_fixed_base.h.
#include "fixed_base_device.cuh"

using namespace cuzk;
using namespace cuzk::fb;

extern "C" {

cuzk_error cuzk_fixed_base_dev_table(int32_t curve, const void *rows, uint32_t w, void *scratch, void *table,
                                     cuzk_stream stream) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!fb_args_ok(w)) return invalid("fixed-base window must be 2..=16");
    if (!rows || !scratch || !table) return invalid("null pointer");
    return curve == CUZK_MSM_G1 ? g1_fixed_base_table(rows, w, scratch, table, stream)
                                : g2_fixed_base_table(rows, w, scratch, table, stream);
}

cuzk_error cuzk_fixed_base_dev_run(int32_t curve, const void *table, uint32_t w, const void *scalars, uint32_t n,
                                   void *scratch, void *out, cuzk_stream stream) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!fb_args_ok(w)) return invalid("fixed-base window must be 2..=16");
    if (n && (!table || !scalars || !scratch || !out)) return invalid("null pointer");
    return curve == CUZK_MSM_G1 ? g1_fixed_base(table, w, scalars, n, scratch, out, stream)
                                : g2_fixed_base(table, w, scalars, n, scratch, out, stream);
}

cuzk_error cuzk_fixed_base_dev_shift(int32_t curve, void *table, uint32_t n, uint32_t shift, uint32_t copies,
                                     void *scratch, uint32_t chunk, cuzk_stream stream) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (copies == 0 || chunk == 0) return invalid("copies and chunk must be ≥ 1");
    if (n && (!table || !scratch)) return invalid("null pointer");
    return curve == CUZK_MSM_G1 ? g1_shift(table, n, shift, copies, scratch, chunk, stream)
                                : g2_shift(table, n, shift, copies, scratch, chunk, stream);
}

}  // extern "C"
