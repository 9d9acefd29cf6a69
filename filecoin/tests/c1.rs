//! C1 parsing, proof types and circuit construction. Everything here runs
//! without Groth16 parameters: a 2 KiB test sector is sealed once per test
//! binary (a few seconds) into a temporary directory.

use base64::Engine as _;
use cuzk_filecoin::c1::{format_size, to_hex, SECTOR_SIZES};
use cuzk_filecoin::{
    parse_c1, parse_prover_id, parse_size, partition_shape, prove_c2, public_inputs, synthesize_c1,
    C1Output, C2Options, FilecoinError, SealProofKind, SealVersion,
};
use cuzk_filecoin_tools::testdata::{self, TestSector};
use cuzk_groth16::ToxicWaste;
use serde_json::{json, Value};
use std::sync::OnceLock;

const KIB2: u64 = 2048;

fn kind2k() -> SealProofKind {
    SealProofKind::new(KIB2, SealVersion::V1_1).unwrap()
}

/// One sealed 2 KiB sector for the whole test binary. filecoin-proofs'
/// settings are process-wide, so they are pointed at a temporary cache once.
fn sector() -> &'static (tempfile::TempDir, TestSector) {
    static S: OnceLock<(tempfile::TempDir, TestSector)> = OnceLock::new();
    S.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        testdata::init_env(dir.path()).unwrap();
        let s = testdata::seal_test_sector(&kind2k(), &dir.path().join("sector"), 7).unwrap();
        (dir, s)
    })
}

fn c1_bytes() -> Vec<u8> {
    std::fs::read(&sector().1.c1_path).unwrap()
}

fn c1_value() -> Value {
    serde_json::from_slice(&c1_bytes()).unwrap()
}

fn c1() -> C1Output {
    parse_c1(&c1_bytes(), None).unwrap()
}

#[test]
fn sizes_parse_and_format() {
    for (s, v) in [
        ("2KiB", 2048),
        ("2k", 2048),
        ("2 KiB", 2048),
        ("8MiB", 8 << 20),
        ("512mib", 512 << 20),
        ("32GiB", 32 << 30),
        ("64G", 64 << 30),
        ("2048", 2048),
        ("0", 0),
        ("1", 1),
    ] {
        assert_eq!(parse_size(s).unwrap(), v, "{s}");
    }
    for bad in [
        "",
        "KiB",
        "2XB",
        "-2KiB",
        "99999999999999999999",
        "18446744073709551615T",
    ] {
        assert!(
            matches!(parse_size(bad), Err(FilecoinError::SectorSize(_))),
            "{bad}"
        );
    }
    for s in SECTOR_SIZES {
        assert_eq!(parse_size(&format_size(s)).unwrap(), s);
    }
    assert_eq!(format_size(2047), "2047");
    assert_eq!(format_size(2049), "2049");
    assert_eq!(format_size(1 << 40), "1TiB");
}

#[test]
fn proof_kinds_round_trip() {
    for id in 0..20u64 {
        let k = SealProofKind::from_registered_id(id).unwrap();
        assert_eq!(k.registered_id(), id);
        assert_eq!(SealProofKind::from_api_name(&k.api_name()).unwrap(), k);
        let pid = k.porep_id();
        assert_eq!(u64::from_le_bytes(pid[..8].try_into().unwrap()), id);
        assert!(pid[8..].iter().all(|&b| b == 0));
    }
    assert_eq!(
        SealProofKind::from_registered_id(5).unwrap().api_name(),
        "StackedDrg2KiBV1_1"
    );
    assert_eq!(
        SealProofKind::from_registered_id(8).unwrap().api_name(),
        "StackedDrg32GiBV1_1"
    );
    assert_eq!(
        SealProofKind::from_registered_id(13).unwrap().api_name(),
        "StackedDrg32GiBV1_1_Feat_SyntheticPoRep"
    );
    assert_eq!(
        SealProofKind::from_registered_id(8).unwrap().vanilla_tag(),
        "StackedDrg32GiBV1"
    );
    assert!(matches!(
        SealProofKind::from_registered_id(20),
        Err(FilecoinError::Unsupported(_))
    ));
    for bad in [0, 1, 4096, 16 << 20, 1 << 30, u64::MAX] {
        assert!(
            matches!(
                SealProofKind::new(bad, SealVersion::V1_1),
                Err(FilecoinError::SectorSize(_))
            ),
            "{bad}"
        );
    }
    for bad in [
        "",
        "StackedDrg",
        "StackedDrg2KiB",
        "StackedDrg4KiBV1_1",
        "Foo2KiBV1_1",
        "StackedDrg2KiBV2",
    ] {
        assert!(SealProofKind::from_api_name(bad).is_err(), "{bad}");
    }
    // Partitions as filecoin-proofs configures them.
    for (size, parts) in [
        (1u64 << 11, 1usize),
        (1 << 23, 1),
        (1 << 29, 1),
        (1 << 35, 10),
        (1 << 36, 10),
    ] {
        let cfg = SealProofKind::new(size, SealVersion::V1_1)
            .unwrap()
            .porep_config()
            .unwrap();
        assert_eq!(usize::from(cfg.partitions), parts);
    }
    // Non-interactive PoRep: many more partitions of the same circuit, and
    // the same parameter file as V1_1.
    for (size, parts) in [(KIB2, 13), (1u64 << 35, 126)] {
        let ni = SealProofKind::new(size, SealVersion::V1_2NonInteractive).unwrap();
        assert!(ni.aggregated());
        assert_eq!(usize::from(ni.porep_config().unwrap().partitions), parts);
        let v11 = SealProofKind::new(size, SealVersion::V1_1).unwrap();
        assert!(!v11.aggregated());
        assert_eq!(
            cuzk_filecoin::ProofKind::Porep(ni)
                .params_file_name()
                .unwrap(),
            cuzk_filecoin::ProofKind::Porep(v11)
                .params_file_name()
                .unwrap()
        );
    }
}

#[test]
fn prover_ids() {
    let mut want = [0u8; 32];
    want[0] = 0xe8;
    want[1] = 0x07;
    assert_eq!(parse_prover_id("f01000").unwrap(), want);
    assert_eq!(parse_prover_id("t01000").unwrap(), want);
    assert_eq!(parse_prover_id("1000").unwrap(), want);
    assert_eq!(parse_prover_id("0").unwrap(), [0u8; 32]);
    let mut one = [0u8; 32];
    one[0] = 1;
    assert_eq!(parse_prover_id("f01").unwrap(), one);
    let mut big = [0u8; 32];
    big[..10].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    assert_eq!(parse_prover_id(&u64::MAX.to_string()).unwrap(), big);
    let bytes: [u8; 32] = std::array::from_fn(|i| (i * 7 + 3) as u8);
    assert_eq!(parse_prover_id(&to_hex(&bytes)).unwrap(), bytes);
    assert_eq!(
        parse_prover_id(&format!("0x{}", to_hex(&bytes).to_uppercase())).unwrap(),
        bytes
    );
    for bad in [
        "",
        "f0",
        "f0x",
        "abc",
        "f01000x",
        &"a".repeat(63),
        &"g".repeat(64),
    ] {
        assert!(
            matches!(parse_prover_id(bad), Err(FilecoinError::BadProverId(_))),
            "{bad}"
        );
    }
}

#[test]
fn malformed_c1_is_a_typed_error() {
    let bad_c1 = |b: &[u8]| matches!(parse_c1(b, Some(KIB2)), Err(FilecoinError::BadC1(_)));
    assert!(bad_c1(b""));
    assert!(bad_c1(b"{"));
    assert!(bad_c1(b"[1,2]"));
    assert!(bad_c1(b"{}"));
    assert!(bad_c1(br#"{"Phase1Out": 3}"#));
    assert!(bad_c1(br#"{"Phase1Out": "!!!not base64"}"#));
    assert!(bad_c1(br#"{"Phase1Out": "bm90IGpzb24="}"#)); // "not json"
    assert!(bad_c1(br#"{"registered_proof": 5, "vanilla_proofs": []}"#));
    assert!(bad_c1(
        br#"{"registered_proof": "NoSuchProof", "vanilla_proofs": []}"#
    ));
    assert!(bad_c1(
        br#"{"registered_proof": "StackedDrg2KiBV1_1", "vanilla_proofs": 7}"#
    ));
    // Commitments of the wrong length or type.
    let mut v = c1_value();
    v["comm_r"] = json!([1, 2, 3]);
    assert!(bad_c1(v.to_string().as_bytes()));
    let mut v = c1_value();
    v["seed"] = json!("zz");
    assert!(bad_c1(v.to_string().as_bytes()));
    let mut v = c1_value();
    v.as_object_mut().unwrap().remove("replica_id");
    assert!(bad_c1(v.to_string().as_bytes()));
    // Vanilla proofs that do not deserialize for the tree.
    let mut v = c1_value();
    v["vanilla_proofs"]["StackedDrg2KiBV1"] = json!([[{"nope": 1}]]);
    let c = parse_c1(v.to_string().as_bytes(), None).unwrap();
    assert!(matches!(partition_shape(&c), Err(FilecoinError::BadC1(_))));
}

#[test]
fn three_forms_parse_alike() {
    let api = c1();
    assert_eq!(api.kind, kind2k());
    assert_eq!(api.sector_num, None);
    assert_eq!(to_hex(&api.public.comm_r), sector().1.meta.comm_r);
    assert_eq!(to_hex(&api.public.comm_d), sector().1.meta.comm_d);

    // filecoin-proofs' own form: untagged vanilla proofs, no proof type.
    let mut raw = c1_value();
    let obj = raw.as_object_mut().unwrap();
    obj.remove("registered_proof");
    let inner = obj["vanilla_proofs"]["StackedDrg2KiBV1"].take();
    obj.insert("vanilla_proofs".into(), inner);
    let raw_bytes = raw.to_string().into_bytes();
    assert!(matches!(
        parse_c1(&raw_bytes, None),
        Err(FilecoinError::SectorSize(_))
    ));
    let r = parse_c1(&raw_bytes, Some(KIB2)).unwrap();
    assert_eq!(
        (r.kind, &r.body, r.public),
        (api.kind, &api.body, api.public)
    );

    // Curio's wrapper around the api form.
    let b64 = base64::engine::general_purpose::STANDARD.encode(c1_bytes());
    let wrapped = json!({"SectorNum": 4242, "Phase1Out": b64, "SectorSize": 2048}).to_string();
    let w = parse_c1(wrapped.as_bytes(), None).unwrap();
    assert_eq!(
        (w.kind, &w.body, w.public, w.sector_num),
        (api.kind, &api.body, api.public, Some(4242))
    );
    // ... and around the raw form: the wrapper supplies the size.
    let b64 = base64::engine::general_purpose::STANDARD.encode(&raw_bytes);
    let wrapped = json!({"SectorNum": 1, "Phase1Out": b64, "SectorSize": 2048}).to_string();
    assert_eq!(parse_c1(wrapped.as_bytes(), None).unwrap().body, api.body);
}

#[test]
fn wrong_sector_size_is_caught() {
    let is_size =
        |r: Result<C1Output, FilecoinError>| matches!(r, Err(FilecoinError::SectorSize(_)));
    // The caller expects 32 GiB, the C1 output names 2 KiB.
    assert!(is_size(parse_c1(&c1_bytes(), Some(32 << 30))));
    // The wrapper disagrees with the proof type.
    let b64 = base64::engine::general_purpose::STANDARD.encode(c1_bytes());
    let wrapped = json!({"SectorNum": 1, "Phase1Out": b64, "SectorSize": 8 << 20}).to_string();
    assert!(is_size(parse_c1(wrapped.as_bytes(), None)));
    // The vanilla proofs are tagged for another size.
    let mut v = c1_value();
    v["registered_proof"] = json!("StackedDrg8MiBV1_1");
    assert!(is_size(parse_c1(v.to_string().as_bytes(), None)));
    // Retagged consistently as 8 MiB (same tree type): the data-tree paths
    // are too short, caught before synthesis.
    let obj = v.as_object_mut().unwrap();
    let inner = obj["vanilla_proofs"]["StackedDrg2KiBV1"].take();
    obj.insert(
        "vanilla_proofs".into(),
        json!({ "StackedDrg8MiBV1": inner }),
    );
    let c = parse_c1(v.to_string().as_bytes(), None).unwrap();
    assert_eq!(c.kind.sector_size, 8 << 20);
    let err = partition_shape(&c).unwrap_err();
    assert!(
        matches!(err, FilecoinError::SectorSize(ref m) if m.contains("levels")),
        "{err}"
    );
    // A partition count that does not match.
    let mut v = c1_value();
    let parts = v["vanilla_proofs"]["StackedDrg2KiBV1"]
        .as_array()
        .unwrap()
        .clone();
    v["vanilla_proofs"]["StackedDrg2KiBV1"] = json!([parts[0].clone(), parts[0].clone()]);
    assert!(matches!(
        parse_c1(v.to_string().as_bytes(), None),
        Err(FilecoinError::SectorSize(_))
    ));
}

#[test]
fn zero_commitments_are_refused() {
    let params = tempfile::tempdir().unwrap();
    for key in ["comm_d", "comm_r", "seed"] {
        let mut c = c1();
        match key {
            "comm_d" => c.public.comm_d = [0; 32],
            "comm_r" => c.public.comm_r = [0; 32],
            _ => c.public.seed = [0; 32],
        }
        let err = prove_c2(
            &c,
            &C2Options::new(
                params.path().to_path_buf(),
                &cuzk_scheduler::Engine::cpu().unwrap(),
            ),
        )
        .unwrap_err();
        assert!(
            matches!(err, FilecoinError::ZeroCommitment(k) if k == key),
            "{key}: {err}"
        );
    }
}

#[test]
fn missing_and_mismatched_params() {
    let c = c1();
    let dir = tempfile::tempdir().unwrap();
    let err = prove_c2(
        &c,
        &C2Options::new(
            dir.path().to_path_buf(),
            &cuzk_scheduler::Engine::cpu().unwrap(),
        ),
    )
    .unwrap_err();
    let FilecoinError::MissingParams { path } = &err else {
        panic!("{err}")
    };
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with(
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
    ));
    assert!(name.ends_with(".params"));
    assert_eq!(
        name,
        cuzk_filecoin::ProofKind::Porep(c.kind)
            .params_file_name()
            .unwrap()
    );
    assert!(err.to_string().contains(name));

    // Parameters of another circuit under the right name.
    let tiny = cuzk_synth::circuits::TinyCircuit {
        x: 3u64.into(),
        y: 5u64.into(),
        chain: 9,
    };
    let params = cuzk_groth16::generate_parameters(tiny, &ToxicWaste::from_seed(1), None).unwrap();
    params.save(path).unwrap();
    let err = prove_c2(
        &c,
        &C2Options::new(
            dir.path().to_path_buf(),
            &cuzk_scheduler::Engine::cpu().unwrap(),
        ),
    )
    .unwrap_err();
    assert!(
        matches!(&err, FilecoinError::ParamsMismatch { path: p, .. } if p == path),
        "{err}"
    );
    assert!(err.to_string().contains(name));

    // A truncated file is an error naming the file, not a panic.
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
    let err = prove_c2(
        &c,
        &C2Options::new(
            dir.path().to_path_buf(),
            &cuzk_scheduler::Engine::cpu().unwrap(),
        ),
    )
    .unwrap_err();
    assert!(err.to_string().contains(name), "{err}");
}

#[test]
fn circuit_matches_filecoin_proofs_shape_and_is_satisfied() {
    let c = c1();
    let shape = partition_shape(&c).unwrap();
    // The published 2 KiB PoRep figure: 2,687,921 circuit constraints plus
    // one input constraint per public input (ONE included).
    assert_eq!(shape.num_constraints - shape.num_inputs, 2_687_921);
    assert_eq!(shape.domain_size(), 1 << 22);
    // Same shape as the blank circuit filecoin-proofs generates parameters from.
    assert_eq!(shape, cuzk_filecoin::blank_shape(&c.kind).unwrap());

    let pas = synthesize_c1(&c).unwrap();
    let inputs = public_inputs(&c).unwrap();
    assert_eq!(pas.len(), 1);
    assert_eq!(pas[0].shape(), shape);
    assert_eq!(pas[0].first_unsatisfied(), None);
    assert_eq!(pas[0].input_assignment[1..], inputs[0][..]);
    assert!(inputs[0].iter().any(|x| !bool::from(ff::Field::is_zero(x))));
}

/// The native generator's aux values equal witness-only synthesis of the
/// circuit, value for value, on the sealed sector's C1 and on a random
/// one (whose paths lead nowhere: the generator computes what the circuit
/// computes, satisfiable or not).
#[test]
fn native_witness_equals_the_circuits() {
    let rec = cuzk_filecoin::compiled::record_porep(&kind2k()).unwrap();
    let random = cuzk_filecoin_tools::bench_c1::random_c1(&kind2k(), 5).unwrap();
    for (what, c) in [("sealed", c1()), ("random", random)] {
        let (w, _) = cuzk_filecoin::porep::witness_partitions(&c, &[0], &rec)
            .unwrap()
            .pop()
            .unwrap();
        let native = cuzk_filecoin::porep::native_aux(&c, 0, rec.shape().num_aux).unwrap();
        assert_eq!(native.len(), w.aux_assignment.len());
        let first = native
            .iter()
            .zip(w.aux_assignment.iter())
            .position(|(a, b)| a != b);
        assert_eq!(first, None, "{what}: first differing aux value");
    }
    // A count that is not the circuit's is refused, not written past.
    let e = cuzk_filecoin::porep::native_aux(&c1(), 0, rec.shape().num_aux + 1).unwrap_err();
    assert!(
        matches!(e, FilecoinError::NativeWitness { partition: 0, .. }),
        "{e}"
    );
}

#[test]
fn corrupt_vanilla_proof_is_unsatisfied() {
    // Flip the low bit of one label in a DRG parent's column: still a valid
    // field element, so the circuit builds, but that column no longer hashes
    // to a leaf of tree C. (The challenged column and the labeling proofs
    // are not circuit inputs: the circuit recomputes them from the parents.)
    let mut v = c1_value();
    let proofs = &mut v["vanilla_proofs"]["StackedDrg2KiBV1"][0][0];
    let label = &mut proofs["replica_column_proofs"]["drg_parents"][0]["column"]["rows"][0];
    let byte = label[0].as_u64().unwrap();
    label[0] = json!(byte ^ 1);
    let c = parse_c1(v.to_string().as_bytes(), None).unwrap();
    let pas = synthesize_c1(&c).unwrap();
    assert!(pas[0].first_unsatisfied().is_some());
}

/// The same corruptions through the native generator and the recorded
/// circuit (what a job with `witness = native` and its worker-side check
/// runs): the generator computes from the corrupted values what the
/// circuit would, and the record's constraints refuse the result. A
/// parent's label and a sibling on the challenged node's tree-C path.
#[test]
fn corrupt_vanilla_proof_is_unsatisfied_natively() {
    let rec = std::sync::Arc::new(cuzk_filecoin::compiled::record_porep(&kind2k()).unwrap());
    let first_unsatisfied = |c: &C1Output| {
        let aux = cuzk_filecoin::porep::native_aux(c, 0, rec.shape().num_aux).unwrap();
        let mut inputs = vec![cuzk_field::Fr::from(1u64)];
        inputs.extend(public_inputs(c).unwrap().swap_remove(0));
        rec.defer_values(inputs, aux.into())
            .unwrap()
            .first_unsatisfied()
    };
    assert_eq!(first_unsatisfied(&c1()), None, "the sealed C1 is satisfied");
    let flip = |pointer: &str| {
        let mut v = c1_value();
        let proofs = &mut v["vanilla_proofs"]["StackedDrg2KiBV1"][0][0];
        let x = proofs
            .pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}"));
        let byte = x.as_u64().unwrap();
        *x = json!(byte ^ 1);
        parse_c1(v.to_string().as_bytes(), None).unwrap()
    };
    for pointer in [
        "/replica_column_proofs/drg_parents/0/column/rows/0/0",
        "/replica_column_proofs/c_x/inclusion_proof/data/Single/path/path/0/hashes/0/0",
    ] {
        assert!(first_unsatisfied(&flip(pointer)).is_some(), "{pointer}");
    }
}

#[test]
fn test_sector_meta_is_consistent() {
    let s = &sector().1;
    assert_eq!(s.meta.registered_proof, "StackedDrg2KiBV1_1");
    assert_eq!(s.meta.sector_size, KIB2);
    assert!(s.meta.sector_id > 0);
    let pid = s.meta.prover_id_bytes().unwrap();
    assert_eq!(pid[31], 0);
    assert_ne!(pid, [0; 32]);
}

#[test]
fn random_c1_has_the_real_shape() {
    let kind = kind2k();
    let r = cuzk_filecoin_tools::bench_c1::random_c1(&kind, 11).unwrap();
    r.public.check_nonzero().unwrap();
    assert_eq!(
        partition_shape(&r).unwrap(),
        partition_shape(&c1()).unwrap()
    );
    // Same seed, same output; another seed, other values.
    assert_eq!(
        cuzk_filecoin_tools::bench_c1::random_c1(&kind, 11)
            .unwrap()
            .body,
        r.body
    );
    assert_ne!(
        cuzk_filecoin_tools::bench_c1::random_c1(&kind, 12)
            .unwrap()
            .body,
        r.body
    );
    // Random paths do not hash to the roots: synthesizable, not satisfiable.
    let pas = synthesize_c1(&r).unwrap();
    assert_eq!(pas.len(), 1);
    assert!(pas[0].first_unsatisfied().is_some());
    // Mostly bits, like the real circuit (SHA-256 and path-index booleans).
    let real = synthesize_c1(&c1()).unwrap();
    let (fr, fb) = (real[0].aux_bit_fraction(), pas[0].aux_bit_fraction());
    assert!(
        (fr - fb).abs() < 0.05,
        "bit fraction real {fr}, random {fb}"
    );
}

#[test]
fn random_c1_for_8mib_matches_the_blank_circuit() {
    let kind = SealProofKind::new(8 << 20, SealVersion::V1_1).unwrap();
    let r = cuzk_filecoin_tools::bench_c1::random_c1(&kind, 3).unwrap();
    let shape = partition_shape(&r).unwrap();
    assert_eq!(shape, cuzk_filecoin::blank_shape(&kind).unwrap());
    assert_eq!(shape.num_constraints - shape.num_inputs, 3_844_929);
}

/// Hostile C1 bodies that panicked inside storage-proofs (a `from_repr`
/// `expect`, asserts on counts, index panics) are refused by `parse_c1`
/// with a typed error that says where; the real C1 output passes the same
/// checks, so they refuse nothing filecoin-proofs writes.
#[test]
fn hostile_c1_bodies_are_refused_before_circuits() {
    let tag = "StackedDrg2KiBV1";
    let refused = |v: &Value, needle: &str| {
        let e = parse_c1(v.to_string().as_bytes(), None).unwrap_err();
        assert!(
            matches!(e, FilecoinError::BadC1(_)) && e.to_string().contains(needle),
            "expected BadC1 with {needle:?}: {e}"
        );
    };
    // A 32-byte value at or above the modulus: all 0xff.
    let high = json!(vec![255u8; 32]);
    for key in ["comm_d", "comm_r", "replica_id"] {
        let mut v = c1_value();
        v[key] = high.clone();
        refused(&v, key);
    }
    let mut v = c1_value();
    v["vanilla_proofs"][tag][0][0]["comm_d_proofs"]["root"] = high.clone();
    refused(&v, "comm_d_proofs.root");
    let mut v = c1_value();
    v["vanilla_proofs"][tag][0][0]["replica_column_proofs"]["drg_parents"][0]["column"]["rows"]
        [0] = high.clone();
    refused(&v, "not a canonical field element");
    // Counts storage-proofs asserts on.
    let mut v = c1_value();
    v["vanilla_proofs"][tag][0][0]["labeling_proofs"] = json!([]);
    refused(&v, "labeling proofs");
    let mut v = c1_value();
    let lp = v["vanilla_proofs"][tag][0][0]["labeling_proofs"][0].clone();
    v["vanilla_proofs"][tag][0][0]["labeling_proofs"] = json!([lp]);
    refused(&v, "layers");
    let mut v = c1_value();
    v["vanilla_proofs"][tag][0][0]["replica_column_proofs"]["drg_parents"]
        .as_array_mut()
        .unwrap()
        .pop();
    refused(&v, "drg_parents");
    let mut v = c1_value();
    v["vanilla_proofs"][tag][0][0]["replica_column_proofs"]["exp_parents"] = json!(3);
    refused(&v, "exp_parents must be a list");
    // Empty partitions and non-list forms.
    let mut v = c1_value();
    v["vanilla_proofs"][tag] = json!([[]]);
    refused(&v, "non-empty list");
    let mut raw = c1_value();
    let obj = raw.as_object_mut().unwrap();
    obj.remove("registered_proof");
    obj.insert("vanilla_proofs".into(), json!(5));
    let e = parse_c1(raw.to_string().as_bytes(), Some(KIB2)).unwrap_err();
    assert!(matches!(e, FilecoinError::BadC1(_)), "{e}");
    // The real output and the real output after a value-preserving edit
    // (a canonical change of one label) still parse.
    assert!(parse_c1(&c1_bytes(), None).is_ok());
}
