// msm_api.cu: the extern "C" device entry points of cuzk_msm.h.
#include "msm_device.cuh"

using namespace cuzk;
using namespace cuzk::msm;

namespace {

bool occupancy_ok(const cuzk_msm_tuning &t) {
    return (t.occupancy == CUZK_MSM_OCC_TWO_BLOCKS || t.occupancy == CUZK_MSM_OCC_ONE_BLOCK ||
            t.occupancy == CUZK_MSM_OCC_BLOCK128) &&
           t.max_rounds <= (int32_t)kMaxRounds;
}

}  // namespace

extern "C" {

cuzk_error cuzk_msm_dev_run(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars, uint32_t n,
                            uint32_t c, uint32_t copies, uint32_t stride, void *out, cuzk_msm_tuning tuning,
                            cuzk_stream stream) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!occupancy_ok(tuning)) return invalid("unknown occupancy mode or more than 6 rounds");
    if (!msm_args_ok(n, c, copies, stride))
        return invalid("window must be 2..=24 and ceil(256/c)·n < 2^32 (copies: ≤ windows, n ≤ stride, < 2^31 points)");
    if (copies > 1 && idx) return invalid("shifted copies take no index array");
    if (!out || (n && (!bases || !scalars))) return invalid("null pointer");
    return curve == CUZK_MSM_G1 ? g1_msm(bases, idx, scalars, n, c, copies, stride, out, tuning, stream)
                                : g2_msm(bases, idx, scalars, n, c, copies, stride, out, tuning, stream);
}

cuzk_error cuzk_msm_dev_bitmap_sum(int32_t curve, const void *bases, const uint64_t *words, uint32_t nbits, void *out,
                                   cuzk_msm_tuning tuning, cuzk_stream stream) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!occupancy_ok(tuning)) return invalid("unknown occupancy mode or more than 6 rounds");
    if (!out || (nbits && (!bases || !words))) return invalid("null pointer");
    return curve == CUZK_MSM_G1 ? g1_bitmap_sum(bases, words, nbits, out, tuning, stream)
                                : g2_bitmap_sum(bases, words, nbits, out, tuning, stream);
}

cuzk_error cuzk_msm_dev_accumulate(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars,
                                   uint32_t n, uint32_t c, void *acc, cuzk_msm_tuning tuning, cuzk_stream stream) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!occupancy_ok(tuning)) return invalid("unknown occupancy mode or more than 6 rounds");
    if (!msm_args_ok(n, c)) return invalid("window must be 2..=24 and ceil(256/c)·n < 2^32");
    if (!acc || (n && (!bases || !scalars))) return invalid("null pointer");
    return curve == CUZK_MSM_G1 ? g1_accumulate(bases, idx, scalars, n, c, acc, tuning, stream)
                                : g2_accumulate(bases, idx, scalars, n, c, acc, tuning, stream);
}

cuzk_error cuzk_msm_dev_buckets_clear(int32_t curve, uint32_t c, void *acc, cuzk_stream stream) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!msm_args_ok(0, c)) return invalid("window must be 2..=24");
    if (!acc) return invalid("null pointer");
    const cuzk_msm_tuning t{};
    return curve == CUZK_MSM_G1 ? g1_buckets(c, acc, nullptr, t, stream) : g2_buckets(c, acc, nullptr, t, stream);
}

cuzk_error cuzk_msm_dev_buckets_reduce(int32_t curve, uint32_t c, void *acc, void *out, cuzk_msm_tuning tuning,
                                       cuzk_stream stream) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!occupancy_ok(tuning)) return invalid("unknown occupancy mode or more than 6 rounds");
    if (!msm_args_ok(0, c)) return invalid("window must be 2..=24");
    if (!acc || !out) return invalid("null pointer");
    return curve == CUZK_MSM_G1 ? g1_buckets(c, acc, out, tuning, stream) : g2_buckets(c, acc, out, tuning, stream);
}

cuzk_error cuzk_msm_dev_index_sub(uint32_t *idx, uint32_t n, uint32_t sub, cuzk_stream stream) {
    if (n && !idx) return invalid("null pointer");
    return run_device([&] {
        device_exec ex{static_cast<cudaStream_t>(stream)};
        ex.for_each(n, index_sub_op{idx, sub});
    });
}

cuzk_error cuzk_msm_dev_release_scratch(void) {
    return run_device([] { release_scratch(); });
}

}  // extern "C"
