// cuzk_error.cuh: C++ helpers (nvcc side only) for the cuzk_error convention
// of cuzk_gpu.h: building errors from cudaError_t. The CUDA-free part (ok,
// make_error, invalid, and guard, which keeps exceptions from crossing the
// extern "C" boundary) is cuzk_guard.hpp, shared with the host twins.
#pragma once

#include <cuda_runtime.h>

#include "cuzk_guard.hpp"

namespace cuzk {

// Maps a CUDA status to a cuzk_error. "No device at all" conditions get
// their own code so Rust can say GpuError::NoDevice; the message keeps the
// CUDA name ("cudaErrorNoDevice: no CUDA-capable device is detected").
inline cuzk_error from_cuda(cudaError_t e) {
    if (e == cudaSuccess) return ok();
    int32_t code = static_cast<int32_t>(e);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
        e == cudaErrorSystemDriverMismatch || e == cudaErrorCompatNotSupportedOnDevice)
        code = CUZK_ERR_NO_DEVICE;
    return make_error(code, cudaGetErrorName(e), cudaGetErrorString(e));
}

// After a kernel launch: the launch error, if any.
inline cuzk_error after_launch() { return from_cuda(cudaGetLastError()); }

}  // namespace cuzk

#define CUZK_TRY(expr)                                   \
    do {                                                 \
        cudaError_t cuzk_e_ = (expr);                    \
        if (cuzk_e_ != cudaSuccess) {                    \
            /* clear it: else the next launch check sees it */ \
            (void)cudaGetLastError();                    \
            return cuzk::from_cuda(cuzk_e_);             \
        }                                                \
    } while (0)
