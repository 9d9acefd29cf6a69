/*
 * cuzk_spmv.h: the C face of the R1CS SpMV (out = M·z for one recorded
 * matrix), on the device (spmv_kernels.cu, `cuda` feature) and as its host
 * twin (spmv_host.cpp, always built).
 *
 * The matrix is synth's compressed CSR (synth/src/compiled/matrix.rs):
 * u32 row pointers, one u32 column per non-zero (bit 31 set: an input,
 * else an aux variable), one coefficient-table index per non-zero of
 * `idx_width` bytes (1, 2 or 4, little-endian), the table itself (Fr,
 * Montgomery form, blst's layout) and one kind per table entry (below).
 * `out` receives one value per row, then zeros up to `out_len` (the H
 * step's domain padding). The callers check every column against
 * `n_inputs` / `n_aux` once when the matrix is recorded or loaded; these
 * functions trust the columns and check only the sizes they are given.
 * Rust binds this header through bindgen (spmv/src/sys_bindings.rs,
 * `cargo xtask bindgen`).
 */
#ifndef CUZK_SPMV_H
#define CUZK_SPMV_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bit 31 of a column: the variable is an input. */
#define CUZK_SPMV_INPUT_TAG 0x80000000u

/* Kinds of table entries: the product they need. */
#define CUZK_SPMV_KIND_ONE 0
#define CUZK_SPMV_KIND_MINUS_ONE 1
#define CUZK_SPMV_KIND_OTHER 2

/* One matrix; every pointer is in the memory of the function it is passed
 * to (device memory for cuzk_spmv_gpu, host memory for cuzk_spmv_host). */
typedef struct cuzk_spmv_matrix {
    const uint32_t *row_ptr; /* rows + 1 entries */
    const uint32_t *cols;    /* nnz entries */
    const void *idx;         /* nnz entries of idx_width bytes */
    const void *table;       /* table_len Fr */
    const uint8_t *kinds;    /* table_len entries, CUZK_SPMV_KIND_* */
    uint64_t rows;
    uint64_t nnz;
    uint32_t idx_width;
    uint32_t table_len;
} cuzk_spmv_matrix;

/* Device: enqueues out[r] = Σ table[idx[k]]·z[cols[k]] for every row r on
 * `stream`, then out[rows..out_len] = 0. `inputs` (n_inputs Fr) and `aux`
 * (n_aux Fr) are z. */
cuzk_error cuzk_spmv_gpu(const cuzk_spmv_matrix *m, const void *inputs, uint64_t n_inputs, const void *aux,
                         uint64_t n_aux, void *out, uint64_t out_len, cuzk_stream stream);

/* Host twin: the same per-row code over host memory, synchronous;
 * CUZK_ERR_INVALID_ARG for bad sizes or null pointers. */
cuzk_error cuzk_spmv_host(const cuzk_spmv_matrix *m, const void *inputs, uint64_t n_inputs, const void *aux,
                          uint64_t n_aux, void *out, uint64_t out_len);

#ifdef __cplusplus
}
#endif

#endif
