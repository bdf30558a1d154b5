//! The webhooks the API server calls over HTTPS — defaulting, validation and conversion —
//! and the server that serves them, as controller-runtime's `pkg/webhook` does for a
//! kubebuilder project. A project writes only what is its own: each kind's `default` and
//! `validate_*` functions, and the field mappings between its versions; it lists them in
//! its `webhooks::routes()` and [`start`]s the server from `main.rs`:
//!
//! ```no_run
//! # fn default(_: &mut k8s_openapi::api::core::v1::ConfigMap) {}
//! # async fn run(mut manager: rsbuilder_runtime::manager::Manager, args: rsbuilder_runtime::webhook::WebhookArgs) {
//! use rsbuilder_runtime::webhook::{self, admission};
//!
//! let routes = vec![("/mutate-example-com-v1-widget", admission::defaulting(default))];
//! webhook::start(&mut manager, &args, routes, "my-operator");
//! # }
//! ```
//!
//! Every route reads bodies up to its limit, within one budget shared by all of them
//! (`--webhook-bodies-in-flight`): the webhook port admits every source.

pub mod admission;
mod budget;
pub mod certs;
pub mod conversion;
pub mod lossless;
pub mod server;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use serde::Serialize;
use tracing::info;

use self::budget::Budget;
use crate::manager::Manager;

/// The path of the conversion webhook, which the CRDs name
/// (`config/crd/patches/webhook_in_<plural>.yaml`).
pub const CONVERSION_PATH: &str = "/convert";

/// The largest AdmissionReview the admission webhooks read. An UPDATE carries the object
/// and its old version (<https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#request>),
/// each up to etcd's default request limit of 1.5 MiB; controller-runtime reads up to 7 MiB.
pub const ADMISSION_BODY_LIMIT: usize = 7 * 1024 * 1024;

/// The default largest ConversionReview the conversion webhook reads: the API server
/// converts every object of a LIST in one review
/// (<https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-request-and-response>),
/// and 32 MiB holds 10,000 objects of 3 KiB. Clients list in pages of 500 by default.
pub const CONVERSION_BODY_LIMIT: usize = 32 * 1024 * 1024;

/// The default bytes of request bodies the webhooks hold at once, all requests together.
/// A review takes about twice its body while it is answered (`tests/webhook_memory.rs`):
/// 64 MiB at most, which the manager's memory limit leaves room for
/// (`config/default/manager_webhook_patch.yaml`).
pub const BODIES_IN_FLIGHT: usize = 32 * 1024 * 1024;

/// A project's webhooks: each one's path and handler ([`admission::defaulting`],
/// [`admission::validating`], [`conversion::handler`]).
pub type Routes = Vec<(&'static str, MethodRouter)>;

/// How much the webhooks read: the largest ConversionReview, and the bytes of request
/// bodies held at once.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest ConversionReview the conversion webhook reads, in bytes.
    pub conversion_body: usize,
    /// The bytes of request bodies all webhooks hold at once; what they read beyond it waits.
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

/// The webhooks as one router; the conversion webhook reads requests of up to
/// `limits.conversion_body` bytes, the admission webhooks of up to
/// [`ADMISSION_BODY_LIMIT`], all of them within one budget of `limits.in_flight`.
pub fn router(routes: Routes, limits: Limits) -> Router {
    let budget = Budget::new(limits.in_flight);
    routes
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

/// A webhook's answer, as JSON.
fn json(answer: &impl Serialize) -> Response {
    match serde_json::to_vec(answer) {
        Ok(body) => json_body(body),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A webhook's answer, already written as JSON.
fn json_body(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The webhook server's flags, as a project's `main.rs` flattens them into its own
/// (`#[command(flatten)]`).
#[derive(Clone, Debug, clap::Args)]
pub struct WebhookArgs {
    /// Address the webhook server listens on; `::` listens on IPv4 too
    #[arg(long, default_value = "::")]
    pub webhook_host: IpAddr,
    /// Port of the webhook server (HTTPS)
    #[arg(long, default_value_t = 9443)]
    pub webhook_port: u16,
    /// Directory of the webhook server's certificate, `tls.crt` and `tls.key`
    #[arg(long, default_value = "/tmp/k8s-webhook-server/serving-certs")]
    pub webhook_cert_dir: PathBuf,
    /// Who issues the webhook server's certificate: `mounted` reads it from --webhook-cert-dir
    /// (where cert-manager's Secret is mounted); `self` issues it into a Secret, writes it
    /// there and injects its CA into the webhook configurations and CRDs below
    #[arg(long, env = "WEBHOOK_CERTS", value_enum, default_value_t = certs::Mode::Mounted)]
    pub webhook_certs: certs::Mode,
    /// The webhook Service, whose DNS names the certificate holds (`--webhook-certs self`)
    #[arg(long, env = "WEBHOOK_SERVICE_NAME", default_value = "webhook-service")]
    pub webhook_service_name: String,
    /// The namespace of the webhook Service and of the certificate's Secret
    #[arg(long, env = "WEBHOOK_SERVICE_NAMESPACE", default_value = "default")]
    pub webhook_service_namespace: String,
    /// The metrics Service, in the same namespace, whose DNS names the metrics certificate
    /// holds when the manager issues it (`--webhook-certs self` with --metrics-cert-dir)
    #[arg(
        long,
        env = "METRICS_SERVICE_NAME",
        default_value = "controller-manager-metrics-service"
    )]
    pub metrics_service_name: String,
    /// The MutatingWebhookConfiguration that gets the CA bundle (`--webhook-certs self`)
    #[arg(long, env = "MUTATING_WEBHOOK_CONFIGURATION")]
    pub mutating_webhook_configuration: Option<String>,
    /// The ValidatingWebhookConfiguration that gets the CA bundle (`--webhook-certs self`)
    #[arg(long, env = "VALIDATING_WEBHOOK_CONFIGURATION")]
    pub validating_webhook_configuration: Option<String>,
    /// The CRDs whose conversion webhook gets the CA bundle, comma separated
    #[arg(long, env = "CONVERSION_CRDS", value_delimiter = ',')]
    pub conversion_crds: Vec<String>,
    /// Largest ConversionReview the conversion webhook reads, in bytes: the API server sends
    /// every object of a LIST in one review
    #[arg(long, default_value_t = CONVERSION_BODY_LIMIT)]
    pub webhook_conversion_body_limit: usize,
    /// Bytes of request bodies the webhooks hold at once, all requests together: what they
    /// read beyond it waits
    #[arg(long, default_value_t = BODIES_IN_FLIGHT)]
    pub webhook_bodies_in_flight: usize,
    /// Serve the webhooks; `ENABLE_WEBHOOKS=false` runs the manager without them
    #[arg(long, env = "ENABLE_WEBHOOKS", default_value_t = true, action = clap::ArgAction::Set)]
    pub enable_webhooks: bool,
}

/// Serves `routes` on every replica of `manager` (unless `--enable-webhooks=false`), and
/// with `--webhook-certs self` keeps their certificate issued and its CA injected
/// ([`certs::run`]). `project` names the CA and the field manager of the injected bundles.
/// `/readyz` fails until a certificate is served (and, when self-issued, trusted).
pub fn start(manager: &mut Manager, args: &WebhookArgs, routes: Routes, project: &str) {
    if !args.enable_webhooks {
        info!("webhooks disabled (--enable-webhooks=false)");
        return;
    }
    let limits = Limits {
        conversion_body: args.webhook_conversion_body_limit,
        in_flight: args.webhook_bodies_in_flight,
    };
    let config = server::Config::new(
        SocketAddr::new(args.webhook_host, args.webhook_port),
        args.webhook_cert_dir.clone(),
    );
    let serving = server::serve(
        config,
        router(routes, limits),
        manager.readiness("webhook-server"),
        manager.shutdown(),
    );
    manager.spawn("webhook server", serving);
    if args.webhook_certs != certs::Mode::SelfIssued {
        return;
    }
    let settings = certs::Settings {
        mutating: args.mutating_webhook_configuration.clone(),
        validating: args.validating_webhook_configuration.clone(),
        conversion_crds: args.conversion_crds.clone(),
        metrics: manager
            .args()
            .metrics_cert_dir
            .clone()
            .map(|dir| certs::MetricsCert {
                service: args.metrics_service_name.clone(),
                dir,
            }),
        ..certs::Settings::new(
            project,
            args.webhook_service_namespace.clone(),
            args.webhook_service_name.clone(),
            args.webhook_cert_dir.clone(),
            args.webhook_port,
        )
    };
    let issuing = certs::run(
        manager.client(),
        settings,
        manager.readiness("webhook-certificates"),
        manager.shutdown(),
    );
    manager.spawn("webhook certificates", issuing);
}

#[cfg(test)]
mod tests {
    use axum::body::{Body, Bytes};
    use axum::routing::post;
    use clap::Parser;
    use tower::ServiceExt;

    use super::*;

    const MIB: usize = 1024 * 1024;

    /// A conversion webhook and an admission webhook that answer every body they read.
    fn routes() -> Routes {
        let answer = || post(|_: Bytes| async { json_body(b"{}".to_vec()) });
        vec![
            (CONVERSION_PATH, answer()),
            ("/validate-example-com-v1-widget", answer()),
        ]
    }

    /// The HTTP status of a POST of `size` bytes of JSON to `path`.
    async fn status(router: Router, path: &str, size: usize) -> StatusCode {
        let padding = "x".repeat(size - r#"{"padding":""}"#.len());
        let body = serde_json::json!({ "padding": padding }).to_string();
        testing::send(router, path, body).await.0
    }

    /// The port admits every source: a request that declares more than its webhook reads
    /// is refused before its body arrives, and holds nothing meanwhile.
    #[tokio::test]
    async fn a_body_declared_too_large_is_refused_unread() {
        for (path, _) in routes() {
            let limit = body_limit(path, Limits::default());
            let never = futures::stream::pending::<Result<Bytes, std::io::Error>>();
            let request = http::Request::post(path)
                .header(header::CONTENT_LENGTH, limit + 1)
                .body(Body::from_stream(never))
                .expect("a valid request");
            let answer = router(routes(), Limits::default()).oneshot(request);
            let answer = tokio::time::timeout(std::time::Duration::from_secs(5), answer)
                .await
                .unwrap_or_else(|_| panic!("{path} waited for a body it must refuse"))
                .expect("the router is infallible");
            assert_eq!(answer.status(), StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        }
    }

    /// Beyond axum's default limit of 2 MiB: a ConversionReview of a LIST, an UPDATE with its
    /// old object.
    #[tokio::test]
    async fn every_webhook_reads_requests_as_large_as_the_api_server_sends() {
        for (path, _) in routes() {
            let (fits, limit) = if path == CONVERSION_PATH {
                (5 * MIB, MIB)
            } else {
                (3 * MIB, ADMISSION_BODY_LIMIT)
            };
            let fitting = status(router(routes(), Limits::default()), path, fits).await;
            assert_eq!(fitting, StatusCode::OK, "{path}");
            // The conversion webhook's limit is the one given; the admission webhooks' is fixed.
            let limits = Limits {
                conversion_body: MIB,
                ..Limits::default()
            };
            let too_large = status(router(routes(), limits), path, limit + 1).await;
            assert_eq!(too_large, StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        }
    }

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        webhooks: WebhookArgs,
    }

    /// The flags `config/default/manager_webhook_patch.yaml` and the Makefile pass.
    #[test]
    fn the_flags_take_what_the_deployment_and_the_makefile_pass() {
        let flags = Flags::try_parse_from([
            "manager",
            "--webhook-certs=self",
            "--enable-webhooks=false",
            "--conversion-crds=a.example.com,b.example.com",
        ])
        .expect("flags the manager accepts");
        let args = flags.webhooks;
        assert_eq!(args.webhook_certs, certs::Mode::SelfIssued);
        assert!(!args.enable_webhooks);
        assert_eq!(args.conversion_crds, ["a.example.com", "b.example.com"]);
        let defaults = Flags::try_parse_from(["manager"]).expect("no flag is required");
        assert_eq!(defaults.webhooks.webhook_port, 9443);
        assert_eq!(defaults.webhooks.webhook_certs, certs::Mode::Mounted);
        assert!(defaults.webhooks.enable_webhooks);
    }
}
