// spmv.cuh: one row of out = M·z for synth's compressed CSR matrices
// (cuzk_spmv.h), written once for the device kernel (spmv_kernels.cu) and
// its host twin (spmv_host.cpp).
#pragma once

#include "bls12_381.cuh"
#include "cuzk_spmv.h"

namespace cuzk {
namespace spmv {

// Σ table[idx[k]]·z[cols[k]] over row r. Field addition is exact, so the
// order of terms cannot change the result: this equals synth's CPU SpMV
// (and the classic synthesis) bit for bit. A Filecoin witness is mostly 0
// and 1 and its coefficients mostly ±1, so most terms cost one compare and
// at most one addition; only "other" coefficients times values ≠ 0, 1 take
// a Montgomery product.
template <class I>
CUZK_HD CUZK_INLINE fr_t row_dot(const cuzk_spmv_matrix &m, const fr_t *inputs, const fr_t *aux,
                                 uint64_t r) {
    const I *idx = static_cast<const I *>(m.idx);
    const fr_t *table = static_cast<const fr_t *>(m.table);
    const fr_t one = fr_t::one();
    fr_t acc = fr_t::zero();
    for (uint32_t k = m.row_ptr[r], e = m.row_ptr[r + 1]; k < e; k++) {
        uint32_t c = m.cols[k];
        const fr_t v = (c & CUZK_SPMV_INPUT_TAG) ? inputs[c & ~CUZK_SPMV_INPUT_TAG] : aux[c];
        if (v.is_zero()) continue;
        uint32_t t = idx[k];
        if (v == one) {
            acc += table[t];
            continue;
        }
        switch (m.kinds[t]) {
            case CUZK_SPMV_KIND_ONE:
                acc += v;
                break;
            case CUZK_SPMV_KIND_MINUS_ONE:
                acc -= v;
                break;
            default:
                acc += v * table[t];
        }
    }
    return acc;
}

// out[i] for one i < out_len: row i's value, or the domain padding's zero.
CUZK_HD CUZK_INLINE void out_at(const cuzk_spmv_matrix &m, const fr_t *inputs, const fr_t *aux, fr_t *out,
                                uint64_t i) {
    if (i >= m.rows) {
        out[i] = fr_t::zero();
        return;
    }
    switch (m.idx_width) {
        case 1:
            out[i] = row_dot<uint8_t>(m, inputs, aux, i);
            break;
        case 2:
            out[i] = row_dot<uint16_t>(m, inputs, aux, i);
            break;
        default:
            out[i] = row_dot<uint32_t>(m, inputs, aux, i);
    }
}

// The size checks both entry points make before touching memory.
inline bool valid(const cuzk_spmv_matrix *m, const void *inputs, uint64_t n_inputs, const void *aux,
                  uint64_t n_aux, const void *out, uint64_t out_len) {
    if (!m || !out || out_len < m->rows || !m->row_ptr) return false;
    if (m->idx_width != 1 && m->idx_width != 2 && m->idx_width != 4) return false;
    if (m->nnz > 0 && (!m->cols || !m->idx || !m->table || !m->kinds || m->table_len == 0)) return false;
    if ((n_inputs > 0 && !inputs) || (n_aux > 0 && !aux)) return false;
    // Row pointers are u32: a larger matrix cannot have been recorded.
    return m->nnz <= 0xffffffffull;
}

}  // namespace spmv
}  // namespace cuzk
