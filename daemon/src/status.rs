//! What `GetStatus` and `GET /status` report: one struct, two encodings
//! (the proto message and JSON).

use crate::engine_glue::{DeviceInfo, EngineHost, EngineStats, SrsInfo};
use crate::jobs::{JobCounts, QueueCounts};
use crate::pb;
use std::collections::HashMap;
use std::time::Duration;

/// A device and the job in its device region now.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceStatus {
    /// Ordinal, name, memory.
    #[serde(flatten)]
    pub info: DeviceInfo,
    /// The job whose partition is in the device region (empty: idle).
    pub current_job_id: String,
    /// Its proof kind.
    pub current_proof_kind: String,
}

/// A parameter set in memory and the unfinished jobs that use it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LoadedSrs {
    /// Id, size.
    #[serde(flatten)]
    pub info: SrsInfo,
    /// Unfinished jobs using it.
    pub ref_count: u32,
}

/// The daemon's state now.
#[derive(Clone, Debug, serde::Serialize)]
pub struct StatusReport {
    /// cuzk's version.
    pub version: String,
    /// The prover backend.
    pub backend: String,
    /// Seconds since start.
    pub uptime_seconds: u64,
    /// Devices.
    pub devices: Vec<DeviceStatus>,
    /// Parameter sets in memory.
    pub loaded_srs: Vec<LoadedSrs>,
    /// Unfinished jobs per proof kind.
    pub queues: Vec<QueueCounts>,
    /// Completed since start.
    pub total_proofs_completed: u64,
    /// Failed since start.
    pub total_proofs_failed: u64,
    /// Cancelled since start.
    pub total_proofs_cancelled: u64,
    /// Requests (`Prove`, `AwaitProof`) waiting for an unfinished job.
    pub waiting_clients: u32,
    /// The engine's counters (memory budget, queues, device busy fraction).
    pub engine: EngineStats,
}

impl StatusReport {
    /// Gathers the report.
    pub fn collect(
        host: &EngineHost,
        counts: &JobCounts,
        on_device: &HashMap<u32, (String, &'static str)>,
        uptime: Duration,
    ) -> Self {
        let loaded_srs = host
            .loaded()
            .into_iter()
            .map(|info| LoadedSrs {
                ref_count: counts
                    .by_circuit
                    .get(&info.circuit_id)
                    .copied()
                    .unwrap_or(0),
                info,
            })
            .collect();
        Self {
            version: env!("CARGO_PKG_VERSION").to_string(),
            backend: host.backend_name(),
            uptime_seconds: uptime.as_secs(),
            devices: host
                .devices()
                .into_iter()
                .map(|info| {
                    let (job, kind) = on_device.get(&info.ordinal).cloned().unwrap_or_default();
                    DeviceStatus {
                        info,
                        current_job_id: job,
                        current_proof_kind: kind.to_string(),
                    }
                })
                .collect(),
            loaded_srs,
            queues: counts.queues.clone(),
            total_proofs_completed: counts.completed,
            total_proofs_failed: counts.failed,
            total_proofs_cancelled: counts.cancelled,
            waiting_clients: counts.waiting_clients,
            engine: host.stats(),
        }
    }

    /// The proto message. Curio's `pinned_memory_*` fields carry the
    /// engine's host memory budget: bytes reserved now, and the budget.
    pub fn to_pb(&self) -> pb::GetStatusResponse {
        pb::GetStatusResponse {
            gpus: self
                .devices
                .iter()
                .map(|d| pb::GpuStatus {
                    ordinal: d.info.ordinal,
                    name: d.info.name.clone(),
                    vram_total_bytes: d.info.total_bytes,
                    vram_free_bytes: d.info.free_bytes,
                    current_job_id: d.current_job_id.clone(),
                    current_proof_kind: d.current_proof_kind.clone(),
                })
                .collect(),
            loaded_srs: self
                .loaded_srs
                .iter()
                .map(|s| pb::SrsStatus {
                    circuit_id: s.info.circuit_id.clone(),
                    tier: pb::srs_status::Tier::Hot as i32,
                    size_bytes: s.info.bytes,
                    ref_count: s.ref_count,
                })
                .collect(),
            queues: self
                .queues
                .iter()
                .map(|q| pb::QueueStatus {
                    proof_kind: q.proof_kind.clone(),
                    pending: q.pending,
                    in_progress: q.in_progress,
                })
                .collect(),
            total_proofs_completed: self.total_proofs_completed,
            total_proofs_failed: self.total_proofs_failed,
            uptime_seconds: self.uptime_seconds,
            pinned_memory_bytes: self.engine.memory_reserved,
            pinned_memory_limit_bytes: self.engine.memory_budget,
        }
    }
}
