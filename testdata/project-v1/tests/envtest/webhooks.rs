// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The project's webhook server, as the control plane of the tests runs it: the
//! manager's own router and HTTPS server, on 127.0.0.1 with a certificate of the tests,
//! recording each AdmissionReview it is sent, so that a test can see the API server call.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;

use rsbuilder_runtime::server::Health;
use rsbuilder_runtime::shutdown::Shutdown;
use rsbuilder_runtime::webhook::{self, Limits, server};

use project_v1::webhooks;

/// An AdmissionReview the webhook server was sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    pub path: String,
    pub name: String,
    pub operation: String,
    pub dry_run: bool,
}

static REVIEWS: Mutex<Vec<Review>> = Mutex::new(Vec::new());

/// The AdmissionReviews sent so far about objects named `name`.
pub fn reviews_of(name: &str) -> Vec<Review> {
    let reviews = REVIEWS.lock().unwrap_or_else(|e| e.into_inner());
    reviews.iter().filter(|r| r.name == name).cloned().collect()
}

/// Serves the webhooks until the test binary ends.
pub fn serve(
    port: u16,
    cert_dir: PathBuf,
) -> Pin<Box<dyn Future<Output = anyhow::Result<()>> + Send>> {
    let (trigger, shutdown) = Shutdown::channel();
    // Never fired: the server stops with the test binary.
    std::mem::forget(trigger);
    let config = server::Config {
        // The manager's certificate task renews within seconds in the tests
        // (`webhook_certs.rs`, where it runs).
        reload_interval: Duration::from_secs(1),
        ..server::Config::new(([127, 0, 0, 1], port).into(), cert_dir)
    };
    let router = webhook::router(webhooks::routes(), Limits::default());
    let router = router.layer(middleware::from_fn(record));
    let ready = Health::default().part("webhook-server");
    Box::pin(server::serve(config, router, ready, shutdown))
}

async fn record(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, webhook::CONVERSION_BODY_LIMIT)
        .await
        .unwrap_or_default();
    if let Ok(review) = serde_json::from_slice::<serde_json::Value>(&bytes) {
        let request = &review["request"];
        if review["kind"] == "AdmissionReview" {
            let name = request["name"]
                .as_str()
                .or(request["object"]["metadata"]["name"].as_str());
            REVIEWS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(Review {
                    path: parts.uri.path().to_string(),
                    name: name.unwrap_or_default().to_string(),
                    operation: request["operation"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    dry_run: request["dryRun"] == true,
                });
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}
