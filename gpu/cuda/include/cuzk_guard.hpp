// cuzk_guard.hpp: the cuzk_error convention of cuzk_gpu.h in plain C++ (no
// CUDA headers), so that the host twins' entry points, compiled by the host
// compiler, build their errors and keep exceptions from crossing the
// extern "C" boundary exactly as the device entry points do. cuzk_error.cuh
// adds the CUDA side (errors from cudaError_t).
#pragma once

#include <cstdint>
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

}  // namespace cuzk
