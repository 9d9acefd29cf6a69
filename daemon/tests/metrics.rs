//! The Prometheus text, checked as a scraper and a dashboard would see it:
//! well formed (every sample under a HELP and TYPE of its family, values
//! numbers), Prometheus' naming conventions, counters that never go down
//! between scrapes, Curio's metric names with its `proof_kind` values, and
//! docs/DAEMON.md's table naming exactly what is exported.

mod common;

use common::{bench, metric, Harness, S};
use std::collections::{BTreeMap, BTreeSet};

/// One parsed exposition: family name to type, and every sample.
struct Exposition {
    types: BTreeMap<String, String>,
    samples: Vec<(String, BTreeMap<String, String>, f64)>,
}

/// Parses Prometheus text format 0.0.4, failing on anything malformed.
fn parse(text: &str) -> Exposition {
    let mut types = BTreeMap::new();
    let mut helps = BTreeSet::new();
    let mut samples = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').expect("HELP name text");
            assert!(!help.trim().is_empty(), "empty help: {line}");
            assert!(helps.insert(name.to_string()), "two HELP lines: {line}");
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, ty) = rest.split_once(' ').expect("TYPE name type");
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&ty),
                "{line}"
            );
            assert!(
                types.insert(name.to_string(), ty.to_string()).is_none(),
                "two TYPE lines: {line}"
            );
            continue;
        }
        assert!(!line.starts_with('#'), "stray comment: {line}");
        let (series, value) = line.rsplit_once(' ').expect("series value");
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("value: {line}"));
        let (name, labels) = match series.split_once('{') {
            None => (series.to_string(), BTreeMap::new()),
            Some((n, l)) => {
                let l = l.strip_suffix('}').expect("closing brace");
                let labels = l
                    .split("\",")
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        let (k, v) = p.split_once("=\"").expect("label=\"value\"");
                        (k.to_string(), v.trim_end_matches('"').to_string())
                    })
                    .collect();
                (n.to_string(), labels)
            }
        };
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "{line}"
        );
        let family = family_of(&name, &types);
        assert!(types.contains_key(&family), "no TYPE before {line}");
        assert!(helps.contains(&family), "no HELP before {line}");
        samples.push((name, labels, value));
    }
    Exposition { types, samples }
}

/// The family a sample belongs to (a histogram's `_bucket`, `_sum`, `_count`).
fn family_of(name: &str, types: &BTreeMap<String, String>) -> String {
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = name.strip_suffix(suffix) {
            if matches!(
                types.get(base).map(String::as_str),
                Some("histogram" | "summary")
            ) {
                return base.to_string();
            }
        }
    }
    name.to_string()
}

impl Exposition {
    fn counters(&self) -> BTreeMap<String, f64> {
        self.samples
            .iter()
            .filter(|(n, _, _)| {
                let f = family_of(n, &self.types);
                matches!(self.types[&f].as_str(), "counter" | "histogram")
            })
            .map(|(n, l, v)| (format!("{n}{l:?}"), *v))
            .collect()
    }
}

/// The metric names docs/DAEMON.md's table lists.
fn documented() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/DAEMON.md"))
        .expect("docs/DAEMON.md");
    let start = doc.find("## Status and metrics").expect("metrics section");
    let section = &doc[start..];
    let section = &section[..section[2..].find("\n## ").map_or(section.len(), |e| e + 2)];
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`'))
        .map(|(name, _)| name.to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_text_is_well_formed_conventional_documented_and_curio_compatible() {
    let h = Harness::start().await;
    let before = parse(&h.metrics().await);

    let r = h.prove(bench(10, 2, 5)).await;
    assert_eq!(r.status(), S::Completed, "{}", r.error_message);
    let text = h.metrics().await;
    let after = parse(&text);
    let (_, http) = h.http_get("/metrics").await;
    let http = parse(&http);
    assert_eq!(
        http.types, after.types,
        "GetMetrics and GET /metrics differ"
    );

    // Conventions.
    for (name, ty) in &after.types {
        assert!(
            name.starts_with("cuzk_") || name.starts_with("process_"),
            "{name}"
        );
        let total = name.ends_with("_total");
        match ty.as_str() {
            "counter" => assert!(total, "counter {name} without _total"),
            _ => assert!(!total, "{ty} {name} named like a counter"),
        }
        assert!(
            !name.contains("fraction") && !name.ends_with("_ms"),
            "{name}: base units, and counters rather than averages"
        );
    }
    for (name, labels, _) in &after.samples {
        assert!(!labels.contains_key("kind"), "{name}: label proof_kind");
        assert!(
            !labels.contains_key("what") && !labels.contains_key("counter"),
            "{name}: one quantity per name"
        );
        if let Some(k) = labels.get("proof_kind") {
            assert!(
                [
                    "porep_c2",
                    "snap_update",
                    "window_post",
                    "winning_post",
                    "bench_circuit",
                    "aggregate_seal"
                ]
                .contains(&k.as_str()),
                "{name}: proof_kind {k}"
            );
        }
    }

    // Counters never go down between scrapes.
    let (c0, c1) = (before.counters(), after.counters());
    for (series, v0) in &c0 {
        let v1 = c1
            .get(series)
            .unwrap_or_else(|| panic!("{series} vanished"));
        assert!(v1 >= v0, "{series} went from {v0} to {v1}");
    }

    // Curio's names, as its daemon exports them (curio extern/cuzk
    // cuzk-server/src/service.rs), with the same kinds.
    for (name, ty) in [
        ("cuzk_proofs_completed_total", "counter"),
        ("cuzk_proofs_failed_total", "counter"),
        // Curio's per-kind counts, typed gauge (see CURIO_COUNTS).
        ("cuzk_proofs_completed", "gauge"),
        ("cuzk_proofs_failed", "gauge"),
        ("cuzk_uptime_seconds", "gauge"),
        ("cuzk_queue_depth", "gauge"),
        ("cuzk_running_jobs", "gauge"),
        ("cuzk_gpu_workers", "gauge"),
    ] {
        assert_eq!(
            after.types.get(name).map(String::as_str),
            Some(ty),
            "{name}"
        );
    }
    let get = |s: &str| metric(&text, s).unwrap_or_else(|| panic!("{s} missing:\n{text}"));
    assert_eq!(
        get(r#"cuzk_proofs_completed{proof_kind="bench_circuit"}"#),
        1.0
    );
    assert_eq!(get(r#"cuzk_proofs_completed{proof_kind="porep_c2"}"#), 0.0);
    assert_eq!(get(r#"cuzk_proofs_failed{proof_kind="window_post"}"#), 0.0);
    assert_eq!(get("cuzk_proofs_completed_total"), 1.0);
    assert_eq!(
        get(r#"cuzk_proof_duration_seconds_count{proof_kind="bench_circuit"}"#),
        1.0
    );
    let took = get(r#"cuzk_proof_duration_seconds_sum{proof_kind="bench_circuit"}"#);
    assert!(took > 0.0 && took < 600.0, "{took}");
    assert_eq!(get("cuzk_queue_depth"), 0.0);
    assert_eq!(get("cuzk_running_jobs"), 0.0);
    assert_eq!(get("cuzk_gpu_workers"), 1.0);
    assert_eq!(
        get(r#"cuzk_jobs_submitted_total{proof_kind="bench_circuit"}"#),
        1.0
    );
    assert_eq!(
        get(r#"cuzk_jobs_finished_total{proof_kind="bench_circuit",status="completed"}"#),
        1.0
    );

    // The figures mean what they say.
    let up = get("cuzk_uptime_seconds");
    let busy = get(r#"cuzk_device_busy_seconds_total{device="0"}"#);
    assert!(busy > 0.0 && busy <= up + 1.0, "busy {busy} s of {up} s");
    assert_eq!(get("cuzk_memory_budget_bytes"), (1u64 << 30) as f64);
    assert!(get("cuzk_memory_reserved_peak_bytes") > 0.0);
    assert_eq!(get("cuzk_srs_loads_total"), 1.0);
    assert!(get("cuzk_srs_loaded_bytes") > 0.0);
    assert!(get("process_resident_memory_bytes") > 1e6);
    // Whole seconds in the prometheus crate: present, maybe still 0.
    assert!(get("process_cpu_seconds_total") >= 0.0);
    assert_eq!(after.types["process_cpu_seconds_total"], "counter");
    let info = after
        .samples
        .iter()
        .find(|(n, _, _)| n == "cuzk_build_info")
        .expect("build info");
    assert_eq!(info.1["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info.1["backend"], "cpu");
    assert_eq!(info.2, 1.0);

    // docs/DAEMON.md lists exactly our names. The device memory gauges
    // appear only with a CUDA device.
    let ours: BTreeSet<String> = after
        .types
        .keys()
        .filter(|n| n.starts_with("cuzk_"))
        .cloned()
        .collect();
    let docs = documented();
    let gpu_only: BTreeSet<String> = [
        "cuzk_device_memory_total_bytes",
        "cuzk_device_memory_free_bytes",
    ]
    .map(String::from)
    .into();
    let undocumented: Vec<_> = ours.difference(&docs).collect();
    assert!(
        undocumented.is_empty(),
        "not in docs/DAEMON.md: {undocumented:?}"
    );
    let stale: Vec<_> = docs
        .difference(&ours)
        .filter(|n| !gpu_only.contains(*n))
        .collect();
    assert!(
        stale.is_empty(),
        "in docs/DAEMON.md, not exported: {stale:?}"
    );
}

#[test]
fn the_parser_rejects_what_a_scraper_would() {
    for bad in [
        "cuzk_x 1\n",                                         // no TYPE/HELP
        "# HELP cuzk_x h\n# TYPE cuzk_x gauge\ncuzk_x one\n", // not a number
        "# HELP cuzk_x h\n# TYPE cuzk_x gauge\n# TYPE cuzk_x gauge\ncuzk_x 1\n",
        "# HELP cuzk_x h\n# TYPE cuzk_x gauge\ncuzk_x{a=\"b\" 1\n",
    ] {
        assert!(std::panic::catch_unwind(|| parse(bad)).is_err(), "{bad}");
    }
    let ok = parse("# HELP cuzk_h h\n# TYPE cuzk_h histogram\ncuzk_h_bucket{le=\"1\",proof_kind=\"porep_c2\"} 2\ncuzk_h_sum 1.5\ncuzk_h_count 2\n");
    assert_eq!(ok.samples.len(), 3);
    assert_eq!(ok.samples[0].1["le"], "1");
    assert_eq!(ok.samples[0].1["proof_kind"], "porep_c2");
}
