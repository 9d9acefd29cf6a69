//! Test data without the internet: Groth16 parameters for test sector sizes
//! generated locally by filecoin-proofs (toxic waste from a seeded RNG:
//! **never for production**), and test sectors sealed end to end (pre-commit
//! 1 and 2, commit 1) to real C1 outputs.
//!
//! Everything is cached under [`testdata_root`] (the user's cache directory,
//! `~/.cache/cuzk/filecoin` on Linux, or `$CUZK_TESTDATA_DIR`), so the
//! ~15-minute parameter generation for 2 KiB happens once per machine:
//!
//! ```text
//! <root>/params/      v28-….params / .vk / .meta   (FIL_PROOFS_PARAMETER_CACHE)
//! <root>/fil-cache/   SDR parent caches            (FIL_PROOFS_CACHE_DIR)
//! <root>/sectors/<size>/c1.json, meta.json
//! ```

use cuzk_filecoin::c1::{
    format_size, parse_c1, to_hex, C1Output, C1Public, SealProofKind, SealVersion,
};
use cuzk_filecoin::compiled::{default_r1cs_dir, R1csCache, R1csReport};
use cuzk_filecoin::params::{use_param_dir, ProofKind};
use cuzk_filecoin::{with_tree, FilecoinError, Result};
use cuzk_synth::compiled::CompiledR1cs;

mod post;
mod snap;
use cuzk_groth16::Parameters;
use filecoin_proofs::{
    add_piece, generate_piece_commitment, parameters::public_params, seal_commit_phase1,
    seal_commit_phase2, seal_pre_commit_phase1, seal_pre_commit_phase2, DefaultPieceHasher,
    PaddedBytesAmount, PieceInfo, PoRepConfig, SealCommitPhase1Output, SealPreCommitOutput,
    UnpaddedBytesAmount,
};
pub use post::{
    ensure_post_params, ensure_post_params_with, post_test_sectors, post_vanilla_proofs,
    winning_post_pick, PostTestSector, POST_PROVER_ID,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
pub use snap::{ensure_snap_params, ensure_snap_params_with, snap_test_update, SnapTestUpdate};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use storage_proofs_core::{compound_proof::CompoundProof, merkle::MerkleTreeTrait};
use storage_proofs_porep::stacked::{StackedCompound, StackedDrg};

/// The directories of the test-data cache.
#[derive(Clone, Debug)]
pub struct TestDirs {
    /// Root of the cache.
    pub root: PathBuf,
    /// Groth16 parameters and verifying keys (FIL_PROOFS_PARAMETER_CACHE).
    pub params: PathBuf,
    /// filecoin-proofs' own caches (FIL_PROOFS_CACHE_DIR).
    pub fil_cache: PathBuf,
}

/// `$CUZK_TESTDATA_DIR`, else `<user cache dir>/cuzk/filecoin`, else
/// `/var/tmp/cuzk/filecoin`.
pub fn testdata_root() -> PathBuf {
    if let Some(d) = std::env::var_os("CUZK_TESTDATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    dirs::cache_dir()
        .unwrap_or_else(|| PathBuf::from("/var/tmp"))
        .join("cuzk")
        .join("filecoin")
}

/// Creates the cache directories under `root` and points filecoin-proofs at
/// them. Must run before any other filecoin-proofs call in the process
/// (its settings are read once).
pub fn init_env(root: &Path) -> Result<TestDirs> {
    let dirs = TestDirs {
        root: root.to_path_buf(),
        params: root.join("params"),
        fil_cache: root.join("fil-cache"),
    };
    for d in [&dirs.params, &dirs.fil_cache] {
        std::fs::create_dir_all(d).map_err(|e| FilecoinError::file(d, e))?;
    }
    // filecoin-proofs appends file names to this one without a separator.
    let mut cache = dirs.fil_cache.to_string_lossy().into_owned();
    if !cache.ends_with('/') {
        cache.push('/');
    }
    std::env::set_var("FIL_PROOFS_CACHE_DIR", cache);
    // Locally generated parameters are not in the production manifest.
    std::env::remove_var("FIL_PROOFS_VERIFY_PRODUCTION_PARAMS");
    use_param_dir(&dirs.params)?;
    Ok(dirs)
}

/// What [`ensure_params`] did.
#[derive(Clone, Debug)]
pub struct ParamsReport {
    /// The `.params` file.
    pub path: PathBuf,
    /// Whether it was generated now (false: found in the cache).
    pub generated: bool,
    /// Time spent (generation, or the check of the cached file).
    pub elapsed: Duration,
}

/// Who makes test parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ParamsGenerator {
    /// filecoin-proofs (bellperson's generator), as its paramcache tool
    /// does: the independent reference, so the end-to-end test also checks
    /// that cuzk reads parameters it did not make.
    #[default]
    FilecoinProofs,
    /// cuzk-groth16's own setup on filecoin-proofs' blank circuit, written
    /// in the same format (`.params` + `.vk`).
    Cuzk,
    /// The same setup with its fixed-base multiplications on GPU 0
    /// (feature `cuda`): how 32 GiB test parameters (~47 GB) are made in
    /// minutes on the GPU machine.
    CuzkGpu,
}

/// Makes sure the parameters (and verifying key) of `kind` are in
/// `dirs.params`, generating them with filecoin-proofs if they are not: 2 KiB
/// takes ~15 minutes and ~5 GB of memory on 2 cores and writes ~1.1 GB. A
/// truncated file (an interrupted earlier run) is removed and regenerated.
pub fn ensure_params(kind: &SealProofKind, dirs: &TestDirs, seed: u64) -> Result<ParamsReport> {
    ensure_params_with(kind, dirs, seed, ParamsGenerator::FilecoinProofs)
}

/// [`ensure_params`] with a choice of generator (used only when the
/// parameters are not cached yet).
pub fn ensure_params_with(
    kind: &SealProofKind,
    dirs: &TestDirs,
    seed: u64,
    generator: ParamsGenerator,
) -> Result<ParamsReport> {
    let t = Instant::now();
    let path = dirs
        .params
        .join(ProofKind::Porep(*kind).params_file_name()?);
    let vk = path.with_extension("vk");
    if path.is_file() {
        if Parameters::inspect(&path).is_ok() && vk.is_file() {
            return Ok(ParamsReport {
                path,
                generated: false,
                elapsed: t.elapsed(),
            });
        }
        // Interrupted generation or missing key: start over.
        for p in [&path, &vk] {
            if p.exists() {
                std::fs::remove_file(p).map_err(|e| FilecoinError::file(p, e))?;
            }
        }
    }
    let config = kind.porep_config()?;
    match generator {
        ParamsGenerator::FilecoinProofs => {
            with_tree!(kind.sector_size, generate_params(&config, seed))?
        }
        ParamsGenerator::Cuzk | ParamsGenerator::CuzkGpu => {
            let rec = setup_record(|cache| cache.porep(kind, None))?;
            write_params(&path, &cuzk_setup(&rec, seed, generator)?)?
        }
    }
    Parameters::inspect(&path)?;
    Ok(ParamsReport {
        path,
        generated: true,
        elapsed: t.elapsed(),
    })
}

fn generate_params<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig, seed: u64) -> Result<()> {
    let pp = public_params::<Tree>(config).map_err(FilecoinError::Proofs)?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    type C<T> = StackedCompound<T, DefaultPieceHasher>;
    // Writes <id>.params into the parameter cache (filecoin-proofs' paramcache
    // tool does the same), then derives <id>.vk from it.
    <C<Tree> as CompoundProof<StackedDrg<'_, Tree, DefaultPieceHasher>, _>>::groth_params(
        Some(&mut rng),
        &pp,
    )
    .map_err(FilecoinError::Proofs)?;
    <C<Tree> as CompoundProof<StackedDrg<'_, Tree, DefaultPieceHasher>, _>>::verifying_key(
        Some(&mut rng),
        &pp,
    )
    .map_err(FilecoinError::Proofs)?;
    Ok(())
}

/// The recorded circuit behind a parameter file, from the folder of
/// recorded circuits ([`cuzk_filecoin::compiled::default_r1cs_dir`]):
/// loaded, or recorded and saved there, so the prover that uses these
/// parameters later loads it instead of recording it again.
pub(crate) fn setup_record(
    get: impl FnOnce(&R1csCache) -> Result<(Arc<CompiledR1cs>, Option<R1csReport>)>,
) -> Result<Arc<CompiledR1cs>> {
    let cache = R1csCache::new(default_r1cs_dir());
    eprintln!("setup: the circuit's record ({})", cache.dir().display());
    let (rec, report) = get(&cache)?;
    if let Some(r) = report {
        eprintln!(
            "setup: record {} in {:.1} s ({})",
            if r.recorded { "made" } else { "loaded" },
            r.elapsed.as_secs_f64(),
            r.path.display()
        );
    }
    Ok(rec)
}

/// cuzk's setup of a recorded circuit with seeded toxic waste, on GPU 0
/// for [`ParamsGenerator::CuzkGpu`] (filecoin-proofs' generator is wired
/// for PoRep only: [`ParamsGenerator::FilecoinProofs`] is refused here).
pub(crate) fn cuzk_setup(
    record: &CompiledR1cs,
    seed: u64,
    generator: ParamsGenerator,
) -> Result<Parameters> {
    let toxic = cuzk_groth16::ToxicWaste::from_seed(seed);
    let t = Instant::now();
    let log = StageLog::new(t);
    let progress: cuzk_groth16::setup::Progress<'_> =
        &|stage, done, total| log.add(stage, done, total);
    let params =
        match generator {
            ParamsGenerator::Cuzk => {
                cuzk_groth16::parameters_from_record(record, &toxic, Some(progress))?
            }
            ParamsGenerator::CuzkGpu => setup_gpu(record, &toxic, progress)?,
            ParamsGenerator::FilecoinProofs => return Err(FilecoinError::Unsupported(
                "filecoin-proofs' parameter generator is used for PoRep only; PoSt and SnapDeals \
                 test parameters come from cuzk's setup (cuzk or cuzk-gpu)"
                    .into(),
            )),
        };
    eprintln!("setup: {:.1} s", t.elapsed().as_secs_f64());
    Ok(params)
}

/// Plain progress lines for the setup's stages (QAP, then the fixed-base
/// multiplications H, IC, L, A, B_G1, B_G2) on stderr: one when a stage
/// starts and at most one every 15 s, so a setup of tens of minutes in a
/// log without a terminal shows where its time goes.
struct StageLog {
    start: Instant,
    state: std::sync::Mutex<(&'static str, usize, Instant)>,
}

impl StageLog {
    fn new(start: Instant) -> Self {
        Self {
            start,
            state: std::sync::Mutex::new(("", 0, start)),
        }
    }

    fn add(&self, stage: &'static str, done: usize, total: usize) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if st.0 != stage {
            *st = (stage, 0, now);
            eprintln!(
                "setup: {stage} starts at {:.1} s ({total} items)",
                (now - self.start).as_secs_f64()
            );
        }
        st.1 += done;
        if now - st.2 >= Duration::from_secs(15) || st.1 >= total {
            st.2 = now;
            eprintln!(
                "setup: {stage} {}/{total} ({:.0} %) at {:.1} s",
                st.1,
                100.0 * st.1 as f64 / total.max(1) as f64,
                (now - self.start).as_secs_f64()
            );
        }
    }
}

/// Writes `<path>` (.params) and its `.vk` as filecoin-proofs expects them.
fn write_params(path: &Path, params: &Parameters) -> Result<()> {
    // The key first: a .params without its .vk is treated as unfinished.
    write_file(&path.with_extension("vk"), &params.vk.to_bytes())?;
    let tmp = path.with_extension("partial");
    let file = std::fs::File::create(&tmp).map_err(|e| FilecoinError::file(&tmp, e))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    params.write(&mut w)?;
    std::io::Write::flush(&mut w).map_err(|e| FilecoinError::file(&tmp, e))?;
    drop(w);
    std::fs::rename(&tmp, path).map_err(|e| FilecoinError::file(path, e))
}

#[cfg(feature = "cuda")]
fn setup_gpu(
    record: &CompiledR1cs,
    toxic: &cuzk_groth16::ToxicWaste,
    progress: cuzk_groth16::setup::Progress<'_>,
) -> Result<cuzk_groth16::Parameters> {
    Ok(cuzk_groth16::parameters_from_record_gpu(
        record,
        toxic,
        Some(progress),
        0,
    )?)
}

#[cfg(not(feature = "cuda"))]
fn setup_gpu(
    _record: &CompiledR1cs,
    _toxic: &cuzk_groth16::ToxicWaste,
    _progress: cuzk_groth16::setup::Progress<'_>,
) -> Result<cuzk_groth16::Parameters> {
    Err(FilecoinError::Unsupported(
        "the GPU parameter generator needs a cuzk built with the `cuda` feature".into(),
    ))
}

/// The public facts of a sealed test sector, stored beside its C1 output.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SectorMeta {
    /// filecoin-proofs-api name of the proof type.
    pub registered_proof: String,
    /// Sector size in bytes.
    pub sector_size: u64,
    /// Prover id, 64 hex digits.
    pub prover_id: String,
    /// Sector number.
    pub sector_id: u64,
    /// comm_r, hex.
    pub comm_r: String,
    /// comm_d, hex.
    pub comm_d: String,
}

impl SectorMeta {
    /// The prover id as bytes.
    pub fn prover_id_bytes(&self) -> Result<[u8; 32]> {
        cuzk_filecoin::c1::parse_prover_id(&self.prover_id)
    }
}

/// A sealed test sector: its C1 output and facts.
#[derive(Clone, Debug)]
pub struct TestSector {
    /// The C1 output (filecoin-proofs-api JSON, as Lotus/Curio store it).
    pub c1_path: PathBuf,
    /// The facts.
    pub meta: SectorMeta,
    /// Time spent sealing (zero when found in the cache).
    pub elapsed: Duration,
}

/// Seals a test sector of `kind` with filecoin-proofs (random data, prover
/// id, sector id, ticket and seed from `seed`) and writes its C1 output to
/// `out_dir/c1.json` with `out_dir/meta.json`. Needs no parameters.
pub fn seal_test_sector(kind: &SealProofKind, out_dir: &Path, seed: u64) -> Result<TestSector> {
    let t = Instant::now();
    std::fs::create_dir_all(out_dir).map_err(|e| FilecoinError::file(out_dir, e))?;
    let config = kind.porep_config()?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut prover_id = [0u8; 32];
    rng.fill_bytes(&mut prover_id[..31]); // a valid field element, like real ids
    let sector_id: u64 = rng.gen_range(1..1 << 40);
    let (c1_json, public) = with_tree!(
        kind.sector_size,
        seal_tree(kind, &config, out_dir, prover_id, sector_id, &mut rng)
    )?;
    let c1_path = out_dir.join("c1.json");
    write_file(&c1_path, c1_json.as_bytes())?;
    let meta = SectorMeta {
        registered_proof: kind.api_name(),
        sector_size: kind.sector_size,
        prover_id: to_hex(&prover_id),
        sector_id,
        comm_r: to_hex(&public.comm_r),
        comm_d: to_hex(&public.comm_d),
    };
    let meta_json = serde_json::to_string_pretty(&meta).expect("plain struct");
    write_file(&out_dir.join("meta.json"), meta_json.as_bytes())?;
    Ok(TestSector {
        c1_path,
        meta,
        elapsed: t.elapsed(),
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    // Write then rename, so an interrupted run never leaves half a file
    // that a later run would take for a cached one.
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes).map_err(|e| FilecoinError::file(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| FilecoinError::file(path, e))
}

/// Pre-commit phases 1 and 2 of a sector of random data in `dir`
/// (`dir/cache`, `dir/sealed`); the ticket and seed are drawn from `rng`.
#[allow(clippy::type_complexity)]
fn pre_commit<Tree: 'static + MerkleTreeTrait>(
    kind: &SealProofKind,
    config: &PoRepConfig,
    dir: &Path,
    prover_id: [u8; 32],
    sector_id: u64,
    rng: &mut ChaCha20Rng,
) -> Result<(SealPreCommitOutput, [PieceInfo; 1], [u8; 32], [u8; 32])> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| FilecoinError::file(p, e)
    };
    let cache_dir = dir.join("cache");
    std::fs::create_dir_all(&cache_dir).map_err(io(&cache_dir))?;
    let staged = dir.join("staged");
    let sealed = dir.join("sealed");
    std::fs::File::create(&sealed).map_err(io(&sealed))?;

    let piece_size = UnpaddedBytesAmount::from(PaddedBytesAmount(kind.sector_size));
    let mut data = vec![0u8; u64::from(piece_size) as usize];
    rng.fill_bytes(&mut data);
    let piece_info =
        generate_piece_commitment(&data[..], piece_size).map_err(FilecoinError::Proofs)?;
    let staged_file = std::fs::File::create(&staged).map_err(io(&staged))?;
    add_piece(&data[..], staged_file, piece_size, &[]).map_err(FilecoinError::Proofs)?;
    let pieces = [piece_info];

    let mut ticket = [0u8; 32];
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut ticket);
    rng.fill_bytes(&mut seed);
    let p1 = seal_pre_commit_phase1::<_, _, _, Tree>(
        config,
        &cache_dir,
        &staged,
        &sealed,
        prover_id,
        sector_id.into(),
        ticket,
        &pieces,
    )
    .map_err(FilecoinError::Proofs)?;
    let pre =
        seal_pre_commit_phase2(config, p1, &cache_dir, &sealed).map_err(FilecoinError::Proofs)?;
    Ok((pre, pieces, ticket, seed))
}

fn seal_tree<Tree: 'static + MerkleTreeTrait>(
    kind: &SealProofKind,
    config: &PoRepConfig,
    out_dir: &Path,
    prover_id: [u8; 32],
    sector_id: u64,
    rng: &mut ChaCha20Rng,
) -> Result<(String, C1Public)> {
    let work = tempfile::Builder::new()
        .prefix("seal-")
        .tempdir_in(out_dir)
        .map_err(|e| FilecoinError::file(out_dir, e))?;
    let (pre, pieces, ticket, seed) =
        pre_commit::<Tree>(kind, config, work.path(), prover_id, sector_id, rng)?;
    let (cache_dir, sealed) = (work.path().join("cache"), work.path().join("sealed"));
    let c1: SealCommitPhase1Output<Tree> = seal_commit_phase1(
        config,
        &cache_dir,
        &sealed,
        prover_id,
        sector_id.into(),
        ticket,
        seed,
        pre,
        &pieces,
    )
    .map_err(FilecoinError::Proofs)?;
    let public = C1Public {
        comm_r: c1.comm_r,
        comm_d: c1.comm_d,
        ticket: c1.ticket,
        seed: c1.seed,
    };
    Ok((api_json(kind, &c1)?, public))
}

/// Serializes a C1 output the way filecoin-proofs-api does (the form Lotus
/// and Curio store): `registered_proof` added, vanilla proofs tagged.
pub fn api_json<Tree: 'static + MerkleTreeTrait>(
    kind: &SealProofKind,
    c1: &SealCommitPhase1Output<Tree>,
) -> Result<String> {
    let mut v = serde_json::to_value(c1).map_err(|e| FilecoinError::Proofs(e.into()))?;
    let obj = v.as_object_mut().expect("a struct serializes to an object");
    let vanilla = obj.remove("vanilla_proofs").expect("field present");
    obj.insert(
        "vanilla_proofs".into(),
        serde_json::json!({ kind.vanilla_tag(): vanilla }),
    );
    obj.insert(
        "registered_proof".into(),
        serde_json::Value::String(kind.api_name()),
    );
    serde_json::to_string(&v).map_err(|e| FilecoinError::Proofs(e.into()))
}

/// Test data for one proof type: parameters generated if missing, a sector
/// sealed if none is cached.
#[derive(Clone, Debug)]
pub struct TestData {
    /// The cache directories.
    pub dirs: TestDirs,
    /// The parameters.
    pub params: ParamsReport,
    /// The sealed sector.
    pub sector: TestSector,
}

/// Everything [`cuzk_filecoin::prove_c2`] and [`cuzk_filecoin::verify_c2`] need for `kind`,
/// from the cache when possible. Calls [`init_env`] with [`testdata_root`].
pub fn ensure_testdata(kind: &SealProofKind) -> Result<TestData> {
    ensure_testdata_with(kind, ParamsGenerator::FilecoinProofs)
}

/// [`ensure_testdata`] with a choice of parameter generator.
pub fn ensure_testdata_with(kind: &SealProofKind, generator: ParamsGenerator) -> Result<TestData> {
    let dirs = init_env(&testdata_root())?;
    let params = ensure_params_with(kind, &dirs, PARAMS_SEED, generator)?;
    if kind.aggregated() {
        ensure_srs(&dirs)?;
    }
    let sector = test_sector(kind, &dirs, false)?;
    Ok(TestData {
        dirs,
        params,
        sector,
    })
}

/// Seed of the toxic waste of generated test parameters.
pub const PARAMS_SEED: u64 = 0x5eed_c0de;

/// Seed of the test SnarkPack SRS ([`ensure_srs`]).
pub const SRS_SEED: u64 = 0x5eed_a66e;

/// Proofs a test SRS can aggregate: 2 KiB non-interactive PoRep's 13
/// partitions pad to 16; aggregation tests go to 1024.
pub const TEST_SRS_PROOFS: usize = 1024;

/// Makes sure an inner-product SRS is in `dirs.params` under the name
/// filecoin-proofs reads (`v28-fil-inner-product-v1.srs`), generating a
/// TEST one if there is none: bellperson's `setup_fake_srs` from
/// [`SRS_SEED`], its secrets known, for [`TEST_SRS_PROOFS`] proofs. Never
/// for production, where the file comes from the trusted setup. Returns
/// the path and whether it was generated now.
pub fn ensure_srs(dirs: &TestDirs) -> Result<(PathBuf, bool)> {
    let path = dirs.params.join(cuzk_filecoin::params::srs_file_name());
    if path.is_file() {
        return Ok((path, false));
    }
    let mut rng = ChaCha20Rng::seed_from_u64(SRS_SEED);
    let srs = bellperson::groth16::aggregate::setup_fake_srs::<blstrs::Bls12, _>(
        &mut rng,
        TEST_SRS_PROOFS,
    );
    let mut bytes = Vec::new();
    srs.write(&mut bytes)
        .map_err(|e| FilecoinError::file(&path, e))?;
    write_file(&path, &bytes)?;
    Ok((path, true))
}

/// The cached test sector of `kind` under `dirs.root/sectors/<size>`,
/// sealed now if there is none (or if `reseal`).
pub fn test_sector(kind: &SealProofKind, dirs: &TestDirs, reseal: bool) -> Result<TestSector> {
    // V1_1 under the bare size; other versions each under their own name,
    // so tests of two versions never reseal each other's sector.
    let name = match kind.version {
        SealVersion::V1_1 => format_size(kind.sector_size),
        _ => kind.api_name(),
    };
    let dir = dirs.root.join("sectors").join(name);
    match load_sector(&dir) {
        Some(s) if !reseal && s.meta.registered_proof == kind.api_name() => Ok(s),
        _ => seal_test_sector(kind, &dir, 0xc1c1),
    }
}

fn load_sector(dir: &Path) -> Option<TestSector> {
    let c1_path = dir.join("c1.json");
    let meta: SectorMeta =
        serde_json::from_slice(&std::fs::read(dir.join("meta.json")).ok()?).ok()?;
    c1_path.is_file().then_some(TestSector {
        c1_path,
        meta,
        elapsed: Duration::ZERO,
    })
}

/// Reads and parses a cached sector's C1 output.
pub fn read_c1(sector: &TestSector) -> Result<C1Output> {
    let bytes =
        std::fs::read(&sector.c1_path).map_err(|e| FilecoinError::file(&sector.c1_path, e))?;
    parse_c1(&bytes, Some(sector.meta.sector_size))
}

/// filecoin-proofs' own C2 (`seal_commit_phase2`, bellperson's CPU prover)
/// on the same C1 output: the reference cuzk is compared against. Needs
/// [`init_env`] (or [`use_param_dir`]) first.
pub fn reference_c2(c1: &C1Output, prover_id: [u8; 32], sector_id: u64) -> Result<Vec<u8>> {
    let config = c1.kind.porep_config()?;
    with_tree!(
        c1.kind.sector_size,
        reference_tree(c1, &config, prover_id, sector_id)
    )
}

fn reference_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &PoRepConfig,
    prover_id: [u8; 32],
    sector_id: u64,
) -> Result<Vec<u8>> {
    let out: SealCommitPhase1Output<Tree> =
        serde_json::from_value(c1.body.clone()).map_err(|e| FilecoinError::BadC1(e.to_string()))?;
    Ok(seal_commit_phase2(config, out, prover_id, sector_id.into())
        .map_err(FilecoinError::Proofs)?
        .proof)
}

/// `path` (and its `.vk`) if both are there and the file's header reads,
/// else made by `generate` (which writes both through [`write_params`]).
fn ensure_blank_params(
    path: &Path,
    generate: impl FnOnce(&Path) -> Result<()>,
) -> Result<ParamsReport> {
    let t = Instant::now();
    let path = path.to_path_buf();
    let vk = path.with_extension("vk");
    if path.is_file() && vk.is_file() && Parameters::inspect(&path).is_ok() {
        return Ok(ParamsReport {
            path,
            generated: false,
            elapsed: t.elapsed(),
        });
    }
    generate(&path)?;
    Parameters::inspect(&path)?;
    Ok(ParamsReport {
        path,
        generated: true,
        elapsed: t.elapsed(),
    })
}
