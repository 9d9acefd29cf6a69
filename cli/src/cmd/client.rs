//! `cuzk client`: talk to a running `cuzk daemon` from a shell (submit,
//! await, prove, status, cancel, preload, evict, metrics), plus
//! `bench-inputs`, the public inputs a bench job's proofs verify against.

use crate::output::Ctx;
use anyhow::{bail, Context, Result};
use cuzk_daemon::pb;
use cuzk_daemon::pb::await_proof_response::Status as S;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The daemon: host:port, http://host:port or unix:///path.
    #[arg(long, default_value = "127.0.0.1:9820")]
    pub addr: String,
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(clap::Subcommand, Debug)]
pub enum Cmd {
    /// Queue a proof; prints the job id and queue position.
    Submit(JobArgs),
    /// Queue a proof and wait for it.
    Prove {
        #[command(flatten)]
        job: JobArgs,
        /// Write the proof bytes here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Wait for a job's result.
    Await {
        job_id: String,
        /// Give up after this many milliseconds (the job goes on); 0: no limit.
        #[arg(long, default_value_t = 0)]
        timeout_ms: u64,
        /// Write the proof bytes here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Devices, parameter sets, queues, counters.
    Status,
    /// Cancel a queued or running job.
    Cancel { job_id: String },
    /// Load a circuit's parameters (e.g. bench-k16).
    Preload { circuit_id: String },
    /// Drop a circuit's parameters from memory.
    Evict { circuit_id: String },
    /// The Prometheus metrics text.
    Metrics,
    /// Write a bench job's public inputs (the JSON `cuzk verify --inputs` reads).
    BenchInputs {
        #[arg(long)]
        log_size: u32,
        #[arg(long, default_value_t = 1)]
        partitions: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindArg {
    /// cuzk's benchmark circuit.
    Bench,
    /// PoRep C2 from a C1 output (--c1).
    Porep,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriorityArg {
    Low,
    Normal,
    High,
    Critical,
}

#[derive(clap::Args, Debug)]
pub struct JobArgs {
    #[arg(long, value_enum, default_value_t = KindArg::Bench)]
    pub kind: KindArg,
    /// Idempotency key: a request_id in flight is not proved twice.
    #[arg(long, default_value = "")]
    pub request_id: String,
    #[arg(long, value_enum, default_value_t = PriorityArg::Normal)]
    pub priority: PriorityArg,
    /// Bench: log2 of the domain.
    #[arg(long, default_value_t = 12)]
    pub log_size: u32,
    /// Bench: partitions.
    #[arg(long, default_value_t = 1)]
    pub partitions: usize,
    /// Bench: witness seed of partition 0.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// PoRep: the C1 output file (sent as is).
    #[arg(long)]
    pub c1: Option<PathBuf>,
    /// PoRep: sector size (e.g. 2KiB, 32GiB).
    #[arg(long, default_value = "0")]
    pub sector_size: String,
    /// PoRep: sector number.
    #[arg(long, default_value_t = 0)]
    pub sector_number: u64,
    /// PoRep: miner actor id.
    #[arg(long, default_value_t = 0)]
    pub miner_id: u64,
}

impl JobArgs {
    fn request(&self) -> Result<pb::SubmitProofRequest> {
        let priority = match self.priority {
            PriorityArg::Low => pb::Priority::Low,
            PriorityArg::Normal => pb::Priority::Normal,
            PriorityArg::High => pb::Priority::High,
            PriorityArg::Critical => pb::Priority::Critical,
        } as i32;
        let mut r = pb::SubmitProofRequest {
            request_id: self.request_id.clone(),
            priority,
            ..Default::default()
        };
        match self.kind {
            KindArg::Bench => {
                r.proof_kind = pb::ProofKind::CuzkBenchCircuit as i32;
                r.vanilla_proof = serde_json::to_vec(&serde_json::json!({
                    "log_size": self.log_size, "partitions": self.partitions, "seed": self.seed,
                }))?;
            }
            KindArg::Porep => {
                let c1 = self.c1.as_ref().context("--kind porep needs --c1 FILE")?;
                r.proof_kind = pb::ProofKind::PorepSealCommit as i32;
                r.vanilla_proof =
                    std::fs::read(c1).with_context(|| format!("cannot read {}", c1.display()))?;
                r.sector_size = cuzk_scheduler::parse_bytes(&self.sector_size)
                    .map_err(|e| anyhow::anyhow!("--sector-size: {e}"))?;
                r.sector_number = self.sector_number;
                r.miner_id = self.miner_id;
            }
        }
        Ok(r)
    }
}

/// Messages up to Curio's limit.
const MAX_MESSAGE: usize = 256 << 20;

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    if let Cmd::BenchInputs {
        log_size,
        partitions,
        seed,
        out,
    } = &a.cmd
    {
        let inputs = cuzk_daemon::BenchJob {
            log_size: *log_size,
            partitions: *partitions,
            seed: *seed,
        }
        .public_inputs()?;
        return crate::cmd::write_inputs(out, &inputs);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(call(ctx, a))
}

fn grpc(e: cuzk_daemon::tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{:?}: {}", e.code(), e.message())
}

async fn call(ctx: &Ctx, a: Args) -> Result<()> {
    let mut c = cuzk_daemon::connect(&a.addr, MAX_MESSAGE)
        .await
        .with_context(|| format!("cannot connect to the daemon at {}", a.addr))?;
    match a.cmd {
        Cmd::Submit(job) => {
            let r = c
                .submit_proof(job.request()?)
                .await
                .map_err(grpc)?
                .into_inner();
            if ctx.json {
                println!(
                    "{}",
                    serde_json::json!({"job_id": r.job_id, "queue_position": r.queue_position})
                );
            } else {
                println!("{} (queue position {})", r.job_id, r.queue_position);
            }
        }
        Cmd::Prove { job, out } => {
            let r = c
                .prove(pb::ProveRequest {
                    submit: Some(job.request()?),
                })
                .await
                .map_err(grpc)?
                .into_inner()
                .result
                .context("the daemon answered without a result")?;
            result(ctx, r, out.as_ref())?;
        }
        Cmd::Await {
            job_id,
            timeout_ms,
            out,
        } => {
            let r = c
                .await_proof(pb::AwaitProofRequest { job_id, timeout_ms })
                .await
                .map_err(grpc)?
                .into_inner();
            result(ctx, r, out.as_ref())?;
        }
        Cmd::Status => {
            let s = c
                .get_status(pb::GetStatusRequest {})
                .await
                .map_err(grpc)?
                .into_inner();
            print_status(ctx, &s);
        }
        Cmd::Cancel { job_id } => {
            let r = c
                .cancel_proof(pb::CancelProofRequest {
                    job_id: job_id.clone(),
                })
                .await
                .map_err(grpc)?
                .into_inner();
            if ctx.json {
                println!(
                    "{}",
                    serde_json::json!({"job_id": job_id, "was_running": r.was_running})
                );
            } else {
                println!("{job_id}: cancelled (was running: {})", r.was_running);
            }
        }
        Cmd::Preload { circuit_id } => {
            let r = c
                .preload_srs(pb::PreloadSrsRequest {
                    circuit_id: circuit_id.clone(),
                })
                .await
                .map_err(grpc)?
                .into_inner();
            if ctx.json {
                println!(
                    "{}",
                    serde_json::json!({"circuit_id": circuit_id, "already_loaded": r.already_loaded, "load_time_ms": r.load_time_ms})
                );
            } else if r.already_loaded {
                println!("{circuit_id}: already loaded");
            } else {
                println!("{circuit_id}: loaded in {} ms", r.load_time_ms);
            }
        }
        Cmd::Evict { circuit_id } => {
            let r = c
                .evict_srs(pb::EvictSrsRequest {
                    circuit_id: circuit_id.clone(),
                })
                .await
                .map_err(grpc)?
                .into_inner();
            if ctx.json {
                println!(
                    "{}",
                    serde_json::json!({"circuit_id": circuit_id, "was_loaded": r.was_loaded, "freed_bytes": r.freed_bytes})
                );
            } else {
                println!(
                    "{circuit_id}: was loaded: {}, freed {} bytes",
                    r.was_loaded, r.freed_bytes
                );
            }
        }
        Cmd::Metrics => {
            let r = c
                .get_metrics(pb::GetMetricsRequest {})
                .await
                .map_err(grpc)?
                .into_inner();
            print!("{}", r.prometheus_text);
        }
        Cmd::BenchInputs { .. } => unreachable!("handled without a connection"),
    }
    Ok(())
}

/// Prints a job result, writes the proof, fails unless COMPLETED.
fn result(ctx: &Ctx, r: pb::AwaitProofResponse, out: Option<&PathBuf>) -> Result<()> {
    let status = r.status();
    if let (S::Completed, Some(p)) = (status, out) {
        std::fs::write(p, &r.proof).with_context(|| format!("cannot write {}", p.display()))?;
    }
    if ctx.json {
        println!(
            "{}",
            serde_json::json!({
                "job_id": r.job_id, "status": status.as_str_name(), "error": r.error_message,
                "proof_bytes": r.proof.len(), "queue_wait_ms": r.queue_wait_ms, "srs_load_ms": r.srs_load_ms,
                "synthesis_ms": r.synthesis_ms, "gpu_compute_ms": r.gpu_compute_ms, "total_ms": r.total_ms,
            })
        );
    } else {
        println!(
            "{}: {} ({} proof bytes; queue {} ms, SRS load {} ms, synthesis {} ms, GPU {} ms, total {} ms){}",
            r.job_id,
            status.as_str_name(),
            r.proof.len(),
            r.queue_wait_ms,
            r.srs_load_ms,
            r.synthesis_ms,
            r.gpu_compute_ms,
            r.total_ms,
            if r.error_message.is_empty() { String::new() } else { format!(": {}", r.error_message) }
        );
    }
    match status {
        S::Completed => Ok(()),
        S::Timeout => bail!(
            "{}: not finished yet (the job goes on; await it again)",
            r.job_id
        ),
        _ => bail!("{}: {} {}", r.job_id, status.as_str_name(), r.error_message),
    }
}

fn print_status(ctx: &Ctx, s: &pb::GetStatusResponse) {
    if ctx.json {
        let v = serde_json::json!({
            "uptime_seconds": s.uptime_seconds,
            "total_proofs_completed": s.total_proofs_completed,
            "total_proofs_failed": s.total_proofs_failed,
            "memory_reserved_bytes": s.pinned_memory_bytes,
            "memory_budget_bytes": s.pinned_memory_limit_bytes,
            "gpus": s.gpus.iter().map(|g| serde_json::json!({"ordinal": g.ordinal, "name": g.name, "vram_total_bytes": g.vram_total_bytes, "vram_free_bytes": g.vram_free_bytes})).collect::<Vec<_>>(),
            "loaded_srs": s.loaded_srs.iter().map(|l| serde_json::json!({"circuit_id": l.circuit_id, "size_bytes": l.size_bytes, "ref_count": l.ref_count})).collect::<Vec<_>>(),
            "queues": s.queues.iter().map(|q| serde_json::json!({"proof_kind": q.proof_kind, "pending": q.pending, "in_progress": q.in_progress})).collect::<Vec<_>>(),
        });
        println!("{v}");
        return;
    }
    println!(
        "up {} s; proofs completed {}, failed {}; memory {} of {}",
        s.uptime_seconds,
        s.total_proofs_completed,
        s.total_proofs_failed,
        cuzk_scheduler::format_bytes(s.pinned_memory_bytes),
        cuzk_scheduler::format_bytes(s.pinned_memory_limit_bytes)
    );
    for g in &s.gpus {
        if g.vram_total_bytes == 0 {
            println!("device {}: {}", g.ordinal, g.name);
        } else {
            println!(
                "device {}: {} ({} free of {})",
                g.ordinal,
                g.name,
                cuzk_scheduler::format_bytes(g.vram_free_bytes),
                cuzk_scheduler::format_bytes(g.vram_total_bytes)
            );
        }
    }
    for l in &s.loaded_srs {
        println!(
            "parameters {}: {} in use by {} jobs",
            l.circuit_id,
            cuzk_scheduler::format_bytes(l.size_bytes),
            l.ref_count
        );
    }
    for q in s.queues.iter().filter(|q| q.pending + q.in_progress > 0) {
        println!(
            "{}: {} pending, {} in progress",
            q.proof_kind, q.pending, q.in_progress
        );
    }
}
