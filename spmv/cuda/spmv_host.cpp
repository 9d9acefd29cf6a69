// spmv_host.cpp: the host twin of spmv_kernels.cu: the kernel's per-thread
// function (spmv.cuh) in a loop over threads, so CPU tests exercise the
// device's row arithmetic and index handling.
#include "cuzk_guard.hpp"
#include "cuzk_spmv.h"
#include "spmv.cuh"

using namespace cuzk;

extern "C" cuzk_error cuzk_spmv_host(const cuzk_spmv_matrix *m, const void *inputs, uint64_t n_inputs,
                                     const void *aux, uint64_t n_aux, void *out, uint64_t out_len) {
    if (!spmv::valid(m, inputs, n_inputs, aux, n_aux, out, out_len)) return invalid("matrix or vector sizes");
    const fr_t *in = static_cast<const fr_t *>(inputs);
    const fr_t *ax = static_cast<const fr_t *>(aux);
    fr_t *o = static_cast<fr_t *>(out);
    for (uint64_t i = 0; i < out_len; i++) spmv::out_at(*m, in, ax, o, i);
    return ok();
}
