//! SnapDeals test data: a sector sealed here as the sector key, new random
//! data encoded into it with filecoin-proofs' `encode_into`, and the
//! vanilla partition proofs of the update made by
//! `generate_partition_proofs` (bincode, as filecoin-proofs-api returns
//! them), cached under `<root>/snap/<size>/update.json`.

use super::{
    ensure_blank_params, pre_commit, write_file, write_params, ParamsGenerator, ParamsReport,
    TestDirs,
};
use cuzk_filecoin::c1::{format_size, SealProofKind, SealVersion};
use cuzk_filecoin::params::ProofKind;
use cuzk_filecoin::snap::SnapProofKind;
use cuzk_filecoin::{with_tree, FilecoinError, Result};
use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_proofs::{
    add_piece, generate_piece_commitment, PaddedBytesAmount, SectorUpdateConfig,
    UnpaddedBytesAmount,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use std::path::Path;
use storage_proofs_core::merkle::MerkleTreeTrait;

/// A SnapDeals update ready to prove: its commitments and vanilla proofs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SnapTestUpdate {
    /// comm_r of the sector key.
    pub comm_r_old: [u8; 32],
    /// comm_r after the update.
    pub comm_r_new: [u8; 32],
    /// comm_d of the new data.
    pub comm_d_new: [u8; 32],
    /// One bincode `PartitionProof` per partition.
    pub vanilla_proofs: Vec<Vec<u8>>,
}

/// Makes sure the parameters and verifying key of `kind` are in
/// `dirs.params` under filecoin-proofs' standard name, generating them with
/// cuzk's setup on storage-proofs-update's blank circuit if they are not.
/// Seeded toxic waste: **never for production**.
pub fn ensure_snap_params(
    kind: &SnapProofKind,
    dirs: &TestDirs,
    seed: u64,
) -> Result<ParamsReport> {
    ensure_snap_params_with(kind, dirs, seed, ParamsGenerator::Cuzk)
}

/// [`ensure_snap_params`] with a choice of generator (`CuzkGpu` for the
/// 32 GiB sizes on the GPU machine; used only when none is cached).
pub fn ensure_snap_params_with(
    kind: &SnapProofKind,
    dirs: &TestDirs,
    seed: u64,
    generator: ParamsGenerator,
) -> Result<ParamsReport> {
    let path = dirs.params.join(ProofKind::Snap(*kind).params_file_name()?);
    ensure_blank_params(&path, |path| {
        let rec = super::setup_record(|cache| cache.snap(kind, None))?;
        write_params(path, &super::cuzk_setup(&rec, seed, generator)?)
    })
}

/// The update of test sector `index` of `kind`'s size (made now where none
/// is cached: a seal, an encoding and the vanilla proofs, seconds at
/// 2 KiB).
pub fn snap_test_update(
    kind: &SnapProofKind,
    dirs: &TestDirs,
    index: u64,
) -> Result<SnapTestUpdate> {
    let dir = dirs
        .root
        .join("snap")
        .join(format_size(kind.sector_size))
        .join(index.to_string());
    let meta = dir.join("update.json");
    if let Some(u) = std::fs::read(&meta)
        .ok()
        .and_then(|b| serde_json::from_slice::<SnapTestUpdate>(&b).ok())
    {
        return Ok(u);
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| FilecoinError::file(&dir, e))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| FilecoinError::file(&dir, e))?;
    let update = with_tree!(kind.sector_size, make(kind, &dir, index))?;
    let json = serde_json::to_vec(&update).expect("plain struct");
    write_file(&meta, &json)?;
    Ok(update)
}

fn make<Tree>(kind: &SnapProofKind, dir: &Path, index: u64) -> Result<SnapTestUpdate>
where
    Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>,
{
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| FilecoinError::file(p, e)
    };
    let seal = SealProofKind::new(kind.sector_size, SealVersion::V1_1)?;
    let porep = seal.porep_config()?;
    let mut rng = ChaCha20Rng::seed_from_u64(0x5a4e + index);
    let sector_id: u64 = rng.gen_range(1..1 << 40);
    let key_dir = dir.join("key");
    std::fs::create_dir_all(&key_dir).map_err(io(&key_dir))?;
    let (pre, ..) = pre_commit::<Tree>(&seal, &porep, &key_dir, [9; 32], sector_id, &mut rng)?;

    // The new data, staged as a piece of the whole sector.
    let piece_size = UnpaddedBytesAmount::from(PaddedBytesAmount(kind.sector_size));
    let mut data = vec![0u8; u64::from(piece_size) as usize];
    rng.fill_bytes(&mut data);
    let piece = generate_piece_commitment(&data[..], piece_size).map_err(FilecoinError::Proofs)?;
    let staged = dir.join("staged");
    let file = std::fs::File::create(&staged).map_err(io(&staged))?;
    add_piece(&data[..], file, piece_size, &[]).map_err(FilecoinError::Proofs)?;

    let (replica, cache) = (dir.join("replica"), dir.join("replica-cache"));
    std::fs::create_dir_all(&cache).map_err(io(&cache))?;
    // encode_into maps the new replica: it must have the sector's size.
    std::fs::File::create(&replica)
        .and_then(|f| f.set_len(kind.sector_size))
        .map_err(io(&replica))?;
    let config = SectorUpdateConfig::from_porep_config(&porep);
    let (key, key_cache) = (key_dir.join("sealed"), key_dir.join("cache"));
    let encoded = filecoin_proofs::encode_into::<Tree>(
        &config,
        &replica,
        &cache,
        &key,
        &key_cache,
        &staged,
        &[piece],
    )
    .map_err(FilecoinError::Proofs)?;
    let vanilla = filecoin_proofs::generate_partition_proofs::<Tree>(
        config,
        pre.comm_r,
        encoded.comm_r_new,
        encoded.comm_d_new,
        &key,
        &key_cache,
        &replica,
        &cache,
    )
    .map_err(FilecoinError::Proofs)?;
    if !filecoin_proofs::verify_partition_proofs::<Tree>(
        config,
        &vanilla,
        pre.comm_r,
        encoded.comm_r_new,
        encoded.comm_d_new,
    )
    .map_err(FilecoinError::Proofs)?
    {
        return Err(FilecoinError::Proofs(anyhow::anyhow!(
            "filecoin-proofs rejected its own update vanilla proofs"
        )));
    }
    let vanilla_proofs = vanilla
        .iter()
        .map(|p| bincode::serialize(p).map_err(|e| FilecoinError::Proofs(e.into())))
        .collect::<Result<_>>()?;
    Ok(SnapTestUpdate {
        comm_r_old: pre.comm_r,
        comm_r_new: encoded.comm_r_new,
        comm_d_new: encoded.comm_d_new,
        vanilla_proofs,
    })
}
