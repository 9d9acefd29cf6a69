// ntt_host.cpp: the host twin of ntt_kernels.cu. The kernels' per-thread
// functions (ntt.cuh) run in loops over blocks and threads, with a
// "__syncthreads" between the loops, so a CPU test exercises exactly the
// index maths, tables and butterfly order of the device.
#include <vector>

#include "cuzk_guard.hpp"
#include "cuzk_ntt.h"
#include "ntt.cuh"

using namespace cuzk;
using namespace cuzk::ntt;

extern "C" {

cuzk_error cuzk_ntt_host_run(void *data, uint32_t log_n, uint32_t flags, const void *tw, const void *sc,
                             const void *mul, const void *sub) {
    if (!run_args_ok(data, log_n, flags, tw, sc, mul, sub)) return invalid("transform arguments");
    return guard([&] {
        fr_t *d = static_cast<fr_t *>(data);
        const fr_t *t = static_cast<const fr_t *>(tw);
        const fr_t *s = static_cast<const fr_t *>(sc);
        const fr_t *m = static_cast<const fr_t *>(mul);
        const fr_t *u = static_cast<const fr_t *>(sub);
        if (log_n == 0) {  // one point: the transform is the identity
            single_point(d[0], flags, s, m, u);
            return ok();
        }
        Plan pl = make_plan(log_n);
        std::vector<fr_t> smem(INNER);
        for (uint32_t step = 0; step < pl.count; step++) {
            Ctx c{d, t, s, m, u, flags, pl.pass[exec_index(pl, step, flags)]};
            uint32_t threads = block_threads(c.ps);
            for (size_t b = 0; b < grid_blocks(c.ps); b++) {
                const bool mul_in = multiplies_in(c), sub_out = subtracts_out(c);
                for (uint32_t i = 0; i < threads; i++) {
                    if (mul_in)
                        pass_load<true>(c, b, i, smem.data());
                    else
                        pass_load<false>(c, b, i, smem.data());
                }
                for (uint32_t l = 0; l < c.ps.p;) {
                    uint32_t levels = step_levels(c, l);
                    for (uint32_t i = 0; i < threads; i++) pass_step(c, l, levels, i, smem.data());
                    l += levels;
                }
                for (uint32_t i = 0; i < threads; i++) {
                    if (sub_out)
                        pass_store<true>(c, b, i, smem.data());
                    else
                        pass_store<false>(c, b, i, smem.data());
                }
            }
        }
        return ok();
    });
}

cuzk_error cuzk_ntt_host_bitrev(void *data, uint32_t log_n) {
    if (!data || log_n > MAX_LOG) return invalid("permutation arguments");
    fr_t *d = static_cast<fr_t *>(data);
    for (uint32_t i = 0; i < (1u << log_n); i++) {
        uint32_t j = bitrev(i, log_n);
        if (i < j) {
            fr_t x = d[i];
            d[i] = d[j];
            d[j] = x;
        }
    }
    return ok();
}

cuzk_error cuzk_ntt_host_pointwise(int32_t op, void *a, const void *b, const void *k, size_t n) {
    if ((op != PW_MUL && op != PW_SCALE) || !a || !k || (op == PW_MUL && !b)) return invalid("pointwise arguments");
    fr_t *x = static_cast<fr_t *>(a);
    const fr_t *y = static_cast<const fr_t *>(b);
    const fr_t kk = *static_cast<const fr_t *>(k);
    for (size_t i = 0; i < n; i++) pointwise(op, x[i], y ? y + i : nullptr, kk);
    return ok();
}

}  // extern "C"
