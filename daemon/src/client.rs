//! Connecting a gRPC client to the daemon, over TCP or a unix socket.

use crate::error::DaemonError;
use crate::pb::proving_engine_client::ProvingEngineClient;
use hyper_util::rt::TokioIo;
use tonic::transport::{Channel, Endpoint, Uri};

/// A client of the generated `ProvingEngine` service.
pub type Client = ProvingEngineClient<Channel>;

/// Connects to `addr`: `unix:///path` or `unix:/path` (a unix socket),
/// `http://host:port`, or a bare `host:port` (the forms Curio's client
/// accepts). Messages up to `max_message` bytes each way.
pub async fn connect(addr: &str, max_message: usize) -> Result<Client, DaemonError> {
    let channel = if let Some(path) = crate::settings::unix_path(addr) {
        let path = std::path::PathBuf::from(path);
        // The URI is required by the API and unused: the connector below
        // decides where bytes go.
        Endpoint::from_static("http://[::]:0")
            .connect_with_connector(tower::service_fn(move |_: Uri| {
                let p = path.clone();
                async move {
                    Ok::<_, std::io::Error>(TokioIo::new(tokio::net::UnixStream::connect(p).await?))
                }
            }))
            .await?
    } else {
        let uri = if addr.contains("://") {
            addr.to_string()
        } else {
            format!("http://{addr}")
        };
        Endpoint::from_shared(uri)
            .map_err(|e| DaemonError::InvalidArgument(format!("bad address '{addr}': {e}")))?
            .connect()
            .await?
    };
    Ok(ProvingEngineClient::new(channel)
        .max_decoding_message_size(max_message)
        .max_encoding_message_size(max_message))
}
