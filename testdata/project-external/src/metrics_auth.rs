// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Who may read `/metrics`: the caller's bearer token is authenticated with a
//! `TokenReview`, and the user it names is authorized with a `SubjectAccessReview` for
//! `get` on the non-resource URL `/metrics`, as controller-runtime's
//! `WithAuthenticationAndAuthorization` filter does. The ClusterRole `metrics-auth-role`
//! lets the manager create both reviews; bind `metrics-reader` to the scraper.
//!
//! Decisions are cached for a minute per token, so Prometheus scraping every few seconds
//! costs the API server two requests a minute, not two a scrape.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::Client;
use kube::api::{Api, PostParams};
use tracing::warn;

/// The path and verb the caller must be allowed.
pub const PATH: &str = "/metrics";
pub const VERB: &str = "get";

/// How long a decision is reused.
const CACHE_TTL: Duration = Duration::from_secs(60);
/// How many tokens the cache remembers; it starts over when full.
const CACHE_CAPACITY: usize = 256;

/// What the API server said about a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Authenticated and allowed to `get /metrics`.
    Allowed,
    /// Missing, malformed or not a valid token: 401.
    Unauthenticated,
    /// A valid token whose user may not read the metrics: 403.
    Forbidden,
}

impl Decision {
    pub fn status(self) -> StatusCode {
        match self {
            Decision::Allowed => StatusCode::OK,
            Decision::Unauthenticated => StatusCode::UNAUTHORIZED,
            Decision::Forbidden => StatusCode::FORBIDDEN,
        }
    }
}

/// Authenticates and authorizes the callers of `/metrics` against the API server.
#[derive(Clone)]
pub struct MetricsAuth {
    client: Client,
    cache: Arc<Mutex<HashMap<String, (Instant, Decision)>>>,
}

impl std::fmt::Debug for MetricsAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsAuth").finish_non_exhaustive()
    }
}

impl MetricsAuth {
    pub fn new(client: Client) -> Self {
        Self {
            client,
            cache: Arc::default(),
        }
    }

    /// The decision for the value of an `Authorization` header; an error when the API
    /// server could not be asked (nothing is cached then).
    pub async fn decide(&self, authorization: Option<&str>) -> kube::Result<Decision> {
        let Some(token) = authorization.and_then(bearer_token) else {
            return Ok(Decision::Unauthenticated);
        };
        if let Some(decision) = self.cached(token) {
            return Ok(decision);
        }
        let decision = self.review(token).await?;
        self.remember(token, decision);
        Ok(decision)
    }

    async fn review(&self, token: &str) -> kube::Result<Decision> {
        let review = TokenReview {
            spec: TokenReviewSpec {
                token: token.to_string(),
                ..TokenReviewSpec::default()
            },
            ..TokenReview::default()
        };
        let review = Api::<TokenReview>::all(self.client.clone())
            .create(&PostParams::default(), &review)
            .await?;
        let status = review.status.unwrap_or_default();
        let user = match (status.authenticated, status.user) {
            (Some(true), Some(user)) => user,
            _ => return Ok(Decision::Unauthenticated),
        };
        let access = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: user.username,
                groups: user.groups,
                uid: user.uid,
                extra: user.extra,
                non_resource_attributes: Some(NonResourceAttributes {
                    path: Some(PATH.to_string()),
                    verb: Some(VERB.to_string()),
                }),
                ..SubjectAccessReviewSpec::default()
            },
            ..SubjectAccessReview::default()
        };
        let access = Api::<SubjectAccessReview>::all(self.client.clone())
            .create(&PostParams::default(), &access)
            .await?;
        let allowed = access.status.is_some_and(|status| status.allowed);
        Ok(if allowed {
            Decision::Allowed
        } else {
            Decision::Forbidden
        })
    }

    fn cached(&self, token: &str) -> Option<Decision> {
        let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        cache
            .get(token)
            .filter(|(at, _)| at.elapsed() < CACHE_TTL)
            .map(|(_, decision)| *decision)
    }

    fn remember(&self, token: &str, decision: Decision) {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= CACHE_CAPACITY {
            cache.retain(|_, (at, _)| at.elapsed() < CACHE_TTL);
            if cache.len() >= CACHE_CAPACITY {
                cache.clear();
            }
        }
        cache.insert(token.to_string(), (Instant::now(), decision));
    }
}

/// The token of an `Authorization: Bearer <token>` header.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Axum middleware: passes the request on only when its caller may read the metrics.
pub async fn require(State(auth): State<MetricsAuth>, request: Request, next: Next) -> Response {
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok());
    match auth.decide(authorization).await {
        Ok(Decision::Allowed) => next.run(request).await,
        Ok(decision) => decision.status().into_response(),
        Err(error) => {
            warn!(%error, "cannot review the token of a metrics request");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}
