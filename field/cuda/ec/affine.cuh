// affine.cuh: affine points (x, y) of y² = x³ + b over a field F.
// The point at infinity is (0, 0), as in blst (not on the curve since b ≠ 0).
#pragma once

#include "../ff/common.cuh"

namespace cuzk {

template <class F>
struct affine_t {
    F x, y;

    CUZK_HD CUZK_INLINE static affine_t inf() { return affine_t{F::zero(), F::zero()}; }
    CUZK_HD CUZK_INLINE bool is_inf() const { return x.is_zero() & y.is_zero(); }
    CUZK_HD CUZK_INLINE affine_t operator-() const {
        return affine_t{x, -y};  // −(0,0) stays (0,0)
    }
    CUZK_HD CUZK_INLINE friend bool operator==(const affine_t &a, const affine_t &b) {
        return (a.x == b.x) & (a.y == b.y);
    }
};

}  // namespace cuzk
