//! PoSt test data: parameters from cuzk's setup on storage-proofs-post's
//! blank circuit, sectors sealed for PoSt (kept with their replica and
//! cache), the sector WinningPoSt challenges, and vanilla proofs made as
//! filecoin-proofs-api makes them.

use super::{
    cuzk_setup, ensure_blank_params, pre_commit, setup_record, write_file, write_params,
    ParamsGenerator, ParamsReport, TestDirs,
};
use cuzk_filecoin::c1::{format_size, SealProofKind};
use cuzk_filecoin::params::ProofKind;
use cuzk_filecoin::post::PostProofKind;
use cuzk_filecoin::{with_tree, FilecoinError, Result};
use filecoin_proofs::PrivateReplicaInfo;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use storage_proofs_core::{merkle::MerkleTreeTrait, sector::SectorId};

/// Makes sure the parameters and verifying key of a PoSt kind are in
/// `dirs.params` under filecoin-proofs' standard name, generating them with
/// cuzk's setup on filecoin-proofs' blank circuit if they are not (seconds
/// at 2 KiB). Seeded toxic waste: **never for production**.
pub fn ensure_post_params(
    kind: &PostProofKind,
    dirs: &TestDirs,
    seed: u64,
) -> Result<ParamsReport> {
    ensure_post_params_with(kind, dirs, seed, ParamsGenerator::Cuzk)
}

/// [`ensure_post_params`] with a choice of generator (`CuzkGpu` for the
/// 32 GiB sizes on the GPU machine; used only when none is cached).
pub fn ensure_post_params_with(
    kind: &PostProofKind,
    dirs: &TestDirs,
    seed: u64,
    generator: ParamsGenerator,
) -> Result<ParamsReport> {
    let path = dirs.params.join(ProofKind::Post(*kind).params_file_name()?);
    ensure_blank_params(&path, |path| {
        let rec = setup_record(|cache| cache.post(kind, None))?;
        write_params(path, &cuzk_setup(&rec, seed, generator)?)
    })
}

/// A sealed test sector kept for PoSt: its replica and cache directory
/// (`p_aux`, `tree-r-last`), as a `PrivateReplicaInfo` names them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct PostTestSector {
    /// Sector number.
    pub sector_id: u64,
    /// comm_r.
    pub comm_r: [u8; 32],
    /// The sealed replica.
    pub replica: PathBuf,
    /// The cache directory.
    pub cache_dir: PathBuf,
}

/// Prover id of every PoSt test sector.
pub const POST_PROVER_ID: [u8; 32] = [7; 32];

/// `count` sealed sectors of `kind` (prover [`POST_PROVER_ID`]) for PoSt
/// tests, under `dirs.root/post-sectors/<size>/<i>`; sealed now where
/// none is cached (about a second each at 2 KiB).
pub fn post_test_sectors(
    kind: &SealProofKind,
    dirs: &TestDirs,
    count: usize,
) -> Result<Vec<PostTestSector>> {
    let config = kind.porep_config()?;
    let base = dirs
        .root
        .join("post-sectors")
        .join(format_size(kind.sector_size));
    (0..count)
        .map(|i| {
            let dir = base.join(i.to_string());
            let meta = dir.join("sector.json");
            if let Some(s) = std::fs::read(&meta)
                .ok()
                .and_then(|b| serde_json::from_slice::<PostTestSector>(&b).ok())
                .filter(|s| s.replica.is_file() && s.cache_dir.is_dir())
            {
                return Ok(s);
            }
            if dir.exists() {
                std::fs::remove_dir_all(&dir).map_err(|e| FilecoinError::file(&dir, e))?;
            }
            std::fs::create_dir_all(&dir).map_err(|e| FilecoinError::file(&dir, e))?;
            let mut rng = ChaCha20Rng::seed_from_u64(0x9057 + i as u64);
            let sector_id: u64 = rng.gen_range(1..1 << 40);
            let pre = with_tree!(
                kind.sector_size,
                pre_commit(kind, &config, &dir, POST_PROVER_ID, sector_id, &mut rng)
            )?
            .0;
            let s = PostTestSector {
                sector_id,
                comm_r: pre.comm_r,
                replica: dir.join("sealed"),
                cache_dir: dir.join("cache"),
            };
            let json = serde_json::to_vec_pretty(&s).expect("plain struct");
            write_file(&meta, &json)?;
            Ok(s)
        })
        .collect()
}

/// The sector of `sectors` that WinningPoSt challenges for this
/// randomness and prover, picked as Lotus picks it
/// (`generate_winning_post_sector_challenge`).
pub fn winning_post_pick(
    kind: &PostProofKind,
    sectors: &[PostTestSector],
    randomness: [u8; 32],
    prover_id: [u8; 32],
) -> Result<PostTestSector> {
    let config = kind.post_config();
    let n = sectors.len() as u64;
    let picked = with_tree!(
        kind.sector_size,
        pick_tree(&config, &randomness, n, prover_id)
    )?;
    picked
        .first()
        .and_then(|&i| sectors.get(i as usize))
        .cloned()
        .ok_or_else(|| FilecoinError::Unsupported("no sector to challenge".into()))
}

fn pick_tree<Tree: 'static + MerkleTreeTrait>(
    config: &filecoin_proofs::PoStConfig,
    randomness: &[u8; 32],
    n: u64,
    prover_id: [u8; 32],
) -> Result<Vec<u64>> {
    filecoin_proofs::generate_winning_post_sector_challenge::<Tree>(
        config, randomness, n, prover_id,
    )
    .map_err(FilecoinError::Proofs)
}

/// The vanilla proofs of `sectors` for a PoSt, made the way
/// filecoin-proofs-api makes them (`generate_fallback_sector_challenges`,
/// `generate_single_vanilla_proof`, bincode), in the order of `sectors`.
/// For WinningPoSt pass the one challenged sector.
pub fn post_vanilla_proofs(
    kind: &PostProofKind,
    sectors: &[PostTestSector],
    randomness: [u8; 32],
    prover_id: [u8; 32],
) -> Result<Vec<Vec<u8>>> {
    with_tree!(
        kind.sector_size,
        vanilla_tree(kind, sectors, randomness, prover_id)
    )
}

fn vanilla_tree<Tree: 'static + MerkleTreeTrait>(
    kind: &PostProofKind,
    sectors: &[PostTestSector],
    randomness: [u8; 32],
    prover_id: [u8; 32],
) -> Result<Vec<Vec<u8>>> {
    let config = kind.post_config();
    let ids: Vec<SectorId> = sectors.iter().map(|s| s.sector_id.into()).collect();
    let challenges = filecoin_proofs::generate_fallback_sector_challenges::<Tree>(
        &config,
        &randomness,
        &ids,
        prover_id,
    )
    .map_err(FilecoinError::Proofs)?;
    sectors
        .iter()
        .map(|s| {
            let info =
                PrivateReplicaInfo::<Tree>::new(s.replica.clone(), s.comm_r, s.cache_dir.clone())
                    .map_err(FilecoinError::Proofs)?;
            let id = SectorId::from(s.sector_id);
            let c = challenges.get(&id).map(Vec::as_slice).unwrap_or_default();
            let vp = filecoin_proofs::generate_single_vanilla_proof::<Tree>(&config, id, &info, c)
                .map_err(FilecoinError::Proofs)?;
            bincode::serialize(&vp).map_err(|e| FilecoinError::Proofs(e.into()))
        })
        .collect()
}
