// msm_pipeline.cuh: the GPU Pippenger MSM as host+device C++.
//
// Every step is a functor whose operator() handles ONE index (a scalar, a
// digit, a bucket, a window...). A driver (`msm_run`, `bitmap_sum_run`)
// strings the steps together through an executor `Exec` that provides
//   alloc<T>(n) / release(p), zero(p, n), for_each(n, op), scan(cnt, off, B)
// The host executor (msm_host.cpp) runs each for_each as a plain loop; the
// device executor (msm_device.cuh) launches one thread per index. So the
// whole driver — sizes, offsets, number of levels — is literally the same
// code on the CPU (tested in CI against cuzk_msm::msm) and on the GPU.
//
// Pipeline for n points, window c bits, W = ceil(256/c) windows,
// nb = 2^(c-1) buckets per window, B = W·nb buckets in all:
//  1. digits:  scalar (Montgomery) → canonical (one Fr multiply) → W signed
//     digits in [−(2^(c−1)−1), 2^(c−1)], stored as |d| | sign<<31 (0 = none).
//  2. sort (counting sort per window): histogram of buckets (atomic adds),
//     exclusive scan → bucket offsets, scatter of (point | sign) entries.
//  3. accumulate: for large buckets (G1), R rounds of pairwise affine
//     additions with simultaneous inversion first reduce every aligned
//     block of 2^R entries (buckets padded to 2^R) to one point
//     (msm_rounds.cuh: G1 2^24 255 against 277 ms, 2^27 1625 against 1955
//     on the H200). Then "levels": level 0 sums each bucket's entries in segments
//     of L0 with mixed XYZZ additions; each further level sums L1
//     consecutive partials of a bucket, until every bucket has ≤ 1 partial.
//     The number of levels depends on n only (a bucket holds ≤ n entries),
//     so no host read-back is needed, and skewed inputs (all scalars equal)
//     never serialise on one thread.
//  4. reduce: per window Σ_t (t+1)·bucket_t, recursively over chunks of 16
//     buckets (one thread per chunk at every level; see red_chunk_op).
//  5. the W window sums go back to the caller, who combines them by
//     doubling (Horner) on the CPU: a single-threaded chain of ~256
//     doublings takes ~10 ms as a one-thread kernel (ncu on the H200: 21 %
//     of a 2^20 MSM), microseconds on the host.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "bls12_381.cuh"

namespace cuzk {
namespace msm {

constexpr uint32_t kSign = 0x80000000u;
// Entries per thread in level 0 (mixed adds of bases, a segment of one
// bucket) and later levels (general adds of partials). At the windows
// `window_for` picks (c = 16 at 2^24, 20 at 2^27) a bucket averages 512 and
// 256 entries, so all but its last segment are full. Equal chunks of 64
// sorted entries across bucket boundaries (every thread the same work, one
// partial per bucket a chunk meets) measured slower on the H200: G1 2^24
// 292–294 against 267–269 ms, 2^20 equal: the per-entry boundary test
// costs more than the balance gains.
constexpr uint32_t kL0 = 64;
constexpr uint32_t kL1 = 16;
// Bitmap words per thread in the bitmap sum (256 bases).
constexpr uint32_t kBitmapWords = 4;

// Precomputed shifted bases: with a table of `copies` shifted copies of the
// bases, table[t·stride + i] = 2^(c·vw·t)·bases[i] (vw = ceil(W/copies)),
// digit j of scalar i is a digit of window j mod vw against copy j / vw of
// point i: Σ_j d_j·2^(c·j)·P = Σ_s 2^(c·s)·Σ_t d_(t·vw+s)·(2^(c·vw·t)·P). So
// the W windows share vw bucket windows; the accumulation does the same
// W·n additions, the bucket work (levels, reduction, Horner) shrinks by
// W/vw. copies = 1 is the plain MSM (vw = W).
struct plan_t {
    uint32_t n;          // points
    uint32_t c;          // window bits (2..=24)
    uint32_t windows;    // W = ceil(256 / c): digits per scalar
    uint32_t nb;         // buckets per window, 2^(c−1)
    uint32_t vw;         // bucket windows, ceil(W / copies)
    uint32_t stride;     // point-index distance between copies (copies > 1)
};

CUZK_HD inline uint32_t bucket_windows(uint32_t c, uint32_t copies) {
    const uint32_t w = (256 + c - 1) / c;
    return (w + copies - 1) / copies;
}

CUZK_HD inline plan_t make_plan(uint32_t n, uint32_t c, uint32_t copies = 1, uint32_t stride = 0) {
    plan_t p;
    p.n = n;
    p.c = c;
    p.windows = (256 + c - 1) / c;
    p.nb = 1u << (c - 1);
    p.vw = bucket_windows(c, copies);
    p.stride = stride;
    return p;
}

// Number of accumulation levels for n points (each bucket holds ≤ n entries).
CUZK_HD inline uint32_t level_count(uint64_t n) {
    uint64_t cnt = (n + kL0 - 1) / kL0;
    uint32_t levels = 1;
    while (cnt > 1) {
        cnt = (cnt + kL1 - 1) / kL1;
        levels++;
    }
    return levels;
}

CUZK_HD inline uint32_t atomic_inc(uint32_t *p) {
#if defined(__CUDA_ARCH__)
    return atomicAdd(p, 1u);
#else
    return (*p)++;
#endif
}

// Bits [lo, lo + c) of a 256-bit little-endian integer (c ≤ 31).
CUZK_HD inline uint32_t window_bits(const uint32_t (&s)[8], uint32_t lo, uint32_t c) {
    if (lo >= 256) return 0;
    uint32_t limb = lo / 32, sh = lo % 32;
    uint64_t x = s[limb];
    if (limb + 1 < 8) x |= (uint64_t)s[limb + 1] << 32;
    return (uint32_t)(x >> sh) & ((1u << c) - 1);
}

// Signed digits of a canonical scalar s < 2^255: Σ d_j·2^(cj) = s with
// d_j ∈ [−(2^(c−1)−1), 2^(c−1)]. A window value w (plus the carry) above
// 2^(c−1) becomes w − 2^c with a carry into the next window; W·c ≥ 256 and
// s < 2^255 leave no carry after the top window. out[j·stride] gets |d| |
// (sign << 31), or 0.
CUZK_HD inline void signed_digits(const uint32_t (&s)[8], uint32_t c, uint32_t windows, uint32_t *out,
                                  size_t stride) {
    const uint32_t half = 1u << (c - 1);
    uint32_t carry = 0;
    for (uint32_t j = 0; j < windows; j++) {
        uint32_t w = window_bits(s, j * c, c) + carry;
        uint32_t d;
        if (w > half) {
            uint32_t mag = (1u << c) - w;  // 0 when w = 2^c
            d = mag ? (mag | kSign) : 0;
            carry = 1;
        } else {
            d = w;
            carry = 0;
        }
        out[j * stride] = d;
    }
}

CUZK_HD inline uint32_t ctz64(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return (uint32_t)(__ffsll((long long)x) - 1);
#else
    return (uint32_t)__builtin_ctzll(x);
#endif
}

// ---- exclusive scan (one block) ------------------------------------------
// off[0..B] ← exclusive prefix sums of cnt[0..B), off[B] = total, in three
// phases of kScanThreads "threads" each owning a contiguous run: run
// totals, a serial scan of the totals (thread 0), then each run written.
// The device runs them as one block with __syncthreads between phases; the
// host executor runs the same phases as loops.
constexpr uint32_t kScanThreads = 1024;

CUZK_HD inline void scan_run(uint32_t B, uint32_t t, uint32_t &lo, uint32_t &hi) {
    const uint32_t per = (B + kScanThreads - 1) / kScanThreads;
    lo = t * per;
    if (lo > B) lo = B;
    hi = B - lo > per ? lo + per : B;
}

CUZK_HD inline uint32_t scan_phase1(const uint32_t *cnt, uint32_t B, uint32_t t) {
    uint32_t lo, hi, s = 0;
    scan_run(B, t, lo, hi);
    for (uint32_t i = lo; i < hi; i++) s += cnt[i];
    return s;
}

CUZK_HD inline void scan_phase2(uint32_t *tot, uint32_t *off, uint32_t B) {
    uint32_t run = 0;
    for (uint32_t k = 0; k < kScanThreads; k++) {
        uint32_t v = tot[k];
        tot[k] = run;
        run += v;
    }
    off[B] = run;
}

CUZK_HD inline void scan_phase3(const uint32_t *cnt, uint32_t *off, uint32_t B, uint32_t t, uint32_t base) {
    uint32_t lo, hi;
    scan_run(B, t, lo, hi);
    for (uint32_t i = lo; i < hi; i++) {
        off[i] = base;
        base += cnt[i];
    }
}

// ---- step functors -------------------------------------------------------

struct digits_op {
    const fr_t *scalars;
    uint32_t *digits;  // [W][n]
    plan_t p;
    CUZK_HD void operator()(size_t i) const {
        fr_t s = scalars[i].from_mont();
        signed_digits(s.v, p.c, p.windows, digits + i, p.n);
    }
};

struct hist_op {
    const uint32_t *digits;
    uint32_t *counts;  // [W][nb]
    plan_t p;
    CUZK_HD void operator()(size_t t) const {
        uint32_t d = digits[t];
        if (!d) return;
        uint32_t j = (uint32_t)(t / p.n) % p.vw;
        atomic_inc(&counts[(size_t)j * p.nb + (d & ~kSign) - 1]);
    }
};

struct scatter_op {
    const uint32_t *digits;
    const uint32_t *off;  // [B + 1]
    uint32_t *cursor;     // [B], zeroed
    uint32_t *sorted;     // entries: point | sign
    plan_t p;
    CUZK_HD void operator()(size_t t) const {
        uint32_t d = digits[t];
        if (!d) return;
        uint32_t j = (uint32_t)(t / p.n);
        uint32_t i = (uint32_t)(t % p.n);
        size_t b = (size_t)(j % p.vw) * p.nb + (d & ~kSign) - 1;
        uint32_t pos = off[b] + atomic_inc(&cursor[b]);
        sorted[pos] = (i + (j / p.vw) * p.stride) | (d & kSign);  // copy j / vw
    }
};

// Number of partials a bucket gets at the next level.
struct seg_count_op {
    const uint32_t *off_in;
    uint32_t *cnt_out;
    uint32_t len;
    CUZK_HD void operator()(size_t b) const {
        uint32_t cnt = off_in[b + 1] - off_in[b];
        cnt_out[b] = (cnt + len - 1) / len;
    }
};

// Largest b in [0, B) with off[b] ≤ t (off[0] = 0 ≤ t < off[B]): the bucket
// whose range holds item t (empty buckets are skipped automatically).
CUZK_HD inline uint32_t find_bucket(const uint32_t *off, uint32_t B, uint32_t t) {
    uint32_t lo = 0, hi = B;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// Level 0: item t of bucket b = Σ ±base over its segment of sorted entries.
template <class F>
struct level0_op {
    const affine_t<F> *bases;
    const uint32_t *idx;     // optional gather: entry point i ↦ bases[idx[i]]
    const uint32_t *sorted;  // entries point | sign; null: entry e is bases[e]
                             // (the rounds' blocks: < 2^31 of them, so e
                             // never reaches the sign bit)
    const uint32_t *off_in;
    const uint32_t *off_out;
    xyzz_t<F> *items;
    uint32_t B;
    CUZK_HD void operator()(size_t tt) const {
        uint32_t t = (uint32_t)tt;
        if (t >= off_out[B]) return;
        uint32_t b = find_bucket(off_out, B, t);
        uint32_t k = t - off_out[b];
        uint32_t begin = off_in[b] + k * kL0;
        uint32_t end = off_in[b + 1];
        if (end - begin > kL0) end = begin + kL0;
        xyzz_t<F> acc = xyzz_t<F>::inf();
        for (uint32_t e = begin; e < end; e++) {
            uint32_t v = sorted ? sorted[e] : e;
            uint32_t i = v & ~kSign;
            affine_t<F> q = bases[idx ? idx[i] : i];
            if (v & kSign) q = -q;
            acc = acc.add(q);
        }
        items[t] = acc;
    }
};

// Later levels: item t of bucket b = Σ of up to kL1 partials of the level below.
template <class F>
struct level_op {
    const xyzz_t<F> *in;
    const uint32_t *off_in;
    const uint32_t *off_out;
    xyzz_t<F> *out;
    uint32_t B;
    CUZK_HD void operator()(size_t tt) const {
        uint32_t t = (uint32_t)tt;
        if (t >= off_out[B]) return;
        uint32_t b = find_bucket(off_out, B, t);
        uint32_t k = t - off_out[b];
        uint32_t begin = off_in[b] + k * kL1;
        uint32_t end = off_in[b + 1];
        if (end - begin > kL1) end = begin + kL1;
        xyzz_t<F> acc = in[begin];
        for (uint32_t e = begin + 1; e < end; e++) acc = acc.add(in[e]);
        out[t] = acc;
    }
};

// Value of bucket b after the last level (≤ 1 partial per bucket).
template <class F>
CUZK_HD inline xyzz_t<F> bucket_value(const xyzz_t<F> *items, const uint32_t *off, size_t b) {
    return off[b + 1] > off[b] ? items[off[b]] : xyzz_t<F>::inf();
}

// ---- bucket reduction ------------------------------------------------------
// Window j needs R(X) = Σ_t (t+1)·X_t over its nb bucket sums X. With chunks
// of m consecutive entries, T_k = Σ_u (u+1)·X_{km+u} and S_k = Σ_u X_{km+u}:
//   R(X) = Σ_k T_k + m·(R(S) − ΣX),   ΣS = ΣX,
// so R recurses on S (nb/m entries) until one chunk is left, whose T is R
// itself. Every level is one thread per chunk (m = 16: nb/16 threads per
// window, enough to fill the GPU), the sums Σ_k T_k are tree reductions
// (run_levels), and a last per-window pass applies the Horner steps.
// Why recursive: with one thread per chunk of √nb buckets, only
// 2^((c−1)/2) threads per window, the reduction dominated the MSM at
// c ≥ 16 on the H200.
constexpr uint32_t kRedChunk = 16;
constexpr uint32_t kMaxRedLevels = 8;  // nb ≤ 2^23: ⌈23/4⌉ = 6 levels

template <class F>
struct red_chunk_op {
    const xyzz_t<F> *X;   // [W][N] plain, or bucket partials when off is set
    const uint32_t *off;  // bucket offsets (level 0) or nullptr
    xyzz_t<F> *T;         // [W][N/m]
    xyzz_t<F> *S;
    uint32_t N, m;
    CUZK_HD void operator()(size_t jk) const {
        const uint32_t P = N / m;
        const size_t j = jk / P, k = jk % P;
        const size_t base = j * N + k * m;
        xyzz_t<F> s = xyzz_t<F>::inf(), t = xyzz_t<F>::inf();
        for (uint32_t u = m; u-- > 0;) {
            s = s.add(off ? bucket_value(X, off, base + u) : X[base + u]);
            t = t.add(s);
        }
        T[jk] = t;
        S[jk] = s;
    }
};

struct stride_off_op {
    uint32_t *off;  // [W + 1]
    uint32_t stride;
    CUZK_HD void operator()(size_t i) const { off[i] = (uint32_t)i * stride; }
};

// win_j = R(X_j), from the last level's (T, S) and the per-level Σ_k T_k.
template <class F>
struct red_final_op {
    const xyzz_t<F> *sumT[kMaxRedLevels];
    const uint32_t *sumT_off[kMaxRedLevels];
    uint32_t mlog[kMaxRedLevels];
    uint32_t levels;  // levels before the last
    const xyzz_t<F> *lastT;
    const xyzz_t<F> *lastS;
    xyzz_t<F> *win;
    CUZK_HD void operator()(size_t j) const {
        xyzz_t<F> acc = lastT[j];
        const xyzz_t<F> tot = lastS[j];
        for (uint32_t l = levels; l-- > 0;) {
            acc = acc.add(-tot);
            for (uint32_t i = 0; i < mlog[l]; i++) acc = acc.dbl();
            acc = acc.add(bucket_value(sumT[l], sumT_off[l], j));
        }
        win[j] = acc;
    }
};

template <class F>
struct set_inf_xyzz_op {
    xyzz_t<F> *out;
    CUZK_HD void operator()(size_t i) const { out[i] = xyzz_t<F>::inf(); }
};

template <class F>
struct set_inf_op {
    affine_t<F> *out;
    CUZK_HD void operator()(size_t) const { *out = affine_t<F>::inf(); }
};

// A streamed MSM's bucket state across chunks: acc[b] += bucket b of this
// chunk (after its last level, ≤ 1 partial per bucket).
template <class F>
struct merge_op {
    xyzz_t<F> *acc;
    const xyzz_t<F> *items;
    const uint32_t *off;
    CUZK_HD void operator()(size_t b) const {
        if (off[b + 1] > off[b]) acc[b] = acc[b].add(items[off[b]]);
    }
};

// Bitmap sum, level 0: thread t sums the bases of kBitmapWords words.
template <class F>
struct bitmap_seg_op {
    const affine_t<F> *bases;
    const uint64_t *words;
    xyzz_t<F> *items;
    uint32_t nbits;
    CUZK_HD void operator()(size_t t) const {
        xyzz_t<F> acc = xyzz_t<F>::inf();
        for (uint32_t w = 0; w < kBitmapWords; w++) {
            size_t wi = t * kBitmapWords + w;
            size_t first = wi * 64;
            if (first >= nbits) break;
            uint64_t bits = words[wi];
            // bits at or past nbits are ignored even if set
            if (nbits - first < 64) bits &= (~0ull) >> (64 - (nbits - first));
            while (bits) {
                uint32_t tz = ctz64(bits);
                bits &= bits - 1;
                acc = acc.add(bases[first + tz]);
            }
        }
        items[t] = acc;
    }
};

struct set_range_op {
    uint32_t *off;  // [2]
    uint32_t count;
    CUZK_HD void operator()(size_t) const {
        off[0] = 0;
        off[1] = count;
    }
};

template <class F>
struct finish_op {
    const xyzz_t<F> *items;
    const uint32_t *off;
    affine_t<F> *out;
    CUZK_HD void operator()(size_t) const { *out = bucket_value(items, off, 0).to_affine(); }
};

// ---- drivers ---------------------------------------------------------------

// Owns one executor allocation (freed on every exit path, exceptions too).
// A borrowed buffer (the caller's, e.g. a bucket accumulator) is never
// released.
template <class T, class Exec>
struct buf {
    Exec &ex;
    T *p;
    bool own = true;
    buf(Exec &e, size_t n) : ex(e), p(e.template alloc<T>(n)) {}
    buf(Exec &e, T *borrowed) : ex(e), p(borrowed), own(false) {}
    ~buf() { reset(); }
    void reset() {
        if (p && own) ex.release(p);
        p = nullptr;
    }
    buf(const buf &) = delete;
    buf &operator=(const buf &) = delete;
};

template <class T, class Exec>
using owned = std::unique_ptr<buf<T, Exec>>;

template <class T, class Exec>
owned<T, Exec> make_buf(Exec &ex, size_t n) {
    return owned<T, Exec>(new buf<T, Exec>(ex, n));
}

}  // namespace msm
}  // namespace cuzk

// Needs the step functors and executor buffers above.
#include "msm_rounds.cuh"

namespace cuzk {
namespace msm {

// Runs `levels` further levels on (items, off) with B buckets; each sums up
// to kL1 consecutive partials of a bucket. `item_bound` bounds the items.
template <class F, class Exec>
void run_levels(Exec &ex, uint32_t B, uint32_t levels, owned<xyzz_t<F>, Exec> &items, owned<uint32_t, Exec> &off,
                uint64_t item_bound) {
    for (uint32_t l = 0; l < levels; l++) {
        auto cnt = make_buf<uint32_t>(ex, B);
        ex.for_each(B, seg_count_op{off->p, cnt->p, kL1});
        auto off2 = make_buf<uint32_t>(ex, (size_t)B + 1);
        ex.scan(cnt->p, off2->p, B);
        // Σ_b ceil(cnt_b / L1) ≤ items/L1 + B, and never more than before.
        uint64_t bound = (item_bound + kL1 - 1) / kL1 + B;
        if (bound > item_bound) bound = item_bound;
        auto items2 = make_buf<xyzz_t<F>>(ex, bound);
        ex.for_each(bound, level_op<F>{items->p, off->p, off2->p, items2->p, B});
        items = std::move(items2);
        off = std::move(off2);
        item_bound = bound;
    }
}

// win[j] ← Σ_t (t+1)·bucket_t of window j (see red_chunk_op).
template <class F, class Exec>
void reduce_buckets(Exec &ex, const plan_t &p, owned<xyzz_t<F>, Exec> &items, owned<uint32_t, Exec> &off,
                    xyzz_t<F> *win) {
    const uint32_t W = p.vw;
    red_final_op<F> fin{};
    std::vector<owned<xyzz_t<F>, Exec>> keep_items;
    std::vector<owned<uint32_t, Exec>> keep_off;
    owned<xyzz_t<F>, Exec> X;  // level input after level 0
    uint32_t N = p.nb, lv = 0;
    for (;;) {
        const uint32_t m = N < kRedChunk ? N : kRedChunk;
        const uint32_t P = N / m;
        auto T = make_buf<xyzz_t<F>>(ex, (size_t)W * P);
        auto S = make_buf<xyzz_t<F>>(ex, (size_t)W * P);
        if (lv == 0)
            ex.for_each((size_t)W * P, red_chunk_op<F>{items->p, off->p, T->p, S->p, N, m});
        else
            ex.for_each((size_t)W * P, red_chunk_op<F>{X->p, nullptr, T->p, S->p, N, m});
        if (P == 1) {
            fin.levels = lv;
            fin.lastT = T->p;
            fin.lastS = S->p;
            fin.win = win;
            ex.for_each(W, fin);
            return;  // T, S and the kept sums are released after the pass
        }
        // Σ_k T_k per window: a tree over W "buckets" of P partials each.
        auto toff = make_buf<uint32_t>(ex, (size_t)W + 1);
        ex.for_each((size_t)W + 1, stride_off_op{toff->p, P});
        uint32_t levels = 0;
        for (uint64_t cnt = P; cnt > 1; cnt = (cnt + kL1 - 1) / kL1) levels++;
        run_levels<F>(ex, W, levels, T, toff, (uint64_t)W * P);
        fin.sumT[lv] = T->p;
        fin.sumT_off[lv] = toff->p;
        uint32_t mlog = 0;
        while ((1u << mlog) < m) mlog++;
        fin.mlog[lv] = mlog;
        keep_items.push_back(std::move(T));
        keep_off.push_back(std::move(toff));
        if (lv == 0) {
            items.reset();
            off.reset();
        }
        X = std::move(S);
        N = P;
        lv++;
    }
}

// The device executor's shape (msm_device.cuh), here so that measure_exec
// (below) sizes exactly what a device run allocates.
//
// Affine rounds work in chunks of this many sorted entries: 2^25 (≈ 3.2 GB
// of G1 scratch), because every chunk and round waits on one direct
// inversion and its recursion levels (ncu on the H200: 99 of them per G1
// 2^24 MSM at 2^24 entries per chunk, ≈ 1 ms each; with 2^25 the MSM went
// 292 → 255 ms, together with the inversion's arrays kept in registers).
constexpr uint64_t kDeviceRoundChunk = 1ull << 25;
// Direct inversion of up to this many elements, one thread each: one
// inversion's latency whatever the count.
constexpr uint64_t kDeviceInvDirect = 4096;

// Checks what msm_run requires: 2 ≤ c ≤ 24 and W·n < 2^32 (u32 offsets);
// with copies > 1 also copies ≤ W, n ≤ stride and copies·stride < 2^31
// (the copy's point index shares an entry with the sign bit).
inline bool msm_args_ok(uint64_t n, uint32_t c, uint32_t copies = 1, uint64_t stride = 0) {
    if (c < 2 || c > 24) return false;
    uint64_t w = (256 + c - 1) / c;
    if (copies == 0 || copies > w) return false;
    if (copies > 1 && (n > stride || copies * stride >= (1ull << 31))) return false;
    return w * n < (1ull << 32);
}

// Steps 1–3 of msm_run: the bucket sums of Σ scalars[i]·bases[idx ? idx[i]
// : i] (i < n, n ≥ 1) as (items, off): bucket b (of vw·nb) is
// bucket_value(items, off, b). Same arguments as msm_run.
template <class F, class Exec>
void msm_buckets(Exec &ex, const plan_t &p, const affine_t<F> *bases, const uint32_t *idx, const fr_t *scalars,
                 int rounds, owned<xyzz_t<F>, Exec> &items_out, owned<uint32_t, Exec> &off_out) {
    const uint32_t n = p.n;
    const uint32_t B = p.vw * p.nb;
    const uint64_t entries = (uint64_t)p.windows * n;
    uint32_t R = rounds < 0 ? (rounds_by_default<F>::value ? auto_rounds(p) : 0)
                            : ((uint32_t)rounds > kMaxRounds ? kMaxRounds : (uint32_t)rounds);
    while (R && padded_bound(entries, B, R) >= (1ull << 32)) R--;  // offsets are u32
    const uint64_t E = R ? padded_bound(entries, B, R) : entries;

    // 1-2: digits, counting sort per window (buckets padded to 2^R entries)
    ex.phase("sort");
    auto digits = make_buf<uint32_t>(ex, entries);
    ex.for_each(n, digits_op{scalars, digits->p, p});
    auto counts = make_buf<uint32_t>(ex, B);
    ex.zero(counts->p, B);
    ex.for_each(entries, hist_op{digits->p, counts->p, p});
    if (R) ex.for_each(B, pad_count_op{counts->p, (1u << R) - 1});
    auto off0 = make_buf<uint32_t>(ex, (size_t)B + 1);
    ex.scan(counts->p, off0->p, B);
    ex.zero(counts->p, B);  // now the scatter cursors
    auto sorted = make_buf<uint32_t>(ex, E);
    if (R) ex.for_each(E, fill_op{sorted->p, kPad});
    ex.for_each(entries, scatter_op{digits->p, off0->p, counts->p, sorted->p, p});
    digits.reset();

    // 3a: affine rounds: every aligned block of 2^R entries → one point
    owned<affine_t<F>, Exec> blocks;
    const affine_t<F> *pts = bases;
    const uint32_t *pidx = idx, *psorted = sorted->p;
    uint64_t level_in = entries;  // level-0 input items (bound)
    uint64_t per_bucket = n;      // bound on one bucket's level-0 input
    if (R) {
        blocks = make_buf<affine_t<F>>(ex, E >> R);
        affine_rounds<F>(ex, bases, idx, sorted->p, off0->p + B, E, R, blocks->p);
        sorted.reset();
        auto offb = make_buf<uint32_t>(ex, (size_t)B + 1);
        ex.for_each((size_t)B + 1, shift_off_op{off0->p, offb->p, R});
        off0 = std::move(offb);
        pts = blocks->p;
        pidx = psorted = nullptr;
        level_in = E >> R;
        per_bucket = ((uint64_t)n + (1ull << R) - 1) >> R;
    }

    // 3b: level 0 (mixed adds), then levels of partials
    ex.phase("level0");
    ex.for_each(B, seg_count_op{off0->p, counts->p, kL0});
    auto off = make_buf<uint32_t>(ex, (size_t)B + 1);
    ex.scan(counts->p, off->p, B);
    uint64_t bound = (level_in + kL0 - 1) / kL0 + B;
    if (bound > level_in) bound = level_in;
    auto items = make_buf<xyzz_t<F>>(ex, bound);
    ex.for_each(bound, level0_op<F>{pts, pidx, psorted, off0->p, off->p, items->p, B});
    sorted.reset();
    blocks.reset();
    off0.reset();
    counts.reset();
    ex.phase("levels");
    run_levels<F>(ex, B, level_count(per_bucket) - 1, items, off, bound);
    items_out = std::move(items);
    off_out = std::move(off);
}

// win[s] (executor memory, vw = bucket_windows(c, copies) points) ←
// Σ_t (t+1)·bucket_t of bucket window s, so that
// Σ scalars[i]·bases[idx ? idx[i] : i] (i < n) = Σ_s 2^(c·s)·win[s]; the
// caller combines. With copies > 1, `bases` is a shifted table (plan_t) of
// `copies` copies `stride` points apart, and idx must be null. Requires
// msm_args_ok(n, c, copies, stride).
// `rounds`: affine rounds before the XYZZ levels (msm_rounds.cuh); < 0 picks
// auto_rounds for the curves in rounds_by_default (G1), 0 turns them off.
template <class F, class Exec>
void msm_run(Exec &ex, const affine_t<F> *bases, const uint32_t *idx, const fr_t *scalars, uint32_t n, uint32_t c,
             uint32_t copies, uint32_t stride, xyzz_t<F> *win, int rounds = -1) {
    const plan_t p = make_plan(n, c, copies, stride);
    if (n == 0) {
        ex.for_each(p.vw, set_inf_xyzz_op<F>{win});
        return;
    }
    owned<xyzz_t<F>, Exec> items;
    owned<uint32_t, Exec> off;
    msm_buckets<F>(ex, p, bases, idx, scalars, rounds, items, off);
    // 4: bucket reduction into the caller's window sums
    ex.phase("reduce");
    reduce_buckets<F>(ex, p, items, off, win);
}

// A streamed MSM keeps its buckets across chunks: acc holds the W·2^(c−1)
// bucket sums (plain bases, W = ceil(256/c)) of every chunk so far, so the
// bucket reduction runs once per pass, not once per chunk.
//
// acc[b] ← infinity for every bucket.
template <class F, class Exec>
void buckets_clear(Exec &ex, uint32_t c, xyzz_t<F> *acc) {
    const plan_t p = make_plan(0, c);
    ex.for_each((size_t)p.vw * p.nb, set_inf_xyzz_op<F>{acc});
}

// acc[b] += bucket b of Σ scalars[i]·bases[idx ? idx[i] : i] (i < n).
// Requires msm_args_ok(n, c).
template <class F, class Exec>
void msm_accumulate(Exec &ex, const affine_t<F> *bases, const uint32_t *idx, const fr_t *scalars, uint32_t n,
                    uint32_t c, xyzz_t<F> *acc, int rounds = -1) {
    if (n == 0) return;
    const plan_t p = make_plan(n, c);
    owned<xyzz_t<F>, Exec> items;
    owned<uint32_t, Exec> off;
    msm_buckets<F>(ex, p, bases, idx, scalars, rounds, items, off);
    ex.phase("merge");
    ex.for_each((size_t)p.vw * p.nb, merge_op<F>{acc, items->p, off->p});
}

// win[s] ← Σ_t (t+1)·acc_t over bucket window s of acc (as msm_run's win).
template <class F, class Exec>
void buckets_reduce(Exec &ex, uint32_t c, xyzz_t<F> *acc, xyzz_t<F> *win) {
    const plan_t p = make_plan(0, c);
    const uint32_t B = p.vw * p.nb;
    // One entry per bucket: off[b] = b.
    auto off = make_buf<uint32_t>(ex, (size_t)B + 1);
    ex.for_each((size_t)B + 1, stride_off_op{off->p, 1});
    owned<xyzz_t<F>, Exec> items(new buf<xyzz_t<F>, Exec>(ex, acc));
    ex.phase("reduce");
    reduce_buckets<F>(ex, p, items, off, win);
}

// An executor that runs nothing and counts: the peak of what a driver
// allocates at once, with the device's shape. Its pointers are never
// dereferenced (no step runs), so a driver can be "run" for its sizes alone.
struct measure_exec {
    static constexpr uint64_t kInvDirect = kDeviceInvDirect;
    static constexpr size_t kChainThreads = kDeviceChainThreads;
    uint64_t live = 0, peak = 0;
    std::vector<std::pair<uintptr_t, uint64_t>> blocks;  // fake address → bytes
    uintptr_t next = 4096;
    template <class T>
    T *alloc(size_t n) {
        const uint64_t bytes = (uint64_t)(n ? n : 1) * sizeof(T);
        const uintptr_t a = next;
        next += 4096;
        blocks.emplace_back(a, bytes);
        live += bytes;
        if (live > peak) peak = live;
        return reinterpret_cast<T *>(a);
    }
    template <class T>
    void release(T *p) {
        const uintptr_t a = reinterpret_cast<uintptr_t>(p);
        for (size_t i = 0; i < blocks.size(); i++)
            if (blocks[i].first == a) {
                live -= blocks[i].second;
                blocks.erase(blocks.begin() + (long)i);
                return;
            }
    }
    template <class T>
    void zero(T *, size_t) {}
    template <class Op>
    void for_each(size_t, const Op &) {}
    void scan(const uint32_t *, uint32_t *, uint32_t) {}
    void phase(const char *) {}
    uint64_t round_chunk() const { return kDeviceRoundChunk; }
};

// Peak bytes of executor memory a device msm_run of n points at window c
// allocates: what a caller must leave free beside the bases. At G1 2^27
// (c = 20) about 22 GB: the sorted entries (E·4 bytes), the rounds' output
// blocks (E/2^R points) and one chunk's scratch live together.
template <class F>
uint64_t msm_scratch_peak(uint32_t n, uint32_t c, uint32_t copies = 1) {
    measure_exec ex;
    msm_run<F>(ex, nullptr, nullptr, nullptr, n, c, copies, n, nullptr);
    return ex.peak;
}

// Peak bytes of executor memory msm_accumulate of n points at window c, or
// buckets_reduce at c, allocates (whichever is more; the accumulator itself
// is the caller's).
template <class F>
uint64_t accumulate_scratch_peak(uint32_t n, uint32_t c) {
    measure_exec a, r;
    msm_accumulate<F>(a, nullptr, nullptr, nullptr, n, c, nullptr);
    buckets_reduce<F>(r, c, nullptr, nullptr);
    return a.peak > r.peak ? a.peak : r.peak;
}

// out ← Σ bases[j] over the set bits j < nbits of `words`.
template <class F, class Exec>
void bitmap_sum_run(Exec &ex, const affine_t<F> *bases, const uint64_t *words, uint32_t nbits, affine_t<F> *out) {
    const uint64_t nwords = ((uint64_t)nbits + 63) / 64;
    const uint64_t segs = (nwords + kBitmapWords - 1) / kBitmapWords;
    if (segs == 0) {
        ex.for_each(1, set_inf_op<F>{out});
        return;
    }
    auto items = make_buf<xyzz_t<F>>(ex, segs);
    ex.for_each(segs, bitmap_seg_op<F>{bases, words, items->p, nbits});
    auto off = make_buf<uint32_t>(ex, 2);
    ex.for_each(1, set_range_op{off->p, (uint32_t)segs});
    uint32_t levels = 0;
    for (uint64_t cnt = segs; cnt > 1; cnt = (cnt + kL1 - 1) / kL1) levels++;
    run_levels<F>(ex, 1, levels, items, off, segs);
    ex.for_each(1, finish_op<F>{items->p, off->p, out});
}

}  // namespace msm
}  // namespace cuzk
