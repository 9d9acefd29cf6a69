//! A bounded load test on the loopback: N gRPC clients send `Prove` for
//! bench-circuit jobs for M seconds against a daemon started in this
//! process (CPU backend), then the same number of jobs goes through an
//! engine directly, so the daemon's overhead per proof is known.
//!
//! ```sh
//! cargo run --release -p cuzk-daemon --example load -- 4 30 16   # clients, seconds, log size
//! ```
//!
//! Prints latency percentiles and throughput for both, and the difference
//! of the mean latency as a share of the in-process proof time. Only
//! 127.0.0.1 is used; the run stops by itself.

use cuzk_daemon::pb;
use cuzk_daemon::{DaemonSettings, EngineHost, ServeOptions};
use cuzk_scheduler::EngineOptions;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn arg(i: usize, default: u64) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn host(params: &std::path::Path, k: u32) -> EngineHost {
    // One synthesis worker and one GPU worker per client keeps the
    // comparison about the daemon, not about scheduling.
    let opts = EngineOptions::small(2, 1, 8 << 30);
    let h = EngineHost::start(
        opts,
        vec![Arc::new(cuzk_groth16::CpuBackend)],
        params.to_path_buf(),
        params.to_path_buf(),
        k.max(20),
    )
    .expect("engine");
    h.preload(&format!("bench-k{k}")).expect("parameters");
    h
}

fn report(name: &str, mut lat: Vec<Duration>, wall: Duration) -> f64 {
    lat.sort();
    let pct = |p: f64| lat[((lat.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e3;
    let mean = lat.iter().map(Duration::as_secs_f64).sum::<f64>() / lat.len() as f64;
    println!(
        "{name:>10}: {} proofs in {:.1} s, {:.2} proofs/s; latency ms p50 {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}, mean {:.1}",
        lat.len(),
        wall.as_secs_f64(),
        lat.len() as f64 / wall.as_secs_f64(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0),
        mean * 1e3
    );
    mean
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let clients = arg(1, 2) as usize;
    let seconds = arg(2, 10);
    let k = arg(3, 12) as u32;
    let params = std::env::temp_dir().join("cuzk-daemon-load-params");
    println!("{clients} clients, {seconds} s, bench circuit 2^{k}, CPU backend");

    // Through the daemon.
    let h = tokio::task::spawn_blocking({
        let p = params.clone();
        move || host(&p, k)
    })
    .await
    .unwrap();
    let opts = ServeOptions {
        grpc_tcp: Some("127.0.0.1:0".into()),
        grpc_unix: None,
        settings: DaemonSettings {
            metrics_listen: String::new(),
            ..DaemonSettings::default()
        },
        preload: Vec::new(),
    };
    let daemon = cuzk_daemon::Daemon::bind(opts, h).await.expect("bind");
    let addr = daemon.tcp_addr().expect("tcp").to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(daemon.run(async move {
        let _ = stopped.await;
    }));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let mut client = cuzk_daemon::connect(&addr, 64 << 20)
            .await
            .expect("connect");
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut seed = (c as u64) << 32;
            while Instant::now() < deadline {
                let req = pb::SubmitProofRequest {
                    proof_kind: pb::ProofKind::CuzkBenchCircuit as i32,
                    vanilla_proof: format!(r#"{{"log_size": {k}, "seed": {seed}}}"#).into_bytes(),
                    ..Default::default()
                };
                let t = Instant::now();
                let r = client
                    .prove(pb::ProveRequest { submit: Some(req) })
                    .await
                    .expect("Prove")
                    .into_inner()
                    .result
                    .expect("result");
                assert_eq!(r.status(), pb::await_proof_response::Status::Completed);
                lat.push(t.elapsed());
                seed += 1;
            }
            lat
        }));
    }
    let mut lat = Vec::new();
    for t in tasks {
        lat.extend(t.await.unwrap());
    }
    let wall = t0.elapsed();
    let n = lat.len();
    let daemon_mean = report("daemon", lat, wall);
    let _ = stop.send(());
    server.await.unwrap().expect("daemon");

    // The same jobs, the same client concurrency, straight into an engine.
    let p = params.clone();
    let (lat, wall) = tokio::task::spawn_blocking(move || {
        let h = Arc::new(host(&p, k));
        let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let t0 = Instant::now();
        let threads: Vec<_> = (0..clients)
            .map(|_| {
                let (h, next) = (h.clone(), next.clone());
                std::thread::spawn(move || {
                    let mut lat = Vec::new();
                    while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < n {
                        let t = Instant::now();
                        let job =
                            cuzk_daemon::engine_glue::ProofInput::Bench(cuzk_daemon::BenchJob {
                                log_size: k,
                                partitions: 1,
                                seed: lat.len() as u64,
                            });
                        let s = h.submit(&job, 1).expect("submit");
                        s.handle.wait().expect("proof");
                        lat.push(t.elapsed());
                    }
                    lat
                })
            })
            .collect();
        let lat: Vec<Duration> = threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        (lat, t0.elapsed())
    })
    .await
    .unwrap();
    let engine_mean = report("in-process", lat, wall);
    println!(
        "daemon overhead: {:+.2} ms per proof ({:+.2} % of the in-process proof time)",
        (daemon_mean - engine_mean) * 1e3,
        (daemon_mean - engine_mean) / engine_mean * 100.0
    );
}
