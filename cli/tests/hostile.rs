//! Bad flags and hostile files given to the `cuzk` binary: each case here
//! once panicked, allocated without bound, overwrote an input or gave a
//! misleading message. Every one must end in one `error:` line, exit 1.

use std::path::Path;
use std::process::{Command, Output};

fn cuzk(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(args)
        .env("CUZK_PARAM_CACHE", cache)
        .output()
        .expect("cuzk runs")
}

fn assert_clean_error(o: &Output, needle: &str) {
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {e}");
    let lines: Vec<&str> = e.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {e}");
    assert!(lines[0].starts_with("error: "), "{e}");
    assert!(e.contains(needle), "expected '{needle}' in: {e}");
    assert!(!e.contains("panicked"), "{e}");
}

fn setup(d: &Path) -> String {
    let params = d.join("k10.params").to_string_lossy().into_owned();
    let o = cuzk(
        &["--quiet", "setup", "--log-size", "10", "--out", &params],
        d,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    params
}

#[test]
fn colliding_and_unwritable_outputs_are_refused_before_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let params = setup(d);
    let before = std::fs::read(&params).unwrap();
    let p = |f: &str| d.join(f).to_string_lossy().into_owned();
    let prove = |extra: &[&str]| {
        let mut a = vec!["--quiet", "prove", "--log-size", "10", "--params", &params];
        a.extend_from_slice(extra);
        cuzk(&a, d)
    };
    assert_clean_error(&prove(&["--out", &params]), "overwrite");
    let out = p("x.proof");
    assert_clean_error(&prove(&["--out", &out, "--inputs-out", &out]), "same file");
    assert_clean_error(
        &prove(&["--out", &p("x.proof"), "--inputs-out", &params]),
        "overwrite",
    );
    assert_clean_error(&prove(&["--out", &p("nodir/x.proof")]), "does not exist");
    assert_clean_error(&prove(&["--out", &p("")]), "directory");
    assert_eq!(
        std::fs::read(&params).unwrap(),
        before,
        "the input was overwritten"
    );
    let vk = p("k10.vk");
    assert_clean_error(
        &cuzk(
            &[
                "--quiet",
                "setup",
                "--log-size",
                "10",
                "--out",
                &vk,
                "--vk-out",
                &vk,
            ],
            d,
        ),
        "same file",
    );
}

#[test]
fn huge_counts_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let params = setup(d);
    let out = d.join("x.proof").to_string_lossy().into_owned();
    let o = cuzk(
        &[
            "--quiet",
            "prove",
            "--log-size",
            "10",
            "--params",
            &params,
            "--out",
            &out,
            "--count",
            "100000",
        ],
        d,
    );
    assert_clean_error(&o, "--count 100000");
    for args in [
        &[
            "--quiet",
            "bench",
            "--log-size",
            "10",
            "-j",
            "18446744073709551615",
        ][..],
        &["--quiet", "bench", "--log-size", "10", "-p", "4000000"][..],
        &[
            "--quiet",
            "bench",
            "--log-size",
            "10",
            "-j",
            "2000",
            "-p",
            "2000",
        ][..],
    ] {
        assert_clean_error(&cuzk(args, d), "more than");
    }
}

#[test]
fn whole_file_reads_are_capped_and_directories_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let params = setup(d);
    let proof = d.join("x.proof").to_string_lossy().into_owned();
    let o = cuzk(
        &[
            "--quiet",
            "prove",
            "--log-size",
            "10",
            "--params",
            &params,
            "--out",
            &proof,
        ],
        d,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let inputs = d.join("x.inputs.json").to_string_lossy().into_owned();
    let zero = "/dev/zero";
    for (vk, pr, inp) in [
        (Some(zero), proof.as_str(), inputs.as_str()),
        (None, zero, inputs.as_str()),
        (None, proof.as_str(), zero),
    ] {
        let mut a = vec!["--quiet", "verify", "--proof", pr, "--inputs", inp];
        match vk {
            Some(v) => a.extend_from_slice(&["--vk", v]),
            None => a.extend_from_slice(&["--params", &params]),
        }
        assert_clean_error(&cuzk(&a, d), "limit");
    }
    let dirs = d.to_string_lossy().into_owned();
    assert_clean_error(
        &cuzk(
            &["--quiet", "verify", "--params", &dirs, "--proof", &proof],
            d,
        ),
        "not a regular file",
    );
    assert_clean_error(
        &cuzk(
            &[
                "--quiet",
                "prove",
                "--log-size",
                "10",
                "--params",
                &dirs,
                "--out",
                &proof,
            ],
            d,
        ),
        "not a regular file",
    );
    let big = d.join("big.toml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    assert_clean_error(
        &cuzk(
            &[
                "--quiet",
                "prove",
                "--log-size",
                "10",
                "--params",
                &params,
                "--out",
                &proof,
                "--config",
                &big.to_string_lossy(),
            ],
            d,
        ),
        "limit",
    );
}
