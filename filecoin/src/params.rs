//! Where a Filecoin proof's Groth16 parameters are: one standard file name
//! per proof kind (filecoin-proofs' `parameter_id` of the kind's circuit,
//! e.g. `v28-stacked-proof-of-replication-…-<hash>.params`), found in one
//! directory by [`locate`], checked against a circuit by [`check_params`],
//! and the directory filecoin-proofs' own verifier reads
//! ([`use_param_dir`]). The one other file there, the SnarkPack SRS of
//! non-interactive PoRep, is found by [`locate_srs`].
//!
//! Which directory: the caller's (`--param-cache`, `[srs] param_cache`),
//! else `$FIL_PROOFS_PARAMETER_CACHE`, else filecoin-proofs' default:
//! [`cuzk_scheduler::params::param_dir`] with
//! [`cuzk_scheduler::params::ParamFiles::Filecoin`].

use crate::c1::SealProofKind;
use crate::error::{proofs, FilecoinError, Result};
use crate::post::PostProofKind;
use crate::snap::SnapProofKind;
use crate::with_tree;
use bellperson::groth16::aggregate::GenericSRS;
use cuzk_field::{Bls12, G1Affine, G2Affine};
use cuzk_groth16::ParamsInfo;
use cuzk_synth::Shape;
use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_proofs::{PoRepConfig, PoStConfig};
use group::GroupEncoding;
use std::path::{Path, PathBuf};
use storage_proofs_core::{
    merkle::MerkleTreeTrait,
    parameter_cache::{parameter_id, CacheableParameters},
};
use storage_proofs_update::{EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PublicParams};

/// A registered Filecoin proof type, whatever its kind: what a parameter
/// file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProofKind {
    /// PoRep commit (C2).
    Porep(SealProofKind),
    /// WinningPoSt or WindowPoSt.
    Post(PostProofKind),
    /// SnapDeals (empty-sector update).
    Snap(SnapProofKind),
}

impl From<SealProofKind> for ProofKind {
    fn from(k: SealProofKind) -> Self {
        Self::Porep(k)
    }
}

impl From<PostProofKind> for ProofKind {
    fn from(k: PostProofKind) -> Self {
        Self::Post(k)
    }
}

impl From<SnapProofKind> for ProofKind {
    fn from(k: SnapProofKind) -> Self {
        Self::Snap(k)
    }
}

impl ProofKind {
    /// Sector size in bytes.
    pub fn sector_size(&self) -> u64 {
        match self {
            Self::Porep(k) => k.sector_size,
            Self::Post(k) => k.sector_size,
            Self::Snap(k) => k.sector_size,
        }
    }

    /// The standard file name of the kind's parameters, as filecoin-proofs
    /// names them: PoRep
    /// `v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-<hash>.params`,
    /// PoSt `v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-<hash>.params`
    /// at 32 GiB (Window V1 and V1_2 share one file: the API version is
    /// not part of the circuit), SnapDeals
    /// `v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-<hash>.params`
    /// at 32 GiB.
    pub fn params_file_name(&self) -> Result<String> {
        let id = match self {
            Self::Porep(k) => {
                let config = k.porep_config()?;
                with_tree!(k.sector_size, porep_id(&config))?
            }
            Self::Post(k) => with_tree!(k.sector_size, post_id(&k.post_config()))?,
            Self::Snap(k) => with_tree!(k.sector_size, snap_id(k))?,
        };
        Ok(parameter_id(&id))
    }
}

fn porep_id<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig) -> Result<String> {
    config.get_cache_identifier::<Tree>().map_err(proofs)
}

fn post_id<Tree: 'static + MerkleTreeTrait>(config: &PoStConfig) -> Result<String> {
    config.get_cache_identifier::<Tree>().map_err(proofs)
}

fn snap_id<Tree>(kind: &SnapProofKind) -> Result<String>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    Ok(<EmptySectorUpdateCompound<Tree> as CacheableParameters<
        EmptySectorUpdateCircuit<Tree>,
        PublicParams,
    >>::cache_identifier(&kind.public_params()))
}

/// The parameter file of `kind` in `dir`; a typed error if it is absent.
pub fn locate(dir: &Path, kind: impl Into<ProofKind>) -> Result<PathBuf> {
    locate_file(dir, &kind.into().params_file_name()?)
}

/// The SnarkPack inner-product SRS file that non-interactive PoRep's C2
/// aggregates with, as filecoin-proofs names it
/// (`v28-fil-inner-product-v1.srs`, one file for every proof type).
pub fn srs_file_name() -> String {
    use storage_proofs_core::parameter_cache::{SRS_KEY_EXT, SRS_SHARED_KEY_NAME, VERSION};
    format!("v{VERSION}-{SRS_SHARED_KEY_NAME}.{SRS_KEY_EXT}")
}

/// The inner-product SRS file in `dir` ([`srs_file_name`]); a typed error
/// if it is absent.
pub fn locate_srs(dir: &Path) -> Result<PathBuf> {
    locate_file(dir, &srs_file_name())
}

/// Points filecoin-proofs reads of each of the SRS file's four vectors
/// (storage-proofs-core's `read_srs`: `(2 << 14) + 1`).
const SRS_READ_POINTS: u64 = (2 << 14) + 1;

/// The SRS file's four vectors, in file order: name and the bytes of one
/// compressed point.
const SRS_VECTORS: [(&str, u64); 4] = [("G1 α", 48), ("G1 β", 48), ("G2 α", 96), ("G2 β", 96)];

/// Walks the SRS file's layout: four vectors (G1 α, G1 β, G2 α, G2 β
/// powers), each a big-endian `u32` count and that many compressed points.
/// Returns each vector's first point's offset and its count; a file that
/// ends inside its layout is a [`FilecoinError::ParamsMismatch`].
fn srs_layout(path: &Path) -> Result<(std::fs::File, [(u64, u64); 4])> {
    use std::io::{Read, Seek, SeekFrom};
    let mismatch = |detail: String| FilecoinError::ParamsMismatch {
        path: path.to_path_buf(),
        detail,
    };
    let mut f = std::fs::File::open(path).map_err(|e| FilecoinError::file(path, e))?;
    let size = f
        .metadata()
        .map_err(|e| FilecoinError::file(path, e))?
        .len();
    let mut at = 0u64;
    let mut out = [(0u64, 0u64); 4];
    for (i, (name, point)) in SRS_VECTORS.iter().enumerate() {
        if at + 4 > size {
            return Err(mismatch(format!(
                "the SRS file ends ({size} bytes) before its {name} powers' count"
            )));
        }
        f.seek(SeekFrom::Start(at))
            .map_err(|e| FilecoinError::file(path, e))?;
        let mut len = [0u8; 4];
        f.read_exact(&mut len)
            .map_err(|e| FilecoinError::file(path, e))?;
        let len = u64::from(u32::from_be_bytes(len));
        out[i] = (at + 4, len);
        at += 4 + len * point;
        if at > size {
            return Err(mismatch(format!(
                "the SRS file ({size} bytes) is truncated: its {len} {name} powers end at byte {at}"
            )));
        }
    }
    Ok((f, out))
}

/// [`locate_srs`], then checks the file's layout ([`srs_layout`]) and that
/// each vector holds the `2 · proofs` powers an aggregate of `sectors`
/// sectors of `kind` needs (`proofs`: their partition proofs, padded as
/// filecoin-proofs pads them, [`crate::aggregate::padded_proofs`]) within
/// the first `(2 << 14) + 1`, all filecoin-proofs' verifier reads.
pub fn check_srs(dir: &Path, kind: &SealProofKind, sectors: usize) -> Result<PathBuf> {
    let proofs = crate::aggregate::padded_proofs(kind, sectors)?;
    let path = locate_srs(dir)?;
    let (_, layout) = srs_layout(&path)?;
    for ((name, _), (_, len)) in SRS_VECTORS.iter().zip(layout) {
        let usable = len.min(SRS_READ_POINTS);
        if usable < 2 * proofs as u64 {
            return Err(FilecoinError::ParamsMismatch {
                path: path.clone(),
                detail: format!(
                    "the SRS has {usable} usable {name} powers; an aggregate of {proofs} proofs needs {}",
                    2 * proofs
                ),
            });
        }
    }
    Ok(path)
}

/// The first `powers` points of each of the SRS file's four vectors,
/// decoded (on-curve and subgroup checks, as bellperson's reader does) on
/// every core. A short vector or a point that does not decode is a
/// [`FilecoinError::ParamsMismatch`].
pub fn read_srs(path: &Path, powers: usize) -> Result<GenericSRS<Bls12>> {
    use rayon::prelude::*;
    use std::io::{Read, Seek, SeekFrom};
    let mismatch = |detail: String| FilecoinError::ParamsMismatch {
        path: path.to_path_buf(),
        detail,
    };
    let (mut f, layout) = srs_layout(path)?;
    let mut raw: Vec<Vec<u8>> = Vec::with_capacity(4);
    for ((name, point), (at, len)) in SRS_VECTORS.iter().zip(layout) {
        if len < powers as u64 {
            return Err(mismatch(format!(
                "the SRS has {len} {name} powers; {powers} are needed"
            )));
        }
        let mut buf = vec![0u8; powers * *point as usize];
        f.seek(SeekFrom::Start(at))
            .map_err(|e| FilecoinError::file(path, e))?;
        f.read_exact(&mut buf)
            .map_err(|e| FilecoinError::file(path, e))?;
        raw.push(buf);
    }
    // bellperson's reader decodes with `GroupEncoding::from_bytes` too:
    // compressed, on the curve and in the subgroup.
    fn decode<C: GroupEncoding + Send>(raw: &[u8]) -> std::result::Result<Vec<C>, usize> {
        let size = C::Repr::default().as_ref().len();
        raw.par_chunks_exact(size)
            .enumerate()
            .map(|(i, c)| {
                let mut r = C::Repr::default();
                r.as_mut().copy_from_slice(c);
                Option::from(C::from_bytes(&r)).ok_or(i)
            })
            .collect()
    }
    let bad = |k: usize| {
        move |i: usize| {
            mismatch(format!(
                "SRS {} power {i} is not a point of the group",
                SRS_VECTORS[k].0
            ))
        }
    };
    Ok(GenericSRS {
        g_alpha_powers: decode::<G1Affine>(&raw[0]).map_err(bad(0))?,
        g_beta_powers: decode::<G1Affine>(&raw[1]).map_err(bad(1))?,
        h_alpha_powers: decode::<G2Affine>(&raw[2]).map_err(bad(2))?,
        h_beta_powers: decode::<G2Affine>(&raw[3]).map_err(bad(3))?,
    })
}

/// The parameter file `name` (a standard name, see
/// [`ProofKind::params_file_name`]) in `dir`; a typed error if it is
/// absent.
pub fn locate_file(dir: &Path, name: &str) -> Result<PathBuf> {
    let path = dir.join(name);
    if !path.is_file() {
        return Err(FilecoinError::MissingParams { path });
    }
    Ok(path)
}

/// Compares a parameter file's section counts with a circuit's shape
/// (inputs, aux variables, domain); `densities` (A points, B points) adds
/// the two counts only a synthesized partition knows.
pub fn check_params(
    path: &Path,
    info: &ParamsInfo,
    shape: &Shape,
    densities: Option<(usize, usize)>,
) -> Result<()> {
    let mismatch = |detail: String| {
        Err(FilecoinError::ParamsMismatch {
            path: path.to_path_buf(),
            detail,
        })
    };
    if info.ic != shape.num_inputs {
        return mismatch(format!(
            "the circuit has {} public inputs, the file has {}",
            shape.num_inputs - 1,
            info.ic.saturating_sub(1)
        ));
    }
    if info.l != shape.num_aux {
        return mismatch(format!(
            "the circuit has {} aux variables, the file has {} L points",
            shape.num_aux, info.l
        ));
    }
    if info.domain_size() != shape.domain_size() {
        return mismatch(format!(
            "the circuit has {} constraints (domain {}), the file is for domain {}",
            shape.num_constraints,
            shape.domain_size(),
            info.domain_size()
        ));
    }
    if let Some((a, b)) = densities {
        if info.a != a || info.b_g1 != b || info.b_g2 != b {
            return mismatch(format!(
                "A/B queries: the circuit needs {a}/{b} points, the file has {}/{}/{}",
                info.a, info.b_g1, info.b_g2
            ));
        }
    }
    Ok(())
}

/// Makes filecoin-proofs read its parameters and verifying keys from `dir`.
/// Its settings are read once per process, so this must run before any
/// other filecoin-proofs call; a later call with another directory is a
/// [`FilecoinError::ParamCacheConflict`].
pub fn use_param_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| FilecoinError::file(dir, e))?;
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", dir);
    let active = PathBuf::from(&storage_proofs_core::settings::SETTINGS.parameter_cache);
    let same = match (active.canonicalize(), dir.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => active == dir,
    };
    if !same {
        return Err(FilecoinError::ParamCacheConflict {
            active,
            wanted: dir.to_path_buf(),
        });
    }
    Ok(())
}
