// pairing_host.cpp: the host twin of cuzk_pairing.h, miller_products.cuh
// compiled as plain host C++ (no nvcc), for the CPU differential tests
// against blst. It walks the device's threads in order, level by level.
#include <vector>

#include "cuzk_guard.hpp"
#include "cuzk_pairing.h"
#include "miller_products.cuh"

using namespace cuzk;
using namespace cuzk::pairing;

namespace {

bool offsets_ok(const uint32_t *starts, uint32_t count, uint32_t last) {
    if (starts[0] != 0 || starts[count] != last) return false;
    for (uint32_t i = 0; i < count; i++)
        if (starts[i] > starts[i + 1]) return false;
    return true;
}

}  // namespace

extern "C" {

cuzk_error cuzk_pairing_host_miller(const void *g1, const void *g2, const uint32_t *task_starts, uint32_t tasks,
                                    const uint32_t *group_starts, uint32_t groups, void *out) {
    if (!task_starts || !group_starts || (groups && !out)) return invalid("null pointer");
    const uint32_t pairs = task_starts[tasks];
    if (pairs && (!g1 || !g2)) return invalid("null pointer");
    if (!offsets_ok(task_starts, tasks, pairs)) return invalid("task offsets must rise from 0");
    if (!offsets_ok(group_starts, groups, tasks)) return invalid("group offsets must rise from 0 to the task count");
    return guard([&] {
        const g1_affine_t *P = static_cast<const g1_affine_t *>(g1);
        const g2_affine_t *Q = static_cast<const g2_affine_t *>(g2);
        std::vector<miller_point_t> points(pairs);
        std::vector<fp12_t> partials(tasks);
        for (uint32_t t = 0; t < tasks; t++) miller_task(P, Q, task_starts, t, points.data(), partials.data());
        uint32_t longest = 0;
        for (uint32_t g = 0; g < groups; g++)
            if (group_starts[g + 1] - group_starts[g] > longest) longest = group_starts[g + 1] - group_starts[g];
        for (uint32_t s = 1; s < longest; s *= 2)
            for (uint32_t t = 0; t < tasks; t++) reduce_step(partials.data(), group_starts, groups, t, s);
        for (uint32_t g = 0; g < groups; g++) gather(partials.data(), group_starts, g, static_cast<fp12_t *>(out));
        return ok();
    });
}

}  // extern "C"
