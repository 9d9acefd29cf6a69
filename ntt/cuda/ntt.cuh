// ntt.cuh: the radix-2 NTT over BLS12-381 Fr as __host__ __device__ code.
//
// The same functions run as CUDA kernels (ntt_kernels.cu) and as a host
// loop over "blocks" and "threads" (ntt_host.cpp), so CI tests the index
// maths, the tables and the butterfly structure without a GPU.
//
// Algorithm (a decimation-in-frequency transform split into passes):
// n = 2^L with index i = i1·2^(S−p) + i0 inside a sub-problem of 2^S points
// (S = L for the first pass). A pass does the size-2^p DFTs over i1 for every
// i0 (each in shared memory, all p radix-2 levels on chip), leaving slot i1
// holding output k1 = bitrev_p(i1); multiplies slot (i1, i0) by the fused
// twiddle ω_{2^S}^(i0·bitrev_p(i1)); and leaves 2^p independent sub-problems
// of 2^(S−p) contiguous points for the next pass. After the last pass,
// position i holds X[bitrev_L(i)] (natural in, bit-reversed out).
// The DIT transform is the exact transpose: passes in reverse order, the
// fused twiddle before the butterflies, levels from small to large, and
// (u, v) → (u + w·v, u − w·v): bit-reversed in, natural out.
//
// Inside a pass, each thread holds four elements in registers and does two
// radix-2 levels on them (a radix-4 step) between shared-memory exchanges,
// so a pass of p levels has ceil(p/2) exchanges and barriers instead of p.
// An odd p leaves one plain level: the last one in DIF order (half-size 1,
// where every twiddle is 1), which is the first one in DIT order.
//
// Tables (built on the host in Rust, uploaded once per device), all powers of
// the canonical roots ω_m = ROOT_OF_UNITY^(2^32/m) that bellperson uses:
//   [TW_FWD + h + x] = ω_{2h}^x, [TW_INV + h + x] = ω_{2h}^−x (h < 2^10)
//   [TW_LO + j] = ω_{2^28}^j, [TW_HI + j] = ω_{2^28}^(j·2^14) (j < 2^14)
//   [TW_MID + x] = ω_{2^18}^x (x < 2^18)
// so every twiddle of every size is one lookup (inner levels, and fused
// twiddles of sub-problems of ≤ 2^18 points: the inverse uses 2^18 − x) or
// one product of two lookups (fused twiddles of larger sub-problems:
// exponent e < 2^28 in units of ω_{2^28}; the inverse uses 2^28 − e).
// 296 960 entries, 9.06 MiB: the 8 MiB direct table saves one of the two
// products per element at the second pass boundary of 2^19..2^28
// transforms (2^27 = 9+9+9: its sub-problems after the first pass have
// 2^18 points), about 6 % of a transform's products, and stays in L2.
// Scale tables (coset shift s and constant k): [j] = s^j, [SC_HI + j] =
// k·s^(j·2^14): the factor for logical index e is one product.
#pragma once

#include "bls12_381.cuh"

namespace cuzk {
namespace ntt {

constexpr uint32_t MAX_LOG = 28;
constexpr uint32_t MAX_PASS_LOG = 10;  // 2^10 Fr = 32 KiB of shared memory per block
constexpr uint32_t INNER = 1u << MAX_PASS_LOG;
constexpr uint32_t SPLIT = 14;  // two-level tables: 14 + 14 bits cover 2^28
constexpr uint32_t SPLIT_MASK = (1u << SPLIT) - 1;
constexpr uint32_t TW_FWD = 0;
constexpr uint32_t TW_INV = INNER;
constexpr uint32_t TW_LO = 2 * INNER;
constexpr uint32_t TW_HI = 2 * INNER + (1u << SPLIT);
constexpr uint32_t MID_LOG = 18;  // direct table of ω_{2^18}^x
constexpr uint32_t TW_MID = 2 * INNER + 2 * (1u << SPLIT);
constexpr uint32_t TW_LEN = TW_MID + (1u << MID_LOG);
constexpr uint32_t SC_HI = 1u << SPLIT;
constexpr uint32_t SC_LEN = 2u << SPLIT;
constexpr uint32_t MAX_PASSES = (MAX_LOG + MAX_PASS_LOG - 1) / MAX_PASS_LOG;

// Flags (same values as cuzk_ntt.h).
constexpr uint32_t F_INVERSE = 1;    // ω^−1 everywhere (no 1/n: use a scale table)
constexpr uint32_t F_DIT = 2;        // bit-reversed in, natural out (else DIF)
constexpr uint32_t F_SCALE_IN = 4;   // multiply inputs by scale(logical index)
constexpr uint32_t F_SCALE_OUT = 8;  // multiply outputs by scale(logical index)
// Operands fused into a transform (the H step's, twin.rs `h_plan`):
// F_MUL_IN multiplies input x at position i by mul[i] in the first pass,
// before any input scaling (a·b read by the last inverse transform: the
// pointwise kernel's 3 n-element sweeps, ≈ 13 GB at 2^27, become one more
// read in a pass bound by its products); F_SUB_OUT subtracts sub[i] from
// output i in the last pass, after any output scaling (c's coefficients,
// so that c needs one transform instead of two).
constexpr uint32_t F_MUL_IN = 16;
constexpr uint32_t F_SUB_OUT = 32;

CUZK_HD CUZK_INLINE uint32_t bitrev(uint32_t x, uint32_t bits) {
    if (bits == 0) return 0;
#if CUZK_DEVICE_PATH
    return __brev(x) >> (32 - bits);
#else
    uint32_t r = 0;
    for (uint32_t b = 0; b < bits; b++) r |= ((x >> b) & 1u) << (bits - 1 - b);
    return r;
#endif
}

// One pass in DIF order: sub-problems of 2^S points, p levels, 2^q
// sub-transforms per block.
struct Pass {
    uint32_t log_n;
    uint32_t S;
    uint32_t p;
    uint32_t q;
    bool first;  // S == log_n
    bool last;   // S == p
};

struct Plan {
    uint32_t count;
    Pass pass[MAX_PASSES];
};

// Balanced split of L levels into ceil(L/10) passes (2^27: 9+9+9, 2^28:
// 10+9+9). q fills a block to min(2^10, n) points.
CUZK_HD inline Plan make_plan(uint32_t log_n) {
    Plan pl{};
    if (log_n == 0) return pl;
    uint32_t np = (log_n + MAX_PASS_LOG - 1) / MAX_PASS_LOG;
    uint32_t base = log_n / np, rem = log_n % np, S = log_n;
    pl.count = np;
    for (uint32_t j = 0; j < np; j++) {
        Pass &ps = pl.pass[j];
        ps.log_n = log_n;
        ps.S = S;
        ps.p = base + (j < rem ? 1u : 0u);
        uint32_t room = MAX_PASS_LOG - ps.p, avail = log_n - ps.p;
        ps.q = room < avail ? room : avail;
        ps.first = (j == 0);
        ps.last = (j + 1 == np);
        S -= ps.p;
    }
    return pl;
}

CUZK_HD CUZK_INLINE uint32_t block_elems(const Pass &ps) { return 1u << (ps.p + ps.q); }
// One thread per four elements (a block of two elements, n = 2, has one).
CUZK_HD CUZK_INLINE uint32_t block_threads(const Pass &ps) {
    uint32_t e = ps.p + ps.q;
    return e >= 2 ? 1u << (e - 2) : 1u;
}
CUZK_HD CUZK_INLINE uint32_t thread_elems(const Pass &ps) { return block_elems(ps) / block_threads(ps); }
CUZK_HD CUZK_INLINE size_t grid_blocks(const Pass &ps) { return size_t(1) << (ps.log_n - ps.p - ps.q); }

struct Ctx {
    fr_t *data;
    const fr_t *tw;
    const fr_t *sc;      // may be null when no F_SCALE_* flag
    const fr_t *mul;  // F_MUL_IN: factors, by position
    const fr_t *sub;  // F_SUB_OUT: subtrahends, by position
    uint32_t flags;
    Pass ps;
};

// Global position of slot i1 of sub-transform g.
CUZK_HD CUZK_INLINE size_t position(const Pass &ps, size_t g, uint32_t i1, size_t *i0_out) {
    uint32_t lo = ps.S - ps.p;
    size_t o = g >> lo, i0 = g & ((size_t(1) << lo) - 1);
    *i0_out = i0;
    return (o << ps.S) + (size_t(i1) << lo) + i0;
}

// ω_{2^S}^e (or ω_{2^S}^−e), e < 2^S.
CUZK_HD CUZK_INLINE fr_t pass_root(const fr_t *tw, uint32_t S, uint32_t e, bool inv) {
    if (S <= MID_LOG) {
        constexpr uint32_t mask = (1u << MID_LOG) - 1;
        uint32_t x = e << (MID_LOG - S);
        if (inv) x = ((1u << MID_LOG) - x) & mask;
        return tw[TW_MID + x];
    }
    e <<= MAX_LOG - S;
    if (inv) e = ((1u << MAX_LOG) - e) & ((1u << MAX_LOG) - 1);
    return tw[TW_LO + (e & SPLIT_MASK)] * tw[TW_HI + (e >> SPLIT)];
}

CUZK_HD CUZK_INLINE fr_t scale_at(const fr_t *sc, size_t e) {
    return sc[e & SPLIT_MASK] * sc[SC_HI + (e >> SPLIT)];
}

// The fused twiddle of slot (i1, i0): ω_{2^S}^(i0·bitrev_p(i1)).
CUZK_HD CUZK_INLINE void fused_twiddle(const Ctx &c, fr_t &x, size_t i0, uint32_t i1) {
    uint32_t e = uint32_t(i0) * bitrev(i1, c.ps.p);  // < 2^S ≤ 2^28
    if (e == 0) return;
    x = x * pass_root(c.tw, c.ps.S, e, (c.flags & F_INVERSE) != 0);
}

CUZK_HD CUZK_INLINE bool scales_in(const Ctx &c) {
    bool dit = (c.flags & F_DIT) != 0;
    return (c.flags & F_SCALE_IN) && (dit ? c.ps.last : c.ps.first);
}
CUZK_HD CUZK_INLINE bool multiplies_in(const Ctx &c) {
    bool dit = (c.flags & F_DIT) != 0;
    return (c.flags & F_MUL_IN) && (dit ? c.ps.last : c.ps.first);
}
CUZK_HD CUZK_INLINE bool subtracts_out(const Ctx &c) {
    bool dit = (c.flags & F_DIT) != 0;
    return (c.flags & F_SUB_OUT) && (dit ? c.ps.first : c.ps.last);
}
CUZK_HD CUZK_INLINE bool scales_out(const Ctx &c) {
    bool dit = (c.flags & F_DIT) != 0;
    return (c.flags & F_SCALE_OUT) && (dit ? c.ps.first : c.ps.last);
}

// Logical index of the element at `pos`: DIF input and DIT output are in
// natural order, DIF output and DIT input bit-reversed.
CUZK_HD CUZK_INLINE size_t logical(const Ctx &c, size_t pos, bool input) {
    bool dit = (c.flags & F_DIT) != 0;
    bool natural = (dit != input);
    return natural ? pos : bitrev(uint32_t(pos), c.ps.log_n);
}

// Thread `tid` of block `block` loads its elements into `smem`.
// Element e of the block: sub-transform e mod 2^q, slot e >> q; consecutive
// threads read consecutive i0 (adjacent addresses) wherever q > 0.
// kMulIn = multiplies_in(c), a separate instantiation: with the pointwise
// code in the one pass kernel every transform measured 5.6 % slower on the
// H200 (2^27: 94.3 against 89.3 ms), for the one pass that needs it.
template <bool kMulIn>
CUZK_HD inline void pass_load(const Ctx &c, size_t block, uint32_t tid, fr_t *smem) {
    const Pass &ps = c.ps;
    uint32_t C = 1u << ps.q, T = block_threads(ps), E = thread_elems(ps);
    bool dit = (c.flags & F_DIT) != 0;
    for (uint32_t k = 0; k < E; k++) {
        uint32_t e = tid + k * T;
        size_t i0;
        size_t pos = position(ps, block * C + (e & (C - 1)), e >> ps.q, &i0);
        fr_t x = c.data[pos];
        if (kMulIn) x = x * c.mul[pos];
        if (scales_in(c)) x = x * scale_at(c.sc, logical(c, pos, true));
        if (dit && !ps.last) fused_twiddle(c, x, i0, e >> ps.q);
        smem[e] = x;
    }
}

// How many levels the step starting at level `l` (0-based in execution
// order) does: two (radix-4), except the odd level of an odd p.
CUZK_HD CUZK_INLINE uint32_t step_levels(const Ctx &c, uint32_t l) {
    const Pass &ps = c.ps;
    if ((ps.p & 1u) == 0) return 2;
    bool dit = (c.flags & F_DIT) != 0;
    return dit ? (l == 0 ? 1u : 2u) : (l + 1 == ps.p ? 1u : 2u);
}

// One radix-2 butterfly `bf` of level `l`. smem[i1·2^q + c] holds slot i1 of
// local sub-transform c.
CUZK_HD CUZK_INLINE void butterfly(const Ctx &c, uint32_t l, uint32_t bf, fr_t *smem) {
    const Pass &ps = c.ps;
    bool dit = (c.flags & F_DIT) != 0;
    uint32_t log_hh = dit ? l : ps.p - 1 - l;
    uint32_t hh = 1u << log_hh;
    uint32_t col = bf & ((1u << ps.q) - 1), b = bf >> ps.q;
    uint32_t j = b & (hh - 1);
    uint32_t i1a = ((b >> log_hh) << (log_hh + 1)) + j;
    uint32_t ia = (i1a << ps.q) + col, ib = ia + (hh << ps.q);
    const fr_t *tab = c.tw + ((c.flags & F_INVERSE) ? TW_INV : TW_FWD);
    fr_t u = smem[ia], v = smem[ib];
    if (dit) {
        if (j != 0) v = v * tab[hh + j];
        smem[ia] = u + v;
        smem[ib] = u - v;
    } else {
        fr_t d = u - v;
        smem[ia] = u + v;
        smem[ib] = (j != 0) ? d * tab[hh + j] : d;
    }
}

// The step of thread `tid` starting at level `l`: `levels` = 1, the
// thread's butterflies of that level (two, or one when the block has two
// elements); `levels` = 2, radix-4 group `tid`: slots s, s + Q, s + H,
// s + H + Q (H = 2Q the larger half-size of the two levels), butterflies
// over H (twiddles ω_{2H}^j and ω_{2H}^(j+Q)) and over Q (ω_{2Q}^j, twice),
// in that order for DIF and reversed for DIT.
CUZK_HD inline void pass_step(const Ctx &c, uint32_t l, uint32_t levels, uint32_t tid, fr_t *smem) {
    const Pass &ps = c.ps;
    if (levels == 1) {
        uint32_t T = block_threads(ps), bfl = block_elems(ps) / 2;
        for (uint32_t bf = tid; bf < bfl; bf += T) butterfly(c, l, bf, smem);
        return;
    }
    bool dit = (c.flags & F_DIT) != 0;
    uint32_t log_h = dit ? l + 1 : ps.p - 1 - l;
    uint32_t H = 1u << log_h, Q = H >> 1;
    uint32_t col = tid & ((1u << ps.q) - 1), b = tid >> ps.q;
    uint32_t j = b & (Q - 1);
    uint32_t s = ((b >> (log_h - 1)) << (log_h + 1)) + j;
    uint32_t i0 = (s << ps.q) + col, dq = Q << ps.q, dh = H << ps.q;
    const fr_t *tab = c.tw + ((c.flags & F_INVERSE) ? TW_INV : TW_FWD);
    fr_t x0 = smem[i0], x1 = smem[i0 + dq], x2 = smem[i0 + dh], x3 = smem[i0 + dh + dq];
    if (dit) {
        if (j != 0) {
            fr_t w = tab[Q + j];
            x1 = x1 * w;
            x3 = x3 * w;
        }
        fr_t t0 = x0 + x1, t1 = x0 - x1, t2 = x2 + x3, t3 = x2 - x3;
        if (j != 0) t2 = t2 * tab[H + j];
        t3 = t3 * tab[H + j + Q];
        x0 = t0 + t2;
        x2 = t0 - t2;
        x1 = t1 + t3;
        x3 = t1 - t3;
    } else {
        fr_t t0 = x0 + x2, t2 = x0 - x2, t1 = x1 + x3, t3 = (x1 - x3) * tab[H + j + Q];
        if (j != 0) t2 = t2 * tab[H + j];
        x0 = t0 + t1;
        x1 = t0 - t1;
        x2 = t2 + t3;
        x3 = t2 - t3;
        if (j != 0) {
            fr_t w = tab[Q + j];
            x1 = x1 * w;
            x3 = x3 * w;
        }
    }
    smem[i0] = x0;
    smem[i0 + dq] = x1;
    smem[i0 + dh] = x2;
    smem[i0 + dh + dq] = x3;
}

// kSubOut = subtracts_out(c), its own instantiation like kMulIn.
template <bool kSubOut>
CUZK_HD inline void pass_store(const Ctx &c, size_t block, uint32_t tid, const fr_t *smem) {
    const Pass &ps = c.ps;
    uint32_t C = 1u << ps.q, T = block_threads(ps), E = thread_elems(ps);
    bool dit = (c.flags & F_DIT) != 0;
    for (uint32_t k = 0; k < E; k++) {
        uint32_t e = tid + k * T;
        size_t i0;
        size_t pos = position(ps, block * C + (e & (C - 1)), e >> ps.q, &i0);
        fr_t x = smem[e];
        if (!dit && !ps.last) fused_twiddle(c, x, i0, e >> ps.q);
        if (scales_out(c)) x = x * scale_at(c.sc, logical(c, pos, false));
        if (kSubOut) x = x - c.sub[pos];
        c.data[pos] = x;
    }
}

// Order in which the passes of a plan run: DIF first to last, DIT reversed.
CUZK_HD CUZK_INLINE uint32_t exec_index(const Plan &pl, uint32_t step, uint32_t flags) {
    return (flags & F_DIT) ? pl.count - 1 - step : step;
}

// Pointwise operations (the H step's a·b when b's buffer must be reused
// before the F_MUL_IN pass could read it).
constexpr int32_t PW_MUL = 0;    // a ← a·b
constexpr int32_t PW_SCALE = 2;  // a ← a·k

CUZK_HD CUZK_INLINE void pointwise(int32_t op, fr_t &a, const fr_t *b, const fr_t &k) {
    if (op == PW_MUL)
        a = a * *b;
    else
        a = a * k;
}

CUZK_HD CUZK_INLINE bool valid_flags(uint32_t flags) { return flags < 64; }

// The whole transform of one point (log n = 0): the fused factor, each
// scale flag's factor for index 0, the fused subtrahend.
CUZK_HD inline void single_point(fr_t &x, uint32_t flags, const fr_t *sc, const fr_t *mul, const fr_t *sub) {
    if (flags & F_MUL_IN) x = x * mul[0];
    if (flags & F_SCALE_IN) x = x * scale_at(sc, 0);
    if (flags & F_SCALE_OUT) x = x * scale_at(sc, 0);
    if (flags & F_SUB_OUT) x = x - sub[0];
}

// Argument check shared by the device and host entry points.
CUZK_HD inline bool run_args_ok(const void *data, uint32_t log_n, uint32_t flags, const void *tw, const void *sc,
                                const void *mul, const void *sub) {
    if (!data || !tw || log_n > MAX_LOG || !valid_flags(flags)) return false;
    if ((flags & (F_SCALE_IN | F_SCALE_OUT)) && !sc) return false;
    if ((flags & F_MUL_IN) && !mul) return false;
    return !(flags & F_SUB_OUT) || sub;
}

}  // namespace ntt
}  // namespace cuzk
