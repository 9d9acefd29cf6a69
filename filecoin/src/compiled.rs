//! PoRep, PoSt and SnapDeals circuits recorded once
//! ([`cuzk_synth::compiled`]): every partition of a proof type has the same
//! R1CS, so it is recorded from the blank circuit filecoin-proofs'
//! parameters come from, kept on disk, and each partition then runs only
//! its value closures (witness-only synthesis) followed by an SpMV. The
//! result equals the classic synthesis field for field.
//!
//! A PoSt partition is recorded and its witness synthesized sector by
//! sector on all cores (storage-proofs-post's extensible branch, which the
//! classic prover takes too); renumbered in order, the parts give the
//! sequential branch's system, the layout of the parameters, index for
//! index and value for value (cuzk-synth's `extend`).
//!
//! A record is stored as `<dir>/<params name>.r1cs` under an identity that
//! names the circuit (the parameter file's name, which hashes filecoin-
//! proofs' circuit parameters) and this crate's version. A file with
//! another identity, altered bytes or another layout is recorded again and
//! replaced, never used; a witness of another shape or allocation order is
//! refused per partition ([`cuzk_synth::compiled::CompiledError`]).

use crate::c1::SealProofKind;
use crate::error::{proofs, FilecoinError, Result};
use crate::params::ProofKind;
use crate::post::PostProofKind;
use crate::snap::{blank_circuit, SnapProofKind};
use crate::with_tree;
use cuzk_scheduler::{Engine, HostHold};
use cuzk_synth::compiled::{CompiledR1cs, StoreError};
use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_proofs::{parameters::public_params, DefaultPieceHasher, PoRepConfig};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use storage_proofs_core::{compound_proof::CompoundProof, merkle::MerkleTreeTrait};
use storage_proofs_porep::stacked::{StackedCompound, StackedDrg};

/// Environment variable naming the folder of recorded circuits.
pub const R1CS_DIR_ENV: &str = "CUZK_R1CS_CACHE";

/// The folder of recorded circuits: `$CUZK_R1CS_CACHE`, else
/// `<user cache>/cuzk/r1cs`.
pub fn default_r1cs_dir() -> PathBuf {
    match std::env::var_os(R1CS_DIR_ENV) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => dirs::cache_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("cuzk")
            .join("r1cs"),
    }
}

/// How a record was obtained.
#[derive(Clone, Debug)]
pub struct R1csReport {
    /// The file.
    pub path: PathBuf,
    /// Recorded now (else loaded from the file).
    pub recorded: bool,
    /// Why an existing file was not used, if one was there.
    pub replaced: Option<String>,
    /// Time to load or record (and save).
    pub elapsed: Duration,
}

/// A cached record and the budget hold that counts it (none when the
/// cache serves callers without an engine).
type Cached = (Arc<CompiledR1cs>, Option<HostHold>);

/// Recorded circuits of one process, by proof type:
/// each is loaded or recorded once, shared by every job, and counted
/// against the memory budget of the engine it was first asked for
/// ([`Engine::hold_host`]) for as long as the cache lives.
#[derive(Debug)]
pub struct R1csCache {
    dir: PathBuf,
    records: Mutex<HashMap<String, Cached>>,
}

impl R1csCache {
    /// A cache over the folder `dir` (created when first written).
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            records: Mutex::new(HashMap::new()),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The recorded circuit of PoRep `kind`'s partitions: from memory, else
    /// from the folder, else recorded from the blank circuit (about as long
    /// as one classic synthesis of a partition) and saved. Concurrent
    /// callers for the same kind wait for one recording. The report comes
    /// with a load or a recording, not with a hit in memory. With `engine`,
    /// the record's bytes are held in its budget from the first load on.
    pub fn porep(
        &self,
        kind: &SealProofKind,
        engine: Option<&Engine>,
    ) -> Result<(Arc<CompiledR1cs>, Option<R1csReport>)> {
        let name = ProofKind::Porep(*kind).params_file_name()?;
        self.get(&name, "porep", engine, || record_porep(kind))
    }

    /// [`R1csCache::porep`] for a SnapDeals proof type.
    pub fn snap(
        &self,
        kind: &SnapProofKind,
        engine: Option<&Engine>,
    ) -> Result<(Arc<CompiledR1cs>, Option<R1csReport>)> {
        let name = ProofKind::Snap(*kind).params_file_name()?;
        self.get(&name, "snap", engine, || record_snap(kind))
    }

    /// [`R1csCache::porep`] for a WinningPoSt or WindowPoSt proof type
    /// (one record per parameter file: WindowPoSt's API versions share it).
    pub fn post(
        &self,
        kind: &PostProofKind,
        engine: Option<&Engine>,
    ) -> Result<(Arc<CompiledR1cs>, Option<R1csReport>)> {
        let name = ProofKind::Post(*kind).params_file_name()?;
        self.get(&name, "post", engine, || record_post(kind))
    }

    /// The record of the circuit behind parameter file `name` (`tag` names
    /// the proof family in the stored identity).
    fn get(
        &self,
        name: &str,
        tag: &str,
        engine: Option<&Engine>,
        record: impl FnOnce() -> Result<CompiledR1cs>,
    ) -> Result<(Arc<CompiledR1cs>, Option<R1csReport>)> {
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((r, _)) = records.get(name) {
            return Ok((Arc::clone(r), None));
        }
        let id = identity(tag, name);
        let path = self.dir.join(format!("{name}.r1cs"));
        let t = Instant::now();
        let (rec, recorded, replaced) = match CompiledR1cs::load(&path, &id) {
            Ok(r) => (r, false, None),
            Err(e) => {
                let replaced = match &e {
                    StoreError::Io { source, .. }
                        if source.kind() == std::io::ErrorKind::NotFound =>
                    {
                        None
                    }
                    other => Some(other.to_string()),
                };
                let rec = record()?;
                std::fs::create_dir_all(&self.dir)
                    .map_err(|e| FilecoinError::file(&self.dir, e))?;
                rec.save(&path, &id).map_err(FilecoinError::R1cs)?;
                (rec, true, replaced)
            }
        };
        let rec = Arc::new(rec);
        let hold = engine.map(|e| e.hold_host(rec.size().compressed_bytes() as u64));
        records.insert(name.to_string(), (Arc::clone(&rec), hold));
        let report = R1csReport {
            path,
            recorded,
            replaced,
            elapsed: t.elapsed(),
        };
        Ok((rec, Some(report)))
    }
}

/// The identity a record of the circuit behind parameter file `name` is
/// stored under: a new crate version records again, because the circuit
/// code (filecoin-proofs' version is pinned by it) may have changed.
fn identity(tag: &str, name: &str) -> String {
    format!("{tag}:{name}:cuzk-filecoin-{}", env!("CARGO_PKG_VERSION"))
}

/// Records the circuit of one partition of `kind` from filecoin-proofs'
/// blank circuit (no witness needed).
pub fn record_porep(kind: &SealProofKind) -> Result<CompiledR1cs> {
    let config = kind.porep_config()?;
    with_tree!(kind.sector_size, record_tree(&config))
}

fn record_tree<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig) -> Result<CompiledR1cs> {
    let pp = public_params::<Tree>(config).map_err(proofs)?;
    type C<T> = StackedCompound<T, DefaultPieceHasher>;
    let blank =
        <C<Tree> as CompoundProof<StackedDrg<'_, Tree, DefaultPieceHasher>, _>>::blank_circuit(&pp);
    CompiledR1cs::record(blank).map_err(FilecoinError::Compiled)
}

/// Records the circuit of one PoSt partition of `kind` from
/// storage-proofs-post's blank circuit, its sectors on all cores.
pub fn record_post(kind: &PostProofKind) -> Result<CompiledR1cs> {
    with_tree!(kind.sector_size, record_post_tree(kind))
}

fn record_post_tree<Tree: 'static + MerkleTreeTrait>(kind: &PostProofKind) -> Result<CompiledR1cs> {
    CompiledR1cs::record(crate::post::blank_circuit::<Tree>(kind)?).map_err(FilecoinError::Compiled)
}

/// Records the circuit of one SnapDeals partition of `kind` from
/// storage-proofs-update's blank circuit (the one its parameters come
/// from).
pub fn record_snap(kind: &SnapProofKind) -> Result<CompiledR1cs> {
    with_tree!(kind.sector_size, record_snap_tree(kind))
}

fn record_snap_tree<Tree>(kind: &SnapProofKind) -> Result<CompiledR1cs>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    CompiledR1cs::record(blank_circuit::<Tree>(kind)).map_err(FilecoinError::Compiled)
}
