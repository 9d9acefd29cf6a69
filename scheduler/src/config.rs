//! The engine's configuration file (TOML) and its resolution into
//! [`EngineOptions`].
//!
//! Every key is optional; `cuzk.example.toml` next to this crate's manifest
//! lists each one with its default (a test parses that file and checks it
//! equals [`Config::default`]). Unknown keys and bad values are errors that
//! name the key, so a typo never silently falls back to a default.

use crate::curio::ConfigNotice;
use crate::error::ConfigError;
use crate::sysinfo;
use serde::{de, Deserialize, Deserializer, Serialize};
use std::path::{Path, PathBuf};

/// The whole configuration file.
/// Largest configuration file read: a real one is a few KB; this bounds
/// what a wrong path (a log, a device) can make the parser hold.
pub const CONFIG_FILE_LIMIT: u64 = 1 << 20;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `[daemon]`: the long-lived service.
    pub daemon: DaemonConfig,
    /// `[srs]`: where parameters live and which to load at start.
    pub srs: SrsConfig,
    /// `[synthesis]`: the CPU synthesis workers.
    pub synthesis: SynthesisConfig,
    /// `[gpus]`: devices and GPU workers.
    pub gpus: GpuConfig,
    /// `[memory]`: the host memory budget.
    pub memory: MemoryConfig,
    /// `[scheduler]`: ordering and observability.
    pub scheduler: SchedulerConfig,
    /// `[logging]`: the daemon's log level and format.
    pub logging: LoggingConfig,
    /// Keys of Curio's configuration file read with no effect here or
    /// with another meaning ([`crate::curio`]): for the caller to log.
    #[serde(skip)]
    pub notices: Vec<ConfigNotice>,
}

/// `[logging]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoggingConfig {
    /// `error`, `warn`, `info`, `debug` or `trace` (`RUST_LOG` and
    /// `--log-level` override it).
    pub level: String,
    /// `text` (for people) or `json` (one object per line).
    pub format: LogFormat,
}

impl Default for LoggingConfig {
    fn default() -> Self {
        Self {
            level: "info".into(),
            format: LogFormat::Text,
        }
    }
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// For people.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// The log levels `[logging] level` and `--log-level` take.
pub const LOG_LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];

/// `[daemon]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DaemonConfig {
    /// `host:port` the daemon listens on.
    #[serde(deserialize_with = "de_listen")]
    pub listen: String,
    /// Jobs accepted but not finished before `submit` answers "queue full".
    #[serde(deserialize_with = "de_positive")]
    pub queue_capacity: usize,
}

impl Default for DaemonConfig {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:9820".into(),
            queue_capacity: 256,
        }
    }
}

/// `[srs]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SrsConfig {
    /// Directory of `.params` files, cuzk's test parameters and Filecoin's
    /// alike; absent: each kind's own default ([`crate::params::param_dir`]).
    pub param_cache: Option<PathBuf>,
    /// Circuit ids whose parameters are loaded at start (e.g. `"bench-k16"`).
    pub preload: Vec<String>,
    /// Directory of recorded circuits (PoRep, SnapDeals); absent:
    /// `$CUZK_R1CS_CACHE`, else the user's cache directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r1cs_cache: Option<PathBuf>,
}

/// `[synthesis]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SynthesisConfig {
    /// Partitions synthesized at the same time (c); absent: the number of
    /// CPU cores.
    #[serde(
        deserialize_with = "de_opt_positive",
        skip_serializing_if = "Option::is_none"
    )]
    pub concurrency: Option<usize>,
    /// At most this many partitions *of one job* in synthesis at once;
    /// absent: no per-job limit (up to `concurrency`).
    #[serde(
        deserialize_with = "de_opt_positive",
        skip_serializing_if = "Option::is_none"
    )]
    pub partition_workers: Option<usize>,
    /// Threads of the CPU pool (rayon's) that synthesis, classification
    /// and CPU MSMs share; 0 (default): one per CPU core.
    pub threads: usize,
    /// `[synthesis.witness]`: how each recorded proof type's witness is
    /// made.
    pub witness: WitnessConfig,
}

/// `[synthesis.witness]`: the witness generator of each proof family
/// (those with a recorded circuit; the classic synthesis has its own).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WitnessConfig {
    /// PoRep C2 (interactive and non-interactive).
    pub porep: WitnessGen,
    /// WinningPoSt and WindowPoSt.
    pub post: WitnessGen,
    /// SnapDeals.
    pub snap: WitnessGen,
}

/// How a partition's witness is made against its recorded circuit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WitnessGen {
    /// cuzk's native generators (PoRep, WinningPoSt, WindowPoSt and
    /// SnapDeals all have one).
    #[default]
    Native,
    /// The circuit's own code, run witness-only.
    Generic,
    /// Both, every value compared: a difference fails the partition with
    /// the first differing position. Slower; for diagnosis.
    Check,
}

impl std::str::FromStr for WitnessGen {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "native" => Ok(Self::Native),
            "generic" => Ok(Self::Generic),
            "check" => Ok(Self::Check),
            _ => Err(format!(
                "{s:?}: expected \"native\", \"generic\" or \"check\""
            )),
        }
    }
}

/// `[gpus]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GpuConfig {
    /// Device ordinals to use; empty: every device the backend has (the CPU
    /// backend has one virtual device).
    #[serde(deserialize_with = "de_devices")]
    pub devices: Vec<u32>,
    /// GPU workers per device (gw). Only the device region is serialized,
    /// so with gw ≥ 2 one worker's CPU work overlaps another's kernels.
    #[serde(deserialize_with = "de_positive")]
    pub gpu_workers_per_device: usize,
    /// Device memory each GPU backend may use: `"auto"` (what the card has
    /// free at start, less a margin), a size (`"16GiB"`), or a share of the
    /// card (`"50%"`). Never more than is free: another process on a shared
    /// card shrinks it. Placements, H-step buffers, MSM scratch and
    /// pipeline depth all fit in it; a proof type that cannot is refused
    /// when its parameters are placed.
    pub memory_limit: ByteSpec,
    /// Where parameters' bases live: `"auto"` (resident when they fit in
    /// the memory limit, else streamed from host memory), `"resident"` or
    /// `"transient"`.
    pub residency: String,
}

impl Default for GpuConfig {
    fn default() -> Self {
        Self {
            devices: Vec::new(),
            gpu_workers_per_device: 2,
            memory_limit: ByteSpec::Auto,
            residency: "auto".into(),
        }
    }
}

/// `[memory]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// Host bytes the engine may hold in synthesized partitions and backend
    /// working sets: `"auto"`, a size (`"64GiB"`, `"500MiB"`, an integer
    /// number of bytes) or a share of physical RAM (`"80%"`).
    pub budget: ByteSpec,
    /// With `budget = "auto"`: bytes left for everything else (the
    /// parameters, the OS); the budget is `MemAvailable − margin`, but at
    /// least half of `MemAvailable`.
    pub margin: ByteSpec,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            budget: ByteSpec::Auto,
            margin: ByteSpec::Bytes(2 << 30),
        }
    }
}

/// `[scheduler]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerConfig {
    /// Anti-starvation: a waiting job gains one priority level each time
    /// this many partitions of other jobs are started ahead of it.
    #[serde(deserialize_with = "de_positive_u64")]
    pub aging: u64,
    /// Record per-partition timeline events (kept in memory until taken).
    pub timeline: bool,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        Self {
            aging: 16,
            timeline: false,
        }
    }
}

/// A memory size as written in the file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ByteSpec {
    /// Decided at start from the machine.
    Auto,
    /// A number of bytes.
    Bytes(u64),
    /// A share of physical RAM, in percent (0, 100].
    Percent(f64),
}

impl ByteSpec {
    /// Parses `"auto"`, `"80%"`, or a size ([`parse_bytes`]: `"64GiB"`, `"1.5 GB"`, `"1048576"`).
    pub fn parse(s: &str) -> Result<Self, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("auto") {
            return Ok(Self::Auto);
        }
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p
                .trim()
                .parse()
                .map_err(|_| format!("'{s}' is not a percentage"))?;
            if !(v > 0.0 && v <= 100.0) {
                return Err(format!("'{s}': a percentage must be in (0, 100]"));
            }
            return Ok(Self::Percent(v));
        }
        parse_bytes(t).map(Self::Bytes)
    }

    /// Bytes for this spec, given the machine's total RAM (for percentages)
    /// and a value for `Auto`.
    pub fn resolve(
        &self,
        total_ram: Option<u64>,
        auto: impl FnOnce() -> Result<u64, String>,
    ) -> Result<u64, String> {
        match *self {
            Self::Auto => auto(),
            Self::Bytes(b) => Ok(b),
            Self::Percent(p) => total_ram
                .map(|t| (t as f64 * p / 100.0) as u64)
                .ok_or_else(|| {
                    "cannot read the machine's RAM size for a percentage; give bytes".to_string()
                }),
        }
    }
}

impl std::fmt::Display for ByteSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Bytes(b) => write!(f, "{b}"),
            Self::Percent(p) => write!(f, "{p}%"),
        }
    }
}

impl Serialize for ByteSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Bytes(b) => s.serialize_u64(*b),
            other => s.serialize_str(&other.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for ByteSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = ByteSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("\"auto\", a size such as \"64GiB\", a percentage such as \"80%\", or a number of bytes")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ByteSpec, E> {
                u64::try_from(v)
                    .map(ByteSpec::Bytes)
                    .map_err(|_| E::custom(format!("{v} bytes: must not be negative")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ByteSpec, E> {
                Ok(ByteSpec::Bytes(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ByteSpec, E> {
                ByteSpec::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Parses a byte size, the one size syntax of every cuzk setting and flag
/// (memory budgets, message limits, sector sizes): an integer or a decimal
/// number, an optional space, and an optional unit. Every unit is a power
/// of 1024, whatever its spelling: `K`, `KB`, `KiB` = 2^10; `M`, `MB`,
/// `MiB` = 2^20; `G`, `GB`, `GiB` = 2^30; `T`, `TB`, `TiB` = 2^40 (`B` or
/// none: bytes), case-insensitive. So "32G", "32GB" and "32GiB" are all a
/// 32 GiB sector, as Filecoin's tools (and go-units' `RAMInBytes`, which
/// Lotus and Curio use) read them.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = (t[..split].trim(), t[split..].trim());
    if num.is_empty() {
        return Err(format!(
            "'{s}' is not a size (expected e.g. 64GiB, 500MiB or a number of bytes)"
        ));
    }
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "'{s}': unknown unit '{unit}' (use B, KiB, MiB, GiB or TiB; K, KB, M, MB, G, GB, T and TB mean the same)"
            ))
        }
    };
    let mult = 1u64 << shift;
    if let Ok(n) = num.parse::<u64>() {
        return n
            .checked_mul(mult)
            .ok_or_else(|| format!("'{s}' is too large"));
    }
    let v: f64 = num.parse().map_err(|_| format!("'{s}' is not a size"))?;
    let bytes = v * mult as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("'{s}' is too large"));
    }
    Ok(bytes as u64)
}

/// Writes a byte count for people: `1.50 GiB`.
pub fn format_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

fn de_positive<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let v = i64::deserialize(d)?;
    if v < 1 {
        return Err(de::Error::custom(format!("{v}: must be at least 1")));
    }
    usize::try_from(v).map_err(|_| de::Error::custom(format!("{v}: too large")))
}

fn de_positive_u64<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = i64::deserialize(d)?;
    if v < 1 {
        return Err(de::Error::custom(format!("{v}: must be at least 1")));
    }
    Ok(v as u64)
}

fn de_opt_positive<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    de_positive(d).map(Some)
}

fn de_devices<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    let v = Vec::<i64>::deserialize(d)?;
    let mut out: Vec<u32> = Vec::with_capacity(v.len());
    for x in v {
        let id = u32::try_from(x)
            .map_err(|_| de::Error::custom(format!("device {x}: not a device ordinal")))?;
        if out.contains(&id) {
            return Err(de::Error::custom(format!("device {id} is listed twice")));
        }
        out.push(id);
    }
    Ok(out)
}

fn de_listen<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    check_listen(&s).map_err(de::Error::custom)?;
    Ok(s)
}

/// `host:port` with a non-empty host and a port in 1..=65535 (IPv6 hosts in
/// brackets). No name resolution happens here.
fn check_listen(s: &str) -> Result<(), String> {
    let (host, port) = s
        .rsplit_once(':')
        .ok_or_else(|| format!("'{s}': expected host:port"))?;
    if host.is_empty() || host.contains(char::is_whitespace) {
        return Err(format!("'{s}': missing or invalid host"));
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 => Ok(()),
        _ => Err(format!("'{s}': port must be a number in 1..=65535")),
    }
}

impl Config {
    /// Parses TOML text; `origin` names the source in errors.
    /// Curio's keys are read too ([`crate::curio`]): renamed onto ours, or
    /// dropped with a notice in [`Config::notices`].
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, ConfigError> {
        let parse_err = |message: String| ConfigError::Parse {
            origin: origin.to_string(),
            message,
        };
        let mut table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| parse_err(e.to_string().trim().to_string()))?;
        let before = table.clone();
        let notices = crate::curio::translate(&mut table).map_err(parse_err)?;
        // Untranslated text parses as written, so errors keep their lines.
        let parsed = if table == before {
            toml::from_str::<Config>(text)
        } else {
            table.try_into()
        };
        let mut cfg = parsed.map_err(|e| parse_err(e.to_string().trim().to_string()))?;
        cfg.notices = notices;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and parses a configuration file.
    /// Files over [`CONFIG_FILE_LIMIT`] bytes are refused unread.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let read_err = |message: String| ConfigError::Read {
            path: path.to_path_buf(),
            message,
        };
        let bytes =
            cuzk_groth16::file::read_capped(path, CONFIG_FILE_LIMIT, "a configuration file")
                .map_err(|e| match e {
                    cuzk_groth16::Groth16Error::File { source, .. } => read_err(source.to_string()),
                    other => read_err(other.to_string()),
                })?;
        let text = String::from_utf8(bytes).map_err(|e| read_err(format!("not UTF-8: {e}")))?;
        Self::from_toml(&text, &path.display().to_string())
    }

    /// Checks values that deserialization alone cannot (e.g. after
    /// command-line overrides were applied).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, msg: String| {
            Err(ConfigError::Value {
                key: key.to_string(),
                message: msg,
            })
        };
        check_listen(&self.daemon.listen).or_else(|m| bad("daemon.listen", m))?;
        if self.daemon.queue_capacity == 0 {
            return bad("daemon.queue_capacity", "must be at least 1".into());
        }
        if self.synthesis.concurrency == Some(0) {
            return bad("synthesis.concurrency", "must be at least 1".into());
        }
        if self.synthesis.partition_workers == Some(0) {
            return bad("synthesis.partition_workers", "must be at least 1".into());
        }
        if self.gpus.gpu_workers_per_device == 0 {
            return bad("gpus.gpu_workers_per_device", "must be at least 1".into());
        }
        if self.scheduler.aging == 0 {
            return bad("scheduler.aging", "must be at least 1".into());
        }
        for (i, d) in self.gpus.devices.iter().enumerate() {
            if self.gpus.devices[..i].contains(d) {
                return bad("gpus.devices", format!("device {d} is listed twice"));
            }
        }
        if let ByteSpec::Bytes(0) = self.memory.budget {
            return bad("memory.budget", "must be more than 0 bytes".into());
        }
        if let ByteSpec::Bytes(0) = self.gpus.memory_limit {
            return bad("gpus.memory_limit", "must be more than 0 bytes".into());
        }
        if !["auto", "resident", "transient"].contains(&self.gpus.residency.as_str()) {
            return bad(
                "gpus.residency",
                format!(
                    "{:?}: expected \"auto\", \"resident\" or \"transient\"",
                    self.gpus.residency
                ),
            );
        }
        if !LOG_LEVELS.contains(&self.logging.level.to_ascii_lowercase().as_str()) {
            return bad(
                "logging.level",
                format!(
                    "{:?}: expected one of {}",
                    self.logging.level,
                    LOG_LEVELS.join(", ")
                ),
            );
        }
        if let ByteSpec::Percent(_) | ByteSpec::Auto = self.memory.margin {
            return bad(
                "memory.margin",
                "must be a size in bytes (e.g. \"2GiB\")".into(),
            );
        }
        Ok(())
    }

    /// Resolves `auto` values against this machine and returns the engine's
    /// settings.
    pub fn engine_options(&self) -> Result<EngineOptions, ConfigError> {
        self.validate()?;
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let mem = sysinfo::meminfo();
        let margin = match self.memory.margin {
            ByteSpec::Bytes(b) => b,
            _ => 0,
        };
        let budget = self
            .memory
            .budget
            .resolve(mem.map(|m| m.total), || {
                let m = mem.ok_or_else(|| {
                    "cannot read available memory (/proc/meminfo); set [memory] budget to a size".to_string()
                })?;
                Ok(m.available.saturating_sub(margin).max(m.available / 2))
            })
            .map_err(|message| ConfigError::Value { key: "memory.budget".into(), message })?;
        let concurrency = self.synthesis.concurrency.unwrap_or(cores);
        Ok(EngineOptions {
            concurrency,
            partition_workers: self.synthesis.partition_workers.unwrap_or(concurrency),
            devices: if self.gpus.devices.is_empty() {
                vec![0]
            } else {
                self.gpus.devices.clone()
            },
            gpu_workers_per_device: self.gpus.gpu_workers_per_device,
            memory_budget: budget,
            queue_capacity: self.daemon.queue_capacity,
            aging: self.scheduler.aging,
            timeline: self.scheduler.timeline,
        })
    }
}

/// The engine's resolved settings (no `auto` left).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineOptions {
    /// Synthesis workers (c).
    pub concurrency: usize,
    /// Per-job cap on partitions in synthesis.
    pub partition_workers: usize,
    /// Device ordinals; with the CPU backend each is a virtual slot.
    pub devices: Vec<u32>,
    /// GPU workers per device (gw).
    pub gpu_workers_per_device: usize,
    /// Host memory budget in bytes.
    pub memory_budget: u64,
    /// Unfinished jobs the engine accepts.
    pub queue_capacity: usize,
    /// Partitions started ahead of a job per priority level it gains.
    pub aging: u64,
    /// Record timeline events.
    pub timeline: bool,
}

impl EngineOptions {
    /// Settings for tests and small runs: `c` synthesis workers, one device
    /// with `gw` workers, the given budget, timeline on.
    pub fn small(c: usize, gw: usize, memory_budget: u64) -> Self {
        Self {
            concurrency: c,
            partition_workers: c,
            devices: vec![0],
            gpu_workers_per_device: gw,
            memory_budget,
            queue_capacity: 1024,
            aging: 16,
            timeline: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_units() {
        assert_eq!(parse_bytes("0"), Ok(0));
        assert_eq!(parse_bytes("1"), Ok(1));
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("2KiB"), Ok(2048));
        assert_eq!(parse_bytes("2 kb"), Ok(2048));
        assert_eq!(parse_bytes("2k"), Ok(2048));
        assert_eq!(parse_bytes("64GiB"), Ok(64 << 30));
        assert_eq!(parse_bytes("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_bytes("3MB"), Ok(3 << 20));
        assert_eq!(parse_bytes("512mib"), Ok(512 << 20));
        // A sector size means the same in every spelling.
        for s in ["32GiB", "32GB", "32G", "32 g", "34359738368"] {
            assert_eq!(parse_bytes(s), Ok(32 << 30), "{s}");
        }
        assert_eq!(parse_bytes("1TiB"), Ok(1 << 40));
        for bad in [
            "",
            "GiB",
            "2XB",
            "12PB",
            "-5",
            "1.2.3MB",
            "99999999999999999999",
            "20000000TiB",
        ] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn byte_spec() {
        assert_eq!(ByteSpec::parse("auto"), Ok(ByteSpec::Auto));
        assert_eq!(ByteSpec::parse("AUTO"), Ok(ByteSpec::Auto));
        assert_eq!(ByteSpec::parse("80%"), Ok(ByteSpec::Percent(80.0)));
        assert!(ByteSpec::parse("0%").is_err());
        assert!(ByteSpec::parse("101%").is_err());
        assert!(ByteSpec::parse("x%").is_err());
        assert_eq!(
            ByteSpec::Percent(50.0).resolve(Some(1000), || Ok(0)),
            Ok(500)
        );
        assert!(ByteSpec::Percent(50.0).resolve(None, || Ok(0)).is_err());
        assert_eq!(ByteSpec::Auto.resolve(None, || Ok(7)), Ok(7));
    }

    #[test]
    fn format() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1024), "1.00 KiB");
        assert_eq!(format_bytes(3 << 29), "1.50 GiB");
    }

    #[test]
    fn listen() {
        assert!(check_listen("127.0.0.1:9820").is_ok());
        assert!(check_listen("[::1]:1").is_ok());
        assert!(check_listen("localhost:65535").is_ok());
        assert!(check_listen("localhost").is_err());
        assert!(check_listen(":80").is_err());
        assert!(check_listen("h:0").is_err());
        assert!(check_listen("h:65536").is_err());
        assert!(check_listen("h:x").is_err());
    }
}
