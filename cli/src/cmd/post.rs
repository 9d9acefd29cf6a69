//! `cuzk prove winning-post|window-post` and `cuzk verify
//! winning-post|window-post`: the command glue over `cuzk_filecoin::post`.

use crate::params::ParamArgs;
use clap::Args;
use cuzk_filecoin::c1::{parse_prover_id, parse_size};
use cuzk_filecoin::post::{parse_vanilla_json, post_job, vanilla_sectors};
use cuzk_filecoin::{
    run_job, verify_post, FilecoinError, PostInput, PostProofKind, PostType, PostVersion, Result,
};
use cuzk_scheduler::params::ParamFiles;
use cuzk_scheduler::Engine;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The statement a PoSt proves: proof type, randomness, prover.
#[derive(Args, Debug, Clone)]
pub struct PostArgs {
    /// Sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB).
    #[arg(long, required_unless_present = "proof_type")]
    pub sector_size: Option<String>,
    /// The registered PoSt proof type, e.g. StackedDrgWindow32GiBV1_2
    /// (default: StackedDrgWinning<size>V1, StackedDrgWindow<size>V1_2).
    #[arg(long)]
    pub proof_type: Option<String>,
    /// The challenge randomness: 64 hex digits, a canonical field element.
    #[arg(long)]
    pub randomness: String,
    /// Prover id: a miner id (f01000) or 64 hex digits.
    #[arg(long)]
    pub prover_id: String,
    #[command(flatten)]
    pub params: ParamArgs,
}

/// `cuzk prove winning-post|window-post`.
#[derive(Args, Debug, Clone)]
pub struct ProvePostArgs {
    /// The vanilla proofs: a JSON array of base64 strings (what Go's
    /// json.Marshal([][]byte) writes, as Curio sends them), each one
    /// vanilla proof as filecoin-proofs-api's generate_single_vanilla_proof
    /// returns it (bincode FallbackPoStSectorProof). WinningPoSt: the one
    /// challenged sector's; WindowPoSt: one per sector.
    #[arg(long, value_name = "FILE")]
    pub vanilla: PathBuf,
    #[command(flatten)]
    pub post: PostArgs,
    /// WindowPoSt: prove only this partition (the vanilla proofs are its
    /// sectors), as generate_single_window_post_with_vanilla does.
    #[arg(long)]
    pub partition: Option<usize>,
    /// Where to write the proof (raw bytes, 192 per partition).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub synthesis: super::porep::SynthesisArgs,
}

/// `cuzk verify winning-post|window-post`.
#[derive(Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("set").required(true).args(["sectors", "vanilla"])))]
pub struct VerifyPostArgs {
    /// The proof file.
    #[arg(long, value_name = "FILE")]
    pub proof: PathBuf,
    /// The challenged sectors: a JSON array of {"sector_id": N, "comm_r":
    /// "<64 hex digits>"}.
    #[arg(long, value_name = "FILE")]
    pub sectors: Option<PathBuf>,
    /// Take the challenged sectors from these vanilla proofs instead
    /// (the --vanilla file of `cuzk prove`).
    #[arg(long, value_name = "FILE")]
    pub vanilla: Option<PathBuf>,
    #[command(flatten)]
    pub post: PostArgs,
}

/// The proof type of the flags for `typ`.
fn kind(typ: PostType, a: &PostArgs) -> Result<PostProofKind> {
    let named = a
        .proof_type
        .as_deref()
        .map(PostProofKind::from_api_name)
        .transpose()?;
    let size = a.sector_size.as_deref().map(parse_size).transpose()?;
    match (named, size) {
        (Some(k), _) if k.typ != typ => Err(FilecoinError::Unsupported(format!(
            "--proof-type {} is not a {typ:?}PoSt proof type",
            k.api_name()
        ))),
        (Some(k), Some(s)) if k.sector_size != s => Err(FilecoinError::SectorSize(format!(
            "--sector-size says {s} bytes, --proof-type {}",
            k.api_name()
        ))),
        (Some(k), _) => Ok(k),
        (None, Some(s)) => {
            let version = match typ {
                PostType::Winning => PostVersion::V1,
                PostType::Window => PostVersion::V1_2,
            };
            PostProofKind::new(typ, s, version)
        }
        (None, None) => Err(FilecoinError::SectorSize(
            "give --sector-size or --proof-type".into(),
        )),
    }
}

/// 64 hex digits (an optional `0x`) as 32 bytes; `what` names the flag.
pub(crate) fn hex32(s: &str, what: &'static str) -> Result<[u8; 32]> {
    cuzk_filecoin::c1::parse_hex32(s).ok_or(FilecoinError::NotFieldElement(what))
}

/// Largest vanilla-proofs file read (`--vanilla`): a full 32 GiB
/// WindowPoSt partition (2349 sectors, ~70 KB of vanilla proof each) is
/// ~220 MB as base64 JSON.
pub(crate) const VANILLA_FILE_LIMIT: u64 = 1 << 30;

/// A whole input file of at most `limit` bytes, or a typed error naming it
/// (an I/O error is the Filecoin commands' own `File` error).
pub(crate) fn read(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>> {
    cuzk_groth16::file::read_capped(path, limit, what).map_err(|e| match e {
        cuzk_groth16::Groth16Error::File { path, source } => FilecoinError::File { path, source },
        e => e.into(),
    })
}

fn post_input(typ: PostType, a: &PostArgs, vanilla: &Path) -> Result<PostInput> {
    Ok(PostInput {
        kind: kind(typ, a)?,
        randomness: hex32(&a.randomness, "randomness")?,
        prover_id: parse_prover_id(&a.prover_id)?,
        vanilla_proofs: parse_vanilla_json(&read(vanilla, VANILLA_FILE_LIMIT, "--vanilla")?)?,
        partition: None,
    })
}

/// Runs `cuzk prove winning-post|window-post` on `engine`: one job at the
/// kind's priority; the whole proof is checked with filecoin-proofs'
/// verifier before it is written (a single partition, which filecoin-proofs
/// cannot verify alone, is checked by the engine against the verifier's
/// public inputs).
pub fn run_prove(
    typ: PostType,
    args: &ProvePostArgs,
    config_param_cache: Option<&Path>,
    witness: cuzk_filecoin::WitnessGen,
    engine: &Engine,
) -> Result<()> {
    let t = Instant::now();
    let mut input = post_input(typ, &args.post, &args.vanilla)?;
    input.partition = args.partition;
    let param_dir = args
        .post
        .params
        .dir(config_param_cache, ParamFiles::Filecoin);
    // Before anything in filecoin-proofs reads its settings: the verifier
    // below reads the key from this directory.
    cuzk_filecoin::use_param_dir(&param_dir)?;
    let r1cs = super::porep::Recorded::new(&args.synthesis).post(&input.kind, engine)?;
    let witness = args.synthesis.witness(witness);
    let job = post_job(&input, &param_dir, true, r1cs.as_ref(), witness)?;
    let out = run_job(engine, job, input.kind.priority())?;
    let proof = out.proof;
    let checked = if input.partition.is_some() {
        "engine self-check"
    } else {
        let sectors = vanilla_sectors(&input)?;
        if !verify_post(
            &input.kind,
            input.randomness,
            input.prover_id,
            &sectors,
            &proof,
            &param_dir,
        )? {
            return Err(FilecoinError::Proofs(anyhow::anyhow!(
                "filecoin-proofs' verifier rejected the proof"
            )));
        }
        "filecoin-proofs verifier: ok"
    };
    std::fs::write(&args.out, &proof).map_err(|e| FilecoinError::file(&args.out, e))?;
    println!(
        "{}: {} sector(s), {} partition(s), {} bytes -> {} in {:.1} s ({checked})",
        input.kind.api_name(),
        input.vanilla_proofs.len(),
        out.partitions,
        proof.len(),
        args.out.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `cuzk testdata winning-post|window-post`.
#[derive(Args, Debug, Clone)]
pub struct TestdataPostArgs {
    /// Sector size (2KiB for a local run).
    #[arg(long, default_value = "2KiB")]
    pub sector_size: String,
    /// Sealed test sectors to prove (WindowPoSt; WinningPoSt takes the one
    /// its challenge picks among them).
    #[arg(long, default_value_t = 2)]
    pub sectors: usize,
    /// The challenge randomness: 64 hex digits, a canonical field element.
    #[arg(long, required_unless_present = "params_only")]
    pub randomness: Option<String>,
    /// Prover id: a miner id (f01000) or 64 hex digits.
    #[arg(long, required_unless_present = "params_only")]
    pub prover_id: Option<String>,
    /// Where to write the vanilla proofs (JSON array of base64 strings).
    #[arg(long, value_name = "FILE", required_unless_present = "params_only")]
    pub vanilla_out: Option<PathBuf>,
    /// Where to write the challenged sector set (JSON, `verify --sectors`).
    #[arg(long, value_name = "FILE", required_unless_present = "params_only")]
    pub sectors_out: Option<PathBuf>,
    #[command(flatten)]
    pub params: super::porep::BlankParamsArgs,
}

/// Runs `cuzk testdata winning-post|window-post`: test parameters (cuzk's
/// setup, seeded: NOT for production), sealed test sectors, and the vanilla
/// proofs filecoin-proofs makes for them; prints the command that proves
/// them.
pub fn run_testdata(typ: PostType, args: &TestdataPostArgs) -> Result<()> {
    use cuzk_filecoin::{SealProofKind, SealVersion};
    use cuzk_filecoin_tools::testdata;
    let size = parse_size(&args.sector_size)?;
    let version = match typ {
        PostType::Winning => PostVersion::V1,
        PostType::Window => PostVersion::V1_2,
    };
    let kind = PostProofKind::new(typ, size, version)?;
    let dirs = args.params.dirs()?;
    let generator = args.params.generator.into();
    let p = testdata::ensure_post_params_with(&kind, &dirs, testdata::PARAMS_SEED, generator)?;
    if args.params.report(&p) {
        return Ok(());
    }
    fn need<'a>(v: &'a Option<String>, what: &str) -> Result<&'a str> {
        v.as_deref().ok_or_else(|| {
            FilecoinError::Unsupported(format!("{what} is required (unless --params-only)"))
        })
    }
    let randomness = hex32(need(&args.randomness, "--randomness")?, "randomness")?;
    let prover_id = parse_prover_id(need(&args.prover_id, "--prover-id")?)?;
    let vanilla_out = super::porep::out_path(&args.vanilla_out, "--vanilla-out")?;
    let sectors_out = super::porep::out_path(&args.sectors_out, "--sectors-out")?;
    let seal = SealProofKind::new(size, SealVersion::V1_1)?;
    let mut sectors = testdata::post_test_sectors(&seal, &dirs, args.sectors.max(1))?;
    sectors.sort_by_key(|s| s.sector_id);
    if typ == PostType::Winning {
        let picked = testdata::winning_post_pick(&kind, &sectors, randomness, prover_id)?;
        sectors = vec![picked];
    }
    let vanilla = testdata::post_vanilla_proofs(&kind, &sectors, randomness, prover_id)?;
    std::fs::write(vanilla_out, cuzk_filecoin::post::vanilla_json(&vanilla))
        .map_err(|e| FilecoinError::file(vanilla_out, e))?;
    let set: Vec<serde_json::Value> = sectors
        .iter()
        .map(|s| serde_json::json!({"sector_id": s.sector_id, "comm_r": hex::encode(s.comm_r)}))
        .collect();
    std::fs::write(sectors_out, serde_json::to_vec(&set).expect("plain JSON"))
        .map_err(|e| FilecoinError::file(sectors_out, e))?;
    let verb = match typ {
        PostType::Winning => "winning-post",
        PostType::Window => "window-post",
    };
    println!(
        "run:    cuzk prove {verb} --vanilla {} --sector-size {} --randomness {} --prover-id {} --param-cache {} --out /tmp/{verb}.proof",
        vanilla_out.display(),
        args.sector_size,
        hex::encode(randomness),
        need(&args.prover_id, "--prover-id")?,
        dirs.params.display()
    );
    Ok(())
}

#[derive(serde::Deserialize)]
struct SectorEntry {
    sector_id: u64,
    comm_r: String,
}

/// Runs `cuzk verify winning-post|window-post`; `Ok(false)` means the
/// proof is invalid, errors mean it could not be checked.
pub fn run_verify(
    typ: PostType,
    args: &VerifyPostArgs,
    config_param_cache: Option<&Path>,
) -> Result<bool> {
    let kind = kind(typ, &args.post)?;
    let randomness = hex32(&args.post.randomness, "randomness")?;
    let prover_id = parse_prover_id(&args.post.prover_id)?;
    let sectors = match (&args.sectors, &args.vanilla) {
        (Some(path), _) => {
            let list: Vec<SectorEntry> =
                serde_json::from_slice(&read(path, super::limits::INPUTS_FILE_LIMIT, "--sectors")?)
                    .map_err(|e| {
                        FilecoinError::VanillaFormat(format!("{}: {e}", path.display()))
                    })?;
            list.iter()
                .map(|s| Ok((s.sector_id, hex32(&s.comm_r, "comm_r")?)))
                .collect::<Result<Vec<_>>>()?
        }
        (None, Some(v)) => vanilla_sectors(&post_input(typ, &args.post, v)?)?,
        (None, None) => {
            return Err(FilecoinError::SectorCount {
                kind: kind.api_name(),
                got: 0,
                expected: 1,
            })
        }
    };
    let param_dir = args
        .post
        .params
        .dir(config_param_cache, ParamFiles::Filecoin);
    let proof = read(&args.proof, super::limits::PROOF_FILE_LIMIT, "--proof")?;
    let ok = verify_post(&kind, randomness, prover_id, &sectors, &proof, &param_dir)?;
    println!(
        "{}: proof {}",
        kind.api_name(),
        if ok { "valid" } else { "INVALID" }
    );
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Parser, Subcommand};
    use cuzk_filecoin::post::vanilla_json;
    use cuzk_filecoin::{SealProofKind, SealVersion, WitnessGen};
    use cuzk_filecoin_tools::testdata::{self, POST_PROVER_ID};

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(subcommand)]
        cmd: Cmd,
    }

    #[derive(Subcommand, Debug)]
    enum Cmd {
        Prove(ProvePostArgs),
        Verify(VerifyPostArgs),
    }

    fn parse(args: &[&str]) -> std::result::Result<Cmd, clap::Error> {
        Cli::try_parse_from(std::iter::once("cuzk").chain(args.iter().copied())).map(|c| c.cmd)
    }

    const R: &str = "1111111111111111111111111111111111111111111111111111111111111111";

    #[test]
    fn flags_parse() {
        let Cmd::Prove(p) = parse(&[
            "prove",
            "--vanilla",
            "v.json",
            "--sector-size",
            "2KiB",
            "--randomness",
            R,
            "--prover-id",
            "f01000",
            "--out",
            "p.bin",
            "--partition",
            "3",
        ])
        .unwrap() else {
            panic!("not prove")
        };
        assert_eq!(
            (p.partition, p.post.prover_id.as_str()),
            (Some(3), "f01000")
        );
        let k = kind(PostType::Window, &p.post).unwrap();
        assert_eq!(k.api_name(), "StackedDrgWindow2KiBV1_2");
        assert_eq!(
            kind(PostType::Winning, &p.post).unwrap().api_name(),
            "StackedDrgWinning2KiBV1"
        );
        // A named proof type of the other kind, or of another size.
        let mut named = p.post.clone();
        named.proof_type = Some("StackedDrgWinning2KiBV1".into());
        assert!(matches!(
            kind(PostType::Window, &named),
            Err(FilecoinError::Unsupported(_))
        ));
        named.proof_type = Some("StackedDrgWindow32GiBV1".into());
        assert!(matches!(
            kind(PostType::Window, &named),
            Err(FilecoinError::SectorSize(_))
        ));
        // verify needs exactly one source of the sector set; prove needs a size.
        let base = [
            "verify",
            "--proof",
            "p",
            "--sector-size",
            "2KiB",
            "--randomness",
            R,
            "--prover-id",
            "f01000",
        ];
        assert!(parse(&base).is_err());
        assert!(parse(&[&base[..], &["--sectors", "s.json"]].concat()).is_ok());
        assert!(parse(&[&base[..], &["--sectors", "s", "--vanilla", "v"]].concat()).is_err());
        assert!(parse(&[
            "prove",
            "--vanilla",
            "v",
            "--randomness",
            R,
            "--prover-id",
            "1",
            "--out",
            "o"
        ])
        .is_err());
        assert!(matches!(
            hex32("12", "randomness"),
            Err(FilecoinError::NotFieldElement(_))
        ));
    }

    /// `prove window-post` then `verify window-post` on two sealed 2 KiB
    /// sectors (cached test data; parameters by cuzk's setup in seconds).
    #[test]
    fn window_post_through_the_cli() {
        let dirs = testdata::init_env(&testdata::testdata_root()).unwrap();
        let seal = SealProofKind::new(2048, SealVersion::V1_1).unwrap();
        let sectors = testdata::post_test_sectors(&seal, &dirs, 2).unwrap();
        let post = PostProofKind::new(PostType::Window, 2048, PostVersion::V1_2).unwrap();
        testdata::ensure_post_params(&post, &dirs, testdata::PARAMS_SEED).unwrap();
        let mut r = [0x42u8; 32];
        r[31] &= 0x3f;
        let vanilla = testdata::post_vanilla_proofs(&post, &sectors, r, POST_PROVER_ID).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let path = |n: &str| tmp.path().join(n).to_string_lossy().into_owned();
        std::fs::write(path("v.json"), vanilla_json(&vanilla)).unwrap();
        let set: Vec<serde_json::Value> = sectors
            .iter()
            .map(|s| serde_json::json!({"sector_id": s.sector_id, "comm_r": hex::encode(s.comm_r)}))
            .collect();
        std::fs::write(path("s.json"), serde_json::to_vec(&set).unwrap()).unwrap();
        let (rh, ph, params) = (
            hex::encode(r),
            hex::encode(POST_PROVER_ID),
            dirs.params.display().to_string(),
        );
        let common = [
            "--sector-size",
            "2KiB",
            "--randomness",
            &rh,
            "--prover-id",
            &ph,
            "--param-cache",
            &params,
        ];

        let Cmd::Prove(p) = parse(
            &[
                &[
                    "prove",
                    "--vanilla",
                    &path("v.json"),
                    "--out",
                    &path("p"),
                    "--witness",
                    "check",
                ],
                &common[..],
            ]
            .concat(),
        )
        .unwrap() else {
            panic!("not prove")
        };
        assert_eq!(p.synthesis.witness, Some(WitnessGen::Check));
        run_prove(
            PostType::Window,
            &p,
            None,
            WitnessGen::Native,
            &Engine::cpu().unwrap(),
        )
        .unwrap();
        assert_eq!(std::fs::read(path("p")).unwrap().len(), 192);
        for set in [
            ["--sectors", &path("s.json")],
            ["--vanilla", &path("v.json")],
        ] {
            let Cmd::Verify(v) =
                parse(&[&["verify", "--proof", &path("p")], &set[..], &common[..]].concat())
                    .unwrap()
            else {
                panic!("not verify")
            };
            assert!(run_verify(PostType::Window, &v, None).unwrap());
            let mut other = v.clone();
            other.post.randomness = R.into();
            assert!(!run_verify(PostType::Window, &other, None).unwrap());
        }
        // Bad vanilla input is a typed error before any proving.
        std::fs::write(path("bad.json"), "{\"not\": \"a list\"}").unwrap();
        let mut bad = p.clone();
        bad.vanilla = path("bad.json").into();
        let e = run_prove(
            PostType::Window,
            &bad,
            None,
            WitnessGen::Native,
            &Engine::cpu().unwrap(),
        )
        .unwrap_err();
        assert!(matches!(e, FilecoinError::VanillaFormat(_)), "{e}");
    }
}
