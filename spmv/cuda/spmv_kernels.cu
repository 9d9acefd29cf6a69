// spmv_kernels.cu: out = M·z on the device, one thread per output element
// (a row, or a zero of the domain padding). The per-thread code is
// spmv.cuh, shared with the host twin.
#include "cuzk_error.cuh"
#include "cuzk_spmv.h"
#include "spmv.cuh"

using namespace cuzk;

namespace {

// A 32 GiB PoRep matrix has ~2^27 rows of a few non-zeros each: one thread
// per row keeps neighbouring threads on neighbouring row pointers and
// columns (coalesced), while the z values they gather are scattered.
__global__ void spmv_kernel(cuzk_spmv_matrix m, const fr_t *inputs, const fr_t *aux, fr_t *out,
                            uint64_t out_len) {
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i >= out_len) return;
    spmv::out_at(m, inputs, aux, out, i);
}

constexpr uint32_t kThreads = 256;

}  // namespace

extern "C" cuzk_error cuzk_spmv_gpu(const cuzk_spmv_matrix *m, const void *inputs, uint64_t n_inputs,
                                    const void *aux, uint64_t n_aux, void *out, uint64_t out_len,
                                    cuzk_stream stream) {
    return guard([&] {
        if (!spmv::valid(m, inputs, n_inputs, aux, n_aux, out, out_len)) return invalid("spmv: bad arguments");
        if (out_len == 0) return ok();
        uint64_t blocks = (out_len + kThreads - 1) / kThreads;
        if (blocks > 0x7fffffffull) return invalid("spmv: out_len too large");
        spmv_kernel<<<(unsigned)blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
            *m, static_cast<const fr_t *>(inputs), static_cast<const fr_t *>(aux), static_cast<fr_t *>(out),
            out_len);
        return after_launch();
    });
}
