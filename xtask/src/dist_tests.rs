//! Tests of `cargo xtask dist`'s packing and checking (no cargo build).

use super::*;

const TOP: &str = "cuzk-0.1.0-x86_64-unknown-linux-gnu";

fn listing(entries: &[&str]) -> Vec<String> {
    let mut l = vec![format!("{TOP}/")];
    l.extend(entries.iter().map(|e| format!("{TOP}/{e}")));
    l
}

fn repo_file(rel: &str) -> String {
    let p = crate::workspace_root().join(rel);
    fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A scratch folder of this test, emptied.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-dist-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn listing_with_every_entry_passes() {
    check_listing(&listing(&ENTRIES), TOP).unwrap();
    // With folder entries and a leading "./", as some tars list them.
    let mut l: Vec<String> = listing(&ENTRIES)
        .into_iter()
        .map(|e| format!("./{e}"))
        .collect();
    l.push(format!("{TOP}/bin/"));
    check_listing(&l, TOP).unwrap();
}

#[test]
fn listing_without_the_unit_fails_naming_it() {
    let without: Vec<&str> = ENTRIES
        .iter()
        .copied()
        .filter(|e| *e != "systemd/cuzk.service")
        .collect();
    let e = check_listing(&listing(&without), TOP).unwrap_err();
    assert!(e.to_string().contains("systemd/cuzk.service"), "{e}");
}

#[test]
fn listing_with_entries_outside_the_folder_fails() {
    let mut l = listing(&ENTRIES);
    l.push("evil/bin/cuzk".into());
    l.push(format!("{TOP}-other/x"));
    let e = check_listing(&l, TOP).unwrap_err().to_string();
    assert!(e.contains("evil/bin/cuzk") && e.contains("-other/x"), "{e}");
    // The same name one level down is not the entry.
    let e = check_listing(&listing(&["x/bin/cuzk"]), TOP).unwrap_err();
    assert!(e.to_string().contains("bin/cuzk"), "{e}");
}

#[test]
fn packed_tarball_missing_the_unit_fails_the_check() {
    let dir = scratch("pack");
    let stage = dir.join(TOP);
    for e in ENTRIES {
        let p = stage.join(e);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, e).unwrap();
    }
    let tarball = dir.join(format!("{TOP}.tar.gz"));
    pack(&dir, TOP, &tarball).unwrap();
    check_listing(&list(&tarball).unwrap(), TOP).unwrap();

    fs::remove_file(stage.join("systemd/cuzk.service")).unwrap();
    pack(&dir, TOP, &tarball).unwrap();
    let e = check_listing(&list(&tarball).unwrap(), TOP).unwrap_err();
    assert!(e.to_string().contains("systemd/cuzk.service"), "{e}");

    // Not a tarball at all: an error, not a panic.
    fs::write(&tarball, "not gzip").unwrap();
    assert!(list(&tarball).is_err());
    fs::remove_dir_all(&dir).unwrap();
}

/// A TOML text's tables.
fn tables(text: &str) -> toml::Table {
    text.parse()
        .unwrap_or_else(|e| panic!("not TOML: {e}\n{text}"))
}

#[test]
fn combined_config_has_every_key_of_both_examples() {
    let engine = repo_file("scheduler/cuzk.example.toml");
    let daemon = repo_file("daemon/cuzk-daemon.example.toml");
    let text = combined_config(&engine, &daemon).unwrap();
    assert_eq!(text.matches("\n[daemon]\n").count(), 1, "{text}");
    let (c, e, d) = (tables(&text), tables(&engine), tables(&daemon));
    let keys = |t: &toml::Table| -> BTreeSet<String> {
        t["daemon"].as_table().unwrap().keys().cloned().collect()
    };
    let want: BTreeSet<String> = keys(&e).union(&keys(&d)).cloned().collect();
    assert_eq!(keys(&c), want, "[daemon] keys of the combined file");
    // Both examples give the engine's [daemon] keys the same defaults.
    for (k, v) in e["daemon"].as_table().unwrap() {
        assert_eq!(c["daemon"].get(k), Some(v), "[daemon] {k}");
    }
    for (name, table) in &e {
        if name != "daemon" {
            assert_eq!(c.get(name), Some(table), "[{name}] of the combined file");
        }
    }
    assert_eq!(c.len(), e.len());
    // Every comment of the daemon's section comes along.
    assert!(text.contains("drain_timeout_s seconds"), "{text}");
}

#[test]
fn combined_config_errors_on_examples_without_sections() {
    let e = combined_config("[srs]\n", "# nothing\n").unwrap_err();
    assert!(e.to_string().contains("[daemon]"), "{e}");
    let e = combined_config("# nothing\n", "[daemon]\nlisten = \"x\"\n").unwrap_err();
    assert!(e.to_string().contains("no [section]"), "{e}");
}

#[test]
fn unit_for_verify_points_exec_start_at_the_binary() {
    let unit = repo_file("dist/cuzk.service");
    let v = unit_for_verify(&unit, Path::new("/tmp/x/bin/cuzk")).unwrap();
    assert!(
        v.contains("\nExecStart=/tmp/x/bin/cuzk daemon --config /data/zk/cuzk.toml\n"),
        "{v}"
    );
    assert!(!v.contains(&format!("ExecStart={INSTALLED_BIN}")));
    let e = unit_for_verify("[Service]\nExecStart=/bin/true\n", Path::new("/x")).unwrap_err();
    assert!(e.to_string().contains("ExecStart"), "{e}");
}

#[test]
fn verify_warnings_about_the_unit_are_kept() {
    let out = "/tmp/v/cuzk.service:84: Unknown key 'FooBar' in section [Service], ignoring.\n\
               other.service: unrelated\n";
    assert_eq!(
        unit_warnings(out, "cuzk.service"),
        vec!["/tmp/v/cuzk.service:84: Unknown key 'FooBar' in section [Service], ignoring."]
    );
    assert!(unit_warnings("", "cuzk.service").is_empty());
}

/// The value of `Key=` in the unit (the last one, as systemd reads it).
fn unit_value<'a>(unit: &'a str, key: &str) -> Option<&'a str> {
    unit.lines()
        .filter_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .next_back()
}

#[test]
fn unit_outlasts_the_drain_and_runs_the_daemon_unprivileged() {
    let unit = repo_file("dist/cuzk.service");
    let daemon = tables(&repo_file("daemon/cuzk-daemon.example.toml"));
    let drain = daemon["daemon"]["drain_timeout_s"].as_integer().unwrap();
    let stop: i64 = unit_value(&unit, "TimeoutStopSec")
        .and_then(|v| v.parse().ok())
        .expect("TimeoutStopSec in seconds");
    assert!(
        stop > drain,
        "TimeoutStopSec={stop} must exceed drain_timeout_s={drain}"
    );
    assert_eq!(unit_value(&unit, "KillSignal"), Some("SIGTERM"));
    assert_eq!(unit_value(&unit, "Restart"), Some("on-failure"));
    assert_eq!(unit_value(&unit, "LimitMEMLOCK"), Some("infinity"));
    assert_eq!(unit_value(&unit, "User"), Some("cuzk"));
    assert_eq!(
        unit_value(&unit, "ExecStart"),
        Some("/usr/local/bin/cuzk daemon --config /data/zk/cuzk.toml")
    );
    assert!(unit_value(&unit, "LimitNOFILE").is_some());
    // Settings that would hide or filter the GPU's device nodes.
    for key in [
        "PrivateDevices",
        "DevicePolicy",
        "DeviceAllow",
        "ProtectClock",
    ] {
        assert_eq!(
            unit_value(&unit, key),
            None,
            "{key}= would block /dev/nvidia*"
        );
    }
}

#[test]
fn http_get_on_a_closed_port_is_not_ok() {
    let port = free_port().unwrap();
    assert!(!http_get_ok(port, "/status"));
}

#[test]
fn archs_take_a_comma_list_of_compute_capabilities() {
    assert_eq!(parse_archs("90").unwrap(), "90");
    assert_eq!(parse_archs("86,90,120").unwrap(), "86,90,120");
    for bad in ["", "9", "sm_90", "90,", "90;86", "1200"] {
        assert!(parse_archs(bad).is_err(), "{bad:?} accepted");
    }
}
