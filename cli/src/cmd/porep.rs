//! `cuzk prove porep`, `cuzk verify porep` and `cuzk testdata porep`: the
//! command glue over `cuzk-filecoin` (which stays a library of circuits,
//! C2 and test data). Each `run_*` prints a short human summary on stdout
//! and returns `cuzk-filecoin`'s typed error (the binary turns it into a
//! message and a non-zero exit).

use crate::params::ParamArgs;
use clap::Args;
use cuzk_filecoin::c1::{
    format_size, parse_c1, parse_prover_id, parse_size, C1Output, SealProofKind, SealVersion,
};
use cuzk_filecoin::compiled::{default_r1cs_dir, R1csCache, R1csReport};
use cuzk_filecoin::porep::{finish_c2, porep_job, verify_c2};
use cuzk_filecoin::{FilecoinError, PostProofKind, ProofKind, Result, SnapProofKind};
use cuzk_filecoin_tools::testdata;
use cuzk_scheduler::params::ParamFiles;
use cuzk_scheduler::{Engine, JobHandle, JobSpec};
use cuzk_synth::compiled::CompiledR1cs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// How partitions are synthesized.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynthesisChoice {
    /// The proof type's circuit recorded once (kept on disk), then each
    /// partition runs only its value closures and an SpMV.
    Compiled,
    /// Every partition runs the whole circuit (the reference).
    Classic,
}

/// The synthesis flags `prove` and `bench` share for every Filecoin proof.
#[derive(Args, Debug, Clone)]
pub struct SynthesisArgs {
    /// Synthesis path; both give the same proofs.
    #[arg(long, value_enum, default_value_t = SynthesisChoice::Compiled)]
    pub synthesis: SynthesisChoice,
    /// Folder of recorded circuits (default: $CUZK_R1CS_CACHE, else
    /// ~/.cache/cuzk/r1cs). The first run of a proof type records it
    /// there (about one partition's classic synthesis).
    #[arg(long, value_name = "DIR")]
    pub r1cs_cache: Option<PathBuf>,
    /// With `--synthesis compiled`, how the witness is made: "native"
    /// (cuzk's generators), "generic" (the circuit's code, witness-only) or
    /// "check" (both, compared value for value). Default: the config's
    /// `[synthesis.witness]`, else native.
    #[arg(long, value_name = "MODE")]
    pub witness: Option<cuzk_filecoin::WitnessGen>,
}

impl SynthesisArgs {
    /// `--witness`, else `configured` (the config file's for the kind).
    pub fn witness(&self, configured: cuzk_filecoin::WitnessGen) -> cuzk_filecoin::WitnessGen {
        self.witness.unwrap_or(configured)
    }
}

/// The recorded circuits of a run (`--synthesis compiled`), or none.
pub struct Recorded(Option<R1csCache>);

impl Recorded {
    /// Nothing recorded with `--synthesis classic`.
    pub fn new(args: &SynthesisArgs) -> Self {
        Self(
            (args.synthesis == SynthesisChoice::Compiled)
                .then(|| R1csCache::new(args.r1cs_cache.clone().unwrap_or_else(default_r1cs_dir))),
        )
    }

    /// PoRep `kind`'s recorded circuit (loaded or recorded on first use,
    /// held in `engine`'s budget; says which on stdout), or `None` for the
    /// classic synthesis.
    pub fn get(&self, kind: &SealProofKind, engine: &Engine) -> Result<Option<Arc<CompiledR1cs>>> {
        self.0
            .as_ref()
            .map(|c| c.porep(kind, Some(engine)).map(said))
            .transpose()
    }

    /// [`Recorded::get`] for a WinningPoSt or WindowPoSt proof type.
    pub fn post(&self, kind: &PostProofKind, engine: &Engine) -> Result<Option<Arc<CompiledR1cs>>> {
        self.0
            .as_ref()
            .map(|c| c.post(kind, Some(engine)).map(said))
            .transpose()
    }

    /// [`Recorded::get`] for a SnapDeals proof type.
    pub fn snap(&self, kind: &SnapProofKind, engine: &Engine) -> Result<Option<Arc<CompiledR1cs>>> {
        self.0
            .as_ref()
            .map(|c| c.snap(kind, Some(engine)).map(said))
            .transpose()
    }
}

/// Prints how a record was obtained (a load or a recording; nothing for a
/// hit in memory).
fn said((r, report): (Arc<CompiledR1cs>, Option<R1csReport>)) -> Arc<CompiledR1cs> {
    if let Some(rep) = report {
        let size = r.size();
        println!(
            "recorded circuit {}: {} in {:.1} s ({:.2} GB, {} non-zeros){}",
            rep.path.display(),
            if rep.recorded { "recorded" } else { "loaded" },
            rep.elapsed.as_secs_f64(),
            size.compressed_bytes() as f64 / 1e9,
            size.nonzeros(),
            rep.replaced
                .map(|why| format!("; replaced a stale file: {why}"))
                .unwrap_or_default()
        );
    }
    r
}

/// Who proves which sector, and where the parameters are: the flags
/// `prove porep` and `verify porep` share.
#[derive(Args, Debug, Clone)]
pub struct SectorArgs {
    /// Prover id: a miner id (f01000) or 64 hex digits.
    #[arg(long)]
    pub prover_id: String,
    /// Sector number (default: the Curio wrapper's SectorNum; with several
    /// C1 files, for those without one).
    #[arg(long)]
    pub sector_id: Option<u64>,
    /// Sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB); needed only when the
    /// C1 output does not name its proof type, checked when it does.
    #[arg(long)]
    pub sector_size: Option<String>,
    #[command(flatten)]
    pub params: ParamArgs,
}

/// `cuzk prove porep`: C1 output → C2 proof.
#[derive(Args, Debug, Clone)]
pub struct ProvePorepArgs {
    /// The C1 output: filecoin-proofs JSON, filecoin-proofs-api JSON (as
    /// Lotus/Curio store it) or Curio's {"SectorNum","Phase1Out","SectorSize"}.
    /// Repeat it (or name a folder of `.json` files) to prove several
    /// sectors in one pipelined run; each fails or succeeds on its own.
    #[arg(long, value_name = "FILE|DIR", required = true)]
    pub c1: Vec<PathBuf>,
    #[command(flatten)]
    pub sector: SectorArgs,
    /// Where to write the proof (raw bytes, 192 per partition); with
    /// several C1 outputs, a folder that receives `<c1 name>.proof` each.
    #[arg(long, value_name = "FILE|DIR")]
    pub out: PathBuf,
    /// Skip the final check through filecoin-proofs' verify_seal (cuzk
    /// still verifies every partition proof before writing it).
    #[arg(long)]
    pub no_verify: bool,
    #[command(flatten)]
    pub synthesis: SynthesisArgs,
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
    #[command(flatten)]
    pub sector: SectorArgs,
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
    /// Only make the parameters (no sealed sector): the way to get 32 GiB
    /// and 64 GiB test parameters for `cuzk bench porep`
    /// (`--generator cuzk-gpu`; ~47 GB for 32 GiB).
    #[arg(long)]
    pub params_only: bool,
    /// Non-interactive PoRep (StackedDrg…V1_2_Feat_NonInteractivePoRep):
    /// the sector is sealed for it, and a TEST SnarkPack SRS (seeded, not
    /// for production) is written beside the parameters, which are the
    /// interactive ones.
    #[arg(long)]
    pub ni: bool,
}

/// How `cuzk testdata winning-post|window-post|snap` makes what is missing.
#[derive(clap::Args, Debug, Clone)]
pub struct BlankParamsArgs {
    /// Cache root (default: $CUZK_TESTDATA_DIR, else ~/.cache/cuzk/filecoin).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Who generates missing parameters: cuzk's setup, on the CPU or with
    /// its fixed-base work on GPU 0 (filecoin-proofs' generator is wired
    /// for PoRep only).
    #[arg(long, value_enum, default_value_t = GeneratorChoice::Cuzk)]
    pub generator: GeneratorChoice,
    /// Only make the parameters (no sealed sectors, no vanilla proofs):
    /// the way to get 32 GiB and 64 GiB parameters for `cuzk bench
    /// winning-post|window-post|snap` (`--generator cuzk-gpu`).
    #[arg(long)]
    pub params_only: bool,
}

impl BlankParamsArgs {
    /// The test folders under `--dir` (or the default root).
    pub fn dirs(&self) -> Result<testdata::TestDirs> {
        let root = self.dir.clone().unwrap_or_else(testdata::testdata_root);
        testdata::init_env(&root)
    }

    /// Prints where the parameters are; with `--params-only`, `true`: the
    /// command is done.
    pub fn report(&self, p: &testdata::ParamsReport) -> bool {
        println!(
            "parameters: {} ({}, {:.1} s)",
            p.path.display(),
            if p.generated { "generated" } else { "cached" },
            p.elapsed.as_secs_f64()
        );
        self.params_only
    }
}

/// The output path `what` (required without `--params-only`).
pub fn out_path<'a>(p: &'a Option<PathBuf>, what: &str) -> Result<&'a Path> {
    p.as_deref().ok_or_else(|| {
        FilecoinError::Unsupported(format!("{what} is required (unless --params-only)"))
    })
}

/// `--generator` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GeneratorChoice {
    /// filecoin-proofs' generator (bellperson), as its paramcache tool.
    #[default]
    FilecoinProofs,
    /// cuzk-groth16's setup.
    Cuzk,
    /// cuzk-groth16's setup with the fixed-base work on GPU 0.
    CuzkGpu,
}

impl From<GeneratorChoice> for testdata::ParamsGenerator {
    fn from(g: GeneratorChoice) -> Self {
        match g {
            GeneratorChoice::FilecoinProofs => Self::FilecoinProofs,
            GeneratorChoice::Cuzk => Self::Cuzk,
            GeneratorChoice::CuzkGpu => Self::CuzkGpu,
        }
    }
}

fn read_c1(path: &Path, size: Option<&str>) -> Result<C1Output> {
    let declared = size.map(parse_size).transpose()?;
    let bytes = super::post::read(path, crate::cmd::limits::C1_FILE_LIMIT, "a C1 output")?;
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

/// The C1 files named by `--c1`: files as given, folders expanded to
/// their `.json` files in name order.
fn c1_files(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in args {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| FilecoinError::file(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "json"))
                .collect();
            v.sort();
            if v.is_empty() {
                return Err(FilecoinError::BadC1(format!(
                    "{}: no .json C1 files in this folder",
                    p.display()
                )));
            }
            out.extend(v);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// One sector of a `prove porep` run.
struct Sector {
    c1_path: PathBuf,
    out: PathBuf,
    c1: C1Output,
    sector: u64,
    handle: JobHandle,
}

/// Runs `cuzk prove porep` on `engine`: every C1 becomes one job, all are
/// submitted at once (so partitions of several sectors are pipelined),
/// each proof is checked with `verify_seal` before it is written. A C1
/// that is malformed or whose proof fails ends with an error line of its
/// own; the others finish. `config_param_cache` is the configuration
/// file's `param_cache`, if any.
pub fn run_prove(
    args: &ProvePorepArgs,
    config_param_cache: Option<&Path>,
    witness: cuzk_filecoin::WitnessGen,
    engine: &Engine,
) -> Result<()> {
    let t = Instant::now();
    let witness = args.synthesis.witness(witness);
    let prover_id = parse_prover_id(&args.sector.prover_id)?;
    let param_dir = args
        .sector
        .params
        .dir(config_param_cache, ParamFiles::Filecoin);
    let files = c1_files(&args.c1)?;
    let many = files.len() > 1;
    if many {
        std::fs::create_dir_all(&args.out).map_err(|e| FilecoinError::file(&args.out, e))?;
    }
    let recorded = Recorded::new(&args.synthesis);
    let mut failures = Vec::new();
    let mut sectors = Vec::new();
    for path in &files {
        let submit = || -> Result<Sector> {
            let c1 = read_c1(path, args.sector.sector_size.as_deref())?;
            let sector = sector_id(args.sector.sector_id, &c1)?;
            // Missing parameters (and a non-interactive PoRep's SRS) are
            // reported before a first recording.
            cuzk_filecoin::locate(&param_dir, c1.kind)?;
            if c1.kind.aggregated() {
                cuzk_filecoin::check_srs(&param_dir, &c1.kind, 1)?;
            }
            let r1cs = recorded.get(&c1.kind, engine)?;
            let job = porep_job(&c1, &param_dir, true, r1cs.as_ref(), witness)?;
            let t0 = Instant::now();
            let info = engine.load_circuit(
                &job.circuit_id,
                &job.params_path,
                cuzk_groth16::CheckMode::Trusted,
                &|_, _| {},
            )?;
            if t0.elapsed().as_secs_f64() > 0.5 {
                println!(
                    "parameters {}: loaded once in {:.1} s, host keeps {:.1} GiB",
                    job.params_path.display(),
                    info.load_s,
                    info.host_bytes as f64 / (1u64 << 30) as f64
                );
            }
            let handle = engine.submit_blocking(JobSpec::new(job.circuit_id, job.source))?;
            let out = if many {
                let stem = path.file_stem().unwrap_or_default().to_string_lossy();
                args.out.join(format!("{stem}.proof"))
            } else {
                args.out.clone()
            };
            Ok(Sector {
                c1_path: path.clone(),
                out,
                c1,
                sector,
                handle,
            })
        };
        match submit() {
            Ok(s) => sectors.push(s),
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                failures.push((path.clone(), e));
            }
        }
    }
    for s in sectors {
        let finish = || -> Result<()> {
            let out = s.handle.wait()?;
            let proof = finish_c2(&s.c1, out.proof_bytes(), &param_dir)?;
            if !args.no_verify
                && !verify_c2(
                    &s.c1.kind,
                    &s.c1.public,
                    prover_id,
                    s.sector,
                    &proof,
                    &param_dir,
                )?
            {
                return Err(FilecoinError::Proofs(anyhow::anyhow!(
                    "filecoin-proofs' verify_seal rejected the proof (check --prover-id and --sector-id)"
                )));
            }
            std::fs::write(&s.out, &proof).map_err(|e| FilecoinError::file(&s.out, e))?;
            let gpu: f64 = out.partitions.iter().map(|p| p.gpu.as_secs_f64()).sum();
            let synth: f64 = out
                .partitions
                .iter()
                .map(|p| p.synthesis.as_secs_f64())
                .sum();
            println!(
                "{}: {} sector {}: {} partition(s), {} bytes -> {} at {:.1} s (synthesis {:.1} s, gpu {:.1} s summed){}",
                s.c1_path.display(),
                s.c1.kind.api_name(),
                s.sector,
                out.proofs.len(),
                proof.len(),
                s.out.display(),
                t.elapsed().as_secs_f64(),
                synth,
                gpu,
                if args.no_verify { "" } else { " (verify_seal: ok)" }
            );
            Ok(())
        };
        if let Err(e) = finish() {
            eprintln!("{}: {e}", s.c1_path.display());
            failures.push((s.c1_path.clone(), e));
        }
    }
    match failures.len() {
        0 => Ok(()),
        1 if files.len() == 1 => Err(failures.swap_remove(0).1),
        n => {
            let (path, first) = failures.swap_remove(0);
            Err(FilecoinError::Failed {
                failed: n,
                total: files.len(),
                first: format!("{}: {first}", path.display()),
            })
        }
    }
}

/// Makes sure filecoin-proofs' verifier will read a sound verifying key
/// from `dir`. Left alone, it creates a missing directory, and for a
/// missing `.vk` it extracts one from the `.params` file without checking
/// that file (a truncated one panics inside bellperson) and writes it into
/// the cache; a corrupt `.vk` it reports as missing parameters. Here: the
/// directory must exist; a present `.vk` must decode with full checks; a
/// missing one is extracted from a `.params` file whose structure checks
/// out, its key fully checked, and written atomically.
fn checked_verifying_key(kind: &SealProofKind, dir: &Path) -> Result<()> {
    use cuzk_groth16::{CheckMode, Parameters, VerifyingKey};
    if !dir.is_dir() {
        return Err(FilecoinError::file(
            dir,
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "parameter directory does not exist (--param-cache)",
            ),
        ));
    }
    let params = dir.join(ProofKind::Porep(*kind).params_file_name()?);
    let vk_path = params.with_extension("vk");
    if vk_path.exists() {
        VerifyingKey::load(&vk_path, CheckMode::Full)?;
        return Ok(());
    }
    let params = cuzk_filecoin::locate(dir, *kind)?;
    let info = Parameters::inspect(&params)?;
    // The verifying key is the file's first section.
    let vk_len = 3 * 96 + 3 * 192 + 4 + info.ic * 96;
    let head = {
        use std::io::Read;
        let mut head = Vec::with_capacity(vk_len);
        std::fs::File::open(&params)
            .and_then(|f| f.take(vk_len as u64).read_to_end(&mut head))
            .map_err(|e| FilecoinError::file(&params, e))?;
        head
    };
    let vk = VerifyingKey::from_bytes(&head, CheckMode::Full).map_err(|e| {
        cuzk_groth16::Groth16Error::InFile {
            path: params.clone(),
            source: Box::new(e),
        }
    })?;
    let tmp = cuzk_groth16::params::unique_tmp(&vk_path);
    std::fs::write(&tmp, vk.to_bytes())
        .and_then(|()| std::fs::rename(&tmp, &vk_path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            FilecoinError::file(&vk_path, e)
        })
}

/// Runs `cuzk verify porep`; `Ok(false)` means the proof is invalid (the
/// binary should exit non-zero), errors mean it could not be checked.
pub fn run_verify(args: &VerifyPorepArgs, config_param_cache: Option<&Path>) -> Result<bool> {
    let c1 = read_c1(&args.c1, args.sector.sector_size.as_deref())?;
    let prover_id = parse_prover_id(&args.sector.prover_id)?;
    let sector = sector_id(args.sector.sector_id, &c1)?;
    let param_dir = args
        .sector
        .params
        .dir(config_param_cache, ParamFiles::Filecoin);
    let proof = cuzk_groth16::file::read_capped(
        &args.proof,
        crate::cmd::limits::PROOF_FILE_LIMIT,
        "a proof file",
    )?;
    checked_verifying_key(&c1.kind, &param_dir)?;
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
    if size > 1 << 29 && !args.params_only {
        return Err(FilecoinError::SectorSize(format!(
            "{}: sealed test sectors are for 2KiB, 8MiB and 512MiB; larger sizes: --params-only (parameters for `cuzk bench porep`)",
            format_size(size)
        )));
    }
    let version = if args.ni {
        SealVersion::V1_2NonInteractive
    } else {
        SealVersion::V1_1
    };
    let kind = SealProofKind::new(size, version)?;
    let root = args.dir.clone().unwrap_or_else(testdata::testdata_root);
    let dirs = testdata::init_env(&root)?;
    if kind.aggregated() {
        let (srs, made) = testdata::ensure_srs(&dirs)?;
        println!(
            "srs     {} ({}; TEST: its secrets are known)",
            srs.display(),
            if made { "generated" } else { "cached" }
        );
    }
    // 2 KiB on 2 cores: filecoin-proofs' generator ~15 min, cuzk's setup
    // 2 min 44 s.
    eprintln!(
        "parameters for {} (generated once per machine; 2KiB takes ~{})...",
        kind.api_name(),
        match args.generator {
            GeneratorChoice::FilecoinProofs => "15 min",
            _ => "3 min",
        }
    );
    let params =
        testdata::ensure_params_with(&kind, &dirs, testdata::PARAMS_SEED, args.generator.into())?;
    if args.params_only {
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
        return Ok(());
    }
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

#[cfg(test)]
#[path = "porep_tests.rs"]
mod tests;
