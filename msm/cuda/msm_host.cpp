// msm_host.cpp: the MSM pipeline (msm_pipeline.cuh) on the CPU, one loop per
// step, for the CI tests against cuzk_msm::msm. Same driver as the device.
#include "host_exec.hpp"

using namespace cuzk;
using namespace cuzk::msm;

extern "C" {

cuzk_error cuzk_msm_host_run(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars, uint32_t n,
                             uint32_t c, uint32_t copies, uint32_t stride, void *out) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!msm_args_ok(n, c, copies, stride))
        return invalid("window must be 2..=24 and ceil(256/c)·n < 2^32 (copies: ≤ windows, n ≤ stride, < 2^31 points)");
    if (copies > 1 && idx) return invalid("shifted copies take no index array");
    if (!out || (n && (!bases || !scalars))) return invalid("null pointer");
    return guard([&] {
        host_exec ex;
        const fr_t *s = static_cast<const fr_t *>(scalars);
        if (curve == CUZK_MSM_G1)
            msm_run<fp_t>(ex, static_cast<const g1_affine_t *>(bases), idx, s, n, c, copies, stride,
                          static_cast<g1_xyzz_t *>(out));
        else
            // G2 too, though the device leaves its rounds off by default:
            // the code stays tested.
            msm_run<fp2_t>(ex, static_cast<const g2_affine_t *>(bases), idx, s, n, c, copies, stride,
                           static_cast<g2_xyzz_t *>(out), (int)auto_rounds(make_plan(n, c, copies, stride)));
        return ok();
    });
}

cuzk_error cuzk_msm_host_bitmap_sum(int32_t curve, const void *bases, const uint64_t *words, uint32_t nbits,
                                    void *out) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!out || (nbits && (!bases || !words))) return invalid("null pointer");
    return guard([&] {
        host_exec ex;
        if (curve == CUZK_MSM_G1)
            bitmap_sum_run<fp_t>(ex, static_cast<const g1_affine_t *>(bases), words, nbits,
                                 static_cast<g1_affine_t *>(out));
        else
            bitmap_sum_run<fp2_t>(ex, static_cast<const g2_affine_t *>(bases), words, nbits,
                                  static_cast<g2_affine_t *>(out));
        return ok();
    });
}

cuzk_error cuzk_msm_host_buckets_clear(int32_t curve, uint32_t c, void *acc) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!msm_args_ok(0, c)) return invalid("window must be 2..=24");
    if (!acc) return invalid("null pointer");
    return guard([&] {
        host_exec ex;
        if (curve == CUZK_MSM_G1)
            buckets_clear<fp_t>(ex, c, static_cast<g1_xyzz_t *>(acc));
        else
            buckets_clear<fp2_t>(ex, c, static_cast<g2_xyzz_t *>(acc));
        return ok();
    });
}

cuzk_error cuzk_msm_host_accumulate(int32_t curve, const void *bases, const uint32_t *idx, const void *scalars,
                                    uint32_t n, uint32_t c, void *acc) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!msm_args_ok(n, c)) return invalid("window must be 2..=24 and ceil(256/c)·n < 2^32");
    if (!acc || (n && (!bases || !scalars))) return invalid("null pointer");
    return guard([&] {
        host_exec ex;
        const fr_t *s = static_cast<const fr_t *>(scalars);
        if (curve == CUZK_MSM_G1)
            msm_accumulate<fp_t>(ex, static_cast<const g1_affine_t *>(bases), idx, s, n, c,
                                 static_cast<g1_xyzz_t *>(acc));
        else
            msm_accumulate<fp2_t>(ex, static_cast<const g2_affine_t *>(bases), idx, s, n, c,
                                  static_cast<g2_xyzz_t *>(acc), (int)auto_rounds(make_plan(n, c)));
        return ok();
    });
}

cuzk_error cuzk_msm_host_buckets_reduce(int32_t curve, uint32_t c, void *acc, void *out) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!msm_args_ok(0, c)) return invalid("window must be 2..=24");
    if (!acc || !out) return invalid("null pointer");
    return guard([&] {
        host_exec ex;
        if (curve == CUZK_MSM_G1)
            buckets_reduce<fp_t>(ex, c, static_cast<g1_xyzz_t *>(acc), static_cast<g1_xyzz_t *>(out));
        else
            buckets_reduce<fp2_t>(ex, c, static_cast<g2_xyzz_t *>(acc), static_cast<g2_xyzz_t *>(out));
        return ok();
    });
}

cuzk_error cuzk_msm_dev_accumulate_scratch_bytes(int32_t curve, uint32_t n, uint32_t c, uint64_t *bytes) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!msm_args_ok(n, c)) return invalid("window must be 2..=24 and ceil(256/c)·n < 2^32");
    if (!bytes) return invalid("null pointer");
    return guard([&] {
        *bytes = curve == CUZK_MSM_G1 ? accumulate_scratch_peak<fp_t>(n, c) : accumulate_scratch_peak<fp2_t>(n, c);
        return ok();
    });
}

cuzk_error cuzk_msm_dev_scratch_bytes(int32_t curve, uint32_t n, uint32_t c, uint32_t copies, uint64_t *bytes) {
    if (curve != CUZK_MSM_G1 && curve != CUZK_MSM_G2) return invalid("unknown curve");
    if (!msm_args_ok(n, c, copies, n)) return invalid("window must be 2..=24, ceil(256/c)·n < 2^32, copies ≤ windows");
    if (!bytes) return invalid("null pointer");
    return guard([&] {
        *bytes = curve == CUZK_MSM_G1 ? msm_scratch_peak<fp_t>(n, c, copies) : msm_scratch_peak<fp2_t>(n, c, copies);
        return ok();
    });
}

cuzk_error cuzk_msm_host_digits(const void *scalars, uint32_t n, uint32_t c, uint32_t *digits) {
    if (!msm_args_ok(n, c)) return invalid("window must be 2..=24 and ceil(256/c)·n < 2^32");
    if (n && (!scalars || !digits)) return invalid("null pointer");
    return guard([&] {
        const plan_t p = make_plan(n, c);
        host_exec ex;
        ex.for_each(n, digits_op{static_cast<const fr_t *>(scalars), digits, p});
        return ok();
    });
}

cuzk_error cuzk_msm_host_sort(const void *scalars, uint32_t n, uint32_t c, uint32_t *off, uint32_t *sorted) {
    if (!msm_args_ok(n, c)) return invalid("window must be 2..=24 and ceil(256/c)·n < 2^32");
    if (!off || (n && (!scalars || !sorted))) return invalid("null pointer");
    return guard([&] {
        const plan_t p = make_plan(n, c);
        const uint32_t B = p.windows * p.nb;
        const uint64_t entries = (uint64_t)p.windows * n;
        host_exec ex;
        auto digits = make_buf<uint32_t>(ex, entries);
        ex.for_each(n, digits_op{static_cast<const fr_t *>(scalars), digits->p, p});
        auto counts = make_buf<uint32_t>(ex, B);
        ex.zero(counts->p, B);
        ex.for_each(entries, hist_op{digits->p, counts->p, p});
        ex.scan(counts->p, off, B);
        ex.zero(counts->p, B);
        ex.for_each(entries, scatter_op{digits->p, off, counts->p, sorted, p});
        return ok();
    });
}

cuzk_error cuzk_msm_host_index_sub(uint32_t *idx, uint32_t n, uint32_t sub) {
    if (n && !idx) return invalid("null pointer");
    return guard([&] {
        host_exec ex;
        ex.for_each(n, index_sub_op{idx, sub});
        return ok();
    });
}

}  // extern "C"
