// fixed_base_device.cuh: the device entry templates of fixed_base.cuh
// (msm_device.cuh's executor: one thread per index, errors as cuzk_error),
// used by fixed_base_g1.cu / fixed_base_g2.cu. nvcc only.
#pragma once

#include "cuzk_fixed_base.h"
#include "fixed_base.cuh"
#include "msm_device.cuh"

namespace cuzk {
namespace fb {

template <class F>
cuzk_error dev_fixed_base(const void *table, uint32_t w, const void *scalars, uint32_t n, void *scratch, void *out,
                          cuzk_stream stream) {
    return msm::run_device([&] {
        msm::device_exec ex{static_cast<cudaStream_t>(stream)};
        fb_run<F>(ex, static_cast<const affine_t<F> *>(table), w, static_cast<const fr_t *>(scalars), n,
                  static_cast<xyzz_t<F> *>(scratch), static_cast<affine_t<F> *>(out));
    });
}

template <class F>
cuzk_error dev_fixed_base_table(const void *rows, uint32_t w, void *scratch, void *table, cuzk_stream stream) {
    return msm::run_device([&] {
        msm::device_exec ex{static_cast<cudaStream_t>(stream)};
        fb_table_run<F>(ex, static_cast<const affine_t<F> *>(rows), w, static_cast<xyzz_t<F> *>(scratch),
                        static_cast<affine_t<F> *>(table));
    });
}

template <class F>
cuzk_error dev_shift(void *table, uint32_t n, uint32_t shift, uint32_t copies, void *scratch, uint32_t chunk,
                     cuzk_stream stream) {
    return msm::run_device([&] {
        msm::device_exec ex{static_cast<cudaStream_t>(stream)};
        shift_table_run<F>(ex, static_cast<affine_t<F> *>(table), n, shift, copies, static_cast<xyzz_t<F> *>(scratch),
                           chunk);
    });
}

// Defined in fixed_base_g1.cu / fixed_base_g2.cu (one curve per file, so
// the two ptxas runs go in parallel).
cuzk_error g1_fixed_base(const void *, uint32_t, const void *, uint32_t, void *, void *, cuzk_stream);
cuzk_error g2_fixed_base(const void *, uint32_t, const void *, uint32_t, void *, void *, cuzk_stream);
cuzk_error g1_fixed_base_table(const void *, uint32_t, void *, void *, cuzk_stream);
cuzk_error g2_fixed_base_table(const void *, uint32_t, void *, void *, cuzk_stream);
cuzk_error g1_shift(void *, uint32_t, uint32_t, uint32_t, void *, uint32_t, cuzk_stream);
cuzk_error g2_shift(void *, uint32_t, uint32_t, uint32_t, void *, uint32_t, cuzk_stream);

}  // namespace fb
}  // namespace cuzk
