//! The metrics server's authorization, decided by the real API server: a caller's bearer
//! token goes through a TokenReview and its user through a SubjectAccessReview for
//! `get /metrics` (as controller-runtime's `filters.WithAuthenticationAndAuthorization`).
//! The manager makes both reviews with `config/rbac/metrics_auth_role.yaml` and nothing
//! else; a caller reads the metrics with `config/rbac/metrics_reader_role.yaml`.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use http::{Request, StatusCode};
use k8s_openapi::api::authentication::v1::TokenRequest;
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};
use serde_json::json;
use tower::ServiceExt as _;

use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::metrics_auth::MetricsAuth;
use rsbuilder_runtime::server::secure_metrics_router;

use rsbuilder_runtime::testing::control_plane::manager_user;

use crate::control_plane;

/// A token of a new ServiceAccount `name` in `namespace`, from a TokenRequest.
async fn token(namespace: &str, name: &str) -> String {
    let accounts: Api<ServiceAccount> = Api::namespaced(control_plane().admin().await, namespace);
    let account: ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": name}})).expect("a ServiceAccount");
    accounts
        .create(&PostParams::default(), &account)
        .await
        .expect("a ServiceAccount");
    let request: TokenRequest =
        serde_json::from_value(json!({"spec": {"audiences": []}})).expect("a TokenRequest");
    let answer = accounts
        .create_token_request(name, &PostParams::default(), &request)
        .await
        .expect("a token");
    answer
        .status
        .and_then(|status| status.token)
        .expect("a token")
}

async fn status(router: &Router, token: Option<&str>) -> StatusCode {
    let mut request = Request::get("/metrics");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let request = request.body(Body::empty()).expect("a request");
    let response = router.clone().oneshot(request).await.expect("a response");
    response.status()
}

#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
async fn only_a_caller_allowed_to_get_metrics_reads_them() {
    let namespace = control_plane().namespace("metrics").await;
    let manager = manager_user(&namespace);
    control_plane()
        .grant(&manager, &namespace, "config/rbac/metrics_auth_role.yaml")
        .await;
    let prometheus = token(&namespace, "prometheus").await;
    let reader = format!("system:serviceaccount:{namespace}:prometheus");
    control_plane()
        .grant(&reader, &namespace, "config/rbac/metrics_reader_role.yaml")
        .await;
    let stranger = token(&namespace, "stranger").await;

    let auth = MetricsAuth::new(control_plane().client(&manager, &[]).await);
    let router = secure_metrics_router(Arc::new(Metrics::default()), auth);
    assert_eq!(status(&router, Some(&prometheus)).await, StatusCode::OK);
    assert_eq!(
        status(&router, Some(&stranger)).await,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        status(&router, Some("not-a-token")).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(status(&router, None).await, StatusCode::UNAUTHORIZED);
}
