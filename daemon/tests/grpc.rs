//! The daemon over gRPC on the loopback, driven by the generated tonic
//! client: submit, await, prove, cancel, request_id retries, status,
//! metrics, preload and evict, on the CPU backend with small bench circuits.

mod common;

use common::{bench, metric, verify_bench, Harness, S};
use cuzk_daemon::pb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submit_await_and_prove_give_verified_proofs_with_timings() {
    let h = Harness::start().await;
    let mut c = h.client.clone();
    let sub = c.submit_proof(bench(10, 2, 7)).await.unwrap().into_inner();
    assert!(sub.job_id.starts_with("job-"), "{}", sub.job_id);
    let r = c
        .await_proof(pb::AwaitProofRequest {
            job_id: sub.job_id.clone(),
            timeout_ms: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.status(), S::Completed, "{}", r.error_message);
    assert_eq!(r.job_id, sub.job_id);
    assert_eq!(r.proof.len(), 2 * 192);
    verify_bench(10, 2, 7, &r.proof);
    assert!(r.total_ms >= r.synthesis_ms.max(r.gpu_compute_ms), "{r:?}");
    assert!(r.gpu_compute_ms > 0 || r.synthesis_ms > 0, "{r:?}");

    // Awaiting a finished job again gives the same result.
    let again = c
        .await_proof(pb::AwaitProofRequest {
            job_id: sub.job_id.clone(),
            timeout_ms: 5,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.proof, r.proof);

    let p = c
        .prove(pb::ProveRequest {
            submit: Some(bench(10, 1, 3)),
        })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(p.status(), S::Completed, "{}", p.error_message);
    verify_bench(10, 1, 3, &p.proof);
    assert_ne!(p.job_id, sub.job_id);

    let st = h.status().await;
    assert_eq!(st.total_proofs_completed, 2);
    assert_eq!(st.total_proofs_failed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn await_timeout_returns_timeout_and_keeps_the_job() {
    let h = Harness::start().await;
    let mut c = h.client.clone();
    let sub = c.submit_proof(bench(12, 6, 1)).await.unwrap().into_inner();
    let t = c
        .await_proof(pb::AwaitProofRequest {
            job_id: sub.job_id.clone(),
            timeout_ms: 1,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(t.status(), S::Timeout);
    assert!(t.proof.is_empty());
    let r = c
        .await_proof(pb::AwaitProofRequest {
            job_id: sub.job_id,
            timeout_ms: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.status(), S::Completed, "{}", r.error_message);
    verify_bench(12, 6, 1, &r.proof);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_queued_and_running_jobs() {
    // One synthesis worker, no aging and room for a few 2^12 partitions
    // (656 KB each): the second job cannot start before the last of the
    // first job's 64 partitions has, ~60 CPU proofs (43 ms each) away.
    // The default aging (16) lets it start after 16, and a 1 GiB budget
    // lets all 64 synthesize in ~0.1 s.
    let h = Harness::start_with(|s| {
        s.opts.aging = u64::MAX;
        s.opts.memory_budget = 4 << 20;
    })
    .await;
    let mut c = h.client.clone();
    let running = c.submit_proof(bench(12, 64, 1)).await.unwrap().into_inner();
    let queued = c.submit_proof(bench(12, 2, 2)).await.unwrap().into_inner();
    assert_eq!(queued.queue_position, 1);
    h.wait_status("the first job to run", |s| {
        s.queues.iter().map(|q| q.in_progress).sum::<u32>() == 1
    })
    .await;
    // Its partitions pass through the (virtual) device, and status says so.
    h.wait_status("the running job on device 0", |s| {
        s.gpus[0].current_job_id == running.job_id
            && s.gpus[0].current_proof_kind == "CUZK_BENCH_CIRCUIT"
    })
    .await;

    let cq = c
        .cancel_proof(pb::CancelProofRequest {
            job_id: queued.job_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!cq.was_running);
    let rq = c
        .await_proof(pb::AwaitProofRequest {
            job_id: queued.job_id.clone(),
            timeout_ms: 10_000,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(rq.status(), S::Cancelled);

    let cr = c
        .cancel_proof(pb::CancelProofRequest {
            job_id: running.job_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(cr.was_running);
    let rr = c
        .await_proof(pb::AwaitProofRequest {
            job_id: running.job_id.clone(),
            timeout_ms: 30_000,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(rr.status(), S::Cancelled);
    assert!(rr.proof.is_empty());

    // Cancelling a finished job changes nothing; an unknown one is NOT_FOUND.
    let again = c
        .cancel_proof(pb::CancelProofRequest {
            job_id: running.job_id,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!again.was_running);
    let e = c
        .cancel_proof(pb::CancelProofRequest {
            job_id: "job-999".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound);

    // The cancelled partitions give their memory back; the device is idle.
    h.wait_memory_returned().await;
    assert_eq!(h.status().await.gpus[0].current_job_id, "");
    let text = h.metrics().await;
    assert_eq!(
        metric(
            &text,
            r#"cuzk_jobs_finished_total{proof_kind="bench_circuit",status="cancelled"}"#
        ),
        Some(2.0),
        "{text}"
    );
    // And the daemon still proves.
    let p = c
        .prove(pb::ProveRequest {
            submit: Some(bench(10, 1, 9)),
        })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(p.status(), S::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_id_in_flight_is_not_proved_twice() {
    let h = Harness::start().await;
    let mut req = bench(11, 3, 4);
    req.request_id = "porep-1000-42".into();
    let mut tasks = Vec::new();
    for _ in 0..3 {
        let mut c = h.new_client().await;
        let r = req.clone();
        tasks.push(tokio::spawn(async move {
            c.prove(pb::ProveRequest { submit: Some(r) })
                .await
                .unwrap()
                .into_inner()
                .result
                .unwrap()
        }));
    }
    let mut c = h.client.clone();
    // A different proof under the same id while it is in flight is refused.
    h.wait_status("the job to be accepted", |s| {
        s.queues
            .iter()
            .map(|q| q.pending + q.in_progress)
            .sum::<u32>()
            >= 1
    })
    .await;
    let mut other = bench(11, 3, 5);
    other.request_id = req.request_id.clone();
    let e = c.submit_proof(other).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::AlreadyExists, "{e}");
    // A SubmitProof retry with the same contents gets the same job.
    let sub = c.submit_proof(req.clone()).await.unwrap().into_inner();
    let mut ids = Vec::new();
    for t in tasks {
        let r = t.await.unwrap();
        assert_eq!(r.status(), S::Completed, "{}", r.error_message);
        verify_bench(11, 3, 4, &r.proof);
        ids.push(r.job_id);
    }
    ids.dedup();
    assert_eq!(ids, vec![sub.job_id.clone()]);
    let text = h.metrics().await;
    assert_eq!(
        metric(
            &text,
            r#"cuzk_jobs_submitted_total{proof_kind="bench_circuit"}"#
        ),
        Some(1.0),
        "{text}"
    );
    // Once finished, the same request_id is a new proof.
    let r = c
        .prove(pb::ProveRequest { submit: Some(req) })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(r.status(), S::Completed);
    assert_ne!(r.job_id, sub.job_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_metrics_and_http_report_real_numbers() {
    let h = Harness::start().await;
    let mut c = h.client.clone();
    let r = c
        .prove(pb::ProveRequest {
            submit: Some(bench(10, 2, 1)),
        })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(r.status(), S::Completed);
    let st = h.status().await;
    assert_eq!(st.total_proofs_completed, 1);
    assert_eq!(st.gpus.len(), 1, "one virtual CPU device: {:?}", st.gpus);
    assert_eq!(st.pinned_memory_limit_bytes, 1 << 30);
    assert_eq!(st.queues.len(), 6, "Curio's four kinds and two extensions");
    assert!(st
        .queues
        .iter()
        .any(|q| q.proof_kind == "POREP_SEAL_COMMIT"));
    let srs = st
        .loaded_srs
        .iter()
        .find(|s| s.circuit_id == "bench-k10")
        .expect("bench-k10 loaded");
    assert!(srs.size_bytes > 100_000, "{srs:?}");
    assert_eq!(srs.ref_count, 0);

    let text = h.metrics().await;
    assert_eq!(
        metric(&text, "cuzk_proofs_completed_total"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        metric(
            &text,
            r#"cuzk_proof_duration_seconds_count{proof_kind="bench_circuit"}"#
        ),
        Some(1.0)
    );
    assert_eq!(
        metric(&text, r#"cuzk_memory_budget_bytes"#),
        Some((1u64 << 30) as f64)
    );
    assert!(metric(&text, r#"cuzk_memory_reserved_peak_bytes"#).unwrap() > 0.0);
    assert!(metric(&text, r#"cuzk_device_busy_seconds_total{device="0"}"#).unwrap() > 0.0);
    assert_eq!(metric(&text, "cuzk_srs_loads_total"), Some(1.0));

    let (line, body) = h.http_get("/metrics").await;
    assert!(line.contains("200"), "{line}");
    assert!(body.contains("cuzk_proofs_completed_total 1"), "{body}");
    let (line, body) = h.http_get("/status").await;
    assert!(line.contains("200"), "{line}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["total_proofs_completed"], 1);
    assert_eq!(v["backend"], "cpu");
    assert_eq!(v["loaded_srs"][0]["circuit_id"], "bench-k10");
    let (line, _) = h.http_get("/nope").await;
    assert!(line.contains("404"), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preload_and_evict_parameter_sets() {
    let h = Harness::start().await;
    let mut c = h.client.clone();
    let pre = |id: &str| pb::PreloadSrsRequest {
        circuit_id: id.into(),
    };
    let ev = |id: &str| pb::EvictSrsRequest {
        circuit_id: id.into(),
    };
    let a = c.preload_srs(pre("bench-k11")).await.unwrap().into_inner();
    assert!(!a.already_loaded);
    let b = c.preload_srs(pre("bench-k11")).await.unwrap().into_inner();
    assert!(b.already_loaded);
    assert_eq!(b.load_time_ms, 0);
    let st = h.status().await;
    let size = st
        .loaded_srs
        .iter()
        .find(|s| s.circuit_id == "bench-k11")
        .expect("listed")
        .size_bytes;
    let e = c.evict_srs(ev("bench-k11")).await.unwrap().into_inner();
    assert!(e.was_loaded);
    assert_eq!(e.freed_bytes, size);
    let e = c.evict_srs(ev("bench-k11")).await.unwrap().into_inner();
    assert!(!e.was_loaded);
    assert!(h.status().await.loaded_srs.is_empty());
    let text = h.metrics().await;
    assert_eq!(metric(&text, "cuzk_srs_evictions_total"), Some(1.0));

    // A job after an eviction loads the set again and proves.
    let r = c
        .prove(pb::ProveRequest {
            submit: Some(bench(11, 1, 1)),
        })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(r.status(), S::Completed, "{}", r.error_message);

    let e = c.preload_srs(pre("no-such-circuit")).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound);
    // Curio's PoRep ids resolve to the v28 file, which this daemon lacks.
    let e = c.preload_srs(pre("porep-32g")).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition);
    assert!(
        e.message().contains("missing parameter file"),
        "{}",
        e.message()
    );
    assert!(e.message().contains("v28-"), "{}", e.message());
    // Its PoSt and SnapDeals ids too.
    for (id, file) in [
        (
            "wpost-32g",
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-",
        ),
        (
            "winning-2k",
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-",
        ),
        (
            "snap-32g",
            "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-",
        ),
    ] {
        let e = c.preload_srs(pre(id)).await.unwrap_err();
        assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{id}");
        assert!(e.message().contains(file), "{id}: {}", e.message());
    }
    let e = c.preload_srs(pre("bench-k99")).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unix_socket_only() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("cuzk.sock");
    let s2 = sock.clone();
    let mut h = Harness::start_with(move |s| {
        s.tcp = false;
        s.unix = Some(s2);
        s.settings.metrics_listen = String::new();
    })
    .await;
    assert!(h.addr.starts_with("unix://"));
    assert!(h.http.is_none());
    let r = h
        .client
        .clone()
        .prove(pb::ProveRequest {
            submit: Some(bench(10, 1, 2)),
        })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(r.status(), S::Completed);
    h.shutdown().await.unwrap();
    assert!(!sock.exists(), "the socket file is removed at exit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn await_unknown_job_is_not_found() {
    let h = Harness::start().await;
    let e = h
        .client
        .clone()
        .await_proof(pb::AwaitProofRequest {
            job_id: "nope".into(),
            timeout_ms: 1,
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_critical_job_overtakes_a_running_batch() {
    let h = Harness::start().await;
    let mut c = h.client.clone();
    let batch = c.submit_proof(bench(12, 48, 1)).await.unwrap().into_inner();
    h.wait_status("the batch to run", |s| {
        s.queues.iter().map(|q| q.in_progress).sum::<u32>() == 1
    })
    .await;
    let mut winning = bench(10, 1, 2);
    winning.priority = pb::Priority::Critical as i32;
    let sub = c.submit_proof(winning).await.unwrap().into_inner();
    assert_eq!(sub.queue_position, 0, "nothing runs before a CRITICAL job");
    let r = c
        .await_proof(pb::AwaitProofRequest {
            job_id: sub.job_id,
            timeout_ms: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.status(), S::Completed);
    // The batch is still going: the critical job did not wait for it.
    let b = c
        .await_proof(pb::AwaitProofRequest {
            job_id: batch.job_id.clone(),
            timeout_ms: 1,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(b.status(), S::Timeout);
    c.cancel_proof(pb::CancelProofRequest {
        job_id: batch.job_id,
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preload_at_start_and_a_bad_preload_refuses_to_start() {
    let h = Harness::start_with(|s| s.preload = vec!["bench-k11".into()]).await;
    let st = h.status().await;
    assert_eq!(st.loaded_srs.len(), 1);
    assert_eq!(st.loaded_srs[0].circuit_id, "bench-k11");

    let host = cuzk_daemon::EngineHost::start(
        cuzk_scheduler::EngineOptions::small(1, 1, 1 << 30),
        vec![std::sync::Arc::new(cuzk_groth16::CpuBackend)],
        common::param_dir(),
        h.dir.path().to_path_buf(),
        20,
    )
    .unwrap();
    let sock = h.dir.path().join("bad.sock");
    let opts = cuzk_daemon::ServeOptions {
        grpc_tcp: None,
        grpc_unix: Some(sock.clone()),
        settings: cuzk_daemon::DaemonSettings {
            metrics_listen: String::new(),
            ..Default::default()
        },
        preload: vec!["porep-2k".into()],
    };
    let e = cuzk_daemon::Daemon::bind(opts, host).await.unwrap_err();
    assert!(e.to_string().contains("missing parameter file"), "{e}");
    assert!(!sock.exists(), "no socket file left behind");
}
