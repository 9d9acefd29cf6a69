// fixed_base_host.cpp: fixed-base multiplication (fixed_base.cuh) on the
// CPU, one loop per step, for the CI tests against blstrs. Same driver and
// step functors as the device.
#include <vector>

#include "cuzk_fixed_base.h"
#include "fixed_base.cuh"
#include "host_exec.hpp"

using namespace cuzk;
using namespace cuzk::fb;

namespace {

template <class F>
void host_run(const void *table, uint32_t w, const void *scalars, uint32_t n, void *out) {
    std::vector<xyzz_t<F>> scratch(n);
    msm::host_exec ex;
    fb_run<F>(ex, static_cast<const affine_t<F> *>(table), w, static_cast<const fr_t *>(scalars), n, scratch.data(),
              static_cast<affine_t<F> *>(out));
}

template <class F>
void host_table(const void *rows, uint32_t w, void *table) {
    std::vector<xyzz_t<F>> scratch(fb_table_len(w));
    msm::host_exec ex;
    fb_table_run<F>(ex, static_cast<const affine_t<F> *>(rows), w, scratch.data(), static_cast<affine_t<F> *>(table));
}

template <class F>
void host_shift(void *table, uint32_t n, uint32_t shift, uint32_t copies) {
    const uint32_t chunk = n < 4096 ? (n ? n : 1) : 4096;
    std::vector<xyzz_t<F>> scratch(chunk);
    msm::host_exec ex;
    shift_table_run<F>(ex, static_cast<affine_t<F> *>(table), n, shift, copies, scratch.data(), chunk);
}

}  // namespace

extern "C" {

cuzk_error cuzk_fixed_base_host_shift(int32_t curve, void *table, uint32_t n, uint32_t shift, uint32_t copies) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (copies == 0) return invalid("copies must be ≥ 1");
    if (n && !table) return invalid("null pointer");
    return guard([&] {
        if (curve == CUZK_MSM_G1)
            host_shift<fp_t>(table, n, shift, copies);
        else
            host_shift<fp2_t>(table, n, shift, copies);
        return ok();
    });
}

cuzk_error cuzk_fixed_base_host_table(int32_t curve, const void *rows, uint32_t w, void *table) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!fb_args_ok(w)) return invalid("fixed-base window must be 2..=16");
    if (!rows || !table) return invalid("null pointer");
    return guard([&] {
        if (curve == CUZK_MSM_G1)
            host_table<fp_t>(rows, w, table);
        else
            host_table<fp2_t>(rows, w, table);
        return ok();
    });
}

cuzk_error cuzk_fixed_base_host_run(int32_t curve, const void *table, uint32_t w, const void *scalars, uint32_t n,
                                    void *out) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!fb_args_ok(w)) return invalid("fixed-base window must be 2..=16");
    if (n && (!table || !scalars || !out)) return invalid("null pointer");
    return guard([&] {
        if (curve == CUZK_MSM_G1)
            host_run<fp_t>(table, w, scalars, n, out);
        else
            host_run<fp2_t>(table, w, scalars, n, out);
        return ok();
    });
}

}  // extern "C"
