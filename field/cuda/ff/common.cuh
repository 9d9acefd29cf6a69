// common.cuh: portability macros so the field and curve templates compile
// both under nvcc (device and host) and as plain host C++ (g++/clang via the
// cc crate, for CPU tests in CI).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__
#define CUZK_INLINE __forceinline__
#else
#define CUZK_HD
#define CUZK_INLINE inline __attribute__((always_inline))
#endif

#if defined(CUZK_NOINLINE_MUL) && defined(__CUDACC__)
#define CUZK_MUL_ATTR __noinline__
#else
#define CUZK_MUL_ATTR CUZK_INLINE
#endif

// True while compiling device code: selects the PTX fast paths. The host
// pass of nvcc and plain host compilers take the portable twin.
#if defined(__CUDA_ARCH__)
#define CUZK_DEVICE_PATH 1
#else
#define CUZK_DEVICE_PATH 0
#endif

#define CUZK_PRAGMA(x) _Pragma(#x)
// nvcc's host pass accepts neither spelling without a warning (cudafe
// rejects GCC's, g++ ignores nvcc's), so it gets none; host tests use the
// plain host compiler, which does unroll.
#if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#define CUZK_UNROLL CUZK_PRAGMA(unroll)
#elif defined(__CUDACC__)
#define CUZK_UNROLL
#elif defined(__GNUC__)
// GCC spells it differently; 16 covers the widest limb loop (Fp: 13).
#define CUZK_UNROLL CUZK_PRAGMA(GCC unroll 16)
#else
#define CUZK_UNROLL
#endif
