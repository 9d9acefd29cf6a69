/*
 * cuzk_pairing.h: the C face of the batched Miller-loop products
 * (miller_products.cuh): for each group g of pairs, the product of the
 * optimal ate Miller loops f_{|x|,Qᵢ}(Pᵢ), conjugated, over its pairs. Each
 * value equals blst's Miller loop product after the final exponentiation
 * (the caller's, on the host), not before.
 *
 * Layout: pair i is g1[i] (blst_p1_affine) and g2[i] (blst_p2_affine),
 * Montgomery limbs; a pair with a point at infinity (all zero) contributes
 * 1. The pairs are cut into tasks: task t covers pairs
 * [task_starts[t], task_starts[t+1]) (tasks + 1 non-decreasing offsets,
 * task_starts[0] = 0); group g covers tasks
 * [group_starts[g], group_starts[g+1]) (groups + 1 offsets, the last one
 * equal to tasks). One device thread runs one task's Miller loop, its pairs
 * sharing each step's squaring; the tasks of a group are then multiplied
 * in a tree. out[g] is a blst_fp12; a group without tasks gives 1.
 *
 * Every function returns a cuzk_error by value (cuzk_gpu.h).
 * Host twin (pairing_host.cpp, always built, plain C++): every array in
 * host memory, synchronous; it checks the offsets and allocates its own
 * scratch. Device (pairing_api.cu, `cuda` feature): every array in device
 * memory, the offsets are trusted (the Rust wrapper builds them),
 * `points` holds one CUZK_PAIRING_POINT_BYTES slot per pair and `partials`
 * one CUZK_PAIRING_FP12_BYTES slot per task; asynchronous on `stream`;
 * allocates nothing. max_group_tasks bounds every group's task count.
 * Rust binds this header through bindgen (pairing/src/sys_bindings.rs,
 * `cargo xtask bindgen`).
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one Miller-loop point (Jacobian, over Fp2) and of one Fp12. */
#define CUZK_PAIRING_POINT_BYTES 288
#define CUZK_PAIRING_FP12_BYTES 576

cuzk_error cuzk_pairing_host_miller(const void *g1, const void *g2, const uint32_t *task_starts, uint32_t tasks,
                                    const uint32_t *group_starts, uint32_t groups, void *out);

cuzk_error cuzk_pairing_dev_miller(const void *g1, const void *g2, const uint32_t *task_starts, uint32_t tasks,
                                   const uint32_t *group_starts, uint32_t groups, uint32_t max_group_tasks,
                                   void *points, void *partials, void *out, cuzk_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_PAIRING_H */
