//! `cuzk daemon` (or `cuzk --config FILE`, Curio's command line): the
//! proving daemon (gRPC `cuzk.v1.ProvingEngine`, the protocol Curio speaks;
//! HTTP `/metrics` and `/status`) until SIGTERM or SIGINT, then a graceful
//! shutdown per `[daemon] on_shutdown`, exit 0.

use crate::cmd::{backends, DeviceArgs};
use crate::output::Ctx;
use crate::params::ParamArgs;
use anyhow::{Context, Result};
use cuzk_daemon::{Daemon, EngineHost, ServeOptions};
use cuzk_scheduler::params::{param_dir, ParamFiles};
use std::path::PathBuf;

/// The configuration file used when no `--config` is given and it exists:
/// where Curio's setup puts it.
pub const DEFAULT_CONFIG: &str = "/data/zk/cuzk.toml";

#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// Configuration file: the engine's TOML (scheduler/cuzk.example.toml)
    /// with the daemon's keys in [daemon] (daemon/cuzk-daemon.example.toml);
    /// Curio's cuzk.toml is read too. Default: /data/zk/cuzk.toml when it
    /// exists.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// gRPC address: host:port, or unix://PATH for a unix socket only
    /// (overrides [daemon] listen).
    #[arg(long)]
    pub listen: Option<String>,
    /// Log level: error, warn, info, debug or trace (overrides RUST_LOG
    /// and [logging] level).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(cuzk_scheduler::LOG_LEVELS))]
    pub log_level: Option<String>,
    /// Also serve gRPC on this unix socket (overrides [daemon] unix_socket).
    #[arg(long)]
    pub unix_socket: Option<PathBuf>,
    /// Serve gRPC on the unix socket only (no TCP).
    #[arg(long, requires = "unix_socket")]
    pub no_tcp: bool,
    /// HTTP address for GET /metrics and /status; "" turns it off
    /// (overrides [daemon] metrics_listen).
    #[arg(long)]
    pub metrics_listen: Option<String>,
    #[command(flatten)]
    pub params: ParamArgs,
    #[command(flatten)]
    pub device: DeviceArgs,
}

pub fn run(_ctx: &Ctx, a: Args) -> Result<()> {
    let default = std::path::Path::new(DEFAULT_CONFIG);
    let path = a
        .config
        .clone()
        .or_else(|| default.is_file().then(|| default.to_path_buf()));
    let (mut cfg, mut settings) = match &path {
        Some(p) => cuzk_daemon::load_config(p)?,
        None => Default::default(),
    };
    init_logging(a.log_level.as_deref(), &cfg.logging)?;
    if let Some(p) = &path {
        tracing::info!(config = %p.display(), "configuration read");
    }
    for n in &cfg.notices {
        tracing::warn!(key = %n.key, "{}", n.message);
    }
    if let Some(l) = a.listen.as_deref() {
        match cuzk_daemon::settings::unix_path(l) {
            Some(p) => {
                settings.unix_socket = Some(p.into());
                settings.listen_tcp = false;
            }
            None => cfg.daemon.listen = l.to_string(),
        }
    }
    if let Some(u) = &a.unix_socket {
        settings.unix_socket = Some(u.clone());
    }
    if a.no_tcp {
        settings.listen_tcp = false;
    }
    if let Some(m) = &a.metrics_listen {
        settings.metrics_listen = m.clone();
    }
    if let Some(p) = &a.params.param_cache {
        cfg.srs.param_cache = Some(p.clone());
    }
    a.device.apply(&mut cfg)?;
    settings
        .validate()
        .context("invalid settings (flags override the config file)")?;
    super::init_cpu_pool(cfg.synthesis.threads)?;
    let mut opts = cfg.engine_options()?;
    let config_dir = cfg.srs.param_cache.as_deref();
    let test_params = param_dir(None, config_dir, ParamFiles::Test);
    let filecoin_params = param_dir(None, config_dir, ParamFiles::Filecoin);
    // One backend per device (every GPU, or those in [gpus] devices; else
    // one CPU backend), each within [gpus] memory_limit and residency.
    let (backends, ordinals) = backends(a.device.backend, &cfg.gpus)?;
    opts.devices = ordinals;
    // Each job has one blocking waiter thread; leave room for parameter
    // loads and request checks beside a full queue.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(opts.queue_capacity + 64)
        .thread_name("cuzk-daemon")
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        let shutdown = shutdown_signal()?;
        let host = EngineHost::start(
            opts,
            backends,
            test_params,
            filecoin_params,
            settings.bench_max_log_size,
        )?;
        #[cfg(feature = "filecoin")]
        let host = match &cfg.srs.r1cs_cache {
            Some(dir) => host.with_r1cs_dir(dir.clone()),
            None => host,
        }
        .with_witness(cfg.synthesis.witness.clone());
        let daemon = Daemon::bind(ServeOptions::from_config(&cfg, settings), host).await?;
        tracing::info!(
            tcp = ?daemon.tcp_addr(),
            http = ?daemon.http_addr(),
            "cuzk daemon {} ready",
            env!("CARGO_PKG_VERSION")
        );
        daemon.run(shutdown).await?;
        anyhow::Ok(())
    })
}

/// Resolves on the first SIGTERM or SIGINT. The handlers are installed
/// before the daemon binds, so an early signal is not lost.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    Ok(async move {
        let which = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        tracing::info!("{which}: shutting down");
    })
}

/// Logs to stderr, as text or one JSON object per line (`[logging]
/// format`). The filter: `--log-level`, else `RUST_LOG` (any tracing
/// filter), else `[logging] level`.
fn init_logging(flag: Option<&str>, cfg: &cuzk_scheduler::LoggingConfig) -> Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = match flag {
        Some(l) => EnvFilter::new(l),
        None => EnvFilter::try_from_default_env()
            .or_else(|_| EnvFilter::try_new(cfg.level.to_ascii_lowercase()))
            .context("[logging] level")?,
    };
    let b = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // A second subscriber (tests running two daemons in one process) keeps
    // the first.
    let _ = match cfg.format {
        cuzk_scheduler::LogFormat::Json => b.json().try_init(),
        cuzk_scheduler::LogFormat::Text => b
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
    };
    Ok(())
}
