// fp12.cuh: BLS12-381's tower Fp6 = Fp2[v]/(v³ − ξ), ξ = u + 1, and
// Fp12 = Fp6[w]/(w² − v), with blst's layout: fp6 {c0, c1, c2} =
// c0 + c1·v + c2·v², fp12 {c0, c1} = c0 + c1·w. Generic over the base
// field's fp2.
//
// Karatsuba at each level (6 Fp2 products per Fp6 product, 3 Fp6
// products per Fp12 product), a 2-product Fp12 squaring, and a sparse
// product for the Miller loop's lines, whose Fp12 form has 3 non-zero
// Fp2 coefficients of 6.
#pragma once

#include "fp2.cuh"

namespace cuzk {

// a·ξ = (a0 − a1) + (a0 + a1)u
template <class F>
CUZK_HD CUZK_INLINE fp2<F> mul_by_xi(const fp2<F> &a) {
    return fp2<F>{a.c0 - a.c1, a.c0 + a.c1};
}

template <class F>
struct fp6 {
    fp2<F> c0, c1, c2;

    CUZK_HD CUZK_INLINE static fp6 zero() { return fp6{fp2<F>::zero(), fp2<F>::zero(), fp2<F>::zero()}; }
    CUZK_HD CUZK_INLINE static fp6 one() { return fp6{fp2<F>::one(), fp2<F>::zero(), fp2<F>::zero()}; }
    CUZK_HD CUZK_INLINE friend fp6 operator+(const fp6 &a, const fp6 &b) {
        return fp6{a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2};
    }
    CUZK_HD CUZK_INLINE friend fp6 operator-(const fp6 &a, const fp6 &b) {
        return fp6{a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2};
    }
    CUZK_HD CUZK_INLINE fp6 operator-() const { return fp6{-c0, -c1, -c2}; }
    // a·v = ξ·a2 + a0·v + a1·v²
    CUZK_HD CUZK_INLINE fp6 mul_by_v() const { return fp6{mul_by_xi(c2), c0, c1}; }

    // Karatsuba over v³ = ξ.
    CUZK_HD friend fp6 operator*(const fp6 &a, const fp6 &b) {
        const fp2<F> t0 = a.c0 * b.c0, t1 = a.c1 * b.c1, t2 = a.c2 * b.c2;
        // v⁰: a0b0 + ξ(a1b2 + a2b1); v¹: a0b1 + a1b0 + ξ a2b2; v²: a0b2 + a1b1 + a2b0
        const fp2<F> s12 = (a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2;
        const fp2<F> s01 = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1;
        const fp2<F> s02 = (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2;
        return fp6{t0 + mul_by_xi(s12), s01 + mul_by_xi(t2), s02 + t1};
    }

    // a·(b0 + b1·v): 5 Fp2 products where the full product takes 6.
    CUZK_HD fp6 mul_by_01(const fp2<F> &b0, const fp2<F> &b1) const {
        const fp2<F> t0 = c0 * b0, t1 = c1 * b1;
        return fp6{t0 + mul_by_xi(c2 * b1), (c0 + c1) * (b0 + b1) - t0 - t1, t1 + c2 * b0};
    }
    // a·(b1·v): 3 Fp2 products.
    CUZK_HD fp6 mul_by_1(const fp2<F> &b1) const { return fp6{mul_by_xi(c2 * b1), c0 * b1, c1 * b1}; }
};

template <class F>
struct fp12 {
    fp6<F> c0, c1;

    CUZK_HD CUZK_INLINE static fp12 one() { return fp12{fp6<F>::one(), fp6<F>::zero()}; }
    // Frobenius p⁶: (c0 + c1 w)^(p⁶) = c0 − c1 w; the inverse of a unitary
    // element, and of any element up to the final exponentiation.
    CUZK_HD CUZK_INLINE fp12 conjugate() const { return fp12{c0, -c1}; }

    // (a0 + a1 w)(b0 + b1 w) = (a0b0 + a1b1·v) + ((a0 + a1)(b0 + b1) − a0b0 − a1b1) w
    CUZK_HD friend fp12 operator*(const fp12 &a, const fp12 &b) {
        const fp6<F> t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
        return fp12{t0 + t1.mul_by_v(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
    }
    // (a0 + a1 w)² = (a0 + a1)(a0 + a1·v) − t − t·v + 2t·w, t = a0·a1:
    // 2 Fp6 products where the generic product takes 3.
    CUZK_HD fp12 sqr() const {
        const fp6<F> t = c0 * c1;
        const fp6<F> s = (c0 + c1) * (c0 + c1.mul_by_v()) - t - t.mul_by_v();
        return fp12{s, t + t};
    }

    // a·((l0 + l1·v) + l4·v·w), the shape of every Miller-loop line
    // (miller.cuh): 13 Fp2 products where the generic product takes 18.
    CUZK_HD fp12 mul_by_line(const fp2<F> &l0, const fp2<F> &l1, const fp2<F> &l4) const {
        const fp6<F> t0 = c0.mul_by_01(l0, l1);
        const fp6<F> t1 = c1.mul_by_1(l4);
        const fp6<F> s = (c0 + c1).mul_by_01(l0, l1 + l4);
        return fp12{t0 + t1.mul_by_v(), s - t0 - t1};
    }
};

}  // namespace cuzk
