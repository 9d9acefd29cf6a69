//! `cuzk aggregate porep` and `cuzk verify aggregate` as a user runs them:
//! the 2 KiB test sector (`cuzk testdata porep --generator cuzk`, cached
//! per machine), its C2 proof from `cuzk prove porep`, a manifest naming
//! the proof file, the aggregate verified; a wrong seed, a truncated SRS
//! and an unwritable output each end in one line and a non-zero exit,
//! with no aggregate written.

use std::path::{Path, PathBuf};
use std::process::Output;

fn cuzk(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let o = cuzk(args);
    assert!(
        o.status.success(),
        "cuzk {args:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn fails(args: &[&str]) -> String {
    let o = cuzk(args);
    assert!(!o.status.success(), "cuzk {args:?} succeeded");
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    err
}

fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("{key} in {out}"))
        .trim()
        .split(' ')
        .next()
        .unwrap()
}

fn hex(v: &serde_json::Value) -> String {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| format!("{:02x}", b.as_u64().unwrap()))
        .collect()
}

fn manifest(c1: &Path, prover: &str, sector: &str, proof: &str, n: usize, seed: &str) -> String {
    let c1: serde_json::Value = serde_json::from_slice(&std::fs::read(c1).unwrap()).unwrap();
    let s = serde_json::json!({
        "sector_id": sector.parse::<u64>().unwrap(),
        "prover_id": prover,
        "comm_r": hex(&c1["comm_r"]),
        "comm_d": hex(&c1["comm_d"]),
        "ticket": hex(&c1["ticket"]),
        "seed": if seed.is_empty() { hex(&c1["seed"]) } else { seed.to_string() },
        "proof_file": proof,
    });
    serde_json::json!({
        "registered_proof": "StackedDrg2KiBV1_1",
        "sectors": vec![s; n],
    })
    .to_string()
}

fn agg_args<'a>(manifest: &'a str, out: &'a str, params: &'a str) -> Vec<&'a str> {
    let cmd = ["aggregate", "porep", "--manifest", manifest, "--out", out];
    [&cmd[..], &["--param-cache", params]].concat()
}

fn verify_args<'a>(manifest: &'a str, proof: &'a str, params: &'a str) -> Vec<&'a str> {
    let a = [
        "verify",
        "aggregate",
        "--manifest",
        manifest,
        "--proof",
        proof,
    ];
    [&a[..], &["--param-cache", params]].concat()
}

#[test]
fn aggregate_porep_writes_a_verified_aggregate_and_refuses_bad_input() {
    let testdata = |extra: &[&str]| {
        let base = [
            "testdata",
            "porep",
            "--sector-size",
            "2KiB",
            "--generator",
            "cuzk",
        ];
        ok(&[&base[..], extra].concat())
    };
    let td = testdata(&[]);
    let params = PathBuf::from(field(&td, "params"));
    let params_dir = params.parent().unwrap();
    let c1 = PathBuf::from(field(&td, "c1"));
    let prover = field(&td, "prover").to_string();
    let sector = field(&td, "sector").to_string();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The TEST SRS beside the parameters (`testdata porep --ni` writes it).
    testdata(&["--ni", "--params-only"]);
    let pd = params_dir.to_str().unwrap();
    ok(&[
        "prove",
        "porep",
        "--c1",
        c1.to_str().unwrap(),
        "--prover-id",
        &prover,
        "--sector-id",
        &sector,
        "--param-cache",
        pd,
        "--backend",
        "cpu",
        "--out",
        d.join("c2.proof").to_str().unwrap(),
    ]);
    let m = d.join("m.json");
    std::fs::write(&m, manifest(&c1, &prover, &sector, "c2.proof", 3, "")).unwrap();
    let agg = d.join("agg.bin");
    let (m_s, agg_s) = (m.to_str().unwrap(), agg.to_str().unwrap());
    let out = ok(&agg_args(m_s, agg_s, pd));
    assert!(
        out.contains("3 sectors (4 partition proofs once padded)"),
        "{out}"
    );
    assert!(agg.is_file());
    let v = ok(&verify_args(m_s, agg_s, pd));
    assert!(v.contains("valid"), "{v}");

    // A flipped byte: INVALID, non-zero exit.
    let mut bytes = std::fs::read(&agg).unwrap();
    bytes[100] ^= 1;
    let bad = d.join("bad.bin");
    std::fs::write(&bad, &bytes).unwrap();
    let e = fails(&verify_args(m_s, bad.to_str().unwrap(), pd));
    assert!(e.contains("INVALID"), "{e}");

    // A mismatched seed: the proof does not verify; nothing is written.
    let wrong = d.join("wrong.json");
    std::fs::write(
        &wrong,
        manifest(&c1, &prover, &sector, "c2.proof", 2, &"11".repeat(32)),
    )
    .unwrap();
    let out2 = d.join("agg2.bin");
    let e = fails(&agg_args(
        wrong.to_str().unwrap(),
        out2.to_str().unwrap(),
        pd,
    ));
    assert!(
        e.contains("sector 0") && e.contains("does not verify"),
        "{e}"
    );
    assert!(!out2.exists());

    // A truncated SRS: a clear error before filecoin-proofs maps it.
    let cut = d.join("params");
    std::fs::create_dir(&cut).unwrap();
    for f in std::fs::read_dir(params_dir).unwrap() {
        let f = f.unwrap().path();
        let name = f.file_name().unwrap();
        if f.extension().is_some_and(|e| e == "srs") {
            let all = std::fs::read(&f).unwrap();
            std::fs::write(cut.join(name), &all[..all.len() / 2]).unwrap();
        } else {
            std::os::unix::fs::symlink(&f, cut.join(name)).unwrap();
        }
    }
    let e = fails(&agg_args(
        m_s,
        out2.to_str().unwrap(),
        cut.to_str().unwrap(),
    ));
    assert!(e.contains("truncated"), "{e}");
    assert!(!out2.exists());

    // The output may not overwrite the manifest.
    let e = fails(&agg_args(m_s, m_s, pd));
    assert!(e.contains("overwrite"), "{e}");
}
