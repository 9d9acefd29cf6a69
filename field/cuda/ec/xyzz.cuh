// xyzz.cuh: extended Jacobian "XYZZ" points for a = 0 short Weierstrass
// curves: (X, Y, ZZ, ZZZ) represents (X/ZZ, Y/ZZZ) with ZZ³ = ZZZ²;
// infinity is ZZ = 0. Formulas: EFD add-2008-s (general add, 12M + 2S),
// madd-2008-s (mixed add with an affine point, 8M + 2S), dbl-2008-s-1
// (double, 6M + 3S) and mdbl-2008-s-1 (double of an affine point).
// Every exceptional case (either input infinite, P + P, P + (−P)) is
// handled here, so bucket code can add blindly.
#pragma once

#include "affine.cuh"

namespace cuzk {

template <class F>
struct xyzz_t {
    F X, Y, ZZ, ZZZ;

    CUZK_HD CUZK_INLINE static xyzz_t inf() { return xyzz_t{F::zero(), F::zero(), F::zero(), F::zero()}; }
    CUZK_HD CUZK_INLINE bool is_inf() const { return ZZ.is_zero(); }

    CUZK_HD CUZK_INLINE static xyzz_t from_affine(const affine_t<F> &p) {
        if (p.is_inf()) return inf();
        return xyzz_t{p.x, p.y, F::one(), F::one()};
    }
    // The same point with scale λ ≠ 0: (x·λ², y·λ³, λ², λ³). Tests use it to
    // reach general ZZ/ZZZ; bucket code never needs it.
    CUZK_HD static xyzz_t from_affine_scaled(const affine_t<F> &p, const F &lambda) {
        if (p.is_inf()) return inf();
        F l2 = lambda.sqr();
        F l3 = l2 * lambda;
        return xyzz_t{p.x * l2, p.y * l3, l2, l3};
    }

    CUZK_HD CUZK_INLINE xyzz_t operator-() const { return xyzz_t{X, -Y, ZZ, ZZZ}; }

    // 2·P (dbl-2008-s-1 with a = 0). Infinity doubles to infinity (ZZ stays 0).
    CUZK_HD xyzz_t dbl() const {
        F U = Y.dbl();
        F V = U.sqr();
        F W = U * V;
        F S = X * V;
        F M = X.sqr();
        M = M + M.dbl();  // 3X²
        xyzz_t r;
        r.X = M.sqr() - S.dbl();
        r.Y = M * (S - r.X) - W * Y;
        r.ZZ = V * ZZ;
        r.ZZZ = W * ZZZ;
        return r;
    }

    // 2·Q for affine Q (mdbl-2008-s-1).
    CUZK_HD static xyzz_t dbl_affine(const affine_t<F> &q) {
        if (q.is_inf()) return inf();
        F U = q.y.dbl();
        F V = U.sqr();
        F W = U * V;
        F S = q.x * V;
        F M = q.x.sqr();
        M = M + M.dbl();
        xyzz_t r;
        r.X = M.sqr() - S.dbl();
        r.Y = M * (S - r.X) - W * q.y;
        r.ZZ = V;
        r.ZZZ = W;
        return r;
    }

    // P + Q for affine Q (madd-2008-s).
    CUZK_HD xyzz_t add(const affine_t<F> &q) const {
        if (q.is_inf()) return *this;
        if (is_inf()) return from_affine(q);
        F U2 = q.x * ZZ;
        F S2 = q.y * ZZZ;
        F P = U2 - X;
        F R = S2 - Y;
        if (P.is_zero()) {
            // same x: either the same point (double) or opposite (infinity)
            return R.is_zero() ? dbl_affine(q) : inf();
        }
        F PP = P.sqr();
        F PPP = P * PP;
        F Q = X * PP;
        xyzz_t r;
        r.X = R.sqr() - PPP - Q.dbl();
        r.Y = R * (Q - r.X) - Y * PPP;
        r.ZZ = ZZ * PP;
        r.ZZZ = ZZZ * PPP;
        return r;
    }

    // P + Q, both XYZZ (add-2008-s).
    CUZK_HD xyzz_t add(const xyzz_t &q) const {
        if (q.is_inf()) return *this;
        if (is_inf()) return q;
        F U1 = X * q.ZZ;
        F U2 = q.X * ZZ;
        F S1 = Y * q.ZZZ;
        F S2 = q.Y * ZZZ;
        F P = U2 - U1;
        F R = S2 - S1;
        if (P.is_zero()) return R.is_zero() ? dbl() : inf();
        F PP = P.sqr();
        F PPP = P * PP;
        F Q = U1 * PP;
        xyzz_t r;
        r.X = R.sqr() - PPP - Q.dbl();
        r.Y = R * (Q - r.X) - S1 * PPP;
        r.ZZ = ZZ * q.ZZ * PP;
        r.ZZZ = ZZZ * q.ZZZ * PPP;
        return r;
    }

    // Back to affine with one inversion: 1/(ZZ·ZZZ) gives both 1/ZZ and 1/ZZZ.
    CUZK_HD affine_t<F> to_affine() const {
        if (is_inf()) return affine_t<F>::inf();
        F inv = (ZZ * ZZZ).inverse();
        return affine_t<F>{X * (inv * ZZZ), Y * (inv * ZZ)};
    }
};

}  // namespace cuzk
