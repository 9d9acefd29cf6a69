//! A daemon on the loopback (or a unix socket) for the integration tests,
//! on the CPU backend with small bench circuits.
#![allow(dead_code)]

use cuzk_daemon::pb;
use cuzk_daemon::{Client, DaemonError, DaemonSettings, EngineHost, ServeOptions, ShutdownReport};
use cuzk_scheduler::EngineOptions;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where the tests' bench parameters live: one directory for every test
/// binary, filled once (generation is the slow part).
pub fn param_dir() -> PathBuf {
    std::env::temp_dir().join("cuzk-daemon-test-params")
}

/// Makes sure bench-k10..k12 parameters exist, once per process, so
/// parallel tests never generate the same file at the same time.
pub fn ensure_params() {
    static DONE: OnceLock<()> = OnceLock::new();
    static LOCK: Mutex<()> = Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    DONE.get_or_init(|| {
        let host = EngineHost::start(
            EngineOptions::small(1, 1, 1 << 30),
            vec![Arc::new(cuzk_groth16::CpuBackend)],
            param_dir(),
            param_dir(),
            20,
        )
        .expect("engine");
        for k in 10..=12 {
            host.preload(&format!("bench-k{k}"))
                .expect("bench parameters");
        }
    });
}

/// What a test may change before the daemon starts.
pub struct Setup {
    pub opts: EngineOptions,
    pub settings: DaemonSettings,
    pub tcp: bool,
    pub unix: Option<PathBuf>,
    /// Filecoin parameter directory (default: an empty one).
    pub porep_params: Option<PathBuf>,
    /// `[srs] preload`.
    pub preload: Vec<String>,
    /// `[srs] r1cs_cache` (default: the user's cache).
    pub r1cs_dir: Option<PathBuf>,
}

/// A running daemon and a client of it.
pub struct Harness {
    pub client: Client,
    pub addr: String,
    pub http: Option<SocketAddr>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    join: Option<tokio::task::JoinHandle<Result<ShutdownReport, DaemonError>>>,
    pub dir: tempfile::TempDir,
}

impl Harness {
    /// A daemon with one synthesis worker, one GPU worker, 1 GiB budget.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(f: impl FnOnce(&mut Setup)) -> Self {
        tokio::task::spawn_blocking(ensure_params).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut setup = Setup {
            opts: EngineOptions::small(1, 1, 1 << 30),
            settings: DaemonSettings {
                metrics_listen: "127.0.0.1:0".into(),
                drain_timeout_s: 60,
                ..DaemonSettings::default()
            },
            tcp: true,
            unix: None,
            porep_params: None,
            preload: Vec::new(),
            r1cs_dir: None,
        };
        f(&mut setup);
        let backends: Vec<Arc<dyn cuzk_groth16::Backend>> = setup
            .opts
            .devices
            .iter()
            .map(|_| Arc::new(cuzk_groth16::CpuBackend) as Arc<dyn cuzk_groth16::Backend>)
            .collect();
        let host = EngineHost::start(
            setup.opts,
            backends,
            param_dir(),
            setup
                .porep_params
                .clone()
                .unwrap_or_else(|| dir.path().join("no-filecoin-params")),
            setup.settings.bench_max_log_size,
        )
        .expect("engine");
        let host = match setup.r1cs_dir.clone() {
            Some(d) => host.with_r1cs_dir(d),
            None => host,
        };
        let opts = ServeOptions {
            grpc_tcp: setup.tcp.then(|| "127.0.0.1:0".to_string()),
            grpc_unix: setup.unix.clone(),
            settings: setup.settings.clone(),
            preload: setup.preload.clone(),
        };
        let daemon = cuzk_daemon::Daemon::bind(opts, host).await.expect("bind");
        let addr = match (daemon.tcp_addr(), &setup.unix) {
            (Some(a), _) => a.to_string(),
            (None, Some(p)) => format!("unix://{}", p.display()),
            (None, None) => unreachable!("tests always listen somewhere"),
        };
        let http = daemon.http_addr();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let join = tokio::spawn(daemon.run(async move {
            let _ = rx.await;
        }));
        let client = cuzk_daemon::connect(&addr, 64 << 20)
            .await
            .expect("connect");
        Self {
            client,
            addr,
            http,
            stop: Some(tx),
            join: Some(join),
            dir,
        }
    }

    /// Another client (its own connection).
    pub async fn new_client(&self) -> Client {
        cuzk_daemon::connect(&self.addr, 64 << 20)
            .await
            .expect("connect")
    }

    /// The SIGTERM equivalent: resolves the shutdown future and waits for
    /// the daemon to stop.
    pub async fn shutdown(&mut self) -> Result<ShutdownReport, DaemonError> {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        let join = self.join.take().expect("running");
        tokio::time::timeout(Duration::from_secs(120), join)
            .await
            .expect("the daemon stops within 2 minutes")
            .expect("daemon task")
    }

    /// Starts shutting down without waiting.
    pub fn signal_shutdown(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }

    /// GET `path` on the HTTP port: (status line, body).
    pub async fn http_get(&self, path: &str) -> (String, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(self.http.expect("HTTP on"))
            .await
            .unwrap();
        s.write_all(
            format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
        let mut buf = String::new();
        s.read_to_string(&mut buf).await.unwrap();
        let (head, body) = buf.split_once("\r\n\r\n").unwrap_or((&buf, ""));
        (
            head.lines().next().unwrap_or("").to_string(),
            body.to_string(),
        )
    }

    /// `Prove` on the harness's client: the answer, or the refusal.
    pub async fn try_prove(
        &self,
        req: pb::SubmitProofRequest,
    ) -> Result<pb::AwaitProofResponse, tonic::Status> {
        self.client
            .clone()
            .prove(pb::ProveRequest { submit: Some(req) })
            .await
            .map(|r| {
                r.into_inner()
                    .result
                    .expect("a Prove answer carries a result")
            })
    }

    /// [`Harness::try_prove`] that must not be refused.
    pub async fn prove(&self, req: pb::SubmitProofRequest) -> pb::AwaitProofResponse {
        self.try_prove(req).await.expect("Prove answered")
    }

    pub async fn status(&self) -> pb::GetStatusResponse {
        self.client
            .clone()
            .get_status(pb::GetStatusRequest {})
            .await
            .unwrap()
            .into_inner()
    }

    pub async fn metrics(&self) -> String {
        self.client
            .clone()
            .get_metrics(pb::GetMetricsRequest {})
            .await
            .unwrap()
            .into_inner()
            .prometheus_text
    }

    /// Waits until `pred(status)` holds (at most 60 s).
    /// Polls `GET /status` (JSON) until `pred` holds (at most 60 s).
    pub async fn wait_http_status(&self, what: &str, pred: impl Fn(&serde_json::Value) -> bool) {
        let t0 = Instant::now();
        loop {
            let (line, body) = self.http_get("/status").await;
            assert!(line.contains("200"), "{line}");
            let v: serde_json::Value = serde_json::from_str(&body).expect("status JSON");
            if pred(&v) {
                return;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}: {body}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn wait_status(&self, what: &str, pred: impl Fn(&pb::GetStatusResponse) -> bool) {
        let t0 = Instant::now();
        loop {
            if pred(&self.status().await) {
                return;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Harness {
    /// Waits until no partition holds memory: what is reserved is the
    /// parameter sets' host bytes alone.
    pub async fn wait_memory_returned(&self) {
        let t0 = Instant::now();
        loop {
            let text = self.metrics().await;
            let get = |w: &str| metric(&text, &format!("cuzk_memory_{w}_bytes"));
            if get("reserved").is_some()
                && get("reserved") == get("srs")
                && get("held") == Some(0.0)
            {
                return;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "memory not returned:\n{text}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// A bench-circuit request.
pub fn bench(log_size: u32, partitions: usize, seed: u64) -> pb::SubmitProofRequest {
    pb::SubmitProofRequest {
        proof_kind: pb::ProofKind::CuzkBenchCircuit as i32,
        priority: pb::Priority::Normal as i32,
        vanilla_proof: format!(
            r#"{{"log_size": {log_size}, "partitions": {partitions}, "seed": {seed}}}"#
        )
        .into_bytes(),
        ..Default::default()
    }
}

/// Checks a bench job's proof bytes against its parameters and inputs.
pub fn verify_bench(log_size: u32, partitions: usize, seed: u64, proof: &[u8]) {
    let params = cuzk_groth16::Parameters::load(
        &param_dir().join(format!("bench-k{log_size}-setup0.params")),
        cuzk_groth16::CheckMode::Trusted,
    )
    .unwrap();
    let pvk = params.vk.prepare();
    let proofs = cuzk_groth16::Proof::many_from_bytes(proof).unwrap();
    assert_eq!(proofs.len(), partitions);
    let inputs = cuzk_daemon::BenchJob {
        log_size,
        partitions,
        seed,
    }
    .public_inputs()
    .unwrap();
    for (p, x) in proofs.iter().zip(&inputs) {
        assert!(
            cuzk_groth16::verify_proof(&pvk, p, x).unwrap(),
            "proof verifies"
        );
    }
    // And not against another witness's inputs.
    let other = cuzk_daemon::BenchJob {
        log_size,
        partitions: 1,
        seed: seed + 1000,
    }
    .public_inputs()
    .unwrap();
    assert!(!cuzk_groth16::verify_proof(&pvk, &proofs[0], &other[0]).unwrap());
}

/// A metric's value from Prometheus text (`name{labels}` exactly as printed).
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(series).and_then(|r| r.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
}

pub use pb::await_proof_response::Status as S;
