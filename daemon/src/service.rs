//! The `cuzk.v1.ProvingEngine` gRPC service on the engine.

use crate::engine_glue::EngineHost;
use crate::error::DaemonError;
use crate::jobs::{Begin, NewJob, Outcome, Registry, Status as JobStatus, Via};
use crate::metrics::Metrics;
use crate::pb;
use crate::pb::await_proof_response::Status as PbStatus;
use crate::request;
use crate::status::StatusReport;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::{Request, Response, Status};

/// Longest `AwaitProof` wait honoured (a larger `timeout_ms` is clamped):
/// keeps deadline arithmetic far from overflow.
const MAX_AWAIT: Duration = Duration::from_secs(30 * 24 * 3600);

/// A new job's hand-over to the engine (see `ProvingService::submit`).
type Preparation = tokio::task::JoinHandle<Result<(), DaemonError>>;

/// Shared by the gRPC service, the HTTP server and the shutdown logic.
pub struct Shared {
    /// The engine and its parameter sets.
    pub host: Arc<EngineHost>,
    /// The jobs.
    pub jobs: Arc<Registry>,
    /// The metrics.
    pub metrics: Arc<Metrics>,
    /// When the daemon started.
    pub started: Instant,
    /// `[daemon] bench_max_log_size`.
    pub bench_max_log_size: u32,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("host", &self.host)
            .field("jobs", &self.jobs)
            .finish()
    }
}

impl Shared {
    /// Status as `GetStatus` and `GET /status` report it.
    pub fn status(&self) -> StatusReport {
        self.jobs.apply_events(&self.host.take_events());
        StatusReport::collect(
            &self.host,
            &self.jobs.counts(),
            &self.jobs.on_device(),
            self.started.elapsed(),
        )
    }

    /// The Prometheus text.
    pub fn metrics_text(&self) -> String {
        self.jobs.apply_events(&self.host.take_events());
        self.metrics.render(
            &self.host,
            &self.jobs.counts(),
            self.started.elapsed().as_secs_f64(),
        )
    }
}

/// The gRPC service.
#[derive(Clone, Debug)]
pub struct ProvingService {
    shared: Arc<Shared>,
}

impl ProvingService {
    /// A service over `shared`.
    pub fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }

    /// Checks a request and creates its job (or finds it in flight).
    /// Returns the job id and, for a new job, the task that hands it to the
    /// engine. That task runs on its own, so a caller that goes away cannot
    /// leave a job half-submitted; await it with [`Self::prepared`].
    async fn submit(
        &self,
        req: pb::SubmitProofRequest,
        via: Via,
    ) -> Result<(String, Option<Preparation>), Status> {
        let bench_max = self.shared.bench_max_log_size;
        let checked = tokio::task::spawn_blocking(move || {
            request::check(&req, bench_max).map(|c| (c, req.request_id))
        })
        .await
        .map_err(|e| Status::internal(format!("request check: {e}")))??;
        let (checked, request_id) = checked;
        let circuit_id = checked.input.circuit_id();
        let begin = self.shared.jobs.begin(
            NewJob {
                request_id: request_id.clone(),
                kind: checked.kind,
                circuit_id,
                priority: checked.priority,
                fingerprint: checked.fingerprint,
            },
            via,
        )?;
        let job_id = match begin {
            Begin::Existing(id) => return Ok((id, None)),
            Begin::New(id) => id,
        };
        tracing::info!(
            job_id,
            request_id,
            kind = checked.kind.name(),
            priority = checked.priority,
            "accepted"
        );
        let input = checked.input;
        let shared = self.shared.clone();
        let id = job_id.clone();
        #[cfg(feature = "filecoin")]
        if let crate::engine_glue::ProofInput::Aggregate(req) = input {
            // Beside the engine, on a blocking thread of its own; its
            // outcome reaches every waiter as an engine job's does.
            let prepared = tokio::spawn(async move {
                tokio::task::spawn_blocking(move || {
                    let jobs = &shared.jobs;
                    if let Some(res) = shared.host.aggregate(&req, || jobs.start_direct(&id)) {
                        jobs.finish_direct(&id, res);
                    }
                });
                Ok(())
            });
            return Ok((job_id, Some(prepared)));
        }
        let prepared = tokio::spawn(async move {
            let host = shared.host.clone();
            let priority = checked.priority;
            let submitted = input.clone();
            let res = tokio::task::spawn_blocking(move || host.submit(&submitted, priority))
                .await
                .unwrap_or_else(|e| {
                    Err(DaemonError::Internal(format!(
                        "preparing the job failed: {e}"
                    )))
                });
            match res {
                Ok(sub) => {
                    let handle = Arc::new(sub.handle);
                    shared.jobs.attach(
                        &id,
                        handle.clone(),
                        sub.engine_id,
                        sub.engine_t,
                        sub.srs_load,
                    );
                    let waiter = shared.clone();
                    tokio::task::spawn_blocking(move || {
                        let result = handle.wait();
                        let host = &waiter.host;
                        waiter.jobs.finish_from_engine(&id, result, host, |proofs| {
                            host.finish_proof(&input, proofs)
                        });
                    });
                    Ok(())
                }
                Err(e) => {
                    // A full queue or a shutdown is a refusal, not a failed proof.
                    let counted = !matches!(
                        e,
                        DaemonError::Engine(
                            crate::engine_glue::EngineError::QueueFull(_)
                                | crate::engine_glue::EngineError::ShutDown
                        )
                    );
                    shared.jobs.fail(&id, e.to_string(), counted);
                    Err(e)
                }
            }
        });
        Ok((job_id, Some(prepared)))
    }

    /// Waits for a job's preparation: an error if the engine refused it.
    async fn prepared(p: Option<Preparation>) -> Result<(), Status> {
        match p {
            None => Ok(()),
            Some(p) => match p.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(e.into()),
                Err(e) => Err(Status::internal(format!("job preparation: {e}"))),
            },
        }
    }

    /// Waits for job `id`'s outcome, at most `limit`; `None` on timeout.
    async fn wait(
        &self,
        id: &str,
        limit: Option<Duration>,
    ) -> Result<Option<Arc<Outcome>>, Status> {
        let mut rx = self.shared.jobs.subscribe(id)?;
        let gone = || Status::not_found(format!("job '{id}': its result is no longer kept"));
        let fut = async {
            rx.wait_for(Option::is_some)
                .await
                .map(|o| o.clone())
                .map_err(|_| gone())
        };
        match limit {
            None => Ok(fut.await?),
            Some(d) => match tokio::time::timeout(d.min(MAX_AWAIT), fut).await {
                Ok(r) => Ok(r?),
                Err(_) => Ok(None),
            },
        }
    }
}

/// Cancels the job of a `Prove` whose caller went away (see
/// `Registry::prove_abandoned`), unless it got its answer.
struct ProveGuard {
    jobs: Arc<Registry>,
    id: String,
    answered: bool,
}

impl Drop for ProveGuard {
    fn drop(&mut self) {
        if !self.answered {
            self.jobs.prove_abandoned(&self.id);
        }
    }
}

fn to_pb(job_id: &str, o: Option<&Outcome>) -> pb::AwaitProofResponse {
    let Some(o) = o else {
        return pb::AwaitProofResponse {
            job_id: job_id.to_string(),
            status: PbStatus::Timeout as i32,
            ..Default::default()
        };
    };
    let ms = |d: Duration| d.as_millis() as u64;
    pb::AwaitProofResponse {
        job_id: job_id.to_string(),
        status: match o.status {
            JobStatus::Completed => PbStatus::Completed,
            JobStatus::Failed => PbStatus::Failed,
            JobStatus::Cancelled => PbStatus::Cancelled,
        } as i32,
        proof: o.proof.clone(),
        error_message: o.error.clone(),
        queue_wait_ms: ms(o.timings.queue_wait),
        srs_load_ms: ms(o.timings.srs_load),
        synthesis_ms: ms(o.timings.synthesis),
        gpu_compute_ms: ms(o.timings.gpu),
        total_ms: ms(o.timings.total),
    }
}

#[tonic::async_trait]
impl pb::proving_engine_server::ProvingEngine for ProvingService {
    async fn submit_proof(
        &self,
        request: Request<pb::SubmitProofRequest>,
    ) -> Result<Response<pb::SubmitProofResponse>, Status> {
        let (job_id, prep) = self.submit(request.into_inner(), Via::Submit).await?;
        Self::prepared(prep).await?;
        let queue_position = self.shared.jobs.queue_position(&job_id);
        Ok(Response::new(pb::SubmitProofResponse {
            job_id,
            queue_position,
            assigned_gpu: String::new(),
        }))
    }

    async fn await_proof(
        &self,
        request: Request<pb::AwaitProofRequest>,
    ) -> Result<Response<pb::AwaitProofResponse>, Status> {
        let r = request.into_inner();
        let limit = (r.timeout_ms > 0).then(|| Duration::from_millis(r.timeout_ms));
        let o = self.wait(&r.job_id, limit).await?;
        Ok(Response::new(to_pb(&r.job_id, o.as_deref())))
    }

    async fn prove(
        &self,
        request: Request<pb::ProveRequest>,
    ) -> Result<Response<pb::ProveResponse>, Status> {
        let submit = request
            .into_inner()
            .submit
            .ok_or_else(|| Status::invalid_argument("ProveRequest.submit is missing"))?;
        let (job_id, prep) = self.submit(submit, Via::Prove).await?;
        // From here a disconnect counts, parameter loading included.
        let mut guard = ProveGuard {
            jobs: self.shared.jobs.clone(),
            id: job_id.clone(),
            answered: false,
        };
        if let Err(e) = Self::prepared(prep).await {
            guard.answered = true;
            return Err(e);
        }
        let o = self.wait(&job_id, None).await?;
        guard.answered = true;
        Ok(Response::new(pb::ProveResponse {
            result: Some(to_pb(&job_id, o.as_deref())),
        }))
    }

    async fn cancel_proof(
        &self,
        request: Request<pb::CancelProofRequest>,
    ) -> Result<Response<pb::CancelProofResponse>, Status> {
        let id = request.into_inner().job_id;
        let was_running = self.shared.jobs.cancel(&id, &self.shared.host)?;
        Ok(Response::new(pb::CancelProofResponse { was_running }))
    }

    async fn get_status(
        &self,
        _request: Request<pb::GetStatusRequest>,
    ) -> Result<Response<pb::GetStatusResponse>, Status> {
        Ok(Response::new(self.shared.status().to_pb()))
    }

    async fn get_metrics(
        &self,
        _request: Request<pb::GetMetricsRequest>,
    ) -> Result<Response<pb::GetMetricsResponse>, Status> {
        Ok(Response::new(pb::GetMetricsResponse {
            prometheus_text: self.shared.metrics_text(),
        }))
    }

    async fn preload_srs(
        &self,
        request: Request<pb::PreloadSrsRequest>,
    ) -> Result<Response<pb::PreloadSrsResponse>, Status> {
        let id = request.into_inner().circuit_id;
        let host = self.shared.host.clone();
        let took = tokio::task::spawn_blocking(move || host.preload(&id))
            .await
            .map_err(|e| Status::internal(format!("preload: {e}")))??;
        Ok(Response::new(pb::PreloadSrsResponse {
            already_loaded: took.is_none(),
            load_time_ms: took.map_or(0, |d| d.as_millis() as u64),
        }))
    }

    async fn evict_srs(
        &self,
        request: Request<pb::EvictSrsRequest>,
    ) -> Result<Response<pb::EvictSrsResponse>, Status> {
        let id = request.into_inner().circuit_id;
        let freed = self.shared.host.evict(&id)?;
        Ok(Response::new(pb::EvictSrsResponse {
            was_loaded: freed.is_some(),
            freed_bytes: freed.unwrap_or(0),
        }))
    }
}
