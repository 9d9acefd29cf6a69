//! Binding the sockets, serving gRPC (TCP and/or a unix socket) and HTTP
//! (`GET /metrics`, `GET /status`), and the graceful shutdown.
//!
//! Shutdown, when the `shutdown` future resolves (SIGTERM/SIGINT in
//! `cuzk daemon`): new submissions are refused (UNAVAILABLE); then with
//! `on_shutdown = drain` unfinished jobs may finish for `drain_timeout_s`
//! and what is left is cancelled, with `cancel` everything is cancelled at
//! once. Every unfinished job gets an outcome, so every waiting
//! `AwaitProof`/`Prove` is answered (COMPLETED or CANCELLED) before the
//! servers stop; then the engine's workers are joined.

use crate::engine_glue::EngineHost;
use crate::error::DaemonError;
use crate::jobs::Registry;
use crate::metrics::Metrics;
use crate::pb::proving_engine_server::ProvingEngineServer;
use crate::service::{ProvingService, Shared};
use crate::settings::{DaemonSettings, ShutdownMode};
use cuzk_scheduler::Config;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How long cancelled jobs get to report (a job still loading its
/// parameters ends only when the load does).
const CANCEL_SETTLE: Duration = Duration::from_secs(30);
/// How long the servers get to send the last answers once jobs are over.
const SERVER_STOP: Duration = Duration::from_secs(10);
/// How often the engine's timeline is read (job phases).
const POLL_EVERY: Duration = Duration::from_millis(50);

/// Where to listen and how to behave.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// gRPC over TCP, `host:port` (port 0: any free port).
    pub grpc_tcp: Option<String>,
    /// gRPC over a unix socket at this path.
    pub grpc_unix: Option<PathBuf>,
    /// The daemon-only settings (HTTP address, shutdown, limits).
    pub settings: DaemonSettings,
    /// Circuit ids to load before serving.
    pub preload: Vec<String>,
}

impl ServeOptions {
    /// From the configuration file's values.
    pub fn from_config(cfg: &Config, settings: DaemonSettings) -> Self {
        Self {
            grpc_tcp: settings.listen_tcp.then(|| cfg.daemon.listen.clone()),
            grpc_unix: settings.unix_socket.clone(),
            preload: cfg.srs.preload.clone(),
            settings,
        }
    }
}

/// What a shutdown left behind (for the log and tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShutdownReport {
    /// Unfinished jobs when the shutdown began.
    pub unfinished_at_signal: usize,
    /// Jobs cancelled by the shutdown.
    pub cancelled_by_shutdown: u64,
    /// Completed since start.
    pub completed: u64,
    /// Failed since start.
    pub failed: u64,
}

/// A daemon whose sockets are bound, ready to [`Daemon::run`].
pub struct Daemon {
    shared: Arc<Shared>,
    settings: DaemonSettings,
    tcp: Option<TcpListener>,
    unix: Option<(UnixListener, PathBuf)>,
    http: Option<TcpListener>,
}

impl std::fmt::Debug for Daemon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Daemon")
            .field("tcp", &self.tcp_addr())
            .field("unix", &self.unix.as_ref().map(|u| &u.1))
            .field("http", &self.http_addr())
            .finish()
    }
}

/// Binds, then serves until `shutdown` resolves (see [`Daemon`]).
pub async fn serve(
    opts: ServeOptions,
    host: EngineHost,
    shutdown: impl Future<Output = ()>,
) -> Result<ShutdownReport, DaemonError> {
    Daemon::bind(opts, host).await?.run(shutdown).await
}

impl Daemon {
    /// Binds every socket and loads the preloaded parameter sets, so
    /// addresses are known (and errors reported) before serving.
    pub async fn bind(opts: ServeOptions, host: EngineHost) -> Result<Self, DaemonError> {
        opts.settings.validate()?;
        if opts.grpc_tcp.is_none() && opts.grpc_unix.is_none() {
            return Err(DaemonError::InvalidArgument(
                "nothing to listen on: enable [daemon] listen_tcp or set unix_socket".into(),
            ));
        }
        let metrics = Metrics::new(env!("CARGO_PKG_VERSION"), &host.backend_name())
            .map_err(|e| DaemonError::Internal(format!("metrics: {e}")))?;
        let metrics = Arc::new(metrics);
        let host = Arc::new(host);
        let tcp = match &opts.grpc_tcp {
            Some(a) => Some(
                TcpListener::bind(a.as_str())
                    .await
                    .map_err(|e| DaemonError::io(format!("cannot listen on {a}"), e))?,
            ),
            None => None,
        };
        let unix = match &opts.grpc_unix {
            Some(p) => Some((bind_unix(p)?, p.clone())),
            None => None,
        };
        let http_addr = opts
            .settings
            .metrics_addr()
            .map_err(|m| DaemonError::InvalidArgument(format!("[daemon] metrics_listen: {m}")))?;
        let http = match http_addr {
            Some(a) => Some(
                TcpListener::bind(a)
                    .await
                    .map_err(|e| DaemonError::io(format!("cannot listen on {a} (HTTP)"), e))?,
            ),
            None => None,
        };
        // After binding, so a taken port is reported at once, not after a
        // long load; clients that connect meanwhile wait in the backlog.
        for id in &opts.preload {
            let h = host.clone();
            let id2 = id.clone();
            let loaded = tokio::task::spawn_blocking(move || h.preload(&id2))
                .await
                .unwrap_or_else(|e| Err(DaemonError::Internal(format!("preload {id}: {e}"))));
            if let Err(e) = loaded {
                if let Some((_, p)) = &unix {
                    let _ = std::fs::remove_file(p);
                }
                return Err(e);
            }
        }
        let jobs = Arc::new(Registry::new(
            opts.settings.keep_results,
            opts.settings.on_disconnect,
            metrics.clone(),
        ));
        let shared = Arc::new(Shared {
            host,
            jobs,
            metrics,
            started: Instant::now(),
            bench_max_log_size: opts.settings.bench_max_log_size,
        });
        Ok(Self {
            shared,
            settings: opts.settings,
            tcp,
            unix,
            http,
        })
    }

    /// The bound gRPC TCP address.
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        self.tcp.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// The bound HTTP address.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// Serves until `shutdown` resolves, then shuts down as the module
    /// documentation says. An error if a server fails on its own.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()>,
    ) -> Result<ShutdownReport, DaemonError> {
        let Daemon {
            shared,
            settings,
            tcp,
            unix,
            http,
        } = self;
        let max = settings
            .max_message_bytes()
            .map_err(|m| DaemonError::InvalidArgument(format!("[daemon] max_message: {m}")))?;
        let (stop_tx, stop_rx) = watch::channel(false);
        let stopped = |mut rx: watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|v| *v).await;
        };
        let svc = ProvingEngineServer::new(ProvingService::new(shared.clone()))
            .max_decoding_message_size(max)
            .max_encoding_message_size(max);
        let mut servers: JoinSet<Result<(), DaemonError>> = JoinSet::new();
        if let Some(l) = tcp {
            tracing::info!(addr = ?l.local_addr().ok(), "gRPC listening (TCP)");
            let router = tonic::transport::Server::builder().add_service(svc.clone());
            let sig = stopped(stop_rx.clone());
            servers.spawn(async move {
                router
                    .serve_with_incoming_shutdown(
                        tokio_stream::wrappers::TcpListenerStream::new(l),
                        sig,
                    )
                    .await
                    .map_err(DaemonError::from)
            });
        }
        let unix_path = unix.as_ref().map(|u| u.1.clone());
        if let Some((l, path)) = unix {
            tracing::info!(path = %path.display(), "gRPC listening (unix socket)");
            let router = tonic::transport::Server::builder().add_service(svc.clone());
            let sig = stopped(stop_rx.clone());
            servers.spawn(async move {
                // Every connection through the `:authority` fix (crate::uds).
                let incoming = tokio_stream::StreamExt::map(
                    tokio_stream::wrappers::UnixListenerStream::new(l),
                    |c| c.map(crate::uds::AuthorityFix::new),
                );
                router
                    .serve_with_incoming_shutdown(incoming, sig)
                    .await
                    .map_err(DaemonError::from)
            });
        }
        if let Some(l) = http {
            tracing::info!(addr = ?l.local_addr().ok(), "HTTP listening (/metrics, /status)");
            let app = crate::http::router(shared.clone());
            let sig = stopped(stop_rx.clone());
            servers.spawn(async move {
                axum::serve(l, app)
                    .with_graceful_shutdown(sig)
                    .await
                    .map_err(|e| DaemonError::io("HTTP server", e))
            });
        }
        let poller = {
            let shared = shared.clone();
            let mut rx = stop_rx.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(POLL_EVERY);
                loop {
                    tokio::select! {
                        _ = tick.tick() => shared.jobs.apply_events(&shared.host.take_events()),
                        _ = rx.wait_for(|v| *v) => break,
                    }
                }
            })
        };

        tokio::pin!(shutdown);
        let failure = tokio::select! {
            _ = &mut shutdown => None,
            Some(r) = servers.join_next() => Some(match r {
                Ok(Ok(())) => DaemonError::Internal("a server stopped on its own".into()),
                Ok(Err(e)) => e,
                Err(e) => DaemonError::Internal(format!("a server task failed: {e}")),
            }),
        };
        let report = drain(&shared, &settings, failure.is_some()).await;
        let _ = stop_tx.send(true);
        let _ = poller.await;
        if tokio::time::timeout(SERVER_STOP, async {
            while let Some(r) = servers.join_next().await {
                if let Ok(Err(e)) = r {
                    tracing::warn!(error = %e, "server ended with an error");
                }
            }
        })
        .await
        .is_err()
        {
            tracing::warn!("servers did not stop in time; closing their connections");
            servers.abort_all();
        }
        if let Some(p) = unix_path {
            let _ = std::fs::remove_file(p);
        }
        // The last reference to the engine joins its workers: off the
        // async threads.
        let _ = tokio::task::spawn_blocking(move || drop(shared)).await;
        tracing::info!(?report, "daemon stopped");
        match failure {
            Some(e) => Err(e),
            None => Ok(report),
        }
    }
}

/// Refuses new work and ends the unfinished jobs per `on_shutdown`.
async fn drain(shared: &Shared, settings: &DaemonSettings, failed: bool) -> ShutdownReport {
    shared.jobs.close();
    let unfinished = shared.jobs.unfinished();
    let before = shared.jobs.counts().cancelled;
    tracing::info!(unfinished, mode = ?settings.on_shutdown, "shutting down");
    let mode = if failed {
        ShutdownMode::Cancel
    } else {
        settings.on_shutdown
    };
    if mode == ShutdownMode::Drain && unfinished > 0 {
        if !shared.jobs.wait_idle(settings.drain_timeout()).await {
            shared
                .jobs
                .cancel_all("cancelled: the daemon shut down (drain timeout)");
        }
    } else {
        shared
            .jobs
            .cancel_all("cancelled: the daemon is shutting down");
    }
    if !shared.jobs.wait_idle(CANCEL_SETTLE).await {
        tracing::warn!(
            left = shared.jobs.unfinished(),
            "jobs still unfinished at exit"
        );
    }
    let c = shared.jobs.counts();
    ShutdownReport {
        unfinished_at_signal: unfinished,
        cancelled_by_shutdown: c.cancelled - before,
        completed: c.completed,
        failed: c.failed,
    }
}

/// Binds a unix socket, replacing a stale socket file (a crashed daemon's)
/// but never another kind of file.
fn bind_unix(p: &std::path::Path) -> Result<UnixListener, DaemonError> {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(m) = std::fs::symlink_metadata(p) {
        if !m.file_type().is_socket() {
            return Err(DaemonError::InvalidArgument(format!(
                "{} exists and is not a socket",
                p.display()
            )));
        }
        if std::os::unix::net::UnixStream::connect(p).is_ok() {
            return Err(DaemonError::InvalidArgument(format!(
                "another process is serving on {}",
                p.display()
            )));
        }
        std::fs::remove_file(p)
            .map_err(|e| DaemonError::io(format!("cannot remove stale {}", p.display()), e))?;
    }
    UnixListener::bind(p)
        .map_err(|e| DaemonError::io(format!("cannot listen on {}", p.display()), e))
}
