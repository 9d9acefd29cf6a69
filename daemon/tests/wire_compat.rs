//! Wire compatibility with Curio: our `proto/cuzk/v1/proving.proto` and
//! Curio's (`tests/fixtures/curio-proving.proto`, a verbatim copy; the
//! header says from where) are compiled to descriptor sets by the same
//! protoc, and compared service by service, message by message, field by
//! field (name, number, type, label, message/enum type) and enum by enum.
//! Allowed difference: enum values we add (only ProofKind's
//! CUZK_BENCH_CIRCUIT and CUZK_AGGREGATE_SEAL); nothing Curio has may be
//! missing or different.

use prost::Message;
use prost_types::{DescriptorProto, EnumDescriptorProto, FileDescriptorProto, FileDescriptorSet};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Our additions, as (enum full name, value name, number).
const EXTENSIONS: [(&str, &str, i32); 2] = [
    (".cuzk.v1.ProofKind", "CUZK_BENCH_CIRCUIT", 100),
    (".cuzk.v1.ProofKind", "CUZK_AGGREGATE_SEAL", 101),
];

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles `file` (inside `include`) to its descriptor.
fn descriptor(include: &Path, file: &str) -> FileDescriptorProto {
    let out = tempfile::tempdir().unwrap();
    let set = out.path().join("set.pb");
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("vendored protoc");
    let st = std::process::Command::new(protoc)
        .arg(format!("--proto_path={}", include.display()))
        .arg(format!("--descriptor_set_out={}", set.display()))
        .arg(file)
        .status()
        .expect("run protoc");
    assert!(st.success(), "protoc failed on {file}");
    let bytes = std::fs::read(&set).unwrap();
    let mut s = FileDescriptorSet::decode(bytes.as_slice()).unwrap();
    assert_eq!(s.file.len(), 1);
    s.file.remove(0)
}

/// One comparable line per field / value / method, keyed by full name.
#[derive(Default)]
struct Flat {
    messages: BTreeMap<String, BTreeMap<i32, String>>,
    enums: BTreeMap<String, BTreeMap<i32, String>>,
    methods: BTreeMap<String, String>,
}

fn flatten_enum(prefix: &str, e: &EnumDescriptorProto, f: &mut Flat) {
    let name = format!("{prefix}.{}", e.name());
    let values = e
        .value
        .iter()
        .map(|v| (v.number(), v.name().to_string()))
        .collect();
    f.enums.insert(name, values);
}

fn flatten_message(prefix: &str, m: &DescriptorProto, f: &mut Flat) {
    let name = format!("{prefix}.{}", m.name());
    let fields = m
        .field
        .iter()
        .map(|x| {
            (
                x.number(),
                format!(
                    "{} {:?} {:?} {} oneof={:?}",
                    x.name(),
                    x.label(),
                    x.r#type(),
                    x.type_name(),
                    x.oneof_index
                ),
            )
        })
        .collect();
    f.messages.insert(name.clone(), fields);
    for n in &m.nested_type {
        flatten_message(&name, n, f);
    }
    for e in &m.enum_type {
        flatten_enum(&name, e, f);
    }
}

fn flatten(d: &FileDescriptorProto) -> Flat {
    let mut f = Flat::default();
    let pkg = format!(".{}", d.package());
    for m in &d.message_type {
        flatten_message(&pkg, m, &mut f);
    }
    for e in &d.enum_type {
        flatten_enum(&pkg, e, &mut f);
    }
    for s in &d.service {
        for m in &s.method {
            f.methods.insert(
                format!("{pkg}.{}/{}", s.name(), m.name()),
                format!(
                    "{} -> {} client_streaming={} server_streaming={}",
                    m.input_type(),
                    m.output_type(),
                    m.client_streaming(),
                    m.server_streaming()
                ),
            );
        }
    }
    f
}

/// Every difference between `curio` and `ours` that could break Curio.
fn differences(curio: &FileDescriptorProto, ours: &FileDescriptorProto) -> Vec<String> {
    let mut d = Vec::new();
    if curio.package() != ours.package() {
        d.push(format!("package {} vs {}", curio.package(), ours.package()));
    }
    if curio.syntax() != ours.syntax() {
        d.push(format!("syntax {} vs {}", curio.syntax(), ours.syntax()));
    }
    let (c, o) = (flatten(curio), flatten(ours));
    if c.methods != o.methods {
        d.push(format!(
            "methods differ:\n  curio {:?}\n  ours  {:?}",
            c.methods, o.methods
        ));
    }
    for (name, fields) in &c.messages {
        match o.messages.get(name) {
            None => d.push(format!("message {name} missing")),
            Some(of) if of != fields => d.push(format!(
                "message {name}:\n  curio {fields:?}\n  ours  {of:?}"
            )),
            Some(_) => {}
        }
    }
    for name in o.messages.keys().filter(|n| !c.messages.contains_key(*n)) {
        d.push(format!("message {name} is ours only"));
    }
    for (name, values) in &c.enums {
        let Some(ov) = o.enums.get(name) else {
            d.push(format!("enum {name} missing"));
            continue;
        };
        for (num, v) in values {
            if ov.get(num) != Some(v) {
                d.push(format!(
                    "enum {name}: {v} = {num} is {:?} in ours",
                    ov.get(num)
                ));
            }
        }
        for (num, v) in ov {
            let allowed = EXTENSIONS.contains(&(name.as_str(), v.as_str(), *num));
            if !values.contains_key(num) && !allowed {
                d.push(format!("enum {name}: {v} = {num} is ours only"));
            }
        }
    }
    for name in o.enums.keys().filter(|n| !c.enums.contains_key(*n)) {
        d.push(format!("enum {name} is ours only"));
    }
    d
}

fn ours() -> FileDescriptorProto {
    descriptor(&manifest().join("proto"), "cuzk/v1/proving.proto")
}

fn curio() -> FileDescriptorProto {
    descriptor(&manifest().join("tests/fixtures"), "curio-proving.proto")
}

#[test]
fn our_proto_is_wire_compatible_with_curio() {
    let (c, o) = (curio(), ours());
    // The comparison must have something to compare.
    let flat = flatten(&c);
    assert_eq!(flat.methods.len(), 8, "{:?}", flat.methods.keys());
    assert!(flat.messages.len() >= 19, "{:?}", flat.messages.keys());
    assert!(flat
        .enums
        .contains_key(".cuzk.v1.AwaitProofResponse.Status"));
    let diffs = differences(&c, &o);
    assert!(
        diffs.is_empty(),
        "incompatible with Curio:\n{}",
        diffs.join("\n")
    );
    // Our one extension is really there.
    assert_eq!(
        flatten(&o).enums[".cuzk.v1.ProofKind"]
            .get(&100)
            .map(String::as_str),
        Some("CUZK_BENCH_CIRCUIT")
    );
}

#[test]
fn the_comparison_catches_changes() {
    let text = std::fs::read_to_string(manifest().join("proto/cuzk/v1/proving.proto")).unwrap();
    let c = curio();
    for (from, to, expect) in [
        (
            "uint32 queue_position = 2;",
            "uint32 queue_position = 7;",
            "SubmitProofResponse",
        ),
        (
            "uint64 timeout_ms = 2;",
            "uint32 timeout_ms = 2;",
            "AwaitProofRequest",
        ),
        ("CRITICAL = 4;", "CRITICAL = 5;", "Priority"),
        ("COLD = 2;", "FROZEN = 2;", "Tier"),
        ("rpc EvictSRS(", "rpc EvictSrs(", "methods"),
        (
            "bool was_running = 1;",
            "bool running = 1;",
            "CancelProofResponse",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.proto"), text.replace(from, to)).unwrap();
        let changed = descriptor(dir.path(), "p.proto");
        let diffs = differences(&c, &changed);
        assert!(
            diffs.iter().any(|d| d.contains(expect)),
            "{from} -> {to} not caught: {diffs:?}"
        );
    }
}
