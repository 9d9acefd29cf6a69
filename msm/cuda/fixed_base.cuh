// fixed_base.cuh: fixed-base scalar multiplication as host+device C++:
// out[i] = scalars[i]·G for one base G and many scalars (test parameter
// generation turns millions of field elements into points this way).
//
// Method (w-bit signed windows, W = ceil(256/w) windows, h = 2^(w−1)):
//  0. table (once per base): table[j·h + m − 1] = m·2^(w·j)·G, affine, for
//     m = 1..h, j < W, from the W row bases rows[j] = 2^(w·j)·G (the host
//     computes those by doubling). One index per run of kFbRun entries of
//     a row: the run's first multiple by double-and-add, the rest by one
//     mixed addition each, into XYZZ scratch; then step 2 makes it affine.
//  1. accumulate (one index per scalar): scalar → canonical (one Fr
//     product), signed digits d_j ∈ [−(h−1), h] computed on the fly, and
//     acc = Σ_j sign(d_j)·table[j·h + |d_j| − 1] by mixed XYZZ additions
//     (the first is free: ∞ + Q = Q). Written to an XYZZ scratch array.
//  2. to affine (one index per group of kFbGroup points): Montgomery's
//     batch inversion of ZZ·ZZZ over the group, one Fermat inversion per
//     group; x = X/ZZ, y = Y/ZZZ. Infinity (scalar 0) stays (0, 0), blst's
//     encoding of the identity. The forward pass keeps its prefix products
//     and the factors in the output slots (x and y) of the same points, so
//     no further scratch is needed.
// Each step is a functor over one index, run by an executor's for_each:
// host loops in fixed_base_host.cpp (the CI twin), one thread per index
// through msm_device.cuh's device executor on the GPU. Same code on both.
#pragma once

#include "msm_pipeline.cuh"

namespace cuzk {
namespace fb {

// Points per batch inversion: one Fermat inversion (613 Fp products for
// Fp) is shared by this many points (~19 products each), while n/32
// threads still fill the GPU for chunks of 2^20 points and more.
constexpr uint32_t kFbGroup = 32;
// Table entries per thread in step 0: the run's start costs ~w doublings
// and additions, amortised over the run's one addition per entry.
constexpr uint32_t kFbRun = 64;
constexpr uint32_t kFbMinWindow = 2;
constexpr uint32_t kFbMaxWindow = 16;

inline bool fb_args_ok(uint32_t w) { return w >= kFbMinWindow && w <= kFbMaxWindow; }

CUZK_HD inline uint32_t fb_windows(uint32_t w) { return (256 + w - 1) / w; }

// Step 0: run t of the table: entries m = first .. first + len − 1 of row j.
template <class F>
struct fb_table_op {
    const affine_t<F> *rows;  // [W]: 2^(w·j)·G
    xyzz_t<F> *table;         // [W][h], XYZZ
    uint32_t w;
    CUZK_HD void operator()(size_t t) const {
        const uint32_t half = 1u << (w - 1);
        const uint32_t run = half < kFbRun ? half : kFbRun;
        const uint32_t runs_per_row = half / run;  // both powers of two
        const uint32_t j = (uint32_t)(t / runs_per_row);
        const uint32_t first = (uint32_t)(t % runs_per_row) * run + 1;
        const affine_t<F> b = rows[j];
        // first·b by double-and-add (first < 2^15)
        xyzz_t<F> acc = xyzz_t<F>::inf();
        for (int bit = 15; bit >= 0; bit--) {
            acc = acc.dbl();
            if ((first >> bit) & 1) acc = acc.add(b);
        }
        xyzz_t<F> *out = table + (size_t)j * half + (first - 1);
        for (uint32_t k = 0; k < run; k++) {
            out[k] = acc;
            acc = acc.add(b);
        }
    }
};

template <class F>
struct fb_accumulate_op {
    const affine_t<F> *table;  // [W][h]
    const fr_t *scalars;
    xyzz_t<F> *acc_out;
    uint32_t w;
    CUZK_HD void operator()(size_t i) const {
        const fr_t s = scalars[i].from_mont();
        const uint32_t half = 1u << (w - 1);
        const uint32_t windows = fb_windows(w);
        // Signed digits as msm::signed_digits: a window value above h
        // becomes value − 2^w with a carry into the next window; s < 2^255
        // and W·w ≥ 256 leave no carry after the top window.
        uint32_t carry = 0;
        xyzz_t<F> acc = xyzz_t<F>::inf();
        for (uint32_t j = 0; j < windows; j++) {
            uint32_t v = msm::window_bits(s.v, j * w, w) + carry;
            uint32_t mag;
            bool neg;
            if (v > half) {
                mag = (1u << w) - v;  // 0 when v = 2^w
                neg = true;
                carry = 1;
            } else {
                mag = v;
                neg = false;
                carry = 0;
            }
            if (mag == 0) continue;
            affine_t<F> q = table[(size_t)j * half + mag - 1];
            if (neg) q = -q;
            acc = acc.add(q);
        }
        acc_out[i] = acc;
    }
};

// Group g holds the points g + k·groups, k < kFbGroup (those below n): so
// neighbouring threads touch neighbouring points.
template <class F>
struct fb_affine_op {
    const xyzz_t<F> *pts;
    affine_t<F> *out;
    uint32_t n;
    uint32_t groups;
    CUZK_HD void operator()(size_t g) const {
        // Forward: out[i].x = Π of the factors so far (inclusive), out[i].y =
        // the factor ZZ·ZZZ of point i (1 for infinity, which is skipped).
        F run = F::one();
        uint32_t count = 0;
        for (uint32_t k = 0; k < kFbGroup; k++) {
            size_t i = g + (size_t)k * groups;
            if (i >= n) break;
            const xyzz_t<F> &p = pts[i];
            F d = p.is_inf() ? F::one() : p.ZZ * p.ZZZ;
            run = run * d;
            out[i].x = run;
            out[i].y = d;
            count++;
        }
        // Backward: inv = 1/(Π of the factors up to k) on entry to step k.
        F inv = run.inverse();
        for (uint32_t k = count; k-- > 0;) {
            size_t i = g + (size_t)k * groups;
            const xyzz_t<F> &p = pts[i];
            F prev = k ? out[i - groups].x : F::one();
            F d = out[i].y;
            F dinv = inv * prev;  // 1/(ZZ·ZZZ) of point i
            inv = inv * d;
            if (p.is_inf()) {
                out[i] = affine_t<F>::inf();
            } else {
                out[i].x = p.X * (dinv * p.ZZZ);
                out[i].y = p.Y * (dinv * p.ZZ);
            }
        }
    }
};

CUZK_HD inline uint32_t fb_groups(uint32_t n) { return (n + kFbGroup - 1) / kFbGroup; }

// Table entries for window w: W·2^(w−1) (at most 2^19).
CUZK_HD inline uint32_t fb_table_len(uint32_t w) { return fb_windows(w) << (w - 1); }

// Step 0 then step 2: table ← the affine table of G from its W row bases
// (requires fb_args_ok(w)); scratch holds fb_table_len(w) XYZZ points.
template <class F, class Exec>
void fb_table_run(Exec &ex, const affine_t<F> *rows, uint32_t w, xyzz_t<F> *scratch, affine_t<F> *table) {
    const uint32_t half = 1u << (w - 1);
    const uint32_t run = half < kFbRun ? half : kFbRun;
    const uint32_t len = fb_table_len(w);
    ex.for_each(len / run, fb_table_op<F>{rows, scratch, w});
    const uint32_t groups = fb_groups(len);
    ex.for_each(groups, fb_affine_op<F>{scratch, table, len, groups});
}

// out[i] = scalars[i]·G for i < n, table as above for window w (requires
// fb_args_ok(w)); scratch holds n XYZZ points. All arrays in executor
// memory; nothing is allocated.
template <class F, class Exec>
void fb_run(Exec &ex, const affine_t<F> *table, uint32_t w, const fr_t *scalars, uint32_t n, xyzz_t<F> *scratch,
            affine_t<F> *out) {
    if (n == 0) return;
    ex.for_each(n, fb_accumulate_op<F>{table, scalars, scratch, w});
    const uint32_t groups = fb_groups(n);
    ex.for_each(groups, fb_affine_op<F>{scratch, out, n, groups});
}

// ---- shifted copies (the MSM's precomputed bases) -------------------------
// table[t·n + i] = 2^(shift·t)·table[i] for 0 < t < copies, affine: the
// table msm_run reads with copies > 1 (msm_pipeline.cuh, plan_t; shift =
// c·vw). Copy t comes from copy t − 1: one thread per point doubles it
// `shift` times in XYZZ (6M + 3S each; ≈ 256 doublings per point over all
// copies, ≈ 2.3·10^3 Fp products: ~2.5 s per 2^24 G1 points on the H200 at
// 1.6·10^10/s, once per loaded parameter set), then step 2 makes the chunk
// affine. Chunks of `chunk` points bound the XYZZ scratch.
template <class F>
struct shift_dbl_op {
    const affine_t<F> *in;
    xyzz_t<F> *out;
    uint32_t shift;
    CUZK_HD void operator()(size_t i) const {
        xyzz_t<F> acc = xyzz_t<F>::from_affine(in[i]);  // infinity stays infinity
        for (uint32_t k = 0; k < shift; k++) acc = acc.dbl();
        out[i] = acc;
    }
};

// Fills copies 1.. of `table` (copy 0, table[0..n), holds the bases);
// scratch holds `chunk` ≥ 1 XYZZ points.
template <class F, class Exec>
void shift_table_run(Exec &ex, affine_t<F> *table, uint32_t n, uint32_t shift, uint32_t copies, xyzz_t<F> *scratch,
                     uint32_t chunk) {
    for (uint32_t t = 1; t < copies; t++) {
        for (uint32_t a = 0; a < n; a += chunk) {
            const uint32_t len = n - a < chunk ? n - a : chunk;
            ex.for_each(len, shift_dbl_op<F>{table + (size_t)(t - 1) * n + a, scratch, shift});
            const uint32_t groups = fb_groups(len);
            ex.for_each(groups, fb_affine_op<F>{scratch, table + (size_t)t * n + a, len, groups});
        }
    }
}

}  // namespace fb
}  // namespace cuzk
