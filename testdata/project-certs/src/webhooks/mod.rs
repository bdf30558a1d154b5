// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The webhooks the API server calls over HTTPS: conversion between the versions of a
//! kind, defaulting and validation. `rsbuilder create webhook` adds each one here and in
//! `config/webhook/manifests.yaml`.

pub mod admission;
pub mod certs;
pub mod server;
pub mod conversion;
pub mod lossless;
pub mod ship_v2_frigate;
// +rsbuilder:scaffold:webhook-modules

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, post};
use serde::Serialize;

use crate::server::Readiness;
use crate::shutdown::Shutdown;

/// The path of the conversion webhook, which the CRDs name
/// (`config/crd/patches/webhook_in_<plural>.yaml`).
pub const CONVERSION_PATH: &str = "/convert";

/// The largest AdmissionReview the admission webhooks read. An UPDATE carries the object
/// and its old version (https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#request),
/// each up to etcd's default request limit of 1.5 MiB; controller-runtime reads up to 7 MiB.
pub const ADMISSION_BODY_LIMIT: usize = 7 * 1024 * 1024;

/// The default largest ConversionReview the conversion webhook reads: the API server
/// converts every object of a LIST in one review
/// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-request-and-response),
/// and 64 MiB holds thousands of objects of a few KiB each. The manager's memory limit
/// must leave room for several times that while a review is converted.
pub const CONVERSION_BODY_LIMIT: usize = 64 * 1024 * 1024;

/// Every webhook of this manager: its path and its handler.
pub fn routes() -> Vec<(&'static str, MethodRouter)> {
    vec![
        (CONVERSION_PATH, post(conversion::convert)),
        (
            "/mutate-ship-example-com-v2-frigate",
            post(ship_v2_frigate::mutate),
        ),
        (
            "/validate-ship-example-com-v2-frigate",
            post(ship_v2_frigate::validate),
        ),
        // +rsbuilder:scaffold:webhook-routes
    ]
}

/// The webhooks as one router; the conversion webhook reads requests of up to
/// `conversion_limit` bytes, the admission webhooks of up to [`ADMISSION_BODY_LIMIT`].
pub fn router(conversion_limit: usize) -> Router {
    routes()
        .into_iter()
        .fold(Router::new(), |router, (path, handler)| {
            let limit = if path == CONVERSION_PATH {
                conversion_limit
            } else {
                ADMISSION_BODY_LIMIT
            };
            router.route(path, handler.layer(DefaultBodyLimit::max(limit)))
        })
}

/// Serves the webhooks over HTTPS on `addr`, with the certificate in `cert_dir`, until
/// `shutdown`; `ready` tells `/readyz` whether a certificate is loaded.
pub async fn serve(
    addr: SocketAddr,
    cert_dir: PathBuf,
    conversion_limit: usize,
    ready: Readiness,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    server::serve(
        server::Config::new(addr, cert_dir),
        router(conversion_limit),
        ready,
        shutdown,
    )
    .await
}

/// A webhook's answer, as JSON.
pub fn json(answer: &impl Serialize) -> Response {
    match serde_json::to_vec(answer) {
        Ok(body) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Posts `body` to the webhook at `path` of `router`, as the API server does: the HTTP
/// status, and the answer (`null` when it is not JSON).
#[cfg(test)]
pub async fn send(router: Router, path: &str, body: String) -> (StatusCode, serde_json::Value) {
    use axum::body::{Body, to_bytes};
    use tower::ServiceExt;

    let request = http::Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .expect("a valid request");
    let response = router
        .oneshot(request)
        .await
        .expect("the router is infallible");
    let status = response.status();
    let body = to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a readable body");
    (status, serde_json::from_slice(&body).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1024 * 1024;

    /// The HTTP status of a POST of `size` bytes of JSON to `path`.
    async fn status(router: Router, path: &str, size: usize) -> StatusCode {
        let padding = "x".repeat(size - r#"{"padding":""}"#.len());
        let body = serde_json::json!({ "padding": padding }).to_string();
        send(router, path, body).await.0
    }

    /// Beyond axum's default limit of 2 MiB: a ConversionReview of a LIST, an UPDATE with its
    /// old object. A body that cannot be a review is answered with a failed review, not a
    /// refused request, so only the size decides the status here.
    #[tokio::test]
    async fn every_webhook_reads_requests_as_large_as_the_api_server_sends() {
        for (path, _) in routes() {
            let (fits, limit) = if path == CONVERSION_PATH {
                (5 * MIB, MIB)
            } else {
                (3 * MIB, ADMISSION_BODY_LIMIT)
            };
            let fitting = status(router(CONVERSION_BODY_LIMIT), path, fits).await;
            assert_eq!(fitting, StatusCode::OK, "{path}");
            // The conversion webhook's limit is the one given; the admission webhooks' is fixed.
            let too_large = status(router(MIB), path, limit + 1).await;
            assert_eq!(too_large, StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        }
    }
}
