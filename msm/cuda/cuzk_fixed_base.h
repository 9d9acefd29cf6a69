/*
 * cuzk_fixed_base.h: the C face of fixed-base scalar multiplication
 * (fixed_base.cuh): out[i] = scalars[i]·G, affine, from a table of G.
 *
 * table: W·2^(w−1) affine points (W = ceil(256/w)), entry j·2^(w−1) + m − 1
 * = m·2^(w·j)·G; window w must be 2..=16. *_table builds it from the W row
 * bases rows[j] = 2^(w·j)·G. Points are blst affine points
 * (Montgomery limbs; infinity = all zero), scalars blst_fr (Montgomery).
 * curve: 0 = G1, 1 = G2 (CUZK_MSM_G1 / CUZK_MSM_G2).
 *
 * Every function returns a cuzk_error by value (cuzk_gpu.h).
 * Host twin (fixed_base_host.cpp, always built, plain C++): arrays in host
 * memory, synchronous; it allocates its own XYZZ scratch.
 * Device (fixed_base_g1.cu / fixed_base_g2.cu / fixed_base_api.cu, `cuda`
 * feature): arrays in device memory, `scratch` holds n (run) or
 * W·2^(w−1) (table) XYZZ points, i.e. twice as many affine-sized slots;
 * asynchronous on `stream`; allocates nothing.
 * Rust binds this header through bindgen
 * (msm/src/fixed_base_sys_bindings.rs, `cargo xtask bindgen`).
 */
#ifndef CUZK_FIXED_BASE_H
#define CUZK_FIXED_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

cuzk_error cuzk_fixed_base_host_table(int32_t curve, const void *rows, uint32_t w, void *table);
cuzk_error cuzk_fixed_base_host_run(int32_t curve, const void *table, uint32_t w, const void *scalars, uint32_t n,
                                    void *out);

cuzk_error cuzk_fixed_base_dev_table(int32_t curve, const void *rows, uint32_t w, void *scratch, void *table,
                                     cuzk_stream stream);
cuzk_error cuzk_fixed_base_dev_run(int32_t curve, const void *table, uint32_t w, const void *scalars, uint32_t n,
                                   void *scratch, void *out, cuzk_stream stream);

/* Shifted copies for the MSM's precomputed bases (cuzk_msm.h, copies > 1):
 * table holds copies·n points, table[0..n) the bases on entry; fills
 * table[t·n + i] = 2^(shift·t)·table[i] for 0 < t < copies. The device
 * version uses `scratch` (chunk ≥ 1 XYZZ points) chunk points at a time. */
cuzk_error cuzk_fixed_base_host_shift(int32_t curve, void *table, uint32_t n, uint32_t shift, uint32_t copies);
cuzk_error cuzk_fixed_base_dev_shift(int32_t curve, void *table, uint32_t n, uint32_t shift, uint32_t copies,
                                     void *scratch, uint32_t chunk, cuzk_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_FIXED_BASE_H */
