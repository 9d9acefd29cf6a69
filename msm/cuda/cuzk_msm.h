/*
 * cuzk_msm.h: the C face of the MSM pipeline (msm_pipeline.cuh).
 *
 * Host twin (msm_host.cpp, always built, plain C++): cuzk_msm_host_*,
 * arrays in host memory, synchronous.
 * Device (msm_g1.cu / msm_g2.cu, `cuda` feature): cuzk_msm_dev_*, arrays in
 * device memory, asynchronous on `stream` (temporaries come from
 * cudaMallocAsync on the same stream).
 * Every function returns a cuzk_error by value (cuzk_gpu.h), results go
 * through pointer arguments.
 *
 * Points are blst affine points (Montgomery limbs; infinity = all zero),
 * scalars are blst_fr (Montgomery form). curve: 0 = G1, 1 = G2. An XYZZ
 * point has the size of two affine points of its curve.
 * Window c must be 2..=24 and ceil(256/c)·n < 2^32.
 * Rust binds this header through bindgen (msm/src/sys_bindings.rs,
 * `cargo xtask bindgen`).
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

/* Launch shape of the G1 kernels that are register-bound (the level-0 mixed
 * additions, the bitmap segments and the affine rounds' backward pass). */
/* Two 256-thread blocks per SM (__launch_bounds__(256, 2)): the default,
 * measured fastest on the H200. */
#define CUZK_MSM_OCC_TWO_BLOCKS 0
/* Unbounded registers, 256-thread blocks (one block per SM). */
#define CUZK_MSM_OCC_ONE_BLOCK 1
/* Unbounded registers, 128-thread blocks. */
#define CUZK_MSM_OCC_BLOCK128 2

/* Measurement settings of the device entry points (all zero: the defaults). */
typedef struct cuzk_msm_tuning {
    /* CUZK_MSM_OCC_*. */
    int32_t occupancy;
    /* Non-zero: each cuzk_msm_dev_run records an event at every phase of the
     * pipeline and prints one line to stderr (device ms per phase, host time
     * in cudaMallocAsync, wall time); it waits for the MSM to do so. */
    int32_t profile;
    /* At most this many affine rounds (0..=6) in a G1 MSM; negative: as
     * many as the bucket sizes call for (the default). For A/B runs. */
    int32_t max_rounds;
} cuzk_msm_tuning;

/* out[0..V) = the window sums of Σ_{i<n} scalars[i]·bases[idx ? idx[i] : i]:
 * V = ceil(ceil(256/c) / copies) XYZZ points (X, Y, ZZ, ZZZ; Montgomery
 * limbs; ZZ = 0 is infinity) with Σ_s 2^(c·s)·out[s] = the MSM. The caller
 * combines them (a ~256-doubling serial chain: cheap on a CPU, ~10 ms as
 * one GPU thread). copies = 1: plain bases. copies > 1: `bases` is a
 * shifted table (cuzk_fixed_base_*_shift with shift = c·V) whose copy t
 * starts `stride` points after copy t − 1; idx must be null, n ≤ stride,
 * copies ≤ ceil(256/c) and copies·stride < 2^31. */
cuzk_error cuzk_msm_host_run(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars, uint32_t n,
                             uint32_t c, uint32_t copies, uint32_t stride, void *out);
/* out[0] = Σ bases[j] over set bits j < nbits of words (bit j = bit j%64 of word j/64). */
cuzk_error cuzk_msm_host_bitmap_sum(int32_t curve, const void *bases, const uint64_t *words, uint32_t nbits,
                                    void *out);
/* *bytes = the peak device memory cuzk_msm_dev_run allocates for n points at
 * window c against `copies` copies (its temporaries; computed on the host
 * by running the same driver with an executor that only counts). */
cuzk_error cuzk_msm_dev_scratch_bytes(int32_t curve, uint32_t n, uint32_t c, uint32_t copies, uint64_t *bytes);
/* A streamed MSM's buckets, kept across chunks: `acc` holds the
 * W·2^(c−1) XYZZ bucket sums of window c (W = ceil(256/c), plain bases).
 * acc ← all infinity. */
cuzk_error cuzk_msm_host_buckets_clear(int32_t curve, uint32_t c, void *acc);
/* acc[b] += bucket b of Σ_{i<n} scalars[i]·bases[idx ? idx[i] : i]. */
cuzk_error cuzk_msm_host_accumulate(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars,
                                    uint32_t n, uint32_t c, void *acc);
/* out[0..W) = the window sums of the buckets in acc, as cuzk_msm_host_run's
 * out (acc is read, and left as it was). */
cuzk_error cuzk_msm_host_buckets_reduce(int32_t curve, uint32_t c, void *acc, void *out);
/* *bytes = the peak device memory cuzk_msm_dev_accumulate of n points at
 * window c, or cuzk_msm_dev_buckets_reduce at c, allocates (the larger;
 * the accumulator is the caller's). */
cuzk_error cuzk_msm_dev_accumulate_scratch_bytes(int32_t curve, uint32_t n, uint32_t c, uint64_t *bytes);
/* digits[j·n + i]: signed digit j of scalar i as |d| | sign<<31 (W = ceil(256/c) windows). */
cuzk_error cuzk_msm_host_digits(const void *scalars, uint32_t n, uint32_t c, uint32_t *digits);
/* The counting sort: off[0..=B] bucket offsets (B = W·2^(c−1)), sorted[0..off[B]] entries point | sign<<31. */
cuzk_error cuzk_msm_host_sort(const void *scalars, uint32_t n, uint32_t c, uint32_t *off, uint32_t *sorted);

cuzk_error cuzk_msm_dev_run(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars, uint32_t n,
                            uint32_t c, uint32_t copies, uint32_t stride, void *out, cuzk_msm_tuning tuning,
                            cuzk_stream stream);
/* The device twins of cuzk_msm_host_buckets_clear, _accumulate and
 * _buckets_reduce, asynchronous on `stream`. */
cuzk_error cuzk_msm_dev_buckets_clear(int32_t curve, uint32_t c, void *acc, cuzk_stream stream);
cuzk_error cuzk_msm_dev_accumulate(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars,
                                   uint32_t n, uint32_t c, void *acc, cuzk_msm_tuning tuning, cuzk_stream stream);
cuzk_error cuzk_msm_dev_buckets_reduce(int32_t curve, uint32_t c, void *acc, void *out, cuzk_msm_tuning tuning,
                                       cuzk_stream stream);
cuzk_error cuzk_msm_dev_bitmap_sum(int32_t curve, const void *bases, const uint64_t *words, uint32_t nbits, void *out,
                                   cuzk_msm_tuning tuning, cuzk_stream stream);
/* idx[i] -= sub (mod 2^32) for i < n, asynchronous on `stream`: gather
 * indices uploaded relative to another origin made local to the bases
 * that cuzk_msm_dev_accumulate will read. */
cuzk_error cuzk_msm_dev_index_sub(uint32_t *idx, uint32_t n, uint32_t sub, cuzk_stream stream);
/* The host twin of cuzk_msm_dev_index_sub. */
cuzk_error cuzk_msm_host_index_sub(uint32_t *idx, uint32_t n, uint32_t sub);
/* Hands the MSM scratch that the current device's stream-ordered pool keeps
 * between MSMs back to the device (its release threshold to 0, then a trim):
 * for a caller that needs that memory for buffers of its own until the next
 * MSM. Call it once the MSMs' streams are synchronised; an MSM after it maps
 * its scratch again. */
cuzk_error cuzk_msm_dev_release_scratch(void);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_MSM_H */
