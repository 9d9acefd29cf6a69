//! Faults: malformed requests, a client that disconnects mid-Prove, the
//! SIGTERM-equivalent shutdown with jobs queued and running (drain and
//! cancel), and 200 concurrent submissions under a small memory budget.

mod common;

use common::{bench, metric, verify_bench, Harness, S};
use cuzk_daemon::pb;
use cuzk_daemon::{DisconnectMode, ShutdownMode};
use std::time::Duration;

/// A random, shape-correct 2 KiB C1 output in Curio's wrapper (its vanilla
/// proofs are random: it parses, it does not prove).
fn curio_wrapper(sector: u64) -> Vec<u8> {
    use base64::Engine as _;
    let kind = cuzk_filecoin::SealProofKind::new(2048, cuzk_filecoin::SealVersion::V1_1).unwrap();
    let c1 = cuzk_filecoin_tools::bench_c1::random_c1(&kind, 1).unwrap();
    let inner = serde_json::to_vec(&c1.body).unwrap();
    serde_json::to_vec(&serde_json::json!({
        "SectorNum": sector,
        "Phase1Out": base64::engine::general_purpose::STANDARD.encode(inner),
        "SectorSize": 2048,
    }))
    .unwrap()
}

fn porep(sector_size: u64, c1: &[u8]) -> pb::SubmitProofRequest {
    pb::SubmitProofRequest {
        request_id: "porep-1000-7".into(),
        proof_kind: pb::ProofKind::PorepSealCommit as i32,
        sector_size,
        registered_proof: 0,
        priority: pb::Priority::Normal as i32,
        vanilla_proof: c1.to_vec(),
        sector_number: 7,
        miner_id: 1000,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_clear_errors_and_the_daemon_keeps_serving() {
    let h = Harness::start_with(|s| s.settings.max_message = "1MiB".into()).await;
    let wrapper = tokio::task::spawn_blocking(|| curio_wrapper(7))
        .await
        .unwrap();
    let mut c = h.client.clone();
    let invalid = [
        (
            "unknown kind",
            {
                let mut r = bench(10, 1, 1);
                r.proof_kind = 77;
                r
            },
            "unknown proof_kind 77",
        ),
        (
            "unset kind",
            {
                let mut r = bench(10, 1, 1);
                r.proof_kind = 0;
                r
            },
            "proof_kind is not set",
        ),
        (
            "bad priority",
            {
                let mut r = bench(10, 1, 1);
                r.priority = 42;
                r
            },
            "priority",
        ),
        (
            "bad bench JSON",
            {
                let mut r = bench(10, 1, 1);
                r.vanilla_proof = b"{\"log_size\": \"big\"}".to_vec();
                r
            },
            "vanilla_proof must be JSON",
        ),
        ("bench too large", bench(27, 1, 1), "outside 10..=20"),
        ("zero sector size", porep(0, b"{}"), "sector_size is 0"),
        (
            "odd sector size",
            porep(4096, b"{}"),
            "not a Filecoin sector size",
        ),
        ("empty C1", porep(2048, b""), "is empty"),
        (
            "bad C1 bytes",
            porep(2048, b"\x00\x01garbage"),
            "not a C1 output",
        ),
        (
            "wrapper without a C1 inside",
            porep(
                2048,
                br#"{"SectorNum": 1, "Phase1Out": "e30=", "SectorSize": 2048}"#,
            ),
            "not a C1 output",
        ),
        (
            "wrong sector number",
            {
                let mut r = porep(2048, &wrapper);
                r.sector_number = 8;
                r
            },
            "for sector 7",
        ),
        (
            "wrong registered proof",
            {
                let mut r = porep(2048, &wrapper);
                r.registered_proof = 8;
                r
            },
            "registered_proof 8",
        ),
        (
            "size disagrees with the C1",
            porep(8 << 20, &wrapper),
            "not a C1 output",
        ),
    ];
    for (what, req, msg) in invalid {
        for prove in [false, true] {
            let e = if prove {
                c.prove(pb::ProveRequest {
                    submit: Some(req.clone()),
                })
                .await
                .unwrap_err()
            } else {
                c.submit_proof(req.clone()).await.unwrap_err()
            };
            assert_eq!(e.code(), tonic::Code::InvalidArgument, "{what}: {e}");
            assert!(e.message().contains(msg), "{what}: {}", e.message());
        }
    }
    let e = c
        .prove(pb::ProveRequest { submit: None })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);

    // A well-formed C1 output as Curio sends it reaches the parameter
    // lookup: this daemon has no 2 KiB parameters.
    let e = c.submit_proof(porep(2048, &wrapper)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e}");
    assert!(
        e.message().contains("missing parameter file"),
        "{}",
        e.message()
    );

    // PoSt and SnapDeals requests missing their statement: refused with
    // the field named, never a crash.
    for (req, field) in [
        (
            pb::SubmitProofRequest {
                proof_kind: pb::ProofKind::WinningPost as i32,
                ..Default::default()
            },
            "randomness",
        ),
        (
            pb::SubmitProofRequest {
                proof_kind: pb::ProofKind::SnapDealsUpdate as i32,
                vanilla_proofs: vec![vec![1, 2, 3]],
                ..Default::default()
            },
            "comm_r_old",
        ),
        (
            pb::SubmitProofRequest {
                proof_kind: pb::ProofKind::WindowPostPartition as i32,
                registered_proof: 13,
                randomness: vec![0; 32],
                ..Default::default()
            },
            "vanilla_proofs",
        ),
    ] {
        let e = c
            .prove(pb::ProveRequest { submit: Some(req) })
            .await
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument);
        assert!(e.message().contains(field), "{}", e.message());
    }
    // Well-formed, but its parameters are not here: FAILED_PRECONDITION
    // naming the file, and the daemon keeps serving.
    let e = c
        .prove(pb::ProveRequest {
            submit: Some(pb::SubmitProofRequest {
                proof_kind: pb::ProofKind::WinningPost as i32,
                registered_proof: 3,
                randomness: vec![0; 32],
                miner_id: 1000,
                vanilla_proofs: vec![vec![1, 2, 3]],
                ..Default::default()
            }),
        })
        .await;
    match e {
        Err(e) => assert!(
            e.message().contains("v28-proof-of-spacetime"),
            "{}",
            e.message()
        ),
        Ok(r) => {
            let r = r.into_inner().result.unwrap();
            assert_eq!(r.status(), S::Failed);
            assert!(
                r.error_message.contains("v28-proof-of-spacetime"),
                "{}",
                r.error_message
            );
        }
    }

    // Over the message limit: refused by the transport, connection intact.
    let mut big = bench(10, 1, 1);
    big.vanilla_proofs = vec![vec![0u8; 2 << 20]];
    let e = c.submit_proof(big).await.unwrap_err();
    assert!(
        matches!(
            e.code(),
            tonic::Code::OutOfRange | tonic::Code::ResourceExhausted
        ),
        "{e}"
    );

    // Still serving, on the same connection.
    let r = c
        .prove(pb::ProveRequest {
            submit: Some(bench(10, 1, 5)),
        })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(r.status(), S::Completed);
    verify_bench(10, 1, 5, &r.proof);
    let st = h.status().await;
    assert_eq!(st.total_proofs_completed, 1);
    assert_eq!(
        st.total_proofs_failed, 2,
        "the PoRep and the WinningPoSt without parameters (refused requests are no jobs)"
    );
}

/// Starts a long Prove, waits until it runs, drops the call.
async fn abandon_a_running_prove(h: &Harness) {
    let mut c = h.new_client().await;
    let call = tokio::spawn(async move {
        c.prove(pb::ProveRequest {
            submit: Some(bench(12, 32, 1)),
        })
        .await
    });
    h.wait_status("the Prove's job to run", |s| {
        s.queues.iter().map(|q| q.in_progress).sum::<u32>() == 1
    })
    .await;
    call.abort();
    let _ = call.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_gone_mid_prove_cancels_its_job_and_frees_everything() {
    let h = Harness::start().await;
    abandon_a_running_prove(&h).await;
    h.wait_status("the job to end", |s| {
        s.queues
            .iter()
            .map(|q| q.pending + q.in_progress)
            .sum::<u32>()
            == 0
    })
    .await;
    h.wait_memory_returned().await;
    let text = h.metrics().await;
    assert_eq!(
        metric(
            &text,
            r#"cuzk_jobs_finished_total{proof_kind="bench_circuit",status="cancelled"}"#
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(metric(&text, r#"cuzk_running_jobs"#), Some(0.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_on_disconnect_keep_the_job_finishes() {
    let h = Harness::start_with(|s| s.settings.on_disconnect = DisconnectMode::Keep).await;
    abandon_a_running_prove(&h).await;
    h.wait_status("the job to finish", |s| s.total_proofs_completed == 1)
        .await;
    let text = h.metrics().await;
    assert_eq!(
        metric(
            &text,
            r#"cuzk_jobs_finished_total{proof_kind="bench_circuit",status="cancelled"}"#
        ),
        None,
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_in_cancel_mode_answers_every_waiter_with_cancelled() {
    let mut h = Harness::start_with(|s| s.settings.on_shutdown = ShutdownMode::Cancel).await;
    let mut c = h.client.clone();
    let mut waiters = Vec::new();
    // The first job is long (64 partitions of 2^14: many seconds on the
    // CPU) and the two behind it wait for the one synthesis worker, so
    // none can finish between the check that the first runs (as soon as
    // it does) and the signal. The signal waits until the daemon holds
    // every waiter's request: a request still on the wire when the
    // server stops is refused, not answered.
    for seed in 0..3 {
        let log = if seed == 0 { 14 } else { 12 };
        let id = c
            .submit_proof(bench(log, 64, seed))
            .await
            .unwrap()
            .into_inner()
            .job_id;
        let mut c2 = h.new_client().await;
        waiters.push(tokio::spawn(async move {
            c2.await_proof(pb::AwaitProofRequest {
                job_id: id,
                timeout_ms: 0,
            })
            .await
        }));
    }
    h.wait_status("the first job to run", |s| {
        s.queues.iter().map(|q| q.in_progress).sum::<u32>() >= 1
    })
    .await;
    h.wait_http_status("all three waiters held", |v| v["waiting_clients"] == 3)
        .await;
    let report = h.shutdown().await.unwrap();
    assert_eq!(report.unfinished_at_signal, 3, "{report:?}");
    assert_eq!(report.cancelled_by_shutdown, 3, "{report:?}");
    for w in waiters {
        let r = w
            .await
            .unwrap()
            .expect("answered before the server stopped")
            .into_inner();
        assert_eq!(r.status(), S::Cancelled);
        assert!(
            r.error_message.contains("shutting down"),
            "{}",
            r.error_message
        );
    }
    // Nothing listens any more.
    let gone = match cuzk_daemon::connect(&h.addr, 1 << 20).await {
        Err(_) => true,
        Ok(mut c) => c.get_status(pb::GetStatusRequest {}).await.is_err(),
    };
    assert!(gone, "the daemon still answers after shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_in_drain_mode_finishes_accepted_jobs_and_refuses_new_ones() {
    let mut h = Harness::start().await;
    let mut c = h.client.clone();
    let mut waiters = Vec::new();
    for seed in 0..2 {
        let mut c2 = h.new_client().await;
        waiters.push(tokio::spawn(async move {
            c2.prove(pb::ProveRequest {
                submit: Some(bench(12, 12, seed)),
            })
            .await
        }));
    }
    h.wait_status("both jobs accepted", |s| {
        s.queues
            .iter()
            .map(|q| q.pending + q.in_progress)
            .sum::<u32>()
            == 2
    })
    .await;
    h.signal_shutdown();
    // Refused while draining (the drain takes seconds: 24 partitions of
    // 2^12). A submission that raced the signal was accepted: it is drained
    // like the others.
    let t0 = std::time::Instant::now();
    let mut raced = 0;
    let refused = loop {
        match c.submit_proof(bench(10, 1, 1)).await {
            Err(e) if e.code() == tonic::Code::Unavailable => {
                break e.message().contains("shutting down")
            }
            Err(_) => break false,
            Ok(_) if t0.elapsed() > Duration::from_secs(10) => break false,
            Ok(_) => {
                raced += 1;
                tokio::time::sleep(Duration::from_millis(5)).await
            }
        }
    };
    assert!(refused, "new work is refused during a drain");
    for (seed, w) in waiters.into_iter().enumerate() {
        let r = w.await.unwrap().unwrap().into_inner().result.unwrap();
        assert_eq!(r.status(), S::Completed, "{}", r.error_message);
        verify_bench(12, 12, seed as u64, &r.proof);
    }
    let report = h.shutdown().await.unwrap();
    assert!(report.unfinished_at_signal >= 2, "{report:?}");
    assert!(report.unfinished_at_signal <= 2 + raced, "{report:?}");
    assert_eq!(report.cancelled_by_shutdown, 0, "{report:?}");
    assert_eq!(report.completed, 2 + raced as u64, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_submits_under_a_small_budget_all_complete() {
    let shape = cuzk_synth::circuits::BenchCircuit::new(10, 0)
        .unwrap()
        .expected_shape();
    let one = cuzk_scheduler::estimate_partition_bytes(&shape, false);
    tokio::task::spawn_blocking(common::ensure_params)
        .await
        .unwrap();
    // The parameter set is held in the budget too.
    let set = cuzk_groth16::Parameters::load(
        &common::param_dir().join("bench-k10-setup0.params"),
        cuzk_groth16::CheckMode::Trusted,
    )
    .unwrap()
    .host_bytes();
    // Room for the set and two partitions at a time, not three.
    let budget = set + one * 5 / 2;
    let h = Harness::start_with(move |s| {
        s.opts = cuzk_scheduler::EngineOptions::small(2, 1, budget);
        s.opts.queue_capacity = 256;
    })
    .await;
    let mut tasks = Vec::new();
    for i in 0..200u64 {
        let mut c = h.client.clone();
        tasks.push(tokio::spawn(async move {
            let id = c
                .submit_proof(bench(10, 1, i))
                .await
                .unwrap()
                .into_inner()
                .job_id;
            let r = c
                .await_proof(pb::AwaitProofRequest {
                    job_id: id,
                    timeout_ms: 0,
                })
                .await
                .unwrap()
                .into_inner();
            (i, r)
        }));
    }
    let mut done = 0;
    for t in tasks {
        let (i, r) = t.await.unwrap();
        assert_eq!(r.status(), S::Completed, "job {i}: {}", r.error_message);
        assert_eq!(r.proof.len(), 192);
        if i % 50 == 0 {
            verify_bench(10, 1, i, &r.proof);
        }
        done += 1;
    }
    assert_eq!(done, 200);
    let text = h.metrics().await;
    let peak = metric(&text, r#"cuzk_memory_reserved_peak_bytes"#).unwrap();
    let held_peak = metric(&text, r#"cuzk_memory_held_peak_bytes"#).unwrap();
    let b = metric(&text, r#"cuzk_memory_budget_bytes"#).unwrap();
    assert_eq!(b, budget as f64);
    assert!(peak > 0.0 && peak <= b, "peak {peak} over budget {b}");
    assert!(held_peak <= b);
    assert_eq!(metric(&text, r#"cuzk_memory_overcommit_bytes"#), Some(0.0));
    assert_eq!(metric(&text, "cuzk_proofs_completed_total"), Some(200.0));
    assert_eq!(h.status().await.total_proofs_completed, 200);
}
