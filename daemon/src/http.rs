//! The HTTP side: `GET /metrics` (Prometheus text, the same as
//! `GetMetrics`) and `GET /status` (the `GetStatus` report as JSON).

use crate::service::Shared;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

/// The routes.
pub fn router(shared: Arc<Shared>) -> Router {
    let m = shared.clone();
    Router::new()
        .route(
            "/metrics",
            get(move || async move {
                (
                    [(
                        header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    m.metrics_text(),
                )
            }),
        )
        .route(
            "/status",
            get(move || async move {
                match serde_json::to_string_pretty(&shared.status()) {
                    Ok(body) => {
                        ([(header::CONTENT_TYPE, "application/json")], body).into_response()
                    }
                    Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
                }
            }),
        )
}
