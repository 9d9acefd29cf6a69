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

int32_t cuzk_fixed_base_host_shift(int32_t curve, void *table, uint32_t n, uint32_t shift, uint32_t copies) {
    if ((curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) || copies == 0 || (n && !table)) return CUZK_ERR_INVALID_ARG;
    return msm::run_guarded([&] {
        if (curve == CUZK_MSM_G1)
            host_shift<fp_t>(table, n, shift, copies);
        else
            host_shift<fp2_t>(table, n, shift, copies);
    });
}

int32_t cuzk_fixed_base_host_table(int32_t curve, const void *rows, uint32_t w, void *table) {
    if ((curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) || !fb_args_ok(w) || !rows || !table)
        return CUZK_ERR_INVALID_ARG;
    return msm::run_guarded([&] {
        if (curve == CUZK_MSM_G1)
            host_table<fp_t>(rows, w, table);
        else
            host_table<fp2_t>(rows, w, table);
    });
}

int32_t cuzk_fixed_base_host_run(int32_t curve, const void *table, uint32_t w, const void *scalars, uint32_t n,
                                 void *out) {
    if ((curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) || !fb_args_ok(w)) return CUZK_ERR_INVALID_ARG;
    if (n && (!table || !scalars || !out)) return CUZK_ERR_INVALID_ARG;
    return msm::run_guarded([&] {
        if (curve == CUZK_MSM_G1)
            host_run<fp_t>(table, w, scalars, n, out);
        else
            host_run<fp2_t>(table, w, scalars, n, out);
    });
}

}  // extern "C"
