//! Per-partition timeline events and live counters.
//!
//! Events carry seconds since the engine started (`t`); spans (a backend
//! stage, assembly, verification, a wait on the memory budget) also carry
//! their duration `dur`. Written one JSON object per line by
//! [`write_json_lines`], they load straight into pandas, jq or a trace viewer.

use serde::{Deserialize, Serialize};
use std::io::Write;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A job was accepted (`detail`: circuit id).
    JobSubmitted,
    /// A synthesis worker started a partition (`bytes`: reservation).
    SynthStart,
    /// Synthesis finished (`bytes`: the assignment's real size).
    SynthEnd,
    /// The synthesized partition joined the GPU queue.
    GpuQueued,
    /// A GPU worker entered the device region (holds the device lock).
    GpuStart,
    /// One backend stage (`name`), a span inside the device region, at the
    /// time it ran. `detail` "beside": work that ran beside the stages
    /// (the GPU backend's CPU classification during its H path), counted
    /// in no stage.
    Stage,
    /// The GPU worker left the device region.
    GpuEnd,
    /// Randomisation and compression of the proof (span).
    Assembly,
    /// The self-check (span).
    Verify,
    /// Every partition is proved; the proofs were assembled in partition
    /// order and handed to the caller.
    JobDone,
    /// The job failed (`detail`: why).
    JobFailed,
    /// The job was cancelled.
    JobCancelled,
    /// Synthesis workers were idle because the next partition did not fit
    /// the memory budget (span).
    BudgetWait,
    /// A device's hardware counters over one sampling period (span,
    /// `device`; `name`: the metric, e.g. `sm_busy_pct`; `value`). Written
    /// by the front end's bench from `cuzk-devmon`, not by the engine.
    DeviceSample,
}

/// One timeline event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Seconds since the engine started (start of the span for spans).
    pub t: f64,
    /// What happened.
    pub kind: EventKind,
    /// The job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<u64>,
    /// The partition index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<usize>,
    /// Duration in seconds, for spans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dur: Option<f64>,
    /// Backend stage name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Device ordinal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<u32>,
    /// Worker number (synthesis workers and GPU workers count separately).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<usize>,
    /// Bytes (reservation or real size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Free text (an error, a circuit id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// A measured quantity (a device sample's metric).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
}

impl Event {
    /// An event of `kind` at `t` with every optional field empty.
    pub fn new(t: f64, kind: EventKind) -> Self {
        Self {
            t,
            kind,
            job: None,
            partition: None,
            dur: None,
            name: None,
            device: None,
            worker: None,
            bytes: None,
            detail: None,
            value: None,
        }
    }
    pub(crate) fn job(mut self, j: u64) -> Self {
        self.job = Some(j);
        self
    }
    pub(crate) fn part(mut self, j: u64, p: usize) -> Self {
        self.job = Some(j);
        self.partition = Some(p);
        self
    }
    pub(crate) fn dur(mut self, d: f64) -> Self {
        self.dur = Some(d);
        self
    }
    pub(crate) fn device(mut self, d: u32, w: usize) -> Self {
        self.device = Some(d);
        self.worker = Some(w);
        self
    }
    pub(crate) fn worker(mut self, w: usize) -> Self {
        self.worker = Some(w);
        self
    }
    pub(crate) fn bytes(mut self, b: u64) -> Self {
        self.bytes = Some(b);
        self
    }
    pub(crate) fn detail(mut self, s: impl Into<String>) -> Self {
        self.detail = Some(s.into());
        self
    }
    pub(crate) fn name(mut self, s: impl Into<String>) -> Self {
        self.name = Some(s.into());
        self
    }
}

/// Writes events as JSON lines, in time order.
pub fn write_json_lines(events: &[Event], w: &mut dyn Write) -> std::io::Result<()> {
    let mut sorted: Vec<&Event> = events.iter().collect();
    sorted.sort_by(|a, b| a.t.total_cmp(&b.t));
    for e in sorted {
        serde_json::to_writer(&mut *w, e).map_err(std::io::Error::other)?;
        w.write_all(b"\n")?;
    }
    w.flush()
}

/// Live counters of a running engine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineStats {
    /// Seconds since the engine started.
    pub uptime_s: f64,
    /// Unfinished jobs.
    pub jobs_active: usize,
    /// Partitions not yet started (queue in front of synthesis).
    pub partitions_waiting: usize,
    /// Synthesis workers busy now.
    pub synthesis_busy: usize,
    /// Synthesis workers in all.
    pub synthesis_workers: usize,
    /// Synthesized partitions waiting for a GPU worker.
    pub gpu_queue: usize,
    /// GPU workers holding a partition (in or waiting for the device region).
    pub gpu_workers_busy: usize,
    /// GPU workers in all.
    pub gpu_workers: usize,
    /// Per device: seconds spent in the device region since start.
    pub device_busy_s: Vec<f64>,
    /// Bytes reserved from the memory budget now.
    pub memory_reserved: u64,
    /// Highest reservation seen.
    pub memory_peak: u64,
    /// The budget.
    pub memory_budget: u64,
    /// Bytes the live synthesized assignments really hold now.
    pub memory_held: u64,
    /// Highest `memory_held` seen.
    pub memory_held_peak: u64,
    /// Bytes by which real assignments exceeded their reservations (the
    /// source's shape was wrong); 0 when every estimate held.
    pub memory_overcommit: u64,
    /// Host bytes held by parameter sets and reserved for their
    /// partitions' evaluation working sets, and by holds such as a recorded
    /// circuit (included in `memory_reserved`).
    pub memory_srs: u64,
    /// Seconds synthesis workers sat idle because the budget was full.
    pub budget_wait_s: f64,
    /// Partitions proved.
    pub partitions_done: u64,
    /// Jobs finished successfully.
    pub jobs_done: u64,
    /// Jobs failed.
    pub jobs_failed: u64,
    /// Jobs cancelled.
    pub jobs_cancelled: u64,
    /// Page-locked witness buffers the backends' pool made, each
    /// registered once (0 without a pool). In a steady state it stays near
    /// the number of partitions in flight.
    #[serde(default)]
    pub witness_buffers_made: u64,
    /// Witness buffer requests served by an idle buffer.
    #[serde(default)]
    pub witness_buffers_reused: u64,
    /// Idle witness buffers freed (over the pool's idle limit, or to make
    /// room in the budget).
    #[serde(default)]
    pub witness_buffers_freed: u64,
}
