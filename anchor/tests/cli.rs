//! Bad inputs are clear errors with a non-zero exit; `--setup-only` works
//! without any side built in.

use std::process::{Command, Output};

fn anchor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk-anchor"))
        .args(args)
        .output()
        .expect("running cuzk-anchor")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn missing_params_dir_is_an_error() {
    let o = anchor(&["--sizes", "10", "--params-dir", "/nonexistent/cuzk-anchor"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not an existing directory"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn unknown_side_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = anchor(&[
        "--sizes",
        "10",
        "--params-dir",
        d,
        "--sides",
        "cuzk,bellman",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("bellman"), "{}", stderr(&o));
}

#[test]
fn size_out_of_range_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for bad in ["9", "28", "x"] {
        let o = anchor(&["--sizes", bad, "--params-dir", d]);
        assert!(!o.status.success(), "--sizes {bad} accepted");
        assert!(stderr(&o).contains("--sizes"), "{}", stderr(&o));
    }
}

#[test]
fn setup_only_writes_the_params_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = anchor(&["--sizes", "10", "--params-dir", d, "--setup-only"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.path().join("bench-10.params").is_file());
}

#[cfg(not(any(feature = "cuda", feature = "supraseal")))]
#[test]
fn sides_not_built_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = anchor(&["--sizes", "10", "--params-dir", d]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("side `cuzk` unavailable") && e.contains("feature `cuda`"),
        "{e}"
    );
    assert!(
        e.contains("side `supraseal` unavailable") && e.contains("feature `supraseal`"),
        "{e}"
    );
}

#[test]
fn sha_circuit_below_its_chain_size_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = anchor(&[
        "--circuit",
        "sha",
        "--sizes",
        "14",
        "--params-dir",
        d,
        "--setup-only",
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("SHA-256-only circuit"), "{e}");
    assert!(!dir.path().join("sha-14.params").exists());
    let o = anchor(&["--circuit", "poseidon", "--sizes", "16", "--params-dir", d]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
