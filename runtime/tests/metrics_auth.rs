//! `/metrics` behind authentication and authorization, with a mocked API server that
//! answers the manager's TokenReviews and SubjectAccessReviews.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, to_bytes};
use http::{Method, Request, Response, StatusCode, header};
use kube::Client;
use serde_json::{Value, json};
use tower::ServiceExt;
use tower_test::mock::{self, Handle};

use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::metrics_auth::{self, MetricsAuth};
use rsbuilder_runtime::server::secure_metrics_router;

const TOKEN_REVIEWS: &str = "/apis/authentication.k8s.io/v1/tokenreviews";
const ACCESS_REVIEWS: &str = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

type ApiServer = Handle<Request<kube::client::Body>, Response<kube::client::Body>>;

/// A secure metrics router whose API server is the returned mock.
fn router() -> (axum::Router, ApiServer) {
    let (service, handle) =
        mock::pair::<Request<kube::client::Body>, Response<kube::client::Body>>();
    let auth = MetricsAuth::new(Client::new(service, "default"));
    let metrics = Arc::new(Metrics::default());
    drop(metrics.reconcile_started("widget"));
    (secure_metrics_router(metrics, auth), handle)
}

/// `GET /metrics`, with `token` as a bearer token when given.
async fn scrape(router: axum::Router, token: Option<&str>) -> (StatusCode, String) {
    let mut request = Request::get("/metrics");
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let request = request.body(Body::empty()).expect("a valid request");
    let response = router
        .oneshot(request)
        .await
        .expect("the router is infallible");
    let status = response.status();
    let body = to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a readable body");
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// Waits for a POST to `path`, answers it with its own body plus `status`, and returns
/// the body it received.
async fn review(api: &mut ApiServer, path: &str, status: Value) -> Value {
    let (request, reply) = tokio::time::timeout(Duration::from_secs(10), api.next_request())
        .await
        .expect("a review in time")
        .expect("a review");
    assert_eq!(
        (request.method(), request.uri().path()),
        (&Method::POST, path)
    );
    let bytes = request
        .into_body()
        .collect_bytes()
        .await
        .expect("a readable request body");
    let sent: Value = serde_json::from_slice(&bytes).expect("a JSON review");
    let mut answer = sent.clone();
    answer["status"] = status;
    let response = Response::builder()
        .status(StatusCode::CREATED)
        .body(kube::client::Body::from(answer.to_string().into_bytes()))
        .expect("a valid response");
    reply.send_response(response);
    sent
}

fn authenticated() -> Value {
    json!({
        "authenticated": true,
        "user": {
            "username": "system:serviceaccount:monitoring:prometheus",
            "uid": "1234",
            "groups": ["system:serviceaccounts"],
            "extra": { "authentication.kubernetes.io/pod-name": ["prometheus-0"] },
        },
    })
}

#[tokio::test]
async fn without_a_token_is_401_and_asks_nothing() {
    let (router, mut api) = router();
    let (status, _) = scrape(router, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        api.next_request().await.is_none(),
        "the API server was asked"
    );
}

#[tokio::test]
async fn an_invalid_token_is_401() {
    let (router, mut api) = router();
    let scrape = tokio::spawn(scrape(router, Some("forged")));
    let sent = review(&mut api, TOKEN_REVIEWS, json!({ "authenticated": false })).await;
    assert_eq!(sent["spec"]["token"], "forged");
    let (status, _) = scrape.await.expect("the scrape finished");
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_user_who_may_not_get_metrics_is_403() {
    let (router, mut api) = router();
    let scrape = tokio::spawn(scrape(router, Some("valid")));
    review(&mut api, TOKEN_REVIEWS, authenticated()).await;
    review(
        &mut api,
        ACCESS_REVIEWS,
        json!({ "allowed": false, "reason": "no RBAC policy matched" }),
    )
    .await;
    let (status, _) = scrape.await.expect("the scrape finished");
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn an_allowed_user_gets_the_metrics_and_the_decision_is_cached() {
    let (router, mut api) = router();
    let first = tokio::spawn(scrape(router.clone(), Some("valid")));
    let token_review = review(&mut api, TOKEN_REVIEWS, authenticated()).await;
    assert_eq!(token_review["spec"]["token"], "valid");
    let access_review = review(&mut api, ACCESS_REVIEWS, json!({ "allowed": true })).await;
    assert_eq!(
        access_review["spec"],
        json!({
            "user": "system:serviceaccount:monitoring:prometheus",
            "uid": "1234",
            "groups": ["system:serviceaccounts"],
            "extra": { "authentication.kubernetes.io/pod-name": ["prometheus-0"] },
            "nonResourceAttributes": { "path": "/metrics", "verb": "get" },
        })
    );
    let (status, body) = first.await.expect("the scrape finished");
    assert_eq!(status, StatusCode::OK);
    assert!(
        body.contains(r#"controller_reconcile_total{controller="widget"} 1"#),
        "{body}"
    );

    // The next scrape with the same token is answered from the cache.
    let (status, _) = scrape(router, Some("valid")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        api.next_request().await.is_none(),
        "the API server was asked again"
    );
}

#[tokio::test(start_paused = true)]
async fn a_hanging_api_server_fails_the_scrape_within_the_review_timeout() {
    let (router, mut api) = router();
    let started = tokio::time::Instant::now();
    let scrape = tokio::spawn(scrape(router, Some("valid")));
    // The API server takes the TokenReview and never answers it.
    let (_review, _reply) = api.next_request().await.expect("a TokenReview");
    let (status, _) = tokio::time::timeout(2 * metrics_auth::REVIEW_TIMEOUT, scrape)
        .await
        .expect("the scrape hangs as long as the API server")
        .expect("the scrape finished");
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(started.elapsed(), metrics_auth::REVIEW_TIMEOUT);
}

#[tokio::test(start_paused = true)]
async fn an_invalid_token_is_remembered_for_a_short_while() {
    let (router, mut api) = router();
    let forged = json!({ "authenticated": false });
    let ((status, _), _) = tokio::join!(
        scrape(router.clone(), Some("forged")),
        review(&mut api, TOKEN_REVIEWS, forged.clone()),
    );
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Asked again at once, the answer comes from the cache: the API server is not asked
    // (were it asked, nobody would answer, and the scrape would fail with a 500).
    let (status, _) = scrape(router.clone(), Some("forged")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Once the decision expired, the token is reviewed again.
    tokio::time::advance(metrics_auth::UNAUTHENTICATED_TTL).await;
    let ((status, _), _) = tokio::join!(
        scrape(router, Some("forged")),
        review(&mut api, TOKEN_REVIEWS, forged),
    );
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_flood_of_invalid_tokens_does_not_push_a_valid_one_out_of_the_cache() {
    let (router, mut api) = router();
    let first = tokio::spawn(scrape(router.clone(), Some("valid")));
    review(&mut api, TOKEN_REVIEWS, authenticated()).await;
    review(&mut api, ACCESS_REVIEWS, json!({ "allowed": true })).await;
    assert_eq!(first.await.expect("the scrape finished").0, StatusCode::OK);

    for i in 0..=metrics_auth::CACHE_CAPACITY {
        let token = format!("forged-{i}");
        let ((status, _), _) = tokio::join!(
            scrape(router.clone(), Some(&token)),
            review(&mut api, TOKEN_REVIEWS, json!({ "authenticated": false })),
        );
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }

    // Were the valid token forgotten, its review would go unanswered and time out.
    let again = scrape(router, Some("valid"));
    let (status, _) = tokio::time::timeout(2 * metrics_auth::REVIEW_TIMEOUT, again)
        .await
        .expect("the scrape hangs");
    assert_eq!(status, StatusCode::OK, "the valid token was reviewed again");
    assert!(
        api.next_request().await.is_none(),
        "the API server was asked again"
    );
}
