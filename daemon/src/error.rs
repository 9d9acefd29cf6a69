//! The daemon's errors, and how each reaches a gRPC client.

use cuzk_scheduler::{ConfigError, EngineError};

/// Everything the daemon library can fail with.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The configuration file or a setting is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A request that can never succeed as sent (bad kind, bad payload,
    /// zero sector size, ...).
    #[error("invalid request: {0}")]
    InvalidArgument(String),
    /// A proof kind this build does not prove (the Filecoin kinds without
    /// the `filecoin` feature).
    #[error("unimplemented: {0}")]
    Unimplemented(String),
    /// A job id or circuit id the daemon does not know.
    #[error("not found: {0}")]
    NotFound(String),
    /// The same request_id is in flight with different contents.
    #[error("request_id '{0}' is already in flight with a different proof request")]
    Conflict(String),
    /// The daemon is shutting down and accepts no new work.
    #[error("the daemon is shutting down")]
    ShuttingDown,
    /// Parameters could not be found, generated or loaded.
    #[error("parameters for '{circuit}': {message}")]
    Params {
        /// The circuit id.
        circuit: String,
        /// What went wrong.
        message: String,
    },
    /// The engine refused the job or could not start.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A socket could not be bound or served.
    #[error("{what}: {source}")]
    Io {
        /// What the daemon was doing.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A bug or a failed task inside the daemon (a panic, a server that
    /// stopped on its own).
    #[error("internal error: {0}")]
    Internal(String),
    /// The gRPC transport failed (server or client side).
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
}

impl DaemonError {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            what: what.into(),
            source,
        }
    }
}

impl From<DaemonError> for tonic::Status {
    fn from(e: DaemonError) -> Self {
        use tonic::Status;
        let msg = e.to_string();
        match e {
            DaemonError::InvalidArgument(_) => Status::invalid_argument(msg),
            DaemonError::Unimplemented(_) => Status::unimplemented(msg),
            DaemonError::NotFound(_) => Status::not_found(msg),
            DaemonError::Conflict(_) => Status::already_exists(msg),
            DaemonError::ShuttingDown => Status::unavailable(msg),
            DaemonError::Params { .. } => Status::failed_precondition(msg),
            DaemonError::Engine(EngineError::QueueFull(_)) => Status::resource_exhausted(msg),
            DaemonError::Engine(EngineError::ShutDown) => Status::unavailable(msg),
            DaemonError::Engine(
                EngineError::BudgetTooSmall { .. }
                | EngineError::Shape { .. }
                | EngineError::ShapeMismatch { .. }
                | EngineError::InUse(_)
                | EngineError::EmptyJob
                | EngineError::UnknownCircuit(_),
            ) => Status::failed_precondition(msg),
            DaemonError::Engine(_)
            | DaemonError::Internal(_)
            | DaemonError::Config(_)
            | DaemonError::Io { .. }
            | DaemonError::Transport(_) => Status::internal(msg),
        }
    }
}
