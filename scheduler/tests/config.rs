//! The configuration file: the example documents the defaults, unknown
//! keys and bad values are errors naming the key.

use cuzk_scheduler::{parse_bytes, ByteSpec, Config, ConfigError};
use proptest::prelude::*;

fn parse_err(text: &str) -> String {
    match Config::from_toml(text, "test.toml") {
        Err(e) => e.to_string(),
        Ok(c) => panic!("accepted {text:?} as {c:?}"),
    }
}

#[test]
fn example_file_documents_the_defaults() {
    let text = include_str!("../cuzk.example.toml");
    let cfg = Config::from_toml(text, "cuzk.example.toml").expect("the example parses");
    assert_eq!(cfg, Config::default());
    // Every section of the file format appears in the example.
    for section in [
        "[daemon]",
        "[srs]",
        "[synthesis]",
        "[gpus]",
        "[memory]",
        "[scheduler]",
    ] {
        assert!(text.contains(section), "{section} missing from the example");
    }
    for key in [
        "listen",
        "queue_capacity",
        "param_cache",
        "preload",
        "concurrency",
        "partition_workers",
        "devices",
        "gpu_workers_per_device",
        "memory_limit",
        "residency",
        "r1cs_cache",
        "budget",
        "margin",
        "aging",
        "timeline",
    ] {
        assert!(
            text.contains(&format!("{key} =")),
            "key {key} undocumented in the example"
        );
    }
}

#[test]
fn empty_file_is_the_default() {
    assert_eq!(Config::from_toml("", "x").unwrap(), Config::default());
}

#[test]
fn a_full_file_is_read() {
    let cfg = Config::from_toml(
        r#"
        [daemon]
        listen = "0.0.0.0:7000"
        queue_capacity = 4
        [srs]
        param_cache = "/tmp/params"
        preload = ["bench-k16", "tiny"]
        [synthesis]
        concurrency = 15
        partition_workers = 5
        [gpus]
        devices = [0, 1]
        gpu_workers_per_device = 1
        [memory]
        budget = "1.5GiB"
        margin = 1048576
        [scheduler]
        aging = 3
        timeline = true
        "#,
        "x",
    )
    .unwrap();
    assert_eq!(cfg.daemon.listen, "0.0.0.0:7000");
    assert_eq!(
        cfg.srs.preload,
        vec!["bench-k16".to_string(), "tiny".into()]
    );
    assert_eq!(
        cfg.srs.param_cache.as_deref(),
        Some(std::path::Path::new("/tmp/params"))
    );
    assert_eq!(cfg.memory.budget, ByteSpec::Bytes(3 << 29));
    assert_eq!(cfg.memory.margin, ByteSpec::Bytes(1 << 20));
    let o = cfg.engine_options().unwrap();
    assert_eq!(o.concurrency, 15);
    assert_eq!(o.partition_workers, 5);
    assert_eq!(o.devices, vec![0, 1]);
    assert_eq!(o.gpu_workers_per_device, 1);
    assert_eq!(o.memory_budget, 3 << 29);
    assert_eq!(o.queue_capacity, 4);
    assert_eq!(o.aging, 3);
    assert!(o.timeline);
}

#[test]
fn resolved_defaults() {
    let o = Config::from_toml("[memory]\nbudget = 1000000", "x")
        .unwrap()
        .engine_options()
        .unwrap();
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(o.concurrency, cores);
    assert_eq!(o.partition_workers, cores, "no per-job cap by default");
    assert_eq!(o.devices, vec![0], "one (virtual) device by default");
    assert_eq!(o.gpu_workers_per_device, 2);
    assert_eq!(o.memory_budget, 1_000_000);
    if cfg!(target_os = "linux") {
        let auto = Config::default().engine_options().unwrap();
        let mem = cuzk_scheduler::sysinfo::meminfo().unwrap();
        assert!(auto.memory_budget > 0 && auto.memory_budget <= mem.available);
        let pct = Config::from_toml("[memory]\nbudget = \"50%\"", "x")
            .unwrap()
            .engine_options()
            .unwrap();
        assert_eq!(pct.memory_budget, mem.total / 2);
    }
}

#[test]
fn unknown_keys_are_errors_naming_the_key() {
    let e = parse_err("[synthesis]\nconcurency = 3\n");
    assert!(e.contains("concurency") && e.contains("test.toml"), "{e}");
    let e = parse_err("[gpu]\ndevices = [0]\n");
    assert!(e.contains("gpu"), "{e}");
    let e = parse_err("colour = \"blue\"\n");
    assert!(e.contains("colour"), "{e}");
    let e = parse_err("[memory]\nbudget = \"1GiB\"\nbudgte = 3\n");
    assert!(e.contains("budgte"), "{e}");
}

#[test]
fn bad_values_are_errors() {
    for (text, needle) in [
        ("[synthesis]\nconcurrency = 0", "at least 1"),
        ("[synthesis]\nconcurrency = -3", "at least 1"),
        ("[synthesis]\nconcurrency = \"many\"", "concurrency"),
        ("[synthesis]\npartition_workers = 0", "at least 1"),
        ("[gpus]\ngpu_workers_per_device = 0", "at least 1"),
        ("[gpus]\ndevices = [0, 0]", "twice"),
        ("[gpus]\ndevices = [-1]", "device"),
        ("[gpus]\ndevices = 0", "devices"),
        ("[gpus]\nmemory_limit = 0", "more than 0"),
        ("[gpus]\nmemory_limit = \"lots\"", "lots"),
        ("[gpus]\nresidency = \"sometimes\"", "sometimes"),
        ("[memory]\nbudget = \"lots\"", "lots"),
        ("[memory]\nbudget = \"12PB\"", "unknown unit"),
        ("[memory]\nbudget = -5", "negative"),
        ("[memory]\nbudget = \"150%\"", "percentage"),
        ("[memory]\nbudget = 0", "more than 0"),
        ("[memory]\nmargin = \"auto\"", "margin"),
        ("[daemon]\nlisten = \"nope\"", "host:port"),
        ("[daemon]\nlisten = \"h:99999\"", "port"),
        ("[daemon]\nqueue_capacity = 0", "at least 1"),
        ("[scheduler]\naging = 0", "at least 1"),
        ("[scheduler]\ntimeline = \"yes\"", "timeline"),
        ("[synthesis\nconcurrency = 1", "test.toml"),
    ] {
        let e = parse_err(text);
        assert!(
            e.contains(needle),
            "{text:?}: '{e}' does not mention '{needle}'"
        );
    }
}

#[test]
fn validate_catches_bad_overrides() {
    let mut c = Config::default();
    c.synthesis.concurrency = Some(0);
    assert!(
        matches!(c.validate(), Err(ConfigError::Value { key, .. }) if key == "synthesis.concurrency")
    );
    let mut c = Config::default();
    c.gpus.gpu_workers_per_device = 0;
    assert!(c.engine_options().is_err());
}

#[test]
fn missing_file_is_a_read_error() {
    let e = Config::load(std::path::Path::new("/nonexistent/cuzk.toml")).unwrap_err();
    assert!(matches!(e, ConfigError::Read { .. }));
    assert!(e.to_string().contains("/nonexistent/cuzk.toml"));
}

proptest! {
    #[test]
    fn byte_sizes_parse(n in 0u64..(1 << 30), unit in 0usize..9, space in proptest::bool::ANY) {
        let (name, mult) = [
            ("", 1u64), ("B", 1), ("KB", 1 << 10), ("m", 1 << 20), ("GB", 1 << 30),
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("tib", 1 << 40),
        ][unit];
        let text = format!("{n}{}{name}", if space { " " } else { "" });
        match n.checked_mul(mult) {
            None => prop_assert!(parse_bytes(&text).unwrap_err().contains("too large")),
            Some(want) => {
                prop_assert_eq!(parse_bytes(&text), Ok(want));
                let toml = format!("[memory]\nbudget = \"{text}\"");
                if want > 0 {
                    let c = Config::from_toml(&toml, "p").unwrap();
                    prop_assert_eq!(c.memory.budget, ByteSpec::Bytes(want));
                }
            }
        }
    }
}
