// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The webhooks the API server calls over HTTPS: conversion between the versions of a
//! kind, defaulting and validation. `rsbuilder create webhook` adds each one here and in
//! `config/webhook/manifests.yaml`.

pub mod admission;
pub mod server;
pub mod conversion;
pub mod batch_v1_cron_job;
// +rsbuilder:scaffold:webhook-modules

use std::path::PathBuf;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, post};
use serde::Serialize;

use crate::server::Readiness;
use crate::shutdown::Shutdown;

/// Every webhook of this manager: its path and its handler.
pub fn routes() -> Vec<(&'static str, MethodRouter)> {
    vec![
        ("/convert", post(conversion::convert)),
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

/// The webhooks as one router.
pub fn router() -> Router {
    routes()
        .into_iter()
        .fold(Router::new(), |router, (path, handler)| {
            router.route(path, handler)
        })
}

/// Serves the webhooks over HTTPS on `port`, with the certificate in `cert_dir`, until
/// `shutdown`; `ready` tells `/readyz` whether a certificate is loaded.
pub async fn serve(
    port: u16,
    cert_dir: PathBuf,
    ready: Readiness,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    server::serve(
        server::Config::new(port, cert_dir),
        router(),
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
