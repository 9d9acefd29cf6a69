//! The clap handlers: flags parse as documented, and bad input ends in the
//! typed error the `cuzk` binary turns into a non-zero exit.

use super::{
    run_prove, run_testdata, run_verify, GeneratorChoice, ProvePorepArgs, SectorArgs,
    SynthesisArgs, SynthesisChoice, TestdataPorepArgs, VerifyPorepArgs,
};
use crate::params::ParamArgs;
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
            && p.sector.params.param_cache.is_none()
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
            p.sector.params.param_cache.unwrap().to_str(),
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
            params: ParamArgs {
                param_cache: Some(dir.path().to_path_buf()),
            },
        },
        out: dir.path().join("out.bin"),
        no_verify: true,
        synthesis: SynthesisArgs {
            synthesis: SynthesisChoice::Classic,
            r1cs_cache: None,
            witness: None,
        },
    };
    let err = run_prove(
        &args(&missing, "f01000"),
        None,
        cuzk_filecoin::WitnessGen::Native,
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
            cuzk_filecoin::WitnessGen::Native,
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
            params: ParamArgs::default(),
        },
    };
    assert!(matches!(run_verify(&v, None), Err(FilecoinError::BadC1(_))));

    let t = TestdataPorepArgs {
        sector_size: "32GiB".into(),
        dir: Some(dir.path().to_path_buf()),
        reseal: false,
        generator: GeneratorChoice::Cuzk,
        params_only: false,
        ni: false,
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

/// `verify porep` used to let filecoin-proofs create a missing parameter
/// directory, panic inside bellperson on a truncated `.params` with no
/// `.vk` (and write a `.vk` taken from the unchecked file), and report a
/// corrupt `.vk` as missing parameters.
#[test]
fn verifying_key_is_checked_before_filecoin_proofs_reads_it() {
    use super::checked_verifying_key;
    use cuzk_groth16::Groth16Error;
    let kind = cuzk_filecoin::SealProofKind::new(2048, cuzk_filecoin::SealVersion::V1_1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    assert!(matches!(
        checked_verifying_key(&kind, &missing),
        Err(FilecoinError::File { .. })
    ));
    assert!(!missing.exists(), "the parameter directory was created");
    assert!(matches!(
        checked_verifying_key(&kind, dir.path()),
        Err(FilecoinError::MissingParams { .. })
    ));
    let params = dir.path().join(
        cuzk_filecoin::ProofKind::Porep(kind)
            .params_file_name()
            .unwrap(),
    );
    let vk = params.with_extension("vk");
    // A truncated parameter file: an error, and no .vk written from it.
    std::fs::write(&params, [0u8; 700]).unwrap();
    let e = checked_verifying_key(&kind, dir.path()).unwrap_err();
    assert!(
        matches!(&e, FilecoinError::Groth16(Groth16Error::InFile { source, .. })
            if matches!(**source, Groth16Error::Truncated { .. })),
        "{e}"
    );
    assert!(!vk.exists(), "a .vk was written from a bad .params");
    // A corrupt .vk is reported as such, naming the .vk.
    std::fs::write(&vk, [1u8; 900]).unwrap();
    let e = checked_verifying_key(&kind, dir.path()).unwrap_err();
    assert!(e.to_string().contains(".vk"), "{e}");
    // A sound parameter file gives a sound .vk.
    std::fs::remove_file(&vk).unwrap();
    let p = cuzk_groth16::generate_parameters(
        cuzk_synth::circuits::BenchCircuit::new(4, 0).unwrap(),
        &cuzk_groth16::ToxicWaste::from_seed(1),
        None,
    )
    .unwrap();
    p.save(&params).unwrap();
    checked_verifying_key(&kind, dir.path()).unwrap();
    assert_eq!(std::fs::read(&vk).unwrap(), p.vk.to_bytes());
}
