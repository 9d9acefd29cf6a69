//! The clap handlers: flags parse as documented, and bad input ends in the
//! typed error the `cuzk` binary turns into a non-zero exit.

use super::{
    run_prove, run_testdata, run_verify, GeneratorChoice, ProvePorepArgs, SectorArgs,
    TestdataPorepArgs, VerifyPorepArgs,
};
use clap::{Parser, Subcommand};
use cuzk_filecoin::FilecoinError;

/// The shape the `cuzk` binary nests these in.
#[derive(Parser, Debug)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    Prove(ProvePorepArgs),
    Verify(VerifyPorepArgs),
    Testdata(TestdataPorepArgs),
}

fn parse(args: &[&str]) -> Result<Cmd, clap::Error> {
    Cli::try_parse_from(std::iter::once("cuzk").chain(args.iter().copied())).map(|c| c.cmd)
}

#[test]
fn flags_parse() {
    let Cmd::Prove(p) = parse(&[
        "prove",
        "--c1",
        "c1.json",
        "--prover-id",
        "f01000",
        "--sector-id",
        "7",
        "--out",
        "p.bin",
    ])
    .unwrap() else {
        panic!()
    };
    assert_eq!(
        (
            p.c1.first().and_then(|c| c.to_str()),
            p.sector.prover_id.as_str(),
            p.sector.sector_id,
            p.out.to_str()
        ),
        (Some("c1.json"), "f01000", Some(7), Some("p.bin"))
    );
    assert!(
        !p.no_verify
            && p.sector.param_cache.is_none()
            && p.sector.sector_size.is_none()
            && p.c1.len() == 1
    );
    let Cmd::Prove(p) = parse(&[
        "prove",
        "--c1",
        "a",
        "--prover-id",
        "1",
        "--out",
        "b",
        "--param-cache",
        "/p",
        "--sector-size",
        "32GiB",
        "--no-verify",
        "--c1",
        "more",
    ])
    .unwrap() else {
        panic!()
    };
    assert_eq!(
        (
            p.sector.param_cache.unwrap().to_str(),
            p.sector.sector_size.as_deref(),
            p.no_verify,
            p.c1.len()
        ),
        (Some("/p"), Some("32GiB"), true, 2)
    );
    // --out and --prover-id are required.
    assert!(parse(&["prove", "--c1", "a", "--prover-id", "1"]).is_err());
    assert!(parse(&["prove", "--c1", "a", "--out", "b"]).is_err());
    assert!(parse(&[
        "prove",
        "--c1",
        "a",
        "--prover-id",
        "1",
        "--out",
        "b",
        "--sector-id",
        "x"
    ])
    .is_err());

    let Cmd::Verify(v) =
        parse(&["verify", "--c1", "a", "--proof", "p", "--prover-id", "f01"]).unwrap()
    else {
        panic!()
    };
    assert_eq!(v.proof.to_str(), Some("p"));
    let Cmd::Testdata(t) = parse(&["testdata"]).unwrap() else {
        panic!()
    };
    assert_eq!(
        (t.sector_size.as_str(), t.reseal, t.generator),
        ("2KiB", false, GeneratorChoice::FilecoinProofs)
    );
    let Cmd::Testdata(t) = parse(&[
        "testdata",
        "--sector-size",
        "8MiB",
        "--generator",
        "cuzk",
        "--reseal",
    ])
    .unwrap() else {
        panic!()
    };
    assert_eq!(
        (t.sector_size.as_str(), t.reseal, t.generator),
        ("8MiB", true, GeneratorChoice::Cuzk)
    );
    assert!(parse(&["testdata", "--generator", "nope"]).is_err());
}

#[test]
fn bad_input_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let args = |c1: &std::path::Path, pid: &str| ProvePorepArgs {
        c1: vec![c1.to_path_buf()],
        sector: SectorArgs {
            prover_id: pid.into(),
            sector_id: Some(1),
            sector_size: None,
            param_cache: Some(dir.path().to_path_buf()),
        },
        out: dir.path().join("out.bin"),
        no_verify: true,
    };
    let err = run_prove(
        &args(&missing, "f01000"),
        None,
        &cuzk_scheduler::Engine::cpu().unwrap(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, FilecoinError::File { path, .. } if path == &missing),
        "{err}"
    );

    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, b"{\"comm_r\": ").unwrap();
    assert!(matches!(
        run_prove(
            &args(&garbage, "f01000"),
            None,
            &cuzk_scheduler::Engine::cpu().unwrap()
        ),
        Err(FilecoinError::BadC1(_))
    ));
    let v = VerifyPorepArgs {
        c1: garbage.clone(),
        proof: dir.path().join("p"),
        sector: SectorArgs {
            prover_id: "f01000".into(),
            sector_id: Some(1),
            sector_size: None,
            param_cache: None,
        },
    };
    assert!(matches!(run_verify(&v, None), Err(FilecoinError::BadC1(_))));

    let t = TestdataPorepArgs {
        sector_size: "32GiB".into(),
        dir: Some(dir.path().to_path_buf()),
        reseal: false,
        generator: GeneratorChoice::Cuzk,
        params_only: false,
    };
    assert!(matches!(
        run_testdata(&t),
        Err(FilecoinError::SectorSize(_))
    ));
    let t = TestdataPorepArgs {
        sector_size: "3KiB".into(),
        ..t
    };
    assert!(matches!(
        run_testdata(&t),
        Err(FilecoinError::SectorSize(_))
    ));
    assert!(!dir.path().join("out.bin").exists());
}
