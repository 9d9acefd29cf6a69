//! Handlers of the `cuzk` subcommands that need the Filecoin stack:
//! `cuzk prove porep`, `cuzk verify porep` and `cuzk testdata porep`. The
//! `cuzk` binary owns the command tree and flattens these `Args` into it;
//! each `run_*` prints a short human summary on stdout and returns a typed
//! error (the binary turns it into a message and a non-zero exit).

use crate::c1::{
    format_size, parse_c1, parse_prover_id, parse_size, C1Output, SealProofKind, SealVersion,
};
use crate::error::{FilecoinError, Result};
use crate::porep::{prove_c2, resolve_param_dir, verify_c2, C2Options};
use crate::testdata;
use clap::Args;
use cuzk_groth16::Backend;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `cuzk prove porep`: C1 output → C2 proof.
#[derive(Args, Debug, Clone)]
pub struct ProvePorepArgs {
    /// The C1 output: filecoin-proofs JSON, filecoin-proofs-api JSON (as
    /// Lotus/Curio store it) or Curio's {"SectorNum","Phase1Out","SectorSize"}.
    #[arg(long, value_name = "FILE")]
    pub c1: PathBuf,
    /// Prover id: a miner id (f01000) or 64 hex digits.
    #[arg(long)]
    pub prover_id: String,
    /// Sector number (default: the Curio wrapper's SectorNum).
    #[arg(long)]
    pub sector_id: Option<u64>,
    /// Sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB); needed only when the
    /// C1 output does not name its proof type, checked when it does.
    #[arg(long)]
    pub sector_size: Option<String>,
    /// Directory of the v28 .params/.vk files (default: the config's
    /// param_cache, else FIL_PROOFS_PARAMETER_CACHE, else
    /// /var/tmp/filecoin-proof-parameters).
    #[arg(long, value_name = "DIR")]
    pub param_cache: Option<PathBuf>,
    /// Where to write the proof (raw bytes, 192 per partition).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Skip the final check through filecoin-proofs' verify_seal (cuzk
    /// still verifies every partition proof before writing it).
    #[arg(long)]
    pub no_verify: bool,
    /// Partitions synthesized at once (default: as many as fit in 16 GiB).
    #[arg(long)]
    pub partition_batch: Option<usize>,
}

/// `cuzk verify porep`: checks a C2 proof with filecoin-proofs' verifier.
#[derive(Args, Debug, Clone)]
pub struct VerifyPorepArgs {
    /// The C1 output the proof was made from (for comm_r, comm_d, ticket,
    /// seed and the proof type).
    #[arg(long, value_name = "FILE")]
    pub c1: PathBuf,
    /// The proof file.
    #[arg(long, value_name = "FILE")]
    pub proof: PathBuf,
    /// Prover id: a miner id (f01000) or 64 hex digits.
    #[arg(long)]
    pub prover_id: String,
    /// Sector number (default: the Curio wrapper's SectorNum).
    #[arg(long)]
    pub sector_id: Option<u64>,
    /// Sector size, as for `prove porep`.
    #[arg(long)]
    pub sector_size: Option<String>,
    /// Directory of the .vk files (same default as `prove porep`).
    #[arg(long, value_name = "DIR")]
    pub param_cache: Option<PathBuf>,
}

/// `cuzk testdata porep`: parameters and a sealed sector for a test size.
#[derive(Args, Debug, Clone)]
pub struct TestdataPorepArgs {
    /// Test sector size: 2KiB, 8MiB or 512MiB.
    #[arg(long, default_value = "2KiB")]
    pub sector_size: String,
    /// Cache root (default: $CUZK_TESTDATA_DIR, else ~/.cache/cuzk/filecoin).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Seal a new sector even if one is cached.
    #[arg(long)]
    pub reseal: bool,
    /// Who generates missing parameters: filecoin-proofs (bellperson, the
    /// independent reference) or cuzk's own setup (same file format).
    #[arg(long, value_enum, default_value_t = GeneratorChoice::FilecoinProofs)]
    pub generator: GeneratorChoice,
}

/// `--generator` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GeneratorChoice {
    /// filecoin-proofs' generator (bellperson), as its paramcache tool.
    #[default]
    FilecoinProofs,
    /// cuzk-groth16's setup.
    Cuzk,
}

impl From<GeneratorChoice> for testdata::ParamsGenerator {
    fn from(g: GeneratorChoice) -> Self {
        match g {
            GeneratorChoice::FilecoinProofs => Self::FilecoinProofs,
            GeneratorChoice::Cuzk => Self::Cuzk,
        }
    }
}

fn read_c1(path: &Path, size: Option<&str>) -> Result<C1Output> {
    let declared = size.map(parse_size).transpose()?;
    let bytes = std::fs::read(path).map_err(|e| FilecoinError::file(path, e))?;
    parse_c1(&bytes, declared)
}

fn sector_id(flag: Option<u64>, c1: &C1Output) -> Result<u64> {
    match (flag, c1.sector_num) {
        (Some(a), Some(b)) if a != b => Err(FilecoinError::BadC1(format!(
            "--sector-id {a} but the C1 wrapper says SectorNum {b}"
        ))),
        (Some(a), _) | (None, Some(a)) => Ok(a),
        (None, None) => Err(FilecoinError::BadC1(
            "no sector id: give --sector-id".into(),
        )),
    }
}

/// Runs `cuzk prove porep`. `config_param_cache` is the configuration
/// file's `param_cache`, if any; `backend` the engine to prove with.
pub fn run_prove(
    args: &ProvePorepArgs,
    config_param_cache: Option<&Path>,
    backend: &dyn Backend,
) -> Result<()> {
    let t = Instant::now();
    let c1 = read_c1(&args.c1, args.sector_size.as_deref())?;
    let prover_id = parse_prover_id(&args.prover_id)?;
    let sector = sector_id(args.sector_id, &c1)?;
    let param_dir = resolve_param_dir(args.param_cache.as_deref(), config_param_cache);
    let mut opts = C2Options::new(param_dir.clone(), backend);
    opts.partition_batch = args.partition_batch;
    let out = prove_c2(&c1, &opts)?;
    if !args.no_verify
        && !verify_c2(
            &c1.kind, &c1.public, prover_id, sector, &out.proof, &param_dir,
        )?
    {
        return Err(FilecoinError::Proofs(anyhow::anyhow!(
            "filecoin-proofs' verify_seal rejected the proof (check --prover-id and --sector-id)"
        )));
    }
    std::fs::write(&args.out, &out.proof).map_err(|e| FilecoinError::file(&args.out, e))?;
    println!(
        "{}: {} partition(s) of {} constraints, {} bytes -> {} in {:.1?}{}",
        c1.kind.api_name(),
        out.partitions,
        out.shape.num_constraints,
        out.proof.len(),
        args.out.display(),
        t.elapsed(),
        if args.no_verify {
            ""
        } else {
            " (verify_seal: ok)"
        }
    );
    for (stage, d) in out.timings.stages() {
        println!("  {stage:<16} {d:>10.2?}");
    }
    Ok(())
}

/// Runs `cuzk verify porep`; `Ok(false)` means the proof is invalid (the
/// binary should exit non-zero), errors mean it could not be checked.
pub fn run_verify(args: &VerifyPorepArgs, config_param_cache: Option<&Path>) -> Result<bool> {
    let c1 = read_c1(&args.c1, args.sector_size.as_deref())?;
    let prover_id = parse_prover_id(&args.prover_id)?;
    let sector = sector_id(args.sector_id, &c1)?;
    let param_dir = resolve_param_dir(args.param_cache.as_deref(), config_param_cache);
    let proof = std::fs::read(&args.proof).map_err(|e| FilecoinError::file(&args.proof, e))?;
    let ok = verify_c2(&c1.kind, &c1.public, prover_id, sector, &proof, &param_dir)?;
    println!(
        "{}: proof {}",
        c1.kind.api_name(),
        if ok { "valid" } else { "INVALID" }
    );
    Ok(ok)
}

/// Runs `cuzk testdata porep`: generates (once) the parameters of a test
/// sector size and seals a sector, then prints the ready-made commands.
pub fn run_testdata(args: &TestdataPorepArgs) -> Result<()> {
    let size = parse_size(&args.sector_size)?;
    if size > 1 << 29 {
        return Err(FilecoinError::SectorSize(format!(
            "{}: test data is for 2KiB, 8MiB and 512MiB (larger sectors need the real parameters)",
            format_size(size)
        )));
    }
    let kind = SealProofKind::new(size, SealVersion::V1_1)?;
    let root = args.dir.clone().unwrap_or_else(testdata::testdata_root);
    let dirs = testdata::init_env(&root)?;
    eprintln!(
        "parameters for {} (generated once per machine; 2KiB takes ~15 min)...",
        kind.api_name()
    );
    let params =
        testdata::ensure_params_with(&kind, &dirs, testdata::PARAMS_SEED, args.generator.into())?;
    let sector = testdata::test_sector(&kind, &dirs, args.reseal)?;
    println!(
        "params  {} ({}, {:.1?})",
        params.path.display(),
        if params.generated {
            "generated"
        } else {
            "cached"
        },
        params.elapsed
    );
    println!(
        "c1      {} (sealed in {:.1?})",
        sector.c1_path.display(),
        sector.elapsed
    );
    println!("prover  {}", sector.meta.prover_id);
    println!("sector  {}", sector.meta.sector_id);
    println!("comm_r  {}", sector.meta.comm_r);
    println!(
        "run:    cuzk prove porep --c1 {} --prover-id {} --sector-id {} --param-cache {} --out /tmp/c2.proof",
        sector.c1_path.display(),
        sector.meta.prover_id,
        sector.meta.sector_id,
        dirs.params.display()
    );
    Ok(())
}
