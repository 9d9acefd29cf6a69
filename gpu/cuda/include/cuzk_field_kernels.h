/*
 * cuzk_field_kernels.h: differential-test and benchmark entry points for
 * the BLS12-381 CUDA headers in field/cuda.
 *
 * The same templates are instantiated twice:
 *  - host/field_host.cpp, compiled as plain C++ (always built; CPU tests
 *    compare it with blst): cuzk_ft_* functions, arrays in host memory;
 *  - field_kernels.cu, compiled by nvcc (`cuda` feature): cuzk_fk_*
 *    functions, arrays in device memory, asynchronous on `stream`.
 * Elements are in Montgomery form with blst's byte layout. Point inputs are
 * affine (blst_p1_affine / blst_p2_affine); point outputs are XYZZ
 * (X, Y, ZZ, ZZZ), each coordinate one field element.
 */
#ifndef CUZK_FIELD_KERNELS_H
#define CUZK_FIELD_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fields */
#define CUZK_FT_FR 0
#define CUZK_FT_FP 1
#define CUZK_FT_FP2 2

/* field operations: out[i] = op(a[i], b[i]) (unary ops ignore b) */
#define CUZK_FT_ADD 0
#define CUZK_FT_SUB 1
#define CUZK_FT_MUL 2
#define CUZK_FT_SQR 3
#define CUZK_FT_NEG 4
#define CUZK_FT_DBL 5
#define CUZK_FT_INV 6
#define CUZK_FT_TO_MONT 7
#define CUZK_FT_FROM_MONT 8
/* multiplication through the portable C++ twin even on the device (the
 * PTX carry-chain version is CUZK_FT_MUL); prime fields only */
#define CUZK_FT_MUL_PORTABLE 9

/* curves */
#define CUZK_FT_G1 0
#define CUZK_FT_G2 1

/*
 * curve operations. A = a[i] scaled by la[i] (X = x·λ², Y = y·λ³, ZZ = λ²,
 * ZZZ = λ³; la[i] must be non-zero), B likewise with lb[i]:
 *   P_ADD:    A + B (XYZZ + XYZZ)
 *   P_MADD:   A + b[i] (mixed, affine b)
 *   P_DBL:    2·A
 *   P_NEG:    −A
 *   P_AFFINE: (A + B) converted to affine, written as (x, y, 1, 1), or all
 *             zero for infinity
 */
#define CUZK_FT_P_ADD 0
#define CUZK_FT_P_MADD 1
#define CUZK_FT_P_DBL 2
#define CUZK_FT_P_NEG 3
#define CUZK_FT_P_AFFINE 4

/* Host twins, synchronous on host memory. CUZK_ERR_INVALID_ARG for an
 * unknown field/op or a null pointer. */
cuzk_error cuzk_ft_field_host(int32_t field, int32_t op, const void *a, const void *b, void *out, size_t n);
cuzk_error cuzk_ft_curve_host(int32_t curve, int32_t op, const void *a, const void *b, const void *la,
                              const void *lb, void *out, size_t n);
/* *portable = 1 when the host pass takes the portable multiplier (always, on the host). */
cuzk_error cuzk_ft_host_is_portable(int32_t *portable);

/* Device versions: all pointers are device memory. */
cuzk_error cuzk_fk_field(int32_t field, int32_t op, const void *a, const void *b, void *out, size_t n,
                         cuzk_stream stream);
cuzk_error cuzk_fk_curve(int32_t curve, int32_t op, const void *a, const void *b, const void *la,
                         const void *lb, void *out, size_t n, cuzk_stream stream);

/*
 * Throughput kernel: each of n threads loads x = data[i], y = x + 1,
 * runs `iters` dependent steps x = x·y (op MUL; MUL_PORTABLE for the
 * portable twin) or x = x² (op SQR), and
 * stores x back to data[i]. Work: n·iters multiplications.
 */
cuzk_error cuzk_fk_bench(int32_t field, int32_t op, void *data, size_t n, int32_t iters, cuzk_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_FIELD_KERNELS_H */
