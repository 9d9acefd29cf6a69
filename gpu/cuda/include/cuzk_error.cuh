// cuzk_error.cuh: C++ helpers (nvcc side only) for the cuzk_error convention
// of cuzk_gpu.h: building errors from cudaError_t and keeping exceptions from
// crossing the extern "C" boundary.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include "cuzk_gpu.h"

namespace cuzk {

inline cuzk_error ok() { return cuzk_error{0, nullptr}; }

// malloc'd copy of "prefix: text"; NULL if even that allocation fails (the
// code still tells the caller what happened).
inline char *dup_msg(const char *prefix, const char *text) {
    size_t n = std::strlen(prefix) + std::strlen(text) + 3;
    char *m = static_cast<char *>(std::malloc(n));
    if (m) std::snprintf(m, n, "%s: %s", prefix, text);
    return m;
}

inline cuzk_error make_error(int32_t code, const char *prefix, const char *text) {
    return cuzk_error{code, dup_msg(prefix, text)};
}

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

// Runs `body` (returning cuzk_error); converts any escaping exception.
template <typename F>
inline cuzk_error guard(F &&body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return make_error(CUZK_ERR_HOST_ALLOC, "std::bad_alloc", "host allocation failed");
    } catch (const std::exception &ex) {
        return make_error(CUZK_ERR_EXCEPTION, "C++ exception", ex.what());
    } catch (...) {
        return make_error(CUZK_ERR_EXCEPTION, "C++ exception", "unknown");
    }
}

inline cuzk_error invalid(const char *what) {
    return make_error(CUZK_ERR_INVALID_ARG, "invalid argument", what);
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
