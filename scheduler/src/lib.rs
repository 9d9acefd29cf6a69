//! # cuzk-scheduler
//!
//! The proving engine. A proof is N partitions of one circuit; the engine
//! pipelines them across proofs so that CPU synthesis of some partitions
//! overlaps the GPU work of others, and shows why when it does not.
//!
//! ```text
//! submit(JobSpec) ─► jobs (priority + aging) ─► synthesis workers (c)
//!        │                 memory budget: reserve before starting ─┘
//!        ▼                                                          │
//!   JobHandle ◄── prove_assignment ◄── GPU workers (gw/device) ◄── GPU queue
//!   (wait/cancel)  (evaluate, r·s, self-check; partition order)
//!                  one backend per device, ≤ pipeline_depth in evaluate
//! ```
//!
//! Entry points:
//! - [`Engine::new`] with [`EngineOptions`] (from a [`Config`] file via
//!   [`Config::engine_options`]) and one `Arc<dyn Backend>` per device;
//!   [`Engine::register_circuit`], [`Engine::submit`] → [`JobHandle`]
//!   (`wait`, `cancel`) → [`JobOutput`] (proofs in partition order);
//!   [`Engine::stats`] (live counters), [`Engine::take_timeline`]
//!   (per-partition [`Event`]s, JSON lines via [`write_json_lines`]).
//! - [`PartitionSource`]: where partitions come from; [`CircuitSource`]
//!   for bellpepper circuits, [`AssignmentSource`] for ready assignments.
//! - [`Engine::load_circuit`] / [`Engine::evict_circuit`] /
//!   [`Engine::circuits`]: the SRS cache ([`srs`]): each parameter file
//!   read once, placed on every device, no host copy where resident.
//! - [`params`]: where parameter files live ([`params::param_dir`]) and
//!   the built-in circuits' test parameters, made once per directory
//!   ([`params::ensure_test_params`]).
//!
//! Benchmark reports over the timeline are the front end's (`cuzk bench`).
//!
//! The memory budget is the engine's promise that raising concurrency
//! cannot run the process out of memory: a partition starts only once its
//! whole-lifetime reservation ([`estimate_partition_bytes`]) fits.
//!
//! Features: none. The engine never calls CUDA; it drives [`Backend`]s.
//!
//! [`Backend`]: cuzk_groth16::Backend
#![forbid(unsafe_code)]

pub mod config;
pub mod curio;
pub mod engine;
pub mod error;
pub mod params;
pub mod source;
pub mod srs;
pub mod sysinfo;
pub mod timeline;

pub use config::{
    format_bytes, parse_bytes, ByteSpec, Config, EngineOptions, LogFormat, LoggingConfig,
    WitnessConfig, WitnessGen, LOG_LEVELS,
};
pub use curio::ConfigNotice;
pub use engine::{Engine, HostHold, JobHandle, JobId, JobOutput, JobSpec, PartitionTimes};
pub use error::{ConfigError, EngineError, PartitionError, SharedSourceError, Stage};
pub use source::{
    estimate_partition_bytes, AssignmentSource, CircuitSource, PartitionSource, SourceError,
};
pub use srs::SrsInfo;
pub use timeline::{write_json_lines, EngineStats, Event, EventKind};
