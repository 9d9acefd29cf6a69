//! One compressed R1CS matrix in CSR form, and the CPU SpMV over it.
//!
//! Per non-zero we store a `u32` column and an index into a small
//! per-matrix coefficient table (`u8` while the table has ≤ 256 entries,
//! else `u16`, else `u32`). Filecoin circuits use a handful of distinct
//! coefficients (±1, ±2^k, a few constants), so a non-zero costs 5 bytes
//! instead of 36 (u32 column + 32-byte value).
//!
//! Columns are tagged rather than numbered over `(inputs, aux)`: inputs and
//! aux variables interleave during synthesis, so the final input count is
//! unknown while recording. An input column has bit 31 set; an aux column
//! is the aux index. The SpMV branch on that bit is the same branch a
//! `col < num_inputs` test would be, and no renumbering pass is needed.

use cuzk_field::{repr::fr_to_mont, Field, Fr};
use rayon::prelude::*;
use std::collections::HashMap;

use super::hash::Mixer;
use crate::prover::{is_one, is_zero};

/// Bit 31 of a stored column marks an input; the rest is the index.
pub const INPUT_TAG: u32 = 1 << 31;

/// Rows per rayon task in the SpMV: large enough that scheduling is noise,
/// small enough that a 2^27-row matrix splits into thousands of tasks.
const ROWS_PER_TASK: usize = 4096;

/// Coefficient-table indices, one per non-zero, as narrow as the table
/// allows. Widened in place while recording (at most twice).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoeffIndices {
    /// Table of ≤ 256 entries.
    U8(Vec<u8>),
    /// Table of ≤ 65 536 entries.
    U16(Vec<u16>),
    /// Anything larger.
    U32(Vec<u32>),
}

impl CoeffIndices {
    fn push(&mut self, i: u32) {
        // Widen first when `i` no longer fits; values already stored keep
        // their meaning.
        if i > u32::from(u16::MAX) {
            if let Self::U8(v) = self {
                *self = Self::U16(v.iter().map(|&x| u16::from(x)).collect());
            }
            if let Self::U16(v) = self {
                *self = Self::U32(v.iter().map(|&x| u32::from(x)).collect());
            }
        } else if i > u32::from(u8::MAX) {
            if let Self::U8(v) = self {
                *self = Self::U16(v.iter().map(|&x| u16::from(x)).collect());
            }
        }
        match self {
            // Fits: checked above.
            Self::U8(v) => v.push(i as u8),
            Self::U16(v) => v.push(i as u16),
            Self::U32(v) => v.push(i),
        }
    }

    /// The indices as little-endian bytes, `width()` bytes each (what a
    /// device copy of the matrix uploads).
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Self::U8(v) => v,
            Self::U16(v) => bytemuck::cast_slice(v),
            Self::U32(v) => bytemuck::cast_slice(v),
        }
    }

    /// Bytes per stored index.
    pub fn width(&self) -> usize {
        match self {
            Self::U8(_) => 1,
            Self::U16(_) => 2,
            Self::U32(_) => 4,
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Self::U8(v) => v.len(),
            Self::U16(v) => v.len(),
            Self::U32(v) => v.len(),
        }
    }

    fn mix_into(&self, m: &mut Mixer) {
        match self {
            Self::U8(v) => m.words(v.iter().map(|&x| u64::from(x))),
            Self::U16(v) => m.words(v.iter().map(|&x| u64::from(x))),
            Self::U32(v) => m.words(v.iter().map(|&x| u64::from(x))),
        }
    }
}

/// A table index of any width, so the SpMV loop is monomorphized per width
/// instead of matching per non-zero.
trait Narrow: Copy + Send + Sync {
    fn idx(self) -> usize;
}
impl Narrow for u8 {
    fn idx(self) -> usize {
        usize::from(self)
    }
}
impl Narrow for u16 {
    fn idx(self) -> usize {
        usize::from(self)
    }
}
impl Narrow for u32 {
    fn idx(self) -> usize {
        self as usize
    }
}

/// What multiplying by a table entry costs: ±1 need no product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    One,
    MinusOne,
    Other,
}

/// A sparse matrix in compressed CSR form (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct SparseMatrix {
    /// `row_ptr[r]..row_ptr[r + 1]` are row `r`'s non-zeros.
    pub(super) row_ptr: Vec<u32>,
    /// Tagged column per non-zero (bit 31: input).
    pub(super) cols: Vec<u32>,
    /// Coefficient-table index per non-zero.
    pub(super) coeff_idx: CoeffIndices,
    /// Distinct non-zero coefficients, in order of first appearance.
    pub(super) table: Vec<Fr>,
}

/// Byte counts of one matrix, compressed and as plain CSR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatrixSize {
    /// Rows.
    pub rows: usize,
    /// Non-zero entries.
    pub nonzeros: usize,
    /// Distinct coefficients (table entries).
    pub table_len: usize,
    /// Bytes per coefficient index (1, 2 or 4).
    pub index_width: usize,
    /// Bytes as stored: u32 row pointers, u32 columns, narrow indices, table.
    pub compressed_bytes: usize,
    /// Bytes as uncompressed CSR: u32 row pointers, u32 column + 32-byte
    /// value per non-zero (curio's PCE layout).
    pub uncompressed_bytes: usize,
    /// What-if, not stored: columns as LEB128 varints of the delta to the
    /// previous column of the row (first column of a row: from 0), tags
    /// folded in. The measurement that picks the next column encoding.
    pub varint_delta_col_bytes: usize,
}

impl SparseMatrix {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// Number of non-zeros.
    pub fn nonzeros(&self) -> usize {
        self.cols.len()
    }

    /// Row pointers: row `r`'s non-zeros are `row_ptr[r]..row_ptr[r + 1]`
    /// (checked on record and load: start at 0, never decrease, end at the
    /// non-zero count).
    pub fn row_ptr(&self) -> &[u32] {
        &self.row_ptr
    }

    /// Tagged column per non-zero ([`INPUT_TAG`] marks an input).
    pub fn cols(&self) -> &[u32] {
        &self.cols
    }

    /// Coefficient-table index per non-zero (every one below the table's
    /// length).
    pub fn coeff_idx(&self) -> &CoeffIndices {
        &self.coeff_idx
    }

    /// The distinct non-zero coefficients.
    pub fn table(&self) -> &[Fr] {
        &self.table
    }

    /// The sizes (see [`MatrixSize`]).
    pub fn size(&self) -> MatrixSize {
        let nnz = self.nonzeros();
        let ptr = 4 * self.row_ptr.len();
        let varint = |x: u64| (64 - x.max(1).leading_zeros() as usize).div_ceil(7);
        let varint_delta_col_bytes = self
            .row_ptr
            .windows(2)
            .map(|w| {
                let row = &self.cols[w[0] as usize..w[1] as usize];
                let mut prev = 0u64;
                row.iter()
                    .map(|&c| {
                        // Inputs come first in a row, then aux; map inputs
                        // below aux so the deltas stay non-negative.
                        let key = if c & INPUT_TAG != 0 {
                            u64::from(c & !INPUT_TAG)
                        } else {
                            u64::from(c) + (1 << 31)
                        };
                        let d = key.saturating_sub(prev);
                        prev = key;
                        varint(d)
                    })
                    .sum::<usize>()
            })
            .sum();
        MatrixSize {
            rows: self.rows(),
            nonzeros: nnz,
            table_len: self.table.len(),
            index_width: self.coeff_idx.width(),
            compressed_bytes: ptr
                + 4 * nnz
                + self.coeff_idx.width() * nnz
                + std::mem::size_of::<Fr>() * self.table.len(),
            uncompressed_bytes: ptr + (4 + std::mem::size_of::<Fr>()) * nnz,
            varint_delta_col_bytes,
        }
    }

    /// Folds the whole structure into `m` (row pointers, columns, indices,
    /// table), for the recorded-structure hash.
    pub(crate) fn mix_into(&self, m: &mut Mixer) {
        m.word(self.row_ptr.len() as u64);
        m.words(self.row_ptr.iter().map(|&x| u64::from(x)));
        m.word(self.cols.len() as u64);
        m.words(self.cols.iter().map(|&x| u64::from(x)));
        m.word(self.coeff_idx.len() as u64);
        self.coeff_idx.mix_into(m);
        m.word(self.table.len() as u64);
        m.words(self.table.iter().flat_map(fr_to_mont));
    }

    /// Row pointers start at 0, never decrease and end at the non-zero
    /// count; every coefficient index is in the table. (A loaded matrix
    /// is checked with this before any SpMV reads it.)
    pub(super) fn check_layout(&self) -> Result<(), String> {
        let nnz = self.cols.len();
        if self.coeff_idx.len() != nnz {
            return Err(format!(
                "{} indices for {nnz} non-zeros",
                self.coeff_idx.len()
            ));
        }
        if self.row_ptr.first() != Some(&0) || self.row_ptr.last().map(|&x| x as usize) != Some(nnz)
        {
            return Err("row pointers do not span the non-zeros".into());
        }
        if self.row_ptr.windows(2).any(|w| w[0] > w[1]) {
            return Err("row pointers decrease".into());
        }
        let t = self.table.len();
        let max = match &self.coeff_idx {
            CoeffIndices::U8(v) => v.par_iter().map(|&x| x as usize).max(),
            CoeffIndices::U16(v) => v.par_iter().map(|&x| x as usize).max(),
            CoeffIndices::U32(v) => v.par_iter().map(|&x| x as usize).max(),
        };
        if max.is_some_and(|m| m >= t) {
            return Err(format!("coefficient index beyond the table of {t}"));
        }
        if self.table.iter().any(is_zero) {
            return Err("zero coefficient in the table".into());
        }
        Ok(())
    }

    /// Every column addresses an input below `num_inputs` or an aux
    /// variable below `num_aux`.
    pub(super) fn check_columns(&self, num_inputs: usize, num_aux: usize) -> Result<(), String> {
        let bad = self.cols.par_iter().any(|&c| {
            if c & INPUT_TAG != 0 {
                (c & !INPUT_TAG) as usize >= num_inputs
            } else {
                c as usize >= num_aux
            }
        });
        if bad {
            return Err(format!(
                "a column outside {num_inputs} inputs and {num_aux} aux variables"
            ));
        }
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn corrupt_for_test(&mut self) {
        if let Some(c) = self.cols.first_mut() {
            *c ^= 1;
        }
    }

    /// How multiplying by each table entry is done.
    pub(super) fn kinds(&self) -> Vec<Kind> {
        self.table
            .iter()
            .map(|c| {
                if is_one(c) {
                    Kind::One
                } else if is_one(&-*c) {
                    Kind::MinusOne
                } else {
                    Kind::Other
                }
            })
            .collect()
    }

    /// Row `r`'s value `Σ coeff · z[col]` (`kinds` from [`Self::kinds`]).
    pub(super) fn row_value(&self, r: usize, kinds: &[Kind], inputs: &[Fr], aux: &[Fr]) -> Fr {
        let (s, e) = (self.row_ptr[r] as usize, self.row_ptr[r + 1] as usize);
        let cols = &self.cols[s..e];
        match &self.coeff_idx {
            CoeffIndices::U8(i) => row_dot(cols, &i[s..e], kinds, &self.table, inputs, aux),
            CoeffIndices::U16(i) => row_dot(cols, &i[s..e], kinds, &self.table, inputs, aux),
            CoeffIndices::U32(i) => row_dot(cols, &i[s..e], kinds, &self.table, inputs, aux),
        }
    }

    /// `out[r] = Σ coeff · z[col]` over row `r`, for `z = (inputs, aux)`.
    /// `out` is resized to the row count (its capacity is reused).
    ///
    /// The caller has checked that every column is in range (the shape
    /// check); an out-of-range column panics, never reads wrong data.
    pub fn spmv_into(&self, inputs: &[Fr], aux: &[Fr], out: &mut Vec<Fr>) {
        out.clear();
        out.resize(self.rows(), Fr::ZERO);
        let kinds = self.kinds();
        match &self.coeff_idx {
            CoeffIndices::U8(idx) => self.spmv_with(idx, &kinds, inputs, aux, out),
            CoeffIndices::U16(idx) => self.spmv_with(idx, &kinds, inputs, aux, out),
            CoeffIndices::U32(idx) => self.spmv_with(idx, &kinds, inputs, aux, out),
        }
    }

    fn spmv_with<I: Narrow>(
        &self,
        idx: &[I],
        kinds: &[Kind],
        inputs: &[Fr],
        aux: &[Fr],
        out: &mut [Fr],
    ) {
        out.par_chunks_mut(ROWS_PER_TASK)
            .enumerate()
            .for_each(|(task, chunk)| {
                let first = task * ROWS_PER_TASK;
                for (k, dst) in chunk.iter_mut().enumerate() {
                    let r = first + k;
                    let (s, e) = (self.row_ptr[r] as usize, self.row_ptr[r + 1] as usize);
                    *dst = row_dot(
                        &self.cols[s..e],
                        &idx[s..e],
                        kinds,
                        &self.table,
                        inputs,
                        aux,
                    );
                }
            });
    }
}

/// Columns per band of [`SparseMatrix::mul_transposed`] at least: a
/// narrower band would cost a full scan of the non-zeros for little work.
const MIN_BAND: usize = 1 << 12;

impl SparseMatrix {
    /// `y = Mᵀ·x` over the unified column numbering (inputs first, then
    /// aux): `y[j] = Σ_r M[r][j]·x[r]`, `num_inputs + num_aux` entries.
    /// The key generator's use: with `x` the Lagrange basis at τ, `y[j]` is
    /// variable `j`'s polynomial at τ. `x` may be longer than the row count
    /// (the domain pads the rows); the extra entries are not read.
    ///
    /// Each thread owns a band of columns and scans every non-zero, so no
    /// two threads add into one sum: the scan is a 4-byte read per
    /// non-zero per band, the product work is shared. Field addition is
    /// exact, so the result equals a column-wise evaluation bit for bit.
    ///
    /// A column outside the counts panics (a record's columns are checked
    /// on record and load); `x` shorter than the row count panics.
    pub fn mul_transposed(&self, x: &[Fr], num_inputs: usize, num_aux: usize) -> Vec<Fr> {
        assert!(
            x.len() >= self.rows(),
            "{} values for {} rows",
            x.len(),
            self.rows()
        );
        let n = num_inputs + num_aux;
        let mut y = vec![Fr::ZERO; n];
        let bands = rayon::current_num_threads().max(1);
        let width = n.div_ceil(bands).max(MIN_BAND);
        let kinds = self.kinds();
        match &self.coeff_idx {
            CoeffIndices::U8(i) => self.mul_t_with(i, &kinds, x, num_inputs, width, &mut y),
            CoeffIndices::U16(i) => self.mul_t_with(i, &kinds, x, num_inputs, width, &mut y),
            CoeffIndices::U32(i) => self.mul_t_with(i, &kinds, x, num_inputs, width, &mut y),
        }
        y
    }

    fn mul_t_with<I: Narrow>(
        &self,
        idx: &[I],
        kinds: &[Kind],
        x: &[Fr],
        num_inputs: usize,
        width: usize,
        y: &mut [Fr],
    ) {
        let n = y.len();
        y.par_chunks_mut(width).enumerate().for_each(|(b, band)| {
            let lo = b * width;
            for (r, w) in self.row_ptr.windows(2).enumerate() {
                let xr = &x[r];
                if is_zero(xr) {
                    continue;
                }
                let (s, e) = (w[0] as usize, w[1] as usize);
                for (&c, &t) in self.cols[s..e].iter().zip(&idx[s..e]) {
                    let j = if c & INPUT_TAG != 0 {
                        (c & !INPUT_TAG) as usize
                    } else {
                        num_inputs + c as usize
                    };
                    assert!(j < n, "column {c:#x} beyond {n} variables");
                    let Some(acc) = j.checked_sub(lo).and_then(|k| band.get_mut(k)) else {
                        continue;
                    };
                    let t = t.idx();
                    match kinds[t] {
                        Kind::One => *acc += xr,
                        Kind::MinusOne => *acc -= xr,
                        Kind::Other => *acc += *xr * self.table[t],
                    }
                }
            }
        });
    }
}

/// One row's dot product. Field addition is exact, so the order of terms
/// does not change the result: this equals the classic per-constraint
/// evaluation bit for bit. Values 0 and 1 (most of a Filecoin witness) and
/// coefficients ±1 take branches without a Montgomery product.
#[inline(always)]
fn row_dot<I: Narrow>(
    cols: &[u32],
    idx: &[I],
    kinds: &[Kind],
    table: &[Fr],
    inputs: &[Fr],
    aux: &[Fr],
) -> Fr {
    let mut acc = Fr::ZERO;
    for (&c, &t) in cols.iter().zip(idx) {
        let v = if c & INPUT_TAG != 0 {
            &inputs[(c & !INPUT_TAG) as usize]
        } else {
            &aux[c as usize]
        };
        if is_zero(v) {
            continue;
        }
        let t = t.idx();
        if is_one(v) {
            acc += table[t];
            continue;
        }
        match kinds[t] {
            Kind::One => acc += v,
            Kind::MinusOne => acc -= v,
            Kind::Other => acc += *v * table[t],
        }
    }
    acc
}

/// Builds a [`SparseMatrix`] row by row while the circuit is recorded.
#[derive(Debug)]
pub(crate) struct MatrixBuilder {
    row_ptr: Vec<u32>,
    cols: Vec<u32>,
    coeff_idx: CoeffIndices,
    table: Vec<Fr>,
    lookup: HashMap<[u64; 4], u32>,
    /// More than `u32::MAX` non-zeros: the row pointers cannot hold them.
    pub(crate) overflow: bool,
}

impl MatrixBuilder {
    pub(crate) fn new() -> Self {
        Self {
            row_ptr: vec![0],
            cols: Vec::new(),
            coeff_idx: CoeffIndices::U8(Vec::new()),
            table: Vec::new(),
            lookup: HashMap::new(),
            overflow: false,
        }
    }

    /// Appends a non-zero to the current row. `coeff` must not be zero.
    #[inline]
    pub(crate) fn push(&mut self, col: u32, coeff: &Fr) {
        let t = self.intern(coeff);
        self.cols.push(col);
        self.coeff_idx.push(t);
    }

    /// `coeff`'s index in the table, added at the end if new.
    #[inline]
    fn intern(&mut self, coeff: &Fr) -> u32 {
        let next = self.table.len() as u32;
        *self.lookup.entry(fr_to_mont(coeff)).or_insert_with(|| {
            self.table.push(*coeff);
            next
        })
    }

    /// Closes the current row.
    #[inline]
    pub(crate) fn end_row(&mut self) {
        match u32::try_from(self.cols.len()) {
            Ok(n) => self.row_ptr.push(n),
            Err(_) => {
                self.overflow = true;
                self.row_ptr.push(u32::MAX);
            }
        }
    }

    /// Appends `other`'s rows, each column through `map` (which must keep
    /// a row's columns in order). The coefficient table grows by `other`'s
    /// entries not here yet, in `other`'s order: the table a single
    /// builder would have made from both parts' rows in turn.
    pub(crate) fn append(&mut self, other: &MatrixBuilder, map: impl Fn(u32) -> u32) {
        let to_here: Vec<u32> = other.table.iter().map(|c| self.intern(c)).collect();
        let base = self.cols.len();
        self.cols.extend(other.cols.iter().map(|&c| map(c)));
        match &other.coeff_idx {
            CoeffIndices::U8(v) => v
                .iter()
                .for_each(|&t| self.coeff_idx.push(to_here[t as usize])),
            CoeffIndices::U16(v) => v
                .iter()
                .for_each(|&t| self.coeff_idx.push(to_here[t as usize])),
            CoeffIndices::U32(v) => v
                .iter()
                .for_each(|&t| self.coeff_idx.push(to_here[t as usize])),
        }
        self.overflow |= other.overflow;
        for &end in &other.row_ptr[1..] {
            match u32::try_from(base + end as usize) {
                Ok(n) => self.row_ptr.push(n),
                Err(_) => {
                    self.overflow = true;
                    self.row_ptr.push(u32::MAX);
                }
            }
        }
    }

    pub(crate) fn finish(self) -> SparseMatrix {
        SparseMatrix {
            row_ptr: self.row_ptr,
            cols: self.cols,
            coeff_idx: self.coeff_idx,
            table: self.table,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coeff_indices_widen_and_keep_values() {
        let mut c = CoeffIndices::U8(Vec::new());
        c.push(3);
        c.push(255);
        assert_eq!(c.width(), 1);
        c.push(256);
        assert_eq!(c, CoeffIndices::U16(vec![3, 255, 256]));
        c.push(70_000);
        assert_eq!(c, CoeffIndices::U32(vec![3, 255, 256, 70_000]));
        // Straight from u8 to u32.
        let mut d = CoeffIndices::U8(vec![7]);
        d.push(1 << 20);
        assert_eq!(d, CoeffIndices::U32(vec![7, 1 << 20]));
    }

    #[test]
    fn spmv_small_matrix_by_hand() {
        // Row 0: 2·in0 + (−1)·aux1; row 1: empty; row 2: 5·aux0 + 2·aux1.
        let two = Fr::from(2u64);
        let mut m = MatrixBuilder::new();
        m.push(INPUT_TAG, &two);
        m.push(1, &-Fr::ONE);
        m.end_row();
        m.end_row();
        m.push(0, &Fr::from(5u64));
        m.push(1, &two);
        m.end_row();
        let m = m.finish();
        assert_eq!(m.table.len(), 3, "2 is stored once");
        let inputs = [Fr::ONE];
        let aux = [Fr::from(7u64), Fr::from(11u64)];
        let mut out = Vec::new();
        m.spmv_into(&inputs, &aux, &mut out);
        assert_eq!(
            out,
            vec![two - Fr::from(11u64), Fr::ZERO, Fr::from(35u64 + 22)]
        );
        // Mᵀ·x by hand, x padded past the rows: in0 = 2·x0; aux0 = 5·x2;
        // aux1 = −x0 + 2·x2.
        let x = [
            Fr::from(3u64),
            Fr::from(13u64),
            Fr::from(4u64),
            Fr::from(99u64),
        ];
        assert_eq!(
            m.mul_transposed(&x, 1, 2),
            vec![
                Fr::from(6u64),
                Fr::from(20u64),
                Fr::from(8u64) - Fr::from(3u64)
            ]
        );
        let s = m.size();
        assert_eq!((s.rows, s.nonzeros, s.index_width), (3, 4, 1));
        assert_eq!(s.compressed_bytes, 4 * 4 + 4 * 4 + 4 + 3 * 32);
        assert_eq!(s.uncompressed_bytes, 4 * 4 + 36 * 4);
    }
}
