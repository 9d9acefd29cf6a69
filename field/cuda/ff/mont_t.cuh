// mont_t.cuh: a prime field of N 32-bit limbs in Montgomery form.
//
// Layout: `v[0]` is the least significant limb; the bytes equal blst's
// little-endian 64-bit Montgomery limbs, so a host `&[Fr]`/`&[Fp]` uploads
// as it is. Value = v · R⁻¹ mod p with R = 2^(32·N).
//
// Requirements on the parameters `P` (see bls12_381.cuh):
//   N; mod(i), one(i) (R mod p), rr(i) (R² mod p): limb i; m0 = −p⁻¹ mod 2³²;
//   p < R/2 (top bit of the top limb clear). With p < R/2 and reduced
//   inputs, the CIOS accumulator fits in N+1 limbs and stays < 2p after each
//   round, so one branch-free final subtraction suffices.
//
// Multiplication is CIOS (coarsely integrated operand scanning): for each
// limb b_i, add a·b_i, then add m·p with m = t₀·m0 so the low limb cancels,
// then shift one limb. On the device the sums are PTX carry chains
// (mad.lo.cc / madc.lo.cc for the low halves, mad.hi.cc / madc.hi.cc for the
// high halves: 2N products for a·b_i and 2N for m·p, i.e. 4N²+N multiplies,
// 588 for Fp); the host twin does the same with 64-bit products.
#pragma once

#include "common.cuh"

namespace cuzk {

template <class P>
struct mont_t {
    static constexpr int N = P::N;
    uint32_t v[N];

    // ---- constructors and constants -------------------------------------
    CUZK_HD CUZK_INLINE static mont_t zero() {
        mont_t r;
        CUZK_UNROLL for (int i = 0; i < N; i++) r.v[i] = 0;
        return r;
    }
    CUZK_HD CUZK_INLINE static mont_t one() {
        mont_t r;
        CUZK_UNROLL for (int i = 0; i < N; i++) r.v[i] = P::one(i);
        return r;
    }
    CUZK_HD CUZK_INLINE static mont_t modulus() {
        mont_t r;
        CUZK_UNROLL for (int i = 0; i < N; i++) r.v[i] = P::mod(i);
        return r;
    }
    CUZK_HD CUZK_INLINE static mont_t rr() {
        mont_t r;
        CUZK_UNROLL for (int i = 0; i < N; i++) r.v[i] = P::rr(i);
        return r;
    }
    // Raw limbs, no conversion (e.g. the integer 1 is {1,0,...}).
    CUZK_HD CUZK_INLINE static mont_t from_raw(const uint32_t (&l)[N]) {
        mont_t r;
        CUZK_UNROLL for (int i = 0; i < N; i++) r.v[i] = l[i];
        return r;
    }

    // ---- predicates -----------------------------------------------------
    CUZK_HD CUZK_INLINE bool is_zero() const {
        uint32_t acc = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) acc |= v[i];
        return acc == 0;
    }
    CUZK_HD CUZK_INLINE friend bool operator==(const mont_t &a, const mont_t &b) {
        uint32_t acc = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) acc |= a.v[i] ^ b.v[i];
        return acc == 0;
    }
    CUZK_HD CUZK_INLINE friend bool operator!=(const mont_t &a, const mont_t &b) { return !(a == b); }

    // ---- addition and subtraction ---------------------------------------
    // r = s − p if s ≥ p else s, for s < 2p (branch-free).
    CUZK_HD CUZK_INLINE static void reduce_once(uint32_t (&s)[N]) {
        uint32_t d[N];
        uint32_t borrow = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) {
            uint64_t t = (uint64_t)s[i] - P::mod(i) - borrow;
            d[i] = (uint32_t)t;
            borrow = (uint32_t)(t >> 63);
        }
        uint32_t keep = 0u - borrow;  // all ones when s < p
        CUZK_UNROLL for (int i = 0; i < N; i++) s[i] = (s[i] & keep) | (d[i] & ~keep);
    }

    CUZK_HD CUZK_INLINE friend mont_t operator+(const mont_t &a, const mont_t &b) {
        mont_t r;
        add_limbs(r.v, a.v, b.v);  // < 2p < R: no carry out
        reduce_once(r.v);
        return r;
    }
    CUZK_HD CUZK_INLINE friend mont_t operator-(const mont_t &a, const mont_t &b) {
        mont_t r;
        uint32_t borrow = sub_limbs_v(r.v, a.v, b.v);
        uint32_t mask = 0u - borrow;  // add p back when a < b
        uint32_t pm[N];
        CUZK_UNROLL for (int i = 0; i < N; i++) pm[i] = P::mod(i) & mask;
        add_limbs(r.v, r.v, pm);
        return r;
    }
    CUZK_HD CUZK_INLINE mont_t operator-() const {
        mont_t r;
        uint32_t pv[N];
        CUZK_UNROLL for (int i = 0; i < N; i++) pv[i] = P::mod(i);
        sub_limbs_v(r.v, pv, v);
        uint32_t mask = is_zero() ? 0u : ~0u;  // −0 = 0, not p
        CUZK_UNROLL for (int i = 0; i < N; i++) r.v[i] &= mask;
        return r;
    }
    CUZK_HD CUZK_INLINE mont_t dbl() const { return *this + *this; }
    CUZK_HD CUZK_INLINE mont_t &operator+=(const mont_t &b) { return *this = *this + b; }
    CUZK_HD CUZK_INLINE mont_t &operator-=(const mont_t &b) { return *this = *this - b; }

    // ---- multiplication -------------------------------------------------
    CUZK_HD CUZK_INLINE friend mont_t operator*(const mont_t &a, const mont_t &b) { return mul(a, b); }

    // Inlined by default (hot loops want it); CUZK_NOINLINE_MUL makes it a
    // call, which keeps test kernels full of curve formulas small enough
    // for ptxas to finish in seconds rather than many minutes.
    //
    // On the device the PTX carry-chain version is the default. On the H200
    // (`gpu/benches/field_mul.rs`) the portable twin compiled by nvcc is
    // faster (Fp 1.60e10 vs 1.20e10 products/s, Fr 3.65e10 vs 3.33e10):
    // ptxas splits every mad.lo.cc into IMAD + IADD3.X (SASS IMAD has no
    // carry-out) and spills carry flags (P2R/LOP3). Define
    // CUZK_DEVICE_MUL_PORTABLE to use the portable twin everywhere on the
    // device; both paths are differential-tested on the GPU.
    CUZK_HD CUZK_MUL_ATTR static mont_t mul(mont_t a, mont_t b) {
        mont_t r;
#if CUZK_DEVICE_PATH && !defined(CUZK_DEVICE_MUL_PORTABLE)
        mul_ptx(r.v, a.v, b.v);
#else
        mul_portable(r.v, a.v, b.v);
#endif
        return r;
    }
    CUZK_HD CUZK_INLINE mont_t &operator*=(const mont_t &b) { return *this = *this * b; }
    // Dedicated squaring (sqr_portable): each cross product once, doubled,
    // plus the diagonal, then a separate Montgomery reduction — N(N−1)/2 +
    // N + N² wide products instead of 2N² (222 against 288 for Fp, 0.77).
    // Every curve formula's squarings (2 of the 10 products of a G1 mixed
    // add) take it, on the device and the host twin alike.
    CUZK_HD CUZK_MUL_ATTR mont_t sqr() const {
        mont_t r;
        sqr_portable(r.v, v);
        return r;
    }

    // The portable twin of mul_ptx: the same CIOS rounds with 64-bit
    // products. Public so tests can compare both paths where PTX exists.
    CUZK_HD static void mul_portable(uint32_t (&r)[N], const uint32_t (&a)[N], const uint32_t (&b)[N]) {
        uint32_t t[N + 1];
        CUZK_UNROLL for (int i = 0; i <= N; i++) t[i] = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) {
            uint64_t c = 0;
            CUZK_UNROLL for (int j = 0; j < N; j++) {
                c += (uint64_t)a[j] * b[i] + t[j];
                t[j] = (uint32_t)c;
                c >>= 32;
            }
            uint32_t top = t[N] + (uint32_t)c;  // fits: the sum is < 2^(32(N+1))
            uint32_t m = t[0] * P::m0;
            c = ((uint64_t)m * P::mod(0) + t[0]) >> 32;  // low limb becomes 0
            CUZK_UNROLL for (int j = 1; j < N; j++) {
                c += (uint64_t)m * P::mod(j) + t[j];
                t[j - 1] = (uint32_t)c;
                c >>= 32;
            }
            c += top;
            t[N - 1] = (uint32_t)c;
            t[N] = (uint32_t)(c >> 32);
        }
        // t < 2p < R, so t[N] is 0 here.
        CUZK_UNROLL for (int i = 0; i < N; i++) r[i] = t[i];
        reduce_once(r);
    }

    // r = a² in Montgomery form, by separated operand scanning: the 2N-limb
    // square w (cross products a_i·a_j, i < j, once each, then doubled, then
    // the squares a_i² added), then N reduction rounds, each adding m·p at
    // limb i so that limb i cancels. a < p < R/2 keeps the cross sum below
    // R²/8 (so doubling it cannot overflow) and w + Σ m·p < R²/4 + R·p < R²;
    // the result (w + Σ m·p)/R < 2p, so one final subtraction suffices.
    CUZK_HD static void sqr_portable(uint32_t (&r)[N], const uint32_t (&a)[N]) {
        uint32_t w[2 * N];
        CUZK_UNROLL for (int i = 0; i < 2 * N; i++) w[i] = 0;
        // Row i adds a_i·a_j (j > i) at limbs 2i+1 … i+N−1 and its carry at
        // limb i+N, which no earlier row reached.
        CUZK_UNROLL for (int i = 0; i < N - 1; i++) {
            uint64_t c = 0;
            CUZK_UNROLL for (int j = i + 1; j < N; j++) {
                c += (uint64_t)a[i] * a[j] + w[i + j];
                w[i + j] = (uint32_t)c;
                c >>= 32;
            }
            w[i + N] = (uint32_t)c;
        }
        // Double (the top bit of w is 0: the cross sum is < R²/2).
        CUZK_UNROLL for (int i = 2 * N - 1; i > 0; i--) w[i] = (w[i] << 1) | (w[i - 1] >> 31);
        w[0] <<= 1;
        // Add the diagonal a_i² at limbs 2i, 2i+1.
        uint64_t c = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) {
            uint64_t sq = (uint64_t)a[i] * a[i];
            c += (uint64_t)w[2 * i] + (uint32_t)sq;
            w[2 * i] = (uint32_t)c;
            c >>= 32;
            c += (uint64_t)w[2 * i + 1] + (uint32_t)(sq >> 32);
            w[2 * i + 1] = (uint32_t)c;
            c >>= 32;
        }
        // Reduction: round i cancels limb i; its carry goes to limb i+N
        // together with the previous round's carry out of that limb.
        uint32_t hi = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) {
            const uint32_t m = w[i] * P::m0;
            uint64_t cc = 0;
            CUZK_UNROLL for (int j = 0; j < N; j++) {
                cc += (uint64_t)m * P::mod(j) + w[i + j];
                w[i + j] = (uint32_t)cc;
                cc >>= 32;
            }
            uint64_t s = (uint64_t)w[i + N] + cc + hi;
            w[i + N] = (uint32_t)s;
            hi = (uint32_t)(s >> 32);
        }
        // (w + Σ m·p)/R < 2p < R: hi is 0 here.
        CUZK_UNROLL for (int i = 0; i < N; i++) r[i] = w[i + N];
        reduce_once(r);
    }

#if CUZK_DEVICE_PATH
    // CIOS with PTX carry chains. Each instruction is its own volatile asm
    // so the compiler keeps the chain's order; the carry flag lives between
    // them. t has N+1 limbs: t + a·b_i + m·p < 2^33·p < 2^(32(N+1)).
    __device__ CUZK_INLINE static void mul_ptx(uint32_t (&r)[N], const uint32_t (&a)[N], const uint32_t (&b)[N]) {
        uint32_t t[N + 1];
        CUZK_UNROLL for (int i = 0; i <= N; i++) t[i] = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) {
            const uint32_t bi = b[i];
            // t += lo(a·b_i) at positions 0..N-1, carry into t[N]
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a[0]), "r"(bi));
            CUZK_UNROLL for (int j = 1; j < N; j++)
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a[j]), "r"(bi));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
            // t += hi(a·b_i) at positions 1..N (no carry out of t[N])
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a[0]), "r"(bi));
            CUZK_UNROLL for (int j = 1; j < N - 1; j++)
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a[j]), "r"(bi));
            asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(a[N - 1]), "r"(bi));
            // m·p cancels the low limb
            const uint32_t m = t[0] * P::m0;
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(m), "r"(P::mod(0)));
            CUZK_UNROLL for (int j = 1; j < N; j++)
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(m), "r"(P::mod(j)));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(m), "r"(P::mod(0)));
            CUZK_UNROLL for (int j = 1; j < N - 1; j++)
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(m), "r"(P::mod(j)));
            asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(m), "r"(P::mod(N - 1)));
            // shift one limb (register renaming once unrolled)
            CUZK_UNROLL for (int j = 0; j < N; j++) t[j] = t[j + 1];
            t[N] = 0;
        }
        CUZK_UNROLL for (int i = 0; i < N; i++) r[i] = t[i];
        reduce_once(r);
    }
#endif

    // ---- conversions and inversion ------------------------------------
    // Canonical limbs → Montgomery: x·R² ·R⁻¹.
    CUZK_HD CUZK_INLINE mont_t to_mont() const { return *this * rr(); }
    // Montgomery → canonical limbs: x·1·R⁻¹.
    CUZK_HD CUZK_INLINE mont_t from_mont() const {
        mont_t one_raw = zero();
        one_raw.v[0] = 1;
        return *this * one_raw;
    }

    // 1/x by the binary extended Euclidean algorithm; 0 maps to 0. Variable
    // time (the operands are public bucket sums). It is ~2·log2(p) halvings
    // and subtractions of N-limb numbers instead of Fermat's ~log2(p)
    // squarings plus products: what matters on the GPU is one thread's
    // latency (the affine MSM rounds wait on one inversion per round, and
    // Fermat's took ≈ 1 ms on the H200). Montgomery form: the integer
    // inverse of xR is x⁻¹R⁻¹, and a product with R³ (= rr·rr) gives x⁻¹R.
    CUZK_HD mont_t inverse() const {
        if (is_zero()) return zero();
        uint32_t u[N], w[N], x1[N], x2[N], p[N];
        CUZK_UNROLL for (int i = 0; i < N; i++) {
            u[i] = v[i];
            p[i] = P::mod(i);
            w[i] = p[i];
            x1[i] = i == 0;
            x2[i] = 0;
        }
        while (!is_one_limbs(u) && !is_one_limbs(w)) {
            while ((u[0] & 1) == 0) {
                shr1(u, 0);
                half_mod(x1, p);
            }
            while ((w[0] & 1) == 0) {
                shr1(w, 0);
                half_mod(x2, p);
            }
            uint32_t t[N];
            if (sub_limbs_v(t, u, w) == 0) {  // u ≥ w
                CUZK_UNROLL for (int i = 0; i < N; i++) u[i] = t[i];
                sub_mod(x1, x2, p);
            } else {
                sub_limbs_v(w, w, u);
                sub_mod(x2, x1, p);
            }
        }
        // Select limb by limb: a conditional reference to x1 or x2 would
        // take their addresses and move them to local memory.
        const bool from_u = is_one_limbs(u);
        mont_t r;
        CUZK_UNROLL for (int i = 0; i < N; i++) r.v[i] = from_u ? x1[i] : x2[i];
        return r * (rr() * rr());
    }

  private:
    CUZK_HD CUZK_INLINE static bool is_one_limbs(const uint32_t (&a)[N]) {
        uint32_t acc = a[0] ^ 1;
        CUZK_UNROLL for (int i = 1; i < N; i++) acc |= a[i];
        return acc == 0;
    }
    // a ← (a >> 1) | top << (32N − 1).
    CUZK_HD CUZK_INLINE static void shr1(uint32_t (&a)[N], uint32_t top) {
        CUZK_UNROLL for (int i = 0; i < N - 1; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 31);
        a[N - 1] = (a[N - 1] >> 1) | (top << 31);
    }
    // a ← a/2 mod p (a < p; a + p < 2^(32N) is not needed: the carry is kept).
    CUZK_HD CUZK_INLINE static void half_mod(uint32_t (&a)[N], const uint32_t (&p)[N]) {
        uint32_t carry = 0;
        if (a[0] & 1) carry = add_limbs(a, a, p);
        shr1(a, carry);
    }
    // a ← a − b mod p (a, b < p).
    CUZK_HD CUZK_INLINE static void sub_mod(uint32_t (&a)[N], const uint32_t (&b)[N], const uint32_t (&p)[N]) {
        if (sub_limbs_v(a, a, b)) add_limbs(a, a, p);
    }
    // r = a + b over N limbs; returns the carry out.
    CUZK_HD CUZK_INLINE static uint32_t add_limbs(uint32_t (&r)[N], const uint32_t (&a)[N], const uint32_t (&b)[N]) {
        uint64_t c = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) {
            c += (uint64_t)a[i] + b[i];
            r[i] = (uint32_t)c;
            c >>= 32;
        }
        return (uint32_t)c;
    }
    // r = a − b over N limbs; returns the borrow (0 or 1).
    CUZK_HD CUZK_INLINE static uint32_t sub_limbs_v(uint32_t (&r)[N], const uint32_t (&a)[N], const uint32_t (&b)[N]) {
        uint32_t borrow = 0;
        CUZK_UNROLL for (int i = 0; i < N; i++) {
            uint64_t d = (uint64_t)a[i] - b[i] - borrow;
            r[i] = (uint32_t)d;
            borrow = (uint32_t)(d >> 63);
        }
        return borrow;
    }
};

}  // namespace cuzk
