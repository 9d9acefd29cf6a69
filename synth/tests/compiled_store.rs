//! A recorded R1CS on disk: what is saved loads back equal and proves the
//! same; another circuit's file, a corrupted or truncated file and hostile
//! lengths are refused with an error, never used.

use cuzk_synth::{
    circuits::{BenchCircuit, TinyCircuit},
    compiled::{CompiledError, CompiledR1cs, StoreError},
    synthesize,
};
use std::path::Path;

fn bench_record(log: u32) -> CompiledR1cs {
    CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap()
}

fn flip_byte(path: &Path, at: usize) {
    let mut b = std::fs::read(path).unwrap();
    b[at] ^= 0x01;
    std::fs::write(path, b).unwrap();
}

#[test]
fn saved_record_loads_back_equal_and_evaluates_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench12.r1cs");
    let rec = bench_record(12);
    rec.save(&path, "bench-12").unwrap();
    let back = CompiledR1cs::load(&path, "bench-12").unwrap();
    assert!(back == rec, "loaded record differs from the saved one");
    let circ = BenchCircuit::new(12, 77).unwrap();
    assert!(back.synthesize(circ).unwrap() == synthesize(circ).unwrap());
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn another_identity_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.r1cs");
    bench_record(10).save(&path, "bench-10").unwrap();
    match CompiledR1cs::load(&path, "porep-32GiB") {
        Err(StoreError::Identity { wanted, found, .. }) => {
            assert_eq!(
                (wanted.as_str(), found.as_str()),
                ("porep-32GiB", "bench-10")
            );
        }
        other => panic!("expected an identity error, got {other:?}"),
    }
}

#[test]
fn another_circuit_under_the_same_name_is_refused_at_witness_time() {
    // A file recorded from the tiny circuit, loaded under the bench
    // circuit's name by mistake: the load succeeds (the name matches), but
    // no bench witness is ever multiplied with it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.r1cs");
    let tiny = TinyCircuit {
        x: 3u64.into(),
        y: 5u64.into(),
        chain: 40,
    };
    CompiledR1cs::record(tiny)
        .unwrap()
        .save(&path, "bench-10")
        .unwrap();
    let wrong = CompiledR1cs::load(&path, "bench-10").unwrap();
    let err = wrong
        .synthesize(BenchCircuit::new(10, 1).unwrap())
        .unwrap_err();
    assert!(
        matches!(
            err,
            CompiledError::ShapeMismatch { .. } | CompiledError::TraceMismatch { .. }
        ),
        "{err:?}"
    );
}

#[test]
fn corrupted_matrix_bytes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.r1cs");
    let rec = bench_record(10);
    rec.save(&path, "b").unwrap();
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    // Bytes near the end (C's indices and table), in the middle (columns)
    // and just past the header (densities, A's row pointers).
    for at in [len - 40, len / 2, 120] {
        let p = dir.path().join(format!("c{at}.r1cs"));
        std::fs::copy(&path, &p).unwrap();
        flip_byte(&p, at);
        let Err(err) = CompiledR1cs::load(&p, "b") else {
            panic!("byte {at}: a corrupted file loaded");
        };
        assert!(
            matches!(
                err,
                StoreError::Structure { .. } | StoreError::Format { .. }
            ),
            "byte {at}: {err:?}"
        );
    }
}

#[test]
fn truncated_and_foreign_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.r1cs");
    bench_record(10).save(&path, "b").unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for keep in [0, 7, 20, bytes.len() / 3, bytes.len() - 1] {
        let p = dir.path().join("t.r1cs");
        std::fs::write(&p, &bytes[..keep]).unwrap();
        let Err(err) = CompiledR1cs::load(&p, "b") else {
            panic!("keep {keep}: a truncated file loaded");
        };
        assert!(
            matches!(err, StoreError::Format { .. }),
            "keep {keep}: {err:?}"
        );
    }
    // Trailing bytes.
    let p = dir.path().join("long.r1cs");
    let mut long = bytes.clone();
    long.extend_from_slice(&[0; 8]);
    std::fs::write(&p, long).unwrap();
    assert!(matches!(
        CompiledR1cs::load(&p, "b"),
        Err(StoreError::Format { .. })
    ));
    // A `.params` file or anything else.
    let p = dir.path().join("other");
    std::fs::write(&p, b"not a record at all").unwrap();
    assert!(matches!(
        CompiledR1cs::load(&p, "b"),
        Err(StoreError::Format { .. })
    ));
    assert!(matches!(
        CompiledR1cs::load(&dir.path().join("missing"), "b"),
        Err(StoreError::Io { .. })
    ));
}

#[test]
fn hostile_lengths_fail_before_allocating() {
    // A header that claims 2^60 aux variables: the density bitmap's length
    // is checked against the file before any vector is allocated.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.r1cs");
    bench_record(10).save(&path, "b").unwrap();
    let mut b = std::fs::read(&path).unwrap();
    let shape_at = 8 + 4 + 4 + 1; // magic, version, id length, "b"
    b[shape_at + 8..shape_at + 16].copy_from_slice(&(1u64 << 60).to_le_bytes());
    let first_bitmap = shape_at + 5 * 8;
    b[first_bitmap..first_bitmap + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
    std::fs::write(&path, b).unwrap();
    let Err(err) = CompiledR1cs::load(&path, "b") else {
        panic!("a hostile file loaded");
    };
    assert!(matches!(err, StoreError::Format { .. }), "{err:?}");
}

/// The fuzz target's seeds (fuzz/seeds/r1cs, saved under the identity
/// "fuzz") are records of this build's format: a format change that left
/// them behind would leave the fuzzer testing only the header check.
#[test]
fn the_fuzz_seeds_are_loadable_records() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/r1cs");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let rec =
            CompiledR1cs::load(&path, "fuzz").unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        rec.verify_structure().unwrap();
        n += 1;
    }
    assert!(n >= 3, "{n} seeds");
}
