//! Curio's command line and configuration file: `cuzk --config FILE` with
//! no subcommand serves (as Curio's `cuzk` does) from Curio's own example
//! file (a fixture copy, with only the addresses and the parameter
//! directory pointed at the test's), logging a warning for each key that
//! has no effect here, and stops cleanly on SIGTERM.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CURIO_EXAMPLE: &str = include_str!("../../daemon/tests/fixtures/curio-cuzk.example.toml");

/// `cuzk ARGS`, run to its end.
fn cuzk(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(args)
        .output()
        .expect("cuzk runs")
}

#[test]
fn curio_config_and_command_line_serve() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("cuzk.sock");
    let params = dir.path().join("params");
    let text = CURIO_EXAMPLE
        .replace(
            "listen = \"0.0.0.0:9820\"",
            &format!(
                "listen = \"unix://{}\"\nstatus_listen = \"\"",
                sock.display()
            ),
        )
        .replace("/data/zk/params", &params.display().to_string());
    assert_ne!(text, CURIO_EXAMPLE, "the fixture's listen line moved");
    let cfg = dir.path().join("cuzk.toml");
    std::fs::write(&cfg, text).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["--config", cfg.to_str().unwrap(), "--backend", "cpu"])
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cuzk runs");
    let t = Instant::now();
    while !sock.exists() && t.elapsed() < Duration::from_secs(120) {
        if let Some(status) = child.try_wait().unwrap() {
            let mut e = String::new();
            child.stderr.take().unwrap().read_to_string(&mut e).unwrap();
            panic!("the daemon exited early ({status}): {e}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let served = sock.exists();
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(served, "no socket at {} after 120 s: {err}", sock.display());
    assert_eq!(status.code(), Some(0), "{err}");
    for key in [
        "gpus.gpu_threads",
        "scheduler.max_batch_size",
        "scheduler.sort_by_type",
        "memory.eviction_min_idle",
        "pipeline.enabled",
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(key))
            .unwrap_or_else(|| panic!("no warning for {key}: {err}"));
        assert!(
            line.contains("WARN") && line.contains("no effect here"),
            "{line}"
        );
    }
    assert!(!sock.exists(), "the socket file outlived the daemon");
}

#[test]
fn unknown_keys_stay_errors_and_flags_check_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("cuzk.toml");
    std::fs::write(&cfg, "[pipeline]\nenabeld = true\n").unwrap();
    let o = cuzk(&["--config", cfg.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.starts_with("error: ") && e.contains("enabeld"), "{e}");
    let o = cuzk(&["--log-level", "loud"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("loud"));
    // A daemon option before another command would be ignored: refused.
    let o = cuzk(&["--listen", "127.0.0.1:1", "info"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--listen"));
    // Global flags still go anywhere.
    let o = cuzk(&["--quiet", "info"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn info_prints_the_resolved_settings_of_curios_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("cuzk.toml");
    std::fs::write(&cfg, CURIO_EXAMPLE).unwrap();
    let o = cuzk(&["--json", "info", "--config", cfg.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = &v["config"];
    assert_eq!(c["engine"]["gpu_workers_per_device"], 2);
    assert!(c["engine"]["memory_budget"].as_u64().unwrap() > 0);
    assert_eq!(c["daemon"]["listen"], "0.0.0.0:9820");
    assert_eq!(c["srs"]["param_cache"], "/data/zk/params");
    let noted: Vec<&str> = c["notices"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["key"].as_str())
        .collect();
    assert!(noted.contains(&"gpus.gpu_threads"), "{noted:?}");
}
