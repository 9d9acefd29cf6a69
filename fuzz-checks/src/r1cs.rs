//! A recorded R1CS file, `CompiledR1cs::load` (synth/src/compiled/store.rs):
//! magic, format version, the caller's identity, shape, hashes, the three
//! density bitmaps and the three compressed matrices. Invariants: no panic,
//! no allocation beyond what the file's length allows (every length is
//! checked against the bytes left before anything is allocated), and a
//! record that loads saves to a file that loads back to the same record and
//! saves to the same bytes again.
use cuzk_synth::compiled::CompiledR1cs;
use std::path::PathBuf;

/// The identity the seeds were saved under (`fuzz/seeds/r1cs`).
const ID: &str = "fuzz";

/// A scratch file of this process (`-fork` children have their own).
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cuzk-fuzz-r1cs-{}-{name}", std::process::id()))
}

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    // `load` reads a path (it checks lengths against the file's size), so
    // the input goes through a file.
    let input = scratch("in");
    std::fs::write(&input, data).expect("write the input to a scratch file");
    if let Ok(rec) = CompiledR1cs::load(&input, ID) {
        let saved = scratch("saved");
        rec.save(&saved, ID).expect("a loaded record saves");
        let bytes = std::fs::read(&saved).expect("read the saved record");
        let back = CompiledR1cs::load(&saved, ID).expect("a saved record loads");
        assert!(back == rec, "a record saved and loaded again differs");
        back.save(&saved, ID).expect("the reloaded record saves");
        assert_eq!(
            std::fs::read(&saved).expect("read the saved record"),
            bytes,
            "saving a reloaded record gives other bytes"
        );
        let _ = std::fs::remove_file(&saved);
    }
    let _ = std::fs::remove_file(&input);
}
