//! A recorded R1CS on disk, so a circuit type is recorded once per machine
//! rather than once per process (a 32 GiB PoRep partition takes about as
//! long to record as to synthesize classically).
//!
//! Layout, little-endian: `CUZKR1CS`, format version (u32), the circuit
//! identity the caller gave (u32 length + UTF-8), the shape (3 × u64), the
//! trace and structure hashes, the three density bitmaps (bit length u64 +
//! words), then per matrix: rows, non-zeros (u64), index width (u8), table
//! length (u64), the row pointers (u32), columns (u32), indices and the
//! table (canonical 32-byte scalars).
//!
//! Every length is checked against the file's size before anything is
//! allocated, so a corrupt or hostile file costs at most its own size. The
//! structure hash is recomputed after loading: a file whose matrices were
//! altered, or were recorded from another circuit under the same name, is
//! refused ([`StoreError::Identity`], [`CompiledError::StructureMismatch`]),
//! never used to make a proof.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use cuzk_field::{repr, Bitmap, Fr};

use super::matrix::{CoeffIndices, SparseMatrix};
use super::{CircuitKey, CompiledError, CompiledR1cs};
use crate::Shape;

const MAGIC: &[u8; 8] = b"CUZKR1CS";
const VERSION: u32 = 2;
/// Longest circuit identity stored (a file name or a sector kind).
const MAX_ID: usize = 4096;

/// Why a stored R1CS could not be written or used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// Not a recorded R1CS, another format version, or truncated/corrupt.
    #[error("{path}: not a usable recorded R1CS: {detail}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// A valid file, recorded from another circuit than the one asked for.
    #[error("{path}: recorded for circuit {found:?}, wanted {wanted:?}")]
    Identity {
        /// The file.
        path: PathBuf,
        /// The identity asked for.
        wanted: String,
        /// The identity in the file.
        found: String,
    },
    /// The matrices do not hash to the recorded structure hash.
    #[error("{path}: {source}")]
    Structure {
        /// The file.
        path: PathBuf,
        /// The mismatch.
        source: CompiledError,
    },
}

impl CompiledR1cs {
    /// Writes the recorded R1CS to `path` under the identity `id` (what
    /// [`CompiledR1cs::load`] must be asked for). Written to `path.tmp.<pid>`
    /// and renamed, so a reader never sees half a file and concurrent
    /// writers do not mix their bytes.
    pub fn save(&self, path: &Path, id: &str) -> Result<(), StoreError> {
        let io_err = |source| StoreError::Io {
            path: path.to_owned(),
            source,
        };
        if id.len() > MAX_ID {
            return Err(StoreError::Format {
                path: path.to_owned(),
                detail: format!("identity of {} bytes (at most {MAX_ID})", id.len()),
            });
        }
        let tmp = tmp_path(path);
        let f = File::create(&tmp).map_err(io_err)?;
        let mut w = BufWriter::with_capacity(1 << 22, f);
        let res = self
            .write_body(&mut w, id)
            .and_then(|()| w.into_inner().map_err(|e| e.into_error()))
            .and_then(|f| f.sync_all())
            .and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = res {
            let _ = std::fs::remove_file(&tmp);
            return Err(io_err(e));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut impl Write, id: &str) -> io::Result<()> {
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.write_all(&(id.len() as u32).to_le_bytes())?;
        w.write_all(id.as_bytes())?;
        let k = &self.key;
        for x in [
            k.shape.num_inputs as u64,
            k.shape.num_aux as u64,
            k.shape.num_constraints as u64,
            k.trace_hash,
            k.structure_hash,
        ] {
            w.write_all(&x.to_le_bytes())?;
        }
        for b in [
            &self.a_aux_density,
            &self.b_input_density,
            &self.b_aux_density,
        ] {
            w.write_all(&(b.len() as u64).to_le_bytes())?;
            w.write_all(bytemuck::cast_slice(b.as_words()))?;
        }
        for m in &self.matrices {
            m.write_to(w)?;
        }
        Ok(())
    }

    /// Reads a recorded R1CS written by [`CompiledR1cs::save`] under the
    /// identity `id`, and checks it (format, identity, sizes against the
    /// file, structure hash). The witness of every partition is still
    /// checked against its shape and trace when it is evaluated.
    pub fn load(path: &Path, id: &str) -> Result<Self, StoreError> {
        let io_err = |source| StoreError::Io {
            path: path.to_owned(),
            source,
        };
        let f = File::open(path).map_err(io_err)?;
        let len = f.metadata().map_err(io_err)?.len();
        let mut r = Reader {
            inner: io::BufReader::with_capacity(1 << 22, f),
            left: len,
            path,
        };
        let mut magic = [0u8; 8];
        r.bytes(&mut magic)?;
        if &magic != MAGIC {
            return Err(r.bad("not a cuzk recorded R1CS (bad magic)"));
        }
        let version = r.u32()?;
        if version != VERSION {
            return Err(r.bad(format!(
                "format version {version}, this build reads {VERSION}"
            )));
        }
        let id_len = r.u32()? as usize;
        if id_len > MAX_ID {
            return Err(r.bad(format!("identity of {id_len} bytes")));
        }
        let mut found = vec![0u8; id_len];
        r.bytes(&mut found)?;
        let found = String::from_utf8(found).map_err(|_| r.bad("identity is not UTF-8"))?;
        if found != id {
            return Err(StoreError::Identity {
                path: path.to_owned(),
                wanted: id.to_owned(),
                found,
            });
        }
        let shape = Shape {
            num_inputs: r.len_u64()?,
            num_aux: r.len_u64()?,
            num_constraints: r.len_u64()?,
        };
        let trace_hash = r.u64()?;
        let structure_hash = r.u64()?;
        let mut densities = Vec::with_capacity(3);
        for _ in 0..3 {
            let bits = r.len_u64()?;
            let words: Vec<u64> = r.vec(bits.div_ceil(64))?;
            let b = Bitmap::from_words(words, bits).ok_or_else(|| r.bad("density bitmap"))?;
            densities.push(b);
        }
        let [a, b, c] = [
            SparseMatrix::read_from(&mut r)?,
            SparseMatrix::read_from(&mut r)?,
            SparseMatrix::read_from(&mut r)?,
        ];
        if r.left != 0 {
            return Err(r.bad(format!("{} trailing bytes", r.left)));
        }
        let [ad, bi, bd]: [Bitmap; 3] = densities.try_into().expect("three bitmaps");
        let out = Self {
            key: CircuitKey {
                shape,
                trace_hash,
                structure_hash,
            },
            matrices: [a, b, c],
            a_aux_density: ad,
            b_input_density: bi,
            b_aux_density: bd,
        };
        out.check_consistent().map_err(|d| r.bad(d))?;
        out.verify_structure()
            .map_err(|source| StoreError::Structure {
                path: path.to_owned(),
                source,
            })?;
        Ok(out)
    }

    /// Counts and bitmap lengths agree with the matrices, and every column
    /// is in range of the shape, so the SpMV cannot index out of bounds.
    fn check_consistent(&self) -> Result<(), String> {
        let s = self.key.shape;
        for (name, m) in ["A", "B", "C"].iter().zip(&self.matrices) {
            if m.rows() != s.num_constraints {
                return Err(format!(
                    "{name} has {} rows, the shape {} constraints",
                    m.rows(),
                    s.num_constraints
                ));
            }
            m.check_columns(s.num_inputs, s.num_aux)
                .map_err(|e| format!("{name}: {e}"))?;
        }
        let want = [
            ("A aux density", &self.a_aux_density, s.num_aux),
            ("B input density", &self.b_input_density, s.num_inputs),
            ("B aux density", &self.b_aux_density, s.num_aux),
        ];
        for (name, b, n) in want {
            if b.len() != n {
                return Err(format!("{name} has {} bits, want {n}", b.len()));
            }
        }
        Ok(())
    }
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(format!(".tmp.{}", std::process::id()));
    PathBuf::from(s)
}

/// A bounded reader: every request is checked against the bytes left in
/// the file before its buffer is allocated.
pub(super) struct Reader<'a, R> {
    inner: R,
    left: u64,
    path: &'a Path,
}

impl<R: Read> Reader<'_, R> {
    pub(super) fn bad(&self, detail: impl Into<String>) -> StoreError {
        StoreError::Format {
            path: self.path.to_owned(),
            detail: detail.into(),
        }
    }

    fn take(&mut self, n: u64) -> Result<(), StoreError> {
        if n > self.left {
            return Err(self.bad(format!(
                "truncated: {n} more bytes wanted, {} left",
                self.left
            )));
        }
        self.left -= n;
        Ok(())
    }

    pub(super) fn bytes(&mut self, buf: &mut [u8]) -> Result<(), StoreError> {
        self.take(buf.len() as u64)?;
        let path = self.path;
        self.inner.read_exact(buf).map_err(|source| StoreError::Io {
            path: path.to_owned(),
            source,
        })
    }

    fn u32(&mut self) -> Result<u32, StoreError> {
        let mut b = [0u8; 4];
        self.bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub(super) fn u64(&mut self) -> Result<u64, StoreError> {
        let mut b = [0u8; 8];
        self.bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub(super) fn u8(&mut self) -> Result<u8, StoreError> {
        let mut b = [0u8; 1];
        self.bytes(&mut b)?;
        Ok(b[0])
    }

    /// A count that must fit in memory (checked again by [`Self::vec`]).
    pub(super) fn len_u64(&mut self) -> Result<usize, StoreError> {
        let v = self.u64()?;
        usize::try_from(v).map_err(|_| self.bad(format!("count {v} too large")))
    }

    /// `n` plain values, read straight into their final vector (one copy
    /// of a multi-GB section, not two).
    pub(super) fn vec<T: bytemuck::Pod + Default>(
        &mut self,
        n: usize,
    ) -> Result<Vec<T>, StoreError> {
        let bytes = (n as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        self.take(bytes)?;
        let mut v = vec![T::default(); n];
        let path = self.path;
        self.inner
            .read_exact(bytemuck::cast_slice_mut(&mut v))
            .map_err(|source| StoreError::Io {
                path: path.to_owned(),
                source,
            })?;
        Ok(v)
    }

    /// `n` canonical scalars.
    pub(super) fn scalars(&mut self, n: usize) -> Result<Vec<Fr>, StoreError> {
        let raw: Vec<[u8; 32]> = self.vec(n)?;
        raw.iter()
            .map(|b| repr::fr_from_canonical_le(b).ok_or_else(|| self.bad("non-canonical scalar")))
            .collect()
    }
}

impl SparseMatrix {
    fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&(self.rows() as u64).to_le_bytes())?;
        w.write_all(&(self.nonzeros() as u64).to_le_bytes())?;
        w.write_all(&[self.coeff_idx.width() as u8])?;
        w.write_all(&(self.table.len() as u64).to_le_bytes())?;
        w.write_all(bytemuck::cast_slice(&self.row_ptr))?;
        w.write_all(bytemuck::cast_slice(&self.cols))?;
        match &self.coeff_idx {
            CoeffIndices::U8(v) => w.write_all(v)?,
            CoeffIndices::U16(v) => w.write_all(bytemuck::cast_slice(v))?,
            CoeffIndices::U32(v) => w.write_all(bytemuck::cast_slice(v))?,
        }
        for c in &self.table {
            w.write_all(&repr::fr_to_canonical_le(c))?;
        }
        Ok(())
    }

    fn read_from<R: Read>(r: &mut Reader<'_, R>) -> Result<Self, StoreError> {
        let rows = r.len_u64()?;
        let nnz = r.len_u64()?;
        let width = r.u8()?;
        let table_len = r.len_u64()?;
        let row_ptr: Vec<u32> = r.vec(rows.checked_add(1).ok_or_else(|| r.bad("rows"))?)?;
        let cols: Vec<u32> = r.vec(nnz)?;
        let coeff_idx = match width {
            1 => CoeffIndices::U8(r.vec(nnz)?),
            2 => CoeffIndices::U16(r.vec(nnz)?),
            4 => CoeffIndices::U32(r.vec(nnz)?),
            w => return Err(r.bad(format!("index width {w}"))),
        };
        let table = r.scalars(table_len)?;
        let m = Self {
            row_ptr,
            cols,
            coeff_idx,
            table,
        };
        m.check_layout().map_err(|e| r.bad(e))?;
        Ok(m)
    }
}
