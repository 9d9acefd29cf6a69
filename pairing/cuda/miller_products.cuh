// miller_products.cuh: batched Miller-loop products (cuzk_pairing.h), as
// per-thread steps that the device kernels (pairing_api.cu) and the host
// twin (pairing_host.cpp) both run: the same code decides the values on
// both sides, and the CPU tests check it against blst.
#pragma once

#include "bls12_381.cuh"
#include "cuzk_pairing.h"

namespace cuzk {
namespace pairing {

// The slot sizes cuzk_pairing.h promises.
static_assert(sizeof(miller_point_t) == CUZK_PAIRING_POINT_BYTES, "point slot size");
static_assert(sizeof(fp12_t) == CUZK_PAIRING_FP12_BYTES, "fp12 slot size");

// Task t: the Miller loop product of its pairs (they share each step's
// squaring), into partials[t]. T: the pairs' scratch points.
CUZK_HD inline void miller_task(const g1_affine_t *P, const g2_affine_t *Q, const uint32_t *task_starts, uint32_t t,
                                miller_point_t *T, fp12_t *partials) {
    const uint32_t b = task_starts[t], e = task_starts[t + 1];
    partials[t] = miller_loop_n<fp_t>(P + b, Q + b, e - b, T + b);
}

// The group of task t: the g with group_starts[g] ≤ t < group_starts[g+1]
// (groups ≥ 1, t < group_starts[groups]); binary search.
CUZK_HD inline uint32_t group_of(const uint32_t *group_starts, uint32_t groups, uint32_t t) {
    uint32_t lo = 0, hi = groups;  // group_starts[lo] ≤ t < group_starts[hi]
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (group_starts[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// One level of a group's product tree, stride s (1, 2, 4, …): the task at
// local index l ≡ 0 (mod 2s) absorbs the one at l + s. Within a level a
// slot is either written or read, never both, so every task of every group
// can run this at once.
CUZK_HD inline void reduce_step(fp12_t *partials, const uint32_t *group_starts, uint32_t groups, uint32_t t,
                                uint32_t s) {
    const uint32_t g = group_of(group_starts, groups, t);
    const uint32_t l = t - group_starts[g], len = group_starts[g + 1] - group_starts[g];
    if (l % (2 * s) == 0 && l + s < len) partials[t] = partials[t] * partials[t + s];
}

// After the levels: group g's product is at its first task.
CUZK_HD inline void gather(const fp12_t *partials, const uint32_t *group_starts, uint32_t g, fp12_t *out) {
    out[g] = group_starts[g + 1] > group_starts[g] ? partials[group_starts[g]] : fp12_t::one();
}

}  // namespace pairing
}  // namespace cuzk
