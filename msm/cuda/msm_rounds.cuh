// msm_rounds.cuh: batch-affine bucket accumulation ("affine rounds") for
// msm_pipeline.cuh, which includes it after its executor buffers (`owned`,
// `make_buf`); same functor/executor scheme, so the host twin runs it too.
//
// Why: a mixed XYZZ add costs 8M + 2S. An affine add P1 + P2 costs
// λ = (y2 − y1)/(x2 − x1), x3 = λ² − x1 − x2, y3 = λ(x1 − x3) − y1: 2M + 1S
// plus one inversion, and Montgomery's simultaneous inversion shares one
// inversion between many adds for 3M each (1 forward prefix, 2 backward).
// So 5M + 1S per add, if the inversions themselves are amortised away:
// the chains here are ≤ kInvRun long and their totals are inverted by the
// same trick recursively, so a direct inversion is paid once per ~2^13
// adds — cheap in arithmetic, but each round waits on its latency (below).
// On the H200 (`gpu_msm` bench): G1 2^24 254.9 against 276.5 ms with XYZZ
// alone, 2^27 1625 against 1955.
//
// Shape: the counting sort pads every bucket to a multiple of 2^R entries
// with kPad (= infinity), so the sorted array is a sequence of aligned
// blocks of 2^R entries that never straddle a bucket. Round r adds the
// pairs (2k, 2k+1) of its input into output k, for every k at once; after
// R rounds each block is one affine point, bucket b's blocks are
// [off[b] >> R, off[b+1] >> R), and the XYZZ levels take over (≈ 8 points
// per bucket are left). No round needs to know where buckets begin.
//
// Memory is bounded by working in chunks of ex.round_chunk() sorted
// entries (a multiple of 2^kMaxRounds): per chunk, ping-pong buffers of
// chunk/2 and chunk/4 points and chunk/2 prefix products (≈ 3.2 GB for G1
// at the device's 2^25). Exec::kInvDirect is where the recursion of
// simultaneous inversions stops and inverts each element directly
// (mont_t::inverse, binary extended Euclid), one thread each: on the
// device that costs one inversion's latency whatever the count (a single
// thread's dependent chain: Fermat took 0.95 ms on the H200), so the
// threshold is high there and chunks are large; the host twin pays every
// one.
//
// Rare pairs (equal x, x = 0, infinity) are classified by their y as well
// (`classify`): P + P stays in the chain with the tangent's denominator 2y,
// copies and P + (−P) leave it. Bases in arithmetic progression (the GPU
// tests' and benchmarks' known-log bases) make equal partial sums common.
#pragma once

namespace cuzk {
namespace msm {

// A padding slot in the sorted entries: infinity.
constexpr uint32_t kPad = 0xFFFFFFFFu;
// Elements per thread in a simultaneous-inversion chain.
constexpr uint32_t kInvRun = 16;
// Most rounds (blocks of 64 entries).
constexpr uint32_t kMaxRounds = 6;
// Whether a curve takes the rounds unless told otherwise: G1 only. G2's
// were measured slower on the H200 (2^24: 754 against 699 ms without).
template <class F>
struct rounds_by_default {
    static constexpr bool value = false;
};
template <>
struct rounds_by_default<fp_t> {
    static constexpr bool value = true;
};

// Rounds for a plan: leave about 8 entries per bucket (mean n / 2^(c−1))
// to the XYZZ levels, so that padding to 2^R adds ≤ 1/16 of the entries on
// average; 0 (no rounds) for small buckets.
CUZK_HD inline uint32_t auto_rounds(const plan_t &p) {
    // W·n entries over vw·nb buckets (n / nb without shifted copies)
    const uint64_t mean = (uint64_t)p.n * p.windows / p.vw >> (p.c - 1);
    uint32_t lg = 0;
    while ((2ull << lg) <= mean) lg++;
    if (lg <= 3) return 0;
    return lg - 3 > kMaxRounds ? kMaxRounds : lg - 3;
}

// Upper bound on the padded entries: each non-empty bucket gains < 2^R.
CUZK_HD inline uint64_t padded_bound(uint64_t entries, uint32_t B, uint32_t R) {
    const uint64_t busy = entries < B ? entries : B;
    return entries + busy * ((1ull << R) - 1);
}

struct pad_count_op {
    uint32_t *cnt;
    uint32_t mask;  // 2^R − 1
    CUZK_HD void operator()(size_t b) const { cnt[b] = (cnt[b] + mask) & ~mask; }
};

struct fill_op {
    uint32_t *p;
    uint32_t v;
    CUZK_HD void operator()(size_t i) const { p[i] = v; }
};

struct shift_off_op {
    const uint32_t *in;
    uint32_t *out;
    uint32_t r;
    CUZK_HD void operator()(size_t b) const { out[b] = in[b] >> r; }
};

// The input of a round: round 0 reads the sorted entries (point | sign, or
// kPad) of a chunk and gathers the bases; later rounds read points.
template <class F>
struct round_src {
    const affine_t<F> *pts;
    const uint32_t *sorted;  // round 0 only
    const uint32_t *idx;     // optional gather in round 0
    // The point entry e refers to (null for padding) and whether it is negated.
    CUZK_HD const affine_t<F> *at(size_t e, bool &neg) const {
        neg = false;
        if (!sorted) return &pts[e];
        const uint32_t v = sorted[e];
        if (v == kPad) return nullptr;
        neg = (v & kSign) != 0;
        const uint32_t i = v & ~kSign;
        return &pts[idx ? idx[i] : i];
    }
    CUZK_HD affine_t<F> get(size_t e) const {
        bool neg;
        const affine_t<F> *q = at(e, neg);
        if (!q) return affine_t<F>::inf();
        return neg ? -*q : *q;
    }
    CUZK_HD F get_x(size_t e) const {
        bool neg;
        const affine_t<F> *q = at(e, neg);
        return q ? q->x : F::zero();
    }
};

// Threads (chains) for n pairs: chains of up to kInvRun, but never fewer
// than `least` threads while there are that many pairs (Exec::kChainThreads:
// on the device 2^17, since a late round of 2^18 pairs in 16-long chains
// would run 64 blocks; on the host 1, so CI's small rounds still run long,
// uneven chains). Monotone in n, so the first round's count sizes the
// buffers of all.
constexpr size_t kDeviceChainThreads = 1u << 17;

CUZK_HD inline size_t chain_threads(size_t n, size_t least) {
    const size_t by_run = (n + kInvRun - 1) / kInvRun;
    const size_t t = by_run > least ? by_run : least;
    return t < n ? t : n;
}

// How a pair is added. Decided from x alone for almost every pair (x1 ≠
// x2, both non-zero: a chord); the rare rest look at y, identically in the
// forward and backward passes. P + P (a tangent, denominator 2y) stays in
// the chain, so repeated points cost no separate inversion; infinity on
// either side is a copy, P + (−P) is infinity. (0, ±2) is on the curve and
// (0, 0) is infinity, so x = 0 needs the y test too.
enum class pair_kind { chord, tangent, first, second, none };

template <class F>
CUZK_HD CUZK_INLINE bool rare(const F &x1, const F &x2) {
    return x1.is_zero() | x2.is_zero() | (x1 == x2);
}

template <class F>
CUZK_HD inline pair_kind classify(const affine_t<F> &p1, const affine_t<F> &p2) {
    if (p2.is_inf()) return pair_kind::first;
    if (p1.is_inf()) return pair_kind::second;
    if (p1.x != p2.x) return pair_kind::chord;
    return p1.y == p2.y ? pair_kind::tangent : pair_kind::none;  // y ≠ 0 on G1, G2
}

// Thread t's chain is the pairs k = t, t + T, t + 2T, … below `live`
// (adjacent threads take adjacent pairs). `live` is read on the device:
// the pairs of the chunk that the padded entries reach.
CUZK_HD inline size_t live_pairs(const uint32_t *total, uint64_t e0, uint32_t shift, size_t np) {
    const uint64_t tot = *total;
    if (tot <= e0) return 0;
    const uint64_t live = (tot - e0) >> shift;
    return live < np ? (size_t)live : np;
}

// Forward: pre[k] = Π of the chain's differences x2 − x1 up to k (1 before
// the first), tot[t] = the whole product.
template <class F>
struct pair_fwd_op {
    round_src<F> src;
    const uint32_t *total;  // padded entries (device)
    uint64_t e0;            // first sorted entry of the chunk
    uint32_t shift;         // round + 1: entries per output
    size_t np, T;
    F *pre;
    F *tot;
    CUZK_HD void operator()(size_t t) const {
        const size_t live = live_pairs(total, e0, shift, np);
        F acc = F::one();
        bool any = false;
        for (size_t k = t; k < live; k += T) {
            const F x1 = src.get_x(2 * k), x2 = src.get_x(2 * k + 1);
            F d = x2 - x1;
            bool in_chain = true;
            if (rare(x1, x2)) {
                const affine_t<F> p1 = src.get(2 * k);
                const pair_kind kind = classify(p1, src.get(2 * k + 1));
                in_chain = kind == pair_kind::chord || kind == pair_kind::tangent;
                if (kind == pair_kind::tangent) d = p1.y.dbl();
            }
            if (in_chain) {
                acc = any ? acc * d : d;
                any = true;
            }
            pre[k] = acc;
        }
        tot[t] = acc;
    }
};

// Backward: with inv = 1/tot[t], walk the chain down; each pair's
// 1/denominator is inv · pre[previous], then inv absorbs the denominator.
// Two chains interleaved per thread (both pairs' loads before either's
// products) measured 1.84× slower on the H200 (G1 2^24 − 1: this pass 243
// against 132 ms; 2^27 − 1: 1534 against 827) under the 128-register
// bound: one chain per thread it is.
template <class F>
struct pair_bwd_op {
    round_src<F> src;
    const uint32_t *total;
    uint64_t e0;
    uint32_t shift;
    size_t np, T;
    const F *pre;
    const F *tot_inv;
    affine_t<F> *out;
    CUZK_HD void operator()(size_t t) const {
        const size_t live = live_pairs(total, e0, shift, np);
        if (t >= live) return;
        F inv = tot_inv[t];
        for (size_t k = t + (live - 1 - t) / T * T;; k -= T) {
            const affine_t<F> p1 = src.get(2 * k), p2 = src.get(2 * k + 1);
            const pair_kind kind = rare(p1.x, p2.x) ? classify(p1, p2) : pair_kind::chord;
            if (kind == pair_kind::first || kind == pair_kind::second || kind == pair_kind::none) {
                out[k] = kind == pair_kind::first ? p1 : (kind == pair_kind::second ? p2 : affine_t<F>::inf());
            } else {
                const bool tangent = kind == pair_kind::tangent;
                const F ik = k >= t + T ? inv * pre[k - T] : inv;
                if (k >= t + T) inv = inv * (tangent ? p1.y.dbl() : p2.x - p1.x);
                // λ = (y2 − y1)/(x2 − x1), or 3x1²/(2y1) for P + P
                F num = p2.y - p1.y;
                if (tangent) {
                    num = p1.x.sqr();
                    num = num + num.dbl();
                }
                const F l = num * ik;
                const F x3 = l.sqr() - p1.x - p2.x;
                out[k] = affine_t<F>{x3, l * (p1.x - x3) - p1.y};
            }
            if (k < t + T) break;
        }
    }
};

// Simultaneous inversion of v[0..n) (all non-zero), in place.
template <class F>
struct inv_fwd_op {
    const F *v;
    size_t n, T;
    F *pre;
    F *tot;
    CUZK_HD void operator()(size_t t) const {
        F acc = v[t];
        pre[t] = acc;
        for (size_t k = t + T; k < n; k += T) {
            acc = acc * v[k];
            pre[k] = acc;
        }
        tot[t] = acc;
    }
};

template <class F>
struct inv_direct_op {
    F *v;
    CUZK_HD void operator()(size_t i) const { v[i] = v[i].inverse(); }
};

template <class F>
struct inv_bwd_op {
    F *v;
    size_t n, T;
    const F *pre;
    const F *tot_inv;
    CUZK_HD void operator()(size_t t) const {
        F inv = tot_inv[t];
        for (size_t k = t + (n - 1 - t) / T * T;; k -= T) {
            if (k < t + T) {
                v[k] = inv;
                break;
            }
            const F orig = v[k];
            v[k] = inv * pre[k - T];
            inv = inv * orig;
        }
    }
};

template <class F, class Exec>
void batch_invert(Exec &ex, F *v, size_t n) {
    if (n <= Exec::kInvDirect) {
        ex.for_each(n, inv_direct_op<F>{v});
        return;
    }
    const size_t T = (n + kInvRun - 1) / kInvRun;
    auto pre = make_buf<F>(ex, n);
    auto tot = make_buf<F>(ex, T);
    ex.for_each(T, inv_fwd_op<F>{v, n, T, pre->p, tot->p});
    batch_invert<F>(ex, tot->p, T);
    ex.for_each(T, inv_bwd_op<F>{v, n, T, pre->p, tot->p});
}

// blocks[i] ← Σ of the padded sorted entries [i·2^R, (i+1)·2^R), for the
// entries below *total (≤ E, both multiples of 2^R; R ≥ 1).
template <class F, class Exec>
void affine_rounds(Exec &ex, const affine_t<F> *bases, const uint32_t *idx, const uint32_t *sorted,
                   const uint32_t *total, uint64_t E, uint32_t R, affine_t<F> *blocks) {
    const uint64_t chunk = E < ex.round_chunk() ? E : ex.round_chunk();
    const size_t np0 = (size_t)(chunk / 2);
    const size_t T0 = chain_threads(np0, Exec::kChainThreads);
    auto ping = make_buf<affine_t<F>>(ex, R > 1 ? np0 : 1);
    auto pong = make_buf<affine_t<F>>(ex, R > 2 ? np0 / 2 : 1);
    auto pre = make_buf<F>(ex, np0);
    auto tot = make_buf<F>(ex, T0);
    for (uint64_t e0 = 0; e0 < E; e0 += chunk) {
        const uint64_t len = E - e0 < chunk ? E - e0 : chunk;
        round_src<F> src{bases, sorted + e0, idx};
        for (uint32_t r = 0; r < R; r++) {
            const size_t np = (size_t)(len >> (r + 1));
            const size_t T = chain_threads(np, Exec::kChainThreads);
            affine_t<F> *out = r + 1 == R ? blocks + (e0 >> R) : (r % 2 == 0 ? ping->p : pong->p);
            ex.phase("rounds.fwd");
            ex.for_each(T, pair_fwd_op<F>{src, total, e0, r + 1, np, T, pre->p, tot->p});
            ex.phase("rounds.invert");
            batch_invert<F>(ex, tot->p, T);
            ex.phase("rounds.bwd");
            ex.for_each(T, pair_bwd_op<F>{src, total, e0, r + 1, np, T, pre->p, tot->p, out});
            src = round_src<F>{out, nullptr, nullptr};
        }
    }
}

}  // namespace msm
}  // namespace cuzk
