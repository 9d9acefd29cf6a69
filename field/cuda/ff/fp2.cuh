// fp2.cuh: the quadratic extension F[u]/(u² + 1) over a mont_t field
// (BLS12-381's Fp2). Layout {c0, c1} = c0 + c1·u, as blst_fp2.
#pragma once

#include "common.cuh"

namespace cuzk {

template <class F>
struct fp2 {
    F c0, c1;

    CUZK_HD CUZK_INLINE static fp2 zero() { return fp2{F::zero(), F::zero()}; }
    CUZK_HD CUZK_INLINE static fp2 one() { return fp2{F::one(), F::zero()}; }
    CUZK_HD CUZK_INLINE bool is_zero() const { return c0.is_zero() & c1.is_zero(); }
    CUZK_HD CUZK_INLINE friend bool operator==(const fp2 &a, const fp2 &b) {
        return (a.c0 == b.c0) & (a.c1 == b.c1);
    }
    CUZK_HD CUZK_INLINE friend bool operator!=(const fp2 &a, const fp2 &b) { return !(a == b); }

    CUZK_HD CUZK_INLINE friend fp2 operator+(const fp2 &a, const fp2 &b) { return fp2{a.c0 + b.c0, a.c1 + b.c1}; }
    CUZK_HD CUZK_INLINE friend fp2 operator-(const fp2 &a, const fp2 &b) { return fp2{a.c0 - b.c0, a.c1 - b.c1}; }
    CUZK_HD CUZK_INLINE fp2 operator-() const { return fp2{-c0, -c1}; }
    CUZK_HD CUZK_INLINE fp2 dbl() const { return fp2{c0.dbl(), c1.dbl()}; }
    CUZK_HD CUZK_INLINE fp2 &operator+=(const fp2 &b) { return *this = *this + b; }
    CUZK_HD CUZK_INLINE fp2 &operator-=(const fp2 &b) { return *this = *this - b; }

    // Karatsuba: 3 base multiplications.
    // (a0 + a1 u)(b0 + b1 u) = (a0b0 − a1b1) + ((a0+a1)(b0+b1) − a0b0 − a1b1) u
    CUZK_HD CUZK_INLINE friend fp2 operator*(const fp2 &a, const fp2 &b) {
        F t0 = a.c0 * b.c0;
        F t1 = a.c1 * b.c1;
        F s = (a.c0 + a.c1) * (b.c0 + b.c1);
        return fp2{t0 - t1, s - t0 - t1};
    }
    CUZK_HD CUZK_INLINE fp2 &operator*=(const fp2 &b) { return *this = *this * b; }
    // (a0 + a1 u)² = (a0 + a1)(a0 − a1) + 2 a0 a1 u: 2 multiplications.
    CUZK_HD CUZK_INLINE fp2 sqr() const {
        F t = c0 * c1;
        return fp2{(c0 + c1) * (c0 - c1), t.dbl()};
    }
    CUZK_HD CUZK_INLINE fp2 conjugate() const { return fp2{c0, -c1}; }
    // Multiplication by a base-field element.
    CUZK_HD CUZK_INLINE fp2 mul_base(const F &s) const { return fp2{c0 * s, c1 * s}; }
    // 1/(a0 + a1 u) = (a0 − a1 u)/(a0² + a1²); 0 maps to 0.
    CUZK_HD fp2 inverse() const {
        F n = c0.sqr() + c1.sqr();
        F ni = n.inverse();
        return fp2{c0 * ni, -(c1 * ni)};
    }
};

}  // namespace cuzk
