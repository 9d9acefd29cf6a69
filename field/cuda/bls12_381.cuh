// bls12_381.cuh: BLS12-381 field parameters for mont_t, and the types
//   fr_t  : scalar field, 8 × 32-bit limbs (255-bit r)
//   fp_t  : base field, 12 × 32-bit limbs (381-bit p)
//   fp2_t : Fp[u]/(u² + 1)
//   g1_affine_t / g1_xyzz_t over fp_t, g2_affine_t / g2_xyzz_t over fp2_t
//   fp12_t: the pairing's target field (ff/fp12.cuh), and the Miller loop
//           (ec/miller.cuh)
// Byte layouts equal blst's (blst_fr, blst_fp, blst_fp2, blst_fp12,
// blst_p1_affine, blst_p2_affine), Montgomery form, little-endian.
#pragma once

#include "ec/affine.cuh"
#include "ec/miller.cuh"
#include "ec/xyzz.cuh"
#include "ff/fp2.cuh"
#include "ff/mont_t.cuh"

namespace cuzk {

// Limb tables live inside constexpr functions: the same code is then a
// compile-time constant on the host and on the device (no __constant__
// memory, no host/device duplicates), and unrolled loops fold it into
// immediates.
struct bls12_381_fr_params {
    static constexpr int N = 8;
    static constexpr uint32_t m0 = 0xffffffffu;  // −r⁻¹ mod 2³²
    CUZK_HD static constexpr uint32_t mod(int i) {
        constexpr uint32_t t[N] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                   0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return t[i];
    }
    CUZK_HD static constexpr uint32_t one(int i) {  // R mod r
        constexpr uint32_t t[N] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                                   0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
        return t[i];
    }
    CUZK_HD static constexpr uint32_t rr(int i) {  // R² mod r
        constexpr uint32_t t[N] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                                   0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
        return t[i];
    }
};

struct bls12_381_fp_params {
    static constexpr int N = 12;
    static constexpr uint32_t m0 = 0xfffcfffdu;  // −p⁻¹ mod 2³²
    CUZK_HD static constexpr uint32_t mod(int i) {
        constexpr uint32_t t[N] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                                   0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                                   0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return t[i];
    }
    CUZK_HD static constexpr uint32_t one(int i) {  // R mod p
        constexpr uint32_t t[N] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                                   0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                                   0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
        return t[i];
    }
    CUZK_HD static constexpr uint32_t rr(int i) {  // R² mod p
        constexpr uint32_t t[N] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6,
                                   0x4c95b6d5, 0x8de5476c, 0x939d83c0, 0x67eb88a9,
                                   0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
        return t[i];
    }
};

using fr_t = mont_t<bls12_381_fr_params>;
using fp_t = mont_t<bls12_381_fp_params>;
using fp2_t = fp2<fp_t>;

using g1_affine_t = affine_t<fp_t>;
using g1_xyzz_t = xyzz_t<fp_t>;
using g2_affine_t = affine_t<fp2_t>;
using g2_xyzz_t = xyzz_t<fp2_t>;
using fp12_t = fp12<fp_t>;
using miller_point_t = miller_point<fp_t>;

static_assert(sizeof(fr_t) == 32, "fr_t must match blst_fr");
static_assert(sizeof(fp_t) == 48, "fp_t must match blst_fp");
static_assert(sizeof(fp2_t) == 96, "fp2_t must match blst_fp2");
static_assert(sizeof(g1_affine_t) == 96, "g1_affine_t must match blst_p1_affine");
static_assert(sizeof(g2_affine_t) == 192, "g2_affine_t must match blst_p2_affine");
static_assert(sizeof(fp12_t) == 576, "fp12_t must match blst_fp12");
static_assert(sizeof(miller_point_t) == 288, "a Miller point is 3 Fp2 (CUZK_PAIRING_POINT_BYTES)");

}  // namespace cuzk
