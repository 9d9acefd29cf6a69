//! Every committed fuzz seed through its target's check, under `cargo
//! test`: a parser change that panics on a seed, or breaks a round trip
//! the seed reaches, fails here without building the libFuzzer harness.
//! Also: the targets named here, the fuzzer's `[[bin]]`s and the seed
//! folders are the same set.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

fn names() -> BTreeSet<String> {
    cuzk_fuzz_checks::TARGETS
        .iter()
        .map(|(n, _)| n.to_string())
        .collect()
}

#[test]
fn every_seed_keeps_its_targets_invariants() {
    let mut total = 0;
    for (name, check) in cuzk_fuzz_checks::TARGETS {
        let dir = fuzz_dir().join("seeds").join(name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{name}: no seeds in {}", dir.display());
        for f in &files {
            let data = std::fs::read(f).unwrap();
            // A failing check panics: name the seed in the failure.
            let r = std::panic::catch_unwind(|| check(&data));
            assert!(r.is_ok(), "{name}: seed {} fails its check", f.display());
            // The same bytes one shorter: a truncation the fuzzer tries
            // first, and where length checks go wrong.
            if let Some((_, short)) = data.split_last() {
                let r = std::panic::catch_unwind(|| check(short));
                assert!(
                    r.is_ok(),
                    "{name}: seed {} less its last byte fails",
                    f.display()
                );
            }
        }
        total += files.len();
    }
    assert!(total >= cuzk_fuzz_checks::TARGETS.len());
}

#[test]
fn targets_bins_and_seed_folders_agree() {
    let manifest: toml::Table = std::fs::read_to_string(fuzz_dir().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let bins: BTreeSet<String> = manifest["bin"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(bins, names(), "fuzz/Cargo.toml's [[bin]]s");
    let seeds: BTreeSet<String> = std::fs::read_dir(fuzz_dir().join("seeds"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(seeds, names(), "fuzz/seeds' folders");
    for n in names() {
        let src = std::fs::read_to_string(fuzz_dir().join(format!("fuzz_targets/{n}.rs"))).unwrap();
        assert!(
            src.contains(&format!("cuzk_fuzz_checks::{n}::check(data)")),
            "fuzz_targets/{n}.rs does not run cuzk_fuzz_checks::{n}::check"
        );
    }
}
