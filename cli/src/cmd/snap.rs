//! `cuzk prove snap`, `cuzk verify snap` and `cuzk testdata snap`: the
//! command glue over `cuzk_filecoin::snap`.

use super::post::{hex32, read, VANILLA_FILE_LIMIT};
use crate::params::ParamArgs;
use clap::Args;
use cuzk_filecoin::c1::{parse_size, to_hex};
use cuzk_filecoin::post::{parse_vanilla_json, vanilla_json};
use cuzk_filecoin::snap::snap_job;
use cuzk_filecoin::{run_job, verify_snap, FilecoinError, Result, SnapInput, SnapProofKind};
use cuzk_filecoin_tools::testdata;
use cuzk_scheduler::params::ParamFiles;
use cuzk_scheduler::Engine;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The statement a SnapDeals proof proves: the update proof type and the
/// three commitments.
#[derive(Args, Debug, Clone)]
pub struct SnapArgs {
    /// Sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB).
    #[arg(long, required_unless_present = "proof_type")]
    pub sector_size: Option<String>,
    /// The registered update proof type, e.g. StackedDrg32GiBV1, or its
    /// number (RegisteredUpdateProof: 0 = 2KiB … 4 = 64GiB).
    #[arg(long)]
    pub proof_type: Option<String>,
    /// comm_r of the sector key (before the update): 64 hex digits.
    #[arg(long)]
    pub comm_r_old: String,
    /// comm_r after the update: 64 hex digits.
    #[arg(long)]
    pub comm_r_new: String,
    /// comm_d of the new data: 64 hex digits.
    #[arg(long)]
    pub comm_d_new: String,
    #[command(flatten)]
    pub params: ParamArgs,
}

/// `cuzk prove snap`.
#[derive(Args, Debug, Clone)]
pub struct ProveSnapArgs {
    /// The vanilla partition proofs: a JSON array of base64 strings (what
    /// Go's json.Marshal([][]byte) writes, as Curio sends them), one
    /// bincode PartitionProof per partition in partition order, as
    /// filecoin-proofs-api's generate_partition_proofs returns them.
    #[arg(long, value_name = "FILE")]
    pub vanilla: PathBuf,
    #[command(flatten)]
    pub snap: SnapArgs,
    /// Where to write the proof (raw bytes, 192 per partition).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub synthesis: super::porep::SynthesisArgs,
}

/// `cuzk verify snap`.
#[derive(Args, Debug, Clone)]
pub struct VerifySnapArgs {
    /// The proof file.
    #[arg(long, value_name = "FILE")]
    pub proof: PathBuf,
    #[command(flatten)]
    pub snap: SnapArgs,
}

/// `cuzk testdata snap`.
#[derive(Args, Debug, Clone)]
pub struct TestdataSnapArgs {
    /// Sector size (2KiB for a local run; larger sizes seal a whole sector).
    #[arg(long, default_value = "2KiB")]
    pub sector_size: String,
    /// Which test update (each has its own sector key and data).
    #[arg(long, default_value_t = 0)]
    pub index: u64,
    /// Where to write the vanilla proofs (JSON array of base64 strings).
    #[arg(long, value_name = "FILE", required_unless_present = "params_only")]
    pub vanilla_out: Option<PathBuf>,
    #[command(flatten)]
    pub params: super::porep::BlankParamsArgs,
}

/// The proof type of the flags.
fn kind(a: &SnapArgs) -> Result<SnapProofKind> {
    let named = a
        .proof_type
        .as_deref()
        .map(|t| match t.trim().parse::<u64>() {
            Ok(id) => SnapProofKind::from_registered_id(id),
            Err(_) => SnapProofKind::from_api_name(t),
        })
        .transpose()?;
    let size = a.sector_size.as_deref().map(parse_size).transpose()?;
    match (named, size) {
        (Some(k), Some(s)) if k.sector_size != s => Err(FilecoinError::SectorSize(format!(
            "--sector-size says {s} bytes, --proof-type {}",
            k.api_name()
        ))),
        (Some(k), _) => Ok(k),
        (None, Some(s)) => SnapProofKind::new(s),
        (None, None) => Err(FilecoinError::SectorSize(
            "give --sector-size or --proof-type".into(),
        )),
    }
}

fn commitments(a: &SnapArgs) -> Result<[[u8; 32]; 3]> {
    Ok([
        hex32(&a.comm_r_old, "comm_r_old")?,
        hex32(&a.comm_r_new, "comm_r_new")?,
        hex32(&a.comm_d_new, "comm_d_new")?,
    ])
}

/// Runs `cuzk prove snap` on `engine`: one job at SnapDeals' priority; the
/// proof is checked with filecoin-proofs' `verify_empty_sector_update_proof`
/// before it is written.
pub fn run_prove(
    args: &ProveSnapArgs,
    config_param_cache: Option<&Path>,
    witness: cuzk_filecoin::WitnessGen,
    engine: &Engine,
) -> Result<()> {
    let t = Instant::now();
    let [comm_r_old, comm_r_new, comm_d_new] = commitments(&args.snap)?;
    let input = SnapInput {
        kind: kind(&args.snap)?,
        comm_r_old,
        comm_r_new,
        comm_d_new,
        vanilla_proofs: parse_vanilla_json(&read(&args.vanilla, VANILLA_FILE_LIMIT, "--vanilla")?)?,
    };
    let param_dir = args
        .snap
        .params
        .dir(config_param_cache, ParamFiles::Filecoin);
    // Before anything in filecoin-proofs reads its settings: the verifier
    // below reads the key from this directory.
    cuzk_filecoin::use_param_dir(&param_dir)?;
    let r1cs = super::porep::Recorded::new(&args.synthesis).snap(&input.kind, engine)?;
    let witness = args.synthesis.witness(witness);
    let job = snap_job(&input, &param_dir, true, r1cs.as_ref(), witness)?;
    let out = run_job(engine, job, input.kind.priority())?;
    if !verify_snap(
        &input.kind,
        comm_r_old,
        comm_r_new,
        comm_d_new,
        &out.proof,
        &param_dir,
    )? {
        return Err(FilecoinError::Proofs(anyhow::anyhow!(
            "filecoin-proofs' verifier rejected the proof"
        )));
    }
    std::fs::write(&args.out, &out.proof).map_err(|e| FilecoinError::file(&args.out, e))?;
    println!(
        "{}: {} partition(s), {} bytes -> {} in {:.1} s (filecoin-proofs verifier: ok)",
        input.kind.api_name(),
        out.partitions,
        out.proof.len(),
        args.out.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs `cuzk verify snap`; Ok(false) for a proof that does not verify.
pub fn run_verify(args: &VerifySnapArgs, config_param_cache: Option<&Path>) -> Result<bool> {
    let k = kind(&args.snap)?;
    let [comm_r_old, comm_r_new, comm_d_new] = commitments(&args.snap)?;
    let param_dir = args
        .snap
        .params
        .dir(config_param_cache, ParamFiles::Filecoin);
    let proof = read(&args.proof, super::limits::PROOF_FILE_LIMIT, "--proof")?;
    let ok = verify_snap(&k, comm_r_old, comm_r_new, comm_d_new, &proof, &param_dir)?;
    println!(
        "{}: proof {}",
        k.api_name(),
        if ok { "valid" } else { "INVALID" }
    );
    Ok(ok)
}

/// Runs `cuzk testdata snap`: test parameters (cuzk's setup, seeded: NOT
/// for production) and one update's vanilla proofs; prints the command
/// that proves it.
pub fn run_testdata(args: &TestdataSnapArgs) -> Result<()> {
    let k = SnapProofKind::new(parse_size(&args.sector_size)?)?;
    let dirs = args.params.dirs()?;
    let generator = args.params.generator.into();
    let p = testdata::ensure_snap_params_with(&k, &dirs, testdata::PARAMS_SEED, generator)?;
    if args.params.report(&p) {
        return Ok(());
    }
    let vanilla_out = super::porep::out_path(&args.vanilla_out, "--vanilla-out")?;
    let u = testdata::snap_test_update(&k, &dirs, args.index)?;
    std::fs::write(vanilla_out, vanilla_json(&u.vanilla_proofs))
        .map_err(|e| FilecoinError::file(vanilla_out, e))?;
    println!(
        "run:    cuzk prove snap --vanilla {} --sector-size {} --comm-r-old {} --comm-r-new {} --comm-d-new {} --param-cache {} --out /tmp/snap.proof",
        vanilla_out.display(),
        args.sector_size,
        to_hex(&u.comm_r_old),
        to_hex(&u.comm_r_new),
        to_hex(&u.comm_d_new),
        dirs.params.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Parser, Subcommand};

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(subcommand)]
        cmd: Cmd,
    }

    #[derive(Subcommand, Debug)]
    enum Cmd {
        Prove(ProveSnapArgs),
        Verify(VerifySnapArgs),
    }

    fn parse(args: &[&str]) -> std::result::Result<Cmd, clap::Error> {
        Cli::try_parse_from(std::iter::once("cuzk").chain(args.iter().copied())).map(|c| c.cmd)
    }

    /// `prove snap` then `verify snap` on a 2 KiB update (cached test
    /// data; parameters by cuzk's setup in seconds).
    #[test]
    fn snap_through_the_cli() {
        let dirs = testdata::init_env(&testdata::testdata_root()).unwrap();
        let k = SnapProofKind::new(2048).unwrap();
        testdata::ensure_snap_params(&k, &dirs, testdata::PARAMS_SEED).unwrap();
        let u = testdata::snap_test_update(&k, &dirs, 0).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let path = |n: &str| tmp.path().join(n).to_string_lossy().into_owned();
        std::fs::write(path("v.json"), vanilla_json(&u.vanilla_proofs)).unwrap();
        let (old, new, d, params) = (
            to_hex(&u.comm_r_old),
            to_hex(&u.comm_r_new),
            to_hex(&u.comm_d_new),
            dirs.params.display().to_string(),
        );
        let common = [
            "--proof-type",
            "0",
            "--comm-r-old",
            &old,
            "--comm-r-new",
            &new,
            "--comm-d-new",
            &d,
            "--param-cache",
            &params,
        ];
        let Cmd::Prove(p) = parse(
            &[
                &["prove", "--vanilla", &path("v.json"), "--out", &path("p")],
                &common[..],
            ]
            .concat(),
        )
        .unwrap() else {
            panic!("not prove")
        };
        run_prove(
            &p,
            None,
            cuzk_filecoin::WitnessGen::Check,
            &Engine::cpu().unwrap(),
        )
        .unwrap();
        assert_eq!(std::fs::read(path("p")).unwrap().len(), 192);
        let Cmd::Verify(v) =
            parse(&[&["verify", "--proof", &path("p")], &common[..]].concat()).unwrap()
        else {
            panic!("not verify")
        };
        assert!(run_verify(&v, None).unwrap());
        let mut other = v.clone();
        other.snap.comm_r_new = old.clone();
        assert!(!run_verify(&other, None).unwrap());
        // A size that contradicts the proof type, a bad commitment.
        let mut bad = v.clone();
        bad.snap.sector_size = Some("8MiB".into());
        assert!(matches!(
            run_verify(&bad, None),
            Err(FilecoinError::SectorSize(_))
        ));
        let mut bad = v.clone();
        bad.snap.comm_d_new = "12".into();
        assert!(matches!(
            run_verify(&bad, None),
            Err(FilecoinError::NotFieldElement("comm_d_new"))
        ));
        // Vanilla proofs of another statement: a typed error before proving.
        let mut bad = p.clone();
        bad.snap.comm_r_new = old;
        let e = run_prove(
            &bad,
            None,
            cuzk_filecoin::WitnessGen::Native,
            &Engine::cpu().unwrap(),
        )
        .unwrap_err();
        assert!(matches!(e, FilecoinError::VanillaInvalid { .. }), "{e}");
    }
}
