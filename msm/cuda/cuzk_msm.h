/*
 * cuzk_msm.h: the C face of the MSM pipeline (msm_pipeline.cuh).
 *
 * Host twin (msm_host.cpp, always built, plain C++): cuzk_msm_host_*,
 * arrays in host memory, synchronous, returning 0 or CUZK_ERR_INVALID_ARG.
 * Device (msm_g1.cu / msm_g2.cu, `cuda` feature): cuzk_msm_dev_*, arrays in
 * device memory, asynchronous on `stream` (temporaries come from
 * cudaMallocAsync on the same stream), returning cuzk_error by value.
 *
 * Points are blst affine points (Montgomery limbs; infinity = all zero),
 * scalars are blst_fr (Montgomery form). curve: 0 = G1, 1 = G2. An XYZZ
 * point has the size of two affine points of its curve.
 * Window c must be 2..=24 and ceil(256/c)·n < 2^32.
 * The Rust side declares these by hand (msm/src/gpu/sys.rs); keep in sync.
 */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_MSM_G1 0
#define CUZK_MSM_G2 1

/* out[0..V) = the window sums of Σ_{i<n} scalars[i]·bases[idx ? idx[i] : i]:
 * V = ceil(ceil(256/c) / copies) XYZZ points (X, Y, ZZ, ZZZ; Montgomery
 * limbs; ZZ = 0 is infinity) with Σ_s 2^(c·s)·out[s] = the MSM. The caller
 * combines them (a ~256-doubling serial chain: cheap on a CPU, ~10 ms as
 * one GPU thread). copies = 1: plain bases. copies > 1: `bases` is a
 * shifted table (cuzk_fixed_base_*_shift with shift = c·V) whose copy t
 * starts `stride` points after copy t − 1; idx must be null, n ≤ stride,
 * copies ≤ ceil(256/c) and copies·stride < 2^31. */
int32_t cuzk_msm_host_run(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars, uint32_t n,
                          uint32_t c, uint32_t copies, uint32_t stride, void *out);
/* out[0] = Σ bases[j] over set bits j < nbits of words (bit j = bit j%64 of word j/64). */
int32_t cuzk_msm_host_bitmap_sum(int32_t curve, const void *bases, const uint64_t *words, uint32_t nbits, void *out);
/* Peak device memory cuzk_msm_dev_run allocates for n points at window c
 * (its temporaries; computed on the host by running the same driver with an
 * executor that only counts); 0 for invalid arguments. */
uint64_t cuzk_msm_dev_scratch_bytes(int32_t curve, uint32_t n, uint32_t c, uint32_t copies);
/* digits[j·n + i]: signed digit j of scalar i as |d| | sign<<31 (W = ceil(256/c) windows). */
int32_t cuzk_msm_host_digits(const void *scalars, uint32_t n, uint32_t c, uint32_t *digits);
/* The counting sort: off[0..=B] bucket offsets (B = W·2^(c−1)), sorted[0..off[B]] entries point | sign<<31. */
int32_t cuzk_msm_host_sort(const void *scalars, uint32_t n, uint32_t c, uint32_t *off, uint32_t *sorted);

cuzk_error cuzk_msm_dev_run(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars, uint32_t n,
                            uint32_t c, uint32_t copies, uint32_t stride, void *out, cuzk_stream stream);
cuzk_error cuzk_msm_dev_bitmap_sum(int32_t curve, const void *bases, const uint64_t *words, uint32_t nbits, void *out,
                                   cuzk_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_MSM_H */
