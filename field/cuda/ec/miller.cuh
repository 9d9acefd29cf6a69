// miller.cuh: the Miller loop of BLS12-381's optimal ate pairing,
// f_{|x|,Q}(P) for P in G1 and Q in G2 (on the twist E': y² = x³ + 4ξ),
// conjugated for the negative x = −0xd201000000010000. Its value after
// the final exponentiation is e(P, Q); before it, it is defined only up to
// factors the final exponentiation kills, so it is compared with blst's
// after it.
//
// Lines. The M-twist maps (x', y') on E' to (x'/w², y'/w³) on E. A line
// through twist points with twist slope λ', evaluated at P and scaled by
// w³ (which lies in Fp4, killed by the final exponentiation), is
//   (λ'·x'_R − y'_R) + (−λ'·x_P)·v + (y_P)·v·w
// for any point R on it. T runs in Jacobian coordinates (X, Y, Z),
// x' = X/Z², y' = Y/Z³, and each line is scaled by an Fp2 factor (also
// killed) that clears the denominators:
//   tangent at T, times 2YZ³:  (3X³ − 2Y²) + (−3X²Z²·x_P) v + (2YZ·Z²·y_P) vw
//   through T and affine Q, times Z·H (H = x_Q Z² − X, R = y_Q Z³ − Y):
//                             (R·x_Q − y_Q·ZH) + (−R·x_P) v + (ZH·y_P) vw
#pragma once

#include "../ff/fp12.cuh"
#include "affine.cuh"

namespace cuzk {

// |x| for BLS12-381
constexpr uint64_t kAteLoop = 0xd201000000010000ull;

template <class F>
struct miller_point {
    fp2<F> X, Y, Z;
};

// A scaled line of the table above: c + cv·v + cvw·v·w, an Fp12 element
// with 3 of its 6 Fp2 coefficients non-zero (fp12::mul_by_line).
template <class F>
struct miller_line {
    fp2<F> c, cv, cvw;
};

// T ← 2T; returns the tangent line at the old T evaluated at P.
template <class F>
CUZK_HD miller_line<F> line_dbl(miller_point<F> &T, const affine_t<F> &P) {
    const fp2<F> A = T.X.sqr(), B = T.Y.sqr(), C = B.sqr(), ZZ = T.Z.sqr();
    const fp2<F> D = ((T.X + B).sqr() - A - C).dbl();
    const fp2<F> E = A.dbl() + A;
    // line: (E·X − 2B) + (−E·ZZ·x_P) v + (2YZ·ZZ·y_P) vw
    const fp2<F> c = E * T.X - B.dbl();
    const fp2<F> cv = -(E * ZZ).mul_base(P.x);
    const fp2<F> Z3 = (T.Y * T.Z).dbl();
    const fp2<F> cvw = (Z3 * ZZ).mul_base(P.y);
    const fp2<F> X3 = E.sqr() - D.dbl();
    const fp2<F> C8 = C.dbl().dbl().dbl();
    T.Y = E * (D - X3) - C8;
    T.X = X3;
    T.Z = Z3;
    return miller_line<F>{c, cv, cvw};
}

// T ← T + Q (Q affine, T ≠ ±Q); returns the line through them at P.
template <class F>
CUZK_HD miller_line<F> line_add(miller_point<F> &T, const affine_t<fp2<F>> &Q, const affine_t<F> &P) {
    const fp2<F> ZZ = T.Z.sqr();
    const fp2<F> H = Q.x * ZZ - T.X;
    const fp2<F> R = Q.y * ZZ * T.Z - T.Y;
    const fp2<F> Z3 = T.Z * H;
    const fp2<F> c = R * Q.x - Q.y * Z3;
    const fp2<F> cv = -R.mul_base(P.x);
    const fp2<F> cvw = Z3.mul_base(P.y);
    const fp2<F> HH = H.sqr(), HHH = H * HH, V = T.X * HH;
    const fp2<F> X3 = R.sqr() - HHH - V.dbl();
    T.Y = R * (V - X3) - T.Y * HHH;
    T.X = X3;
    T.Z = Z3;
    return miller_line<F>{c, cv, cvw};
}

// Π f_{|x|,Qᵢ}(Pᵢ), conjugated: the pairs share each step's squaring.
// Pairs with a point at infinity contribute 1 and are skipped. `T` is
// scratch for n points.
template <class F>
CUZK_HD fp12<F> miller_loop_n(const affine_t<F> *P, const affine_t<fp2<F>> *Q, size_t n, miller_point<F> *T) {
    for (size_t i = 0; i < n; i++) T[i] = miller_point<F>{Q[i].x, Q[i].y, fp2<F>::one()};
    fp12<F> f = fp12<F>::one();
    for (int bit = 62; bit >= 0; bit--) {
        f = f.sqr();
        for (size_t i = 0; i < n; i++) {
            if (P[i].is_inf() | Q[i].is_inf()) continue;
            const miller_line<F> l = line_dbl(T[i], P[i]);
            f = f.mul_by_line(l.c, l.cv, l.cvw);
        }
        if ((kAteLoop >> bit) & 1) {
            for (size_t i = 0; i < n; i++) {
                if (P[i].is_inf() | Q[i].is_inf()) continue;
                const miller_line<F> l = line_add(T[i], Q[i], P[i]);
                f = f.mul_by_line(l.c, l.cv, l.cvw);
            }
        }
    }
    return f.conjugate();
}

}  // namespace cuzk
