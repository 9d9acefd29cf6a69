//! The pre-compiled path on Filecoin's circuits: a PoRep partition recorded
//! from filecoin-proofs' blank circuit, then witness-only synthesis and the
//! SpMV, equals the classic synthesis field for field (a real sealed 2 KiB
//! sector and a random shape-correct C1); the on-disk cache is reused,
//! refuses stale files and re-records them; same assignment → same proof
//! bytes for fixed r, s.

use cuzk_field::Fr;
use cuzk_filecoin::compiled::{record_porep, R1csCache};
use cuzk_filecoin::porep::synthesize_partition;
use cuzk_filecoin::{parse_c1, C1Output, SealProofKind, SealVersion};
use cuzk_filecoin_tools::testdata::{self, TestSector};
use cuzk_groth16::{prove_assignment, CpuBackend, ToxicWaste};
use cuzk_synth::circuits::BenchCircuit;
use cuzk_synth::compiled::CompiledR1cs;
use std::sync::OnceLock;

fn kind2k() -> SealProofKind {
    SealProofKind::new(2048, SealVersion::V1_1).unwrap()
}

fn sector() -> &'static (tempfile::TempDir, TestSector) {
    static S: OnceLock<(tempfile::TempDir, TestSector)> = OnceLock::new();
    S.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        testdata::init_env(dir.path()).unwrap();
        let s = testdata::seal_test_sector(&kind2k(), &dir.path().join("sector"), 11).unwrap();
        (dir, s)
    })
}

fn real_c1() -> C1Output {
    parse_c1(&std::fs::read(&sector().1.c1_path).unwrap(), None).unwrap()
}

fn record2k() -> &'static CompiledR1cs {
    static R: OnceLock<CompiledR1cs> = OnceLock::new();
    R.get_or_init(|| record_porep(&kind2k()).unwrap())
}

#[test]
fn porep_2kib_compiled_equals_classic_for_a_real_and_a_random_c1() {
    let r = record2k();
    let size = r.size();
    // Filecoin coefficients are few (B: ±1 and ±2^k; A and C also hold
    // Poseidon's round constants, ~1.3 k): at most two-byte indices, and
    // the whole record at least 4x smaller than plain CSR.
    assert!(size.matrices.iter().all(|m| m.index_width <= 2), "{size:?}");
    assert!(
        4 * size.compressed_bytes() < size.uncompressed_bytes(),
        "{size:?}"
    );
    let random = cuzk_filecoin_tools::bench_c1::random_c1(&kind2k(), 5).unwrap();
    for (what, c1) in [("real", real_c1()), ("random", random)] {
        let classic = synthesize_partition(&c1, 0, None).unwrap();
        let new = synthesize_partition(&c1, 0, Some(r)).unwrap();
        assert_eq!(classic.shape(), new.shape(), "{what}");
        assert!(classic == new, "{what}: the compiled path differs");
        assert_eq!(r.shape(), new.shape(), "{what}");
    }
}

#[test]
fn porep_cache_is_reused_and_stale_files_are_re_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let kind = kind2k();
    let first = R1csCache::new(dir.path().to_owned());
    let (a, rep) = first.porep(&kind, None).unwrap();
    let rep = rep.expect("first use reports");
    assert!(rep.recorded && rep.replaced.is_none());
    assert!(*a == *record2k(), "recorded twice, differently");
    // Same cache object: from memory, no report.
    let (a2, rep2) = first.porep(&kind, None).unwrap();
    assert!(rep2.is_none() && std::sync::Arc::ptr_eq(&a, &a2));
    // A new process (cache object) loads the file instead of recording.
    let (b, rep) = R1csCache::new(dir.path().to_owned())
        .porep(&kind, None)
        .unwrap();
    let rep = rep.unwrap();
    assert!(!rep.recorded, "the saved record was not used");
    assert!(*b == *a);
    // A corrupted file is not used: it is recorded again and replaced.
    let mut bytes = std::fs::read(&rep.path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    std::fs::write(&rep.path, bytes).unwrap();
    let (c, rep) = R1csCache::new(dir.path().to_owned())
        .porep(&kind, None)
        .unwrap();
    let rep = rep.unwrap();
    assert!(rep.recorded, "a corrupted record was loaded");
    assert!(rep.replaced.is_some());
    assert!(*c == *a);
    // A record of another circuit under this name (an older cuzk, another
    // proof type) is refused and replaced too.
    let other = CompiledR1cs::record(BenchCircuit::new(10, 0).unwrap()).unwrap();
    let name = rep.path.file_name().unwrap().to_string_lossy().into_owned();
    other
        .save(
            &rep.path,
            &format!("porep:{}", name.trim_end_matches(".r1cs")),
        )
        .unwrap();
    let (d, rep) = R1csCache::new(dir.path().to_owned())
        .porep(&kind, None)
        .unwrap();
    let rep = rep.unwrap();
    assert!(rep.recorded && rep.replaced.unwrap().contains("wanted"));
    assert!(*d == *a);
}

#[test]
fn same_assignment_same_proof_bytes_for_fixed_r_s() {
    let circ = BenchCircuit::new(10, 3).unwrap();
    let params = cuzk_groth16::generate_parameters(circ, &ToxicWaste::from_seed(9), None).unwrap();
    let pvk = params.vk.prepare();
    let rec = CompiledR1cs::record(circ).unwrap();
    let (r, s) = (Fr::from(1234u64), Fr::from(5678u64));
    let classic = cuzk_synth::synthesize(circ).unwrap();
    let new = rec.synthesize(circ).unwrap();
    let p1 = prove_assignment(&params, Some(&pvk), classic, r, s, &CpuBackend).unwrap();
    let p2 = prove_assignment(&params, Some(&pvk), new, r, s, &CpuBackend).unwrap();
    assert_eq!(p1.proof.to_bytes(), p2.proof.to_bytes());
    assert_eq!(p1.inputs, p2.inputs);
}
