// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The webhooks the API server calls over HTTPS: conversion between the versions of a
//! kind, defaulting and validation. `rsbuilder create webhook` adds each one here and in
//! `config/webhook/manifests.yaml`.

pub mod admission;
pub mod budget;
pub mod certs;
pub mod server;
pub mod conversion;
pub mod lossless;
pub mod batch_v1_cron_job;
// +rsbuilder:scaffold:webhook-modules

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, post};
use serde::Serialize;

use self::budget::Budget;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

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
/// and 32 MiB holds 10,000 objects of 3 KiB. Clients list in pages of 500 by default.
pub const CONVERSION_BODY_LIMIT: usize = 32 * 1024 * 1024;

/// The default bytes of request bodies the webhooks hold at once, all requests together.
/// A review takes about twice its body while it is answered (`tests/webhook_memory.rs`):
/// 64 MiB at most, which the manager's memory limit leaves room for
/// (`config/default/manager_webhook_patch.yaml`).
pub const BODIES_IN_FLIGHT: usize = 32 * 1024 * 1024;

/// How much the webhooks read: the largest ConversionReview, and the bytes of request
/// bodies held at once ([`budget`]).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub conversion_body: usize,
    pub in_flight: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            conversion_body: CONVERSION_BODY_LIMIT,
            in_flight: BODIES_IN_FLIGHT,
        }
    }
}

/// Every webhook of this manager: its path and its handler.
pub fn routes() -> Vec<(&'static str, MethodRouter)> {
    vec![
        (CONVERSION_PATH, post(conversion::convert)),
        (
            "/mutate-batch-example-com-v1-cronjob",
            post(batch_v1_cron_job::mutate),
        ),
        (
            "/validate-batch-example-com-v1-cronjob",
            post(batch_v1_cron_job::validate),
        ),
        // +rsbuilder:scaffold:webhook-routes
    ]
}

/// The webhooks as one router; the conversion webhook reads requests of up to
/// `limits.conversion_body` bytes, the admission webhooks of up to
/// [`ADMISSION_BODY_LIMIT`], all of them within one budget of `limits.in_flight`.
pub fn router(limits: Limits) -> Router {
    let budget = Budget::new(limits.in_flight);
    routes()
        .into_iter()
        .fold(Router::new(), |router, (path, handler)| {
            let limit = body_limit(path, limits);
            let admit = middleware::from_fn_with_state((budget.clone(), limit), budget::admit);
            let handler = handler.layer(DefaultBodyLimit::max(limit)).layer(admit);
            router.route(path, handler)
        })
}

/// The largest body the webhook at `path` reads.
fn body_limit(path: &str, limits: Limits) -> usize {
    if path == CONVERSION_PATH {
        limits.conversion_body
    } else {
        ADMISSION_BODY_LIMIT
    }
}

/// Serves the webhooks over HTTPS on `addr`, with the certificate in `cert_dir`, until
/// `shutdown`; `ready` tells `/readyz` whether a certificate is loaded.
pub async fn serve(
    addr: SocketAddr,
    cert_dir: PathBuf,
    limits: Limits,
    ready: Readiness,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    server::serve(
        server::Config::new(addr, cert_dir),
        router(limits),
        ready,
        shutdown,
    )
    .await
}

/// A webhook's answer, as JSON.
pub fn json(answer: &impl Serialize) -> Response {
    match serde_json::to_vec(answer) {
        Ok(body) => json_body(body),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A webhook's answer, already written as JSON.
pub fn json_body(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
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

    /// The port admits every source: a request that declares more than its webhook reads
    /// is refused before its body arrives, and holds nothing meanwhile.
    #[tokio::test]
    async fn a_body_declared_too_large_is_refused_unread() {
        use axum::body::{Body, Bytes};
        use tower::ServiceExt;

        for (path, _) in routes() {
            let limit = body_limit(path, Limits::default());
            let never = futures::stream::pending::<Result<Bytes, std::io::Error>>();
            let request = http::Request::post(path)
                .header(header::CONTENT_LENGTH, limit + 1)
                .body(Body::from_stream(never))
                .expect("a valid request");
            let answer = router(Limits::default()).oneshot(request);
            let answer = tokio::time::timeout(std::time::Duration::from_secs(5), answer)
                .await
                .unwrap_or_else(|_| panic!("{path} waited for a body it must refuse"))
                .expect("the router is infallible");
            assert_eq!(answer.status(), StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        }
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
            let fitting = status(router(Limits::default()), path, fits).await;
            assert_eq!(fitting, StatusCode::OK, "{path}");
            // The conversion webhook's limit is the one given; the admission webhooks' is fixed.
            let limits = Limits {
                conversion_body: MIB,
                ..Limits::default()
            };
            let too_large = status(router(limits), path, limit + 1).await;
            assert_eq!(too_large, StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        }
    }
}
