//! # cuzk-daemon
//!
//! The proving daemon: curio's `cuzk.v1.ProvingEngine` gRPC service
//! (SubmitProof, AwaitProof, Prove, CancelProof, GetStatus, GetMetrics,
//! PreloadSRS, EvictSRS), wire-compatible with the protocol Curio speaks
//! (`proto/cuzk/v1/proving.proto`, checked against Curio's own file by
//! `tests/wire_compat.rs`), on the cuzk engine (`cuzk-scheduler`).
//!
//! - [`serve`] / [`Daemon`]: bind gRPC (TCP and/or unix socket) and HTTP
//!   (`/metrics`, `/status`), serve until a shutdown future resolves, then
//!   drain or cancel per [`ShutdownMode`].
//! - [`EngineHost`] (`engine_glue`): the engine, its parameter sets, and the
//!   translation of requests into engine jobs — the only module that knows
//!   the engine's API.
//! - [`load_config`]: the engine's TOML file plus the daemon's own
//!   `[daemon]` keys ([`DaemonSettings`]).
//! - [`connect`]: a generated client over TCP or a unix socket.
//! - [`uds`]: the unix socket's fix for clients that send the socket's path
//!   as the HTTP/2 `:authority` (grpcio, grpc-java, grpcurl).
//!
//! Semantics (job ids, request_id retries, timeouts, cancellation,
//! disconnects, shutdown) are documented in docs/DAEMON.md.
#![forbid(unsafe_code)]

pub mod client;
pub mod engine_glue;
pub mod error;
pub mod http;
pub mod jobs;
pub mod metrics;
pub mod request;
pub mod server;
pub mod service;
pub mod settings;
pub mod status;
pub mod uds;

/// The generated messages, server and client of `cuzk.v1`.
#[allow(missing_docs, clippy::all, missing_debug_implementations)]
pub mod pb {
    tonic::include_proto!("cuzk.v1");
}

pub use client::{connect, Client};
pub use engine_glue::{BenchJob, EngineHost};
pub use error::DaemonError;
pub use server::{serve, Daemon, ServeOptions, ShutdownReport};
pub use settings::{load_config, parse_config, DaemonSettings, DisconnectMode, ShutdownMode};
pub use status::StatusReport;
/// The gRPC crate the generated code is built on (for `tonic::Status`).
pub use tonic;
