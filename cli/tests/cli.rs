//! The `cuzk` binary end to end: happy paths and every kind of bad input
//! give the documented output and exit code, never a panic.

use std::path::Path;
use std::process::{Command, Output};

fn cuzk(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(args)
        .env("CUZK_PARAM_CACHE", cache)
        .output()
        .expect("cuzk runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// An error is exactly one `error: …` line, exit code 1, no panic text.
fn assert_clean_error(o: &Output, needle: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "stderr: {e}");
    let lines: Vec<&str> = e.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {e}");
    assert!(lines[0].starts_with("error: "), "{e}");
    assert!(e.contains(needle), "expected '{needle}' in: {e}");
    assert!(
        !e.contains("panicked") && !e.contains("internal error"),
        "{e}"
    );
}

#[test]
fn setup_prove_verify_roundtrip_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = |f: &str| d.join(f).to_string_lossy().into_owned();

    // setup + prove (batch of 2) + verify.
    let o = cuzk(
        &[
            "--quiet",
            "setup",
            "--log-size",
            "10",
            "--out",
            &p("k10.params"),
            "--vk-out",
            &p("k10.vk"),
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = cuzk(
        &[
            "--json",
            "prove",
            "--params",
            &p("k10.params"),
            "--log-size",
            "10",
            "--count",
            "2",
            "--out",
            &p("pr.bin"),
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["count"], 2);
    assert_eq!(std::fs::metadata(p("pr.bin")).unwrap().len(), 2 * 192);
    let o = cuzk(
        &["verify", "--vk", &p("k10.vk"), "--proof", &p("pr.bin")],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).matches("valid").count(),
        2
    );

    // A flipped proof byte: rejected (exit 1), whether it decodes or not.
    let mut bytes = std::fs::read(p("pr.bin")).unwrap();
    bytes[200] ^= 0x01;
    std::fs::write(p("bad.bin"), &bytes).unwrap();
    std::fs::copy(p("pr.inputs.json"), p("bad.inputs.json")).unwrap();
    let o = cuzk(
        &["verify", "--vk", &p("k10.vk"), "--proof", &p("bad.bin")],
        d,
    );
    assert_eq!(o.status.code(), Some(1));

    // Wrong public inputs: swap the two proofs' input vectors.
    let inputs: Vec<Vec<String>> =
        serde_json::from_str(&std::fs::read_to_string(p("pr.inputs.json")).unwrap()).unwrap();
    let swapped = vec![inputs[1].clone(), inputs[0].clone()];
    std::fs::write(p("sw.json"), serde_json::to_string(&swapped).unwrap()).unwrap();
    let o = cuzk(
        &[
            "verify",
            "--vk",
            &p("k10.vk"),
            "--proof",
            &p("pr.bin"),
            "--inputs",
            &p("sw.json"),
        ],
        d,
    );
    assert_clean_error(&o, "did not verify");

    // Truncated parameters.
    let full = std::fs::read(p("k10.params")).unwrap();
    std::fs::write(p("trunc.params"), &full[..full.len() / 2]).unwrap();
    let o = cuzk(
        &[
            "prove",
            "--params",
            &p("trunc.params"),
            "--log-size",
            "10",
            "--out",
            &p("x.bin"),
        ],
        d,
    );
    assert_clean_error(&o, "truncated");

    // Corrupt parameters (a flipped bit in the H section), full check.
    let mut bad = full.clone();
    bad[2000] ^= 0x20;
    std::fs::write(p("corrupt.params"), &bad).unwrap();
    let o = cuzk(
        &[
            "prove",
            "--full-check",
            "--params",
            &p("corrupt.params"),
            "--log-size",
            "10",
            "--out",
            &p("x.bin"),
        ],
        d,
    );
    assert_clean_error(&o, "corrupt");

    // A circuit that does not match its parameters.
    let o = cuzk(
        &[
            "prove",
            "--params",
            &p("k10.params"),
            "--log-size",
            "11",
            "--out",
            &p("x.bin"),
        ],
        d,
    );
    assert_clean_error(&o, "do not match");

    // Missing files, malformed inputs, bad flags.
    let o = cuzk(
        &["prove", "--params", &p("nope.params"), "--out", &p("x.bin")],
        d,
    );
    assert_clean_error(&o, "nope.params");
    std::fs::write(p("junk.json"), "{not json").unwrap();
    let o = cuzk(
        &[
            "verify",
            "--vk",
            &p("k10.vk"),
            "--proof",
            &p("pr.bin"),
            "--inputs",
            &p("junk.json"),
        ],
        d,
    );
    assert_clean_error(&o, "JSON");
    std::fs::write(p("short.bin"), [0u8; 100]).unwrap();
    let o = cuzk(
        &[
            "verify",
            "--vk",
            &p("k10.vk"),
            "--proof",
            &p("short.bin"),
            "--inputs",
            &p("pr.inputs.json"),
        ],
        d,
    );
    assert_clean_error(&o, "malformed proof");
    let o = cuzk(&["demo", "--log-size", "99"], d);
    assert_clean_error(&o, "--log-size");
    let o = cuzk(&["demo", "--circuit", "nonsense"], d);
    assert_clean_error(&o, "unknown circuit");
    let o = cuzk(&["info", "--params", &p("trunc.params")], d);
    assert_clean_error(&o, "truncated");
}

#[test]
fn demo_caches_parameters_and_reports_json() {
    let dir = tempfile::tempdir().unwrap();
    for expect_generated in [true, false] {
        let o = cuzk(&["--json", "demo", "--log-size", "10"], dir.path());
        assert!(o.status.success(), "{}", stderr(&o));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["verified"], true);
        assert_eq!(j["params_generated"], expect_generated);
        assert_eq!(j["domain"], 1024);
        assert!(j["stages"]["msm_h"].as_f64().is_some());
    }
    // A damaged cache is regenerated, not fatal.
    let cached = dir.path().join("bench-k10-setup0.params");
    std::fs::write(&cached, b"garbage").unwrap();
    let o = cuzk(&["--json", "demo", "--log-size", "10"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["params_generated"], true);
}

#[test]
fn info_without_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let o = cuzk(&["info"], dir.path());
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("GPU:"), "{out}");
}
