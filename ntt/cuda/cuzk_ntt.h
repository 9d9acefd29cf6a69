/*
 * cuzk_ntt.h: the C face of the NTT kernels (ntt_kernels.cu, `cuda`
 * feature) and of their host twin (ntt_host.cpp, always built).
 *
 * Elements are BLS12-381 Fr in Montgomery form with blst's byte layout.
 * `tw` is the twiddle table (NTT_TW_LEN elements), `sc` a scale table
 * (NTT_SC_LEN elements, or NULL without a scale flag); see ntt.cuh.
 * Every function returns a cuzk_error by value (cuzk_gpu.h).
 * Rust binds this header through bindgen (ntt/src/sys_bindings.rs,
 * `cargo xtask bindgen`).
 */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_NTT_INVERSE 1u
#define CUZK_NTT_DIT 2u
#define CUZK_NTT_SCALE_IN 4u
#define CUZK_NTT_SCALE_OUT 8u
#define CUZK_NTT_MUL_IN 16u  /* inputs x[i] ← x[i]·mul[i] first */
#define CUZK_NTT_SUB_OUT 32u /* outputs x[i] ← x[i] − sub[i] last (after any output scaling) */

#define CUZK_NTT_PW_MUL 0
#define CUZK_NTT_PW_SCALE 2

/* Device: one transform of 2^log_n points in place on `stream`; `mul`
 * (with CUZK_NTT_MUL_IN) and `sub` (with CUZK_NTT_SUB_OUT): 2^log_n
 * elements each, indexed by position like `data`. */
cuzk_error cuzk_ntt_gpu_run(void *data, uint32_t log_n, uint32_t flags, const void *tw, const void *sc,
                            const void *mul, const void *sub, cuzk_stream stream);
/* Device: in-place bit-reversal permutation of 2^log_n points. */
cuzk_error cuzk_ntt_gpu_bitrev(void *data, uint32_t log_n, cuzk_stream stream);
/* Device: a[i] = op(a[i], b[i], *k) for i < n; `k` is a HOST pointer to one Fr. */
cuzk_error cuzk_ntt_gpu_pointwise(int32_t op, void *a, const void *b, const void *k, size_t n,
                                  cuzk_stream stream);

/* Host twin: the same code on host memory, synchronous. */
cuzk_error cuzk_ntt_host_run(void *data, uint32_t log_n, uint32_t flags, const void *tw, const void *sc,
                             const void *mul, const void *sub);
cuzk_error cuzk_ntt_host_bitrev(void *data, uint32_t log_n);
cuzk_error cuzk_ntt_host_pointwise(int32_t op, void *a, const void *b, const void *k, size_t n);

#ifdef __cplusplus
}
#endif

#endif
