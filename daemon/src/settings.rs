//! The daemon's settings: the engine's `cuzk_scheduler::Config` file plus
//! the daemon-only keys of its `[daemon]` section.
//!
//! `cuzk_scheduler::Config` refuses unknown keys, and `[daemon]` there only
//! knows `listen` and `queue_capacity`. The daemon's own keys live in the
//! same `[daemon]` table of the same file; [`load_config`] takes them out
//! (strictly: unknown keys are errors naming every known key) and hands the
//! rest to `Config`. When the scheduler's `DaemonConfig` grows these keys,
//! this module shrinks to a conversion.

use crate::error::DaemonError;
use cuzk_scheduler::{parse_bytes, Config, ConfigError};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What happens to unfinished jobs when the daemon is told to stop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShutdownMode {
    /// Accept nothing new, let queued and running jobs finish (at most
    /// `drain_timeout_s`, then cancel what is left).
    #[default]
    Drain,
    /// Accept nothing new and cancel every unfinished job at once.
    Cancel,
}

/// What happens to a job when the client of its `Prove` call goes away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DisconnectMode {
    /// Cancel it, unless someone else also waits for it (another `Prove`
    /// with the same request_id) or it was (also) sent with `SubmitProof`.
    #[default]
    Cancel,
    /// Let it finish; its result is kept like any other.
    Keep,
}

/// The daemon-only keys of `[daemon]`, with their defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DaemonSettings {
    /// Listen for gRPC on `[daemon] listen` (TCP). False: unix socket only.
    pub listen_tcp: bool,
    /// Also listen for gRPC on this unix socket path.
    pub unix_socket: Option<PathBuf>,
    /// `host:port` of the HTTP server for `GET /metrics` and `GET /status`;
    /// empty: no HTTP server.
    pub metrics_listen: String,
    /// `drain` or `cancel` (see [`ShutdownMode`]).
    pub on_shutdown: ShutdownMode,
    /// Longest a drain waits before cancelling what is left, in seconds.
    pub drain_timeout_s: u64,
    /// `cancel` or `keep` (see [`DisconnectMode`]).
    pub on_disconnect: DisconnectMode,
    /// Largest gRPC message accepted or sent: a size such as "256MiB"
    /// (Curio's client allows 256 MiB; a 32 GiB C1 output is ~50 MB).
    pub max_message: String,
    /// Finished jobs whose results are kept for `AwaitProof`.
    pub keep_results: usize,
    /// Largest log2 domain of a benchmark-circuit job; its test
    /// parameters are generated on first use, which takes minutes from 2^20.
    pub bench_max_log_size: u32,
}

impl Default for DaemonSettings {
    fn default() -> Self {
        Self {
            listen_tcp: true,
            unix_socket: None,
            metrics_listen: "127.0.0.1:9821".into(),
            on_shutdown: ShutdownMode::Drain,
            drain_timeout_s: 600,
            on_disconnect: DisconnectMode::Cancel,
            max_message: "256MiB".into(),
            keep_results: 1024,
            bench_max_log_size: 20,
        }
    }
}

/// The `[daemon]` keys `cuzk_scheduler::Config` knows itself.
const ENGINE_DAEMON_KEYS: [&str; 2] = ["listen", "queue_capacity"];
/// The keys [`DaemonSettings`] takes.
const OWN_KEYS: [&str; 9] = [
    "listen_tcp",
    "unix_socket",
    "metrics_listen",
    "on_shutdown",
    "drain_timeout_s",
    "on_disconnect",
    "max_message",
    "keep_results",
    "bench_max_log_size",
];

impl DaemonSettings {
    /// Checks values serde cannot.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String| ConfigError::Value {
            key: format!("daemon.{key}"),
            message,
        };
        self.max_message_bytes()
            .map_err(|m| bad("max_message", m))?;
        self.metrics_addr().map_err(|m| bad("metrics_listen", m))?;
        if self.keep_results == 0 {
            return Err(bad("keep_results", "must be at least 1".into()));
        }
        if !(10..=27).contains(&self.bench_max_log_size) {
            return Err(bad("bench_max_log_size", "must be in 10..=27".into()));
        }
        Ok(())
    }

    /// `max_message` in bytes (at least 1 MiB, at most 4 GiB − 1).
    pub fn max_message_bytes(&self) -> Result<usize, String> {
        let b = parse_bytes(&self.max_message)?;
        if !(1 << 20..u32::MAX as u64).contains(&b) {
            return Err(format!(
                "'{}': must be between 1MiB and 4GiB",
                self.max_message
            ));
        }
        Ok(b as usize)
    }

    /// The HTTP address, `None` when disabled. Port 0 (any free port) is
    /// allowed, for tests.
    pub fn metrics_addr(&self) -> Result<Option<SocketAddr>, String> {
        if self.metrics_listen.trim().is_empty() {
            return Ok(None);
        }
        self.metrics_listen.parse().map(Some).map_err(|_| {
            format!(
                "'{}': expected ip:port (e.g. 127.0.0.1:9821) or \"\"",
                self.metrics_listen
            )
        })
    }

    /// How long a drain may take.
    pub fn drain_timeout(&self) -> Duration {
        Duration::from_secs(self.drain_timeout_s)
    }
}

/// Parses a configuration file's text: the engine's [`Config`] and the
/// daemon's own keys. `origin` names the text in errors.
pub fn parse_config(text: &str, origin: &str) -> Result<(Config, DaemonSettings), ConfigError> {
    let parse_err = |message: String| ConfigError::Parse {
        origin: origin.to_string(),
        message,
    };
    let mut table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| parse_err(e.to_string().trim().to_string()))?;
    let mut own = toml::Table::new();
    let mut curio = false;
    if let Some(d) = table.get_mut("daemon") {
        let d = d
            .as_table_mut()
            .ok_or_else(|| parse_err("[daemon] must be a table".into()))?;
        curio = curio_daemon_keys(d).map_err(parse_err)?;
        for key in d.keys().cloned().collect::<Vec<_>>() {
            if OWN_KEYS.contains(&key.as_str()) {
                own.insert(key.clone(), d.remove(&key).expect("listed"));
            } else if !ENGINE_DAEMON_KEYS.contains(&key.as_str()) {
                return Err(parse_err(format!(
                    "unknown key `{key}` in [daemon] (known: {}, {})",
                    ENGINE_DAEMON_KEYS.join(", "),
                    OWN_KEYS.join(", ")
                )));
            }
        }
    }
    let had_own = !own.is_empty();
    let settings: DaemonSettings = own
        .try_into()
        .map_err(|e: toml::de::Error| parse_err(format!("[daemon]: {}", e.to_string().trim())))?;
    settings.validate()?;
    // Without daemon-only keys the original text goes through unchanged, so
    // the engine's errors keep their line numbers.
    let cfg = if !had_own && !curio {
        Config::from_toml(text, origin)?
    } else {
        let rest = toml::to_string(&table).map_err(|e| parse_err(e.to_string()))?;
        Config::from_toml(&rest, origin)?
    };
    Ok((cfg, settings))
}

/// Curio's `[daemon]` keys in ours, in place: `listen = "unix://PATH"`
/// becomes `unix_socket = PATH` with `listen_tcp = false` (Curio serves
/// one address), and `status_listen` (Curio's HTTP status address, ""
/// off) becomes `metrics_listen`, which serves `/status` and `/metrics`.
/// True when something was renamed. A key given under both names is an
/// error naming both.
fn curio_daemon_keys(d: &mut toml::Table) -> Result<bool, String> {
    let mut renamed = false;
    if let Some(v) = d.remove("status_listen") {
        if d.contains_key("metrics_listen") {
            return Err(
                "[daemon] sets both `status_listen` (Curio's name) and `metrics_listen`: keep one"
                    .into(),
            );
        }
        d.insert("metrics_listen".into(), v);
        renamed = true;
    }
    let unix = d
        .get("listen")
        .and_then(|v| v.as_str())
        .and_then(unix_path)
        .map(str::to_string);
    if let Some(path) = unix {
        if d.contains_key("unix_socket") {
            return Err(
                "[daemon] listen is a unix socket and unix_socket is set too: keep one".into(),
            );
        }
        d.remove("listen");
        d.insert("unix_socket".into(), toml::Value::String(path));
        d.insert("listen_tcp".into(), toml::Value::Boolean(false));
        renamed = true;
    }
    Ok(renamed)
}

/// The path of a unix socket address, `unix://PATH` or `unix:PATH` (the
/// forms Curio's client accepts: `unix:///run/x.sock` is `/run/x.sock`),
/// `None` for any other address. The one reading of such addresses, for
/// the server's `listen` and the client's `--addr` alike.
pub fn unix_path(addr: &str) -> Option<&str> {
    addr.strip_prefix("unix://")
        .or_else(|| addr.strip_prefix("unix:"))
        .filter(|p| !p.is_empty())
}

/// Reads and parses a configuration file (see [`parse_config`]).
pub fn load_config(path: &Path) -> Result<(Config, DaemonSettings), DaemonError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(parse_config(&text, &path.display().to_string())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_without_daemon_keys() {
        let (cfg, s) = parse_config("[synthesis]\nconcurrency = 2\n", "t").unwrap();
        assert_eq!(cfg.synthesis.concurrency, Some(2));
        assert_eq!(s, DaemonSettings::default());
    }

    #[test]
    fn own_keys_split_from_engine_keys() {
        let text = "[daemon]\nlisten = \"127.0.0.1:7000\"\nunix_socket = \"/tmp/x.sock\"\non_shutdown = \"cancel\"\nmax_message = \"64MiB\"\n";
        let (cfg, s) = parse_config(text, "t").unwrap();
        assert_eq!(cfg.daemon.listen, "127.0.0.1:7000");
        assert_eq!(s.unix_socket, Some(PathBuf::from("/tmp/x.sock")));
        assert_eq!(s.on_shutdown, ShutdownMode::Cancel);
        assert_eq!(s.max_message_bytes(), Ok(64 << 20));
    }

    #[test]
    fn unknown_and_bad_keys_are_errors() {
        let e = parse_config("[daemon]\nunix_sokcet = \"x\"\n", "t").unwrap_err();
        assert!(e.to_string().contains("unix_sokcet"), "{e}");
        assert!(e.to_string().contains("unix_socket"), "{e}");
        let e = parse_config("[daemon]\non_shutdown = \"later\"\n", "t").unwrap_err();
        assert!(
            e.to_string().contains("on_shutdown") || e.to_string().contains("later"),
            "{e}"
        );
        let e = parse_config("[daemon]\nmax_message = \"1KiB\"\n", "t").unwrap_err();
        assert!(e.to_string().contains("max_message"), "{e}");
        let e = parse_config("[daemon]\nmetrics_listen = \"nowhere\"\n", "t").unwrap_err();
        assert!(e.to_string().contains("metrics_listen"), "{e}");
        let e = parse_config("[synthesis]\nconcurency = 2\n", "t").unwrap_err();
        assert!(e.to_string().contains("concurency"), "{e}");
        assert!(parse_config("[daemon\n", "t").is_err());
    }

    #[test]
    fn curio_daemon_keys_map_onto_ours() {
        let text = "[daemon]\nlisten = \"unix:///run/curio/cuzk.sock\"\nstatus_listen = \"127.0.0.1:9999\"\n";
        let (cfg, s) = parse_config(text, "t").unwrap();
        assert_eq!(s.unix_socket, Some(PathBuf::from("/run/curio/cuzk.sock")));
        assert!(!s.listen_tcp);
        assert_eq!(s.metrics_listen, "127.0.0.1:9999");
        assert_eq!(cfg.daemon.listen, Config::default().daemon.listen);
        let (_, tcp) = parse_config("[daemon]\nlisten = \"0.0.0.0:9820\"\n", "t").unwrap();
        assert!(tcp.listen_tcp && tcp.unix_socket.is_none());
        for both in [
            "[daemon]\nstatus_listen = \"\"\nmetrics_listen = \"\"\n",
            "[daemon]\nlisten = \"unix:///a\"\nunix_socket = \"/b\"\n",
        ] {
            assert!(parse_config(both, "t").is_err(), "{both}");
        }
        assert!(parse_config("[daemon]\nlisten = \"unix://\"\n", "t").is_err());
    }

    /// Curio's own example file (extern/cuzk/cuzk.example.toml, a
    /// fixture copy) starts a daemon: its keys map onto ours or are
    /// noted as having no effect.
    #[test]
    fn curio_example_file_is_accepted() {
        let text = include_str!("../tests/fixtures/curio-cuzk.example.toml");
        let (cfg, s) = parse_config(text, "curio").unwrap();
        assert_eq!(cfg.daemon.listen, "0.0.0.0:9820");
        assert!(s.listen_tcp);
        assert_eq!(cfg.srs.param_cache, Some(PathBuf::from("/data/zk/params")));
        assert_eq!(cfg.memory.margin, cuzk_scheduler::ByteSpec::Bytes(5 << 30));
        assert_eq!(cfg.gpus.gpu_workers_per_device, 2);
        assert_eq!(cfg.synthesis.threads, 0);
        let keys: Vec<&str> = cfg.notices.iter().map(|n| n.key.as_str()).collect();
        for k in [
            "memory.eviction_min_idle",
            "gpus.gpu_threads",
            "scheduler.max_batch_size",
            "scheduler.max_batch_wait_ms",
            "scheduler.sort_by_type",
            "pipeline.enabled",
            "pipeline.synthesis_lookahead",
            "pipeline.synthesis_concurrency",
        ] {
            assert!(keys.contains(&k), "{k} not noted: {keys:?}");
        }
    }

    #[test]
    fn example_file_is_the_defaults() {
        let text = include_str!("../cuzk-daemon.example.toml");
        let (cfg, s) = parse_config(text, "example").unwrap();
        assert_eq!(cfg, Config::default());
        assert_eq!(s, DaemonSettings::default());
    }
}
