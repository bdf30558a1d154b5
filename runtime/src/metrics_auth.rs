//! Who may read `/metrics`: the caller's bearer token is authenticated with a
//! `TokenReview`, and the user it names is authorized with a `SubjectAccessReview` for
//! `get` on the non-resource URL `/metrics`, as controller-runtime's
//! `WithAuthenticationAndAuthorization` filter does. The ClusterRole `metrics-auth-role`
//! lets the manager create both reviews; bind `metrics-reader` to the scraper.
//!
//! Decisions are cached, keyed by the token's SHA-256 so that no token is kept: a minute
//! for a valid token, so Prometheus scraping every few seconds costs the API server two
//! requests a minute, not two a scrape; ten seconds for an invalid one, so a caller
//! repeating a bad token costs one review every ten seconds. Valid and invalid tokens
//! have rooms of their own, each bounded, so a flood of made-up tokens only ever pushes
//! out other made-up tokens. The reviews have [`REVIEW_TIMEOUT`]: when the API server
//! hangs, `/metrics` fails instead of hanging with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

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
use tokio::time::Instant;
use tracing::warn;

/// The path the caller must be allowed, a non-resource URL.
pub const PATH: &str = "/metrics";
/// The verb the caller must be allowed on [`PATH`].
pub const VERB: &str = "get";

/// How long the reviews of one request may take together.
pub const REVIEW_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a decision about a valid token (allowed or forbidden) is reused.
pub const AUTHENTICATED_TTL: Duration = Duration::from_secs(60);
/// How long a decision about an invalid token is reused.
pub const UNAUTHENTICATED_TTL: Duration = Duration::from_secs(10);
/// How many tokens the cache remembers, of each kind (valid, invalid).
pub const CACHE_CAPACITY: usize = 1024;

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
    /// The HTTP status that answers a caller so decided.
    pub fn status(self) -> StatusCode {
        match self {
            Decision::Allowed => StatusCode::OK,
            Decision::Unauthenticated => StatusCode::UNAUTHORIZED,
            Decision::Forbidden => StatusCode::FORBIDDEN,
        }
    }
}

/// Why the API server could not decide.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The reviews took longer than [`REVIEW_TIMEOUT`].
    #[error("the API server did not review the token within {} s", REVIEW_TIMEOUT.as_secs())]
    TimedOut,
    /// The API server answered a review with an error.
    #[error("the API server refused the review: {0}")]
    Api(#[from] kube::Error),
}

/// Authenticates and authorizes the callers of `/metrics` against the API server.
#[derive(Clone)]
pub struct MetricsAuth {
    client: Client,
    cache: Arc<Mutex<DecisionCache>>,
}

impl std::fmt::Debug for MetricsAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsAuth").finish_non_exhaustive()
    }
}

impl MetricsAuth {
    /// Reviews through `client`, which must be allowed to create TokenReviews and
    /// SubjectAccessReviews (`config/rbac/metrics_auth_role.yaml`).
    pub fn new(client: Client) -> Self {
        Self {
            client,
            cache: Arc::default(),
        }
    }

    /// The decision for the value of an `Authorization` header; an error when the API
    /// server could not be asked (nothing is cached then).
    pub async fn decide(&self, authorization: Option<&str>) -> Result<Decision, ReviewError> {
        let Some(token) = authorization.and_then(bearer_token) else {
            return Ok(Decision::Unauthenticated);
        };
        let key = TokenHash::of(token);
        if let Some(decision) = self.cache().get(&key, Instant::now()) {
            return Ok(decision);
        }
        let decision = tokio::time::timeout(REVIEW_TIMEOUT, self.review(token))
            .await
            .map_err(|_| ReviewError::TimedOut)??;
        self.cache().insert(key, decision, Instant::now());
        Ok(decision)
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, DecisionCache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
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
}

/// The SHA-256 of a bearer token: what the cache is keyed by, so that it holds no token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct TokenHash([u8; 32]);

impl TokenHash {
    fn of(token: &str) -> Self {
        let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
        // A SHA-256 digest is 32 bytes long.
        let mut hash = [0; 32];
        hash.copy_from_slice(digest.as_ref());
        Self(hash)
    }
}

/// Decisions by token hash: valid and invalid tokens in rooms of their own.
#[derive(Debug, Default)]
struct DecisionCache {
    authenticated: Room,
    unauthenticated: Room,
}

impl DecisionCache {
    fn get(&self, key: &TokenHash, now: Instant) -> Option<Decision> {
        self.authenticated
            .get(key, now)
            .or_else(|| self.unauthenticated.get(key, now))
    }

    fn insert(&mut self, key: TokenHash, decision: Decision, now: Instant) {
        match decision {
            Decision::Unauthenticated => {
                self.unauthenticated
                    .insert(key, decision, now, UNAUTHENTICATED_TTL)
            }
            Decision::Allowed | Decision::Forbidden => {
                self.authenticated
                    .insert(key, decision, now, AUTHENTICATED_TTL)
            }
        }
    }
}

/// At most [`CACHE_CAPACITY`] decisions, each until it expires.
#[derive(Debug, Default)]
struct Room(HashMap<TokenHash, (Instant, Decision)>);

impl Room {
    fn get(&self, key: &TokenHash, now: Instant) -> Option<Decision> {
        self.0
            .get(key)
            .filter(|(expires, _)| now < *expires)
            .map(|(_, decision)| *decision)
    }

    /// Keeps `decision` until `ttl` from `now`. A full room first drops what expired,
    /// then the decision that expires first (the oldest: a room's decisions all live as
    /// long).
    fn insert(&mut self, key: TokenHash, decision: Decision, now: Instant, ttl: Duration) {
        let full = |room: &Self| room.0.len() >= CACHE_CAPACITY && !room.0.contains_key(&key);
        if full(self) {
            self.0.retain(|_, (expires, _)| now < *expires);
        }
        if full(self) {
            let oldest = self
                .0
                .iter()
                .min_by_key(|(_, (expires, _))| *expires)
                .map(|(key, _)| *key);
            if let Some(oldest) = oldest {
                self.0.remove(&oldest);
            }
        }
        self.0.insert(key, (now + ttl, decision));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_keyed_by_the_sha256_of_the_token() {
        // SHA-256("abc"), from FIPS 180-2's examples.
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let hash = TokenHash::of("abc");
        let hex: String = hash.0.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(hex, expected);

        let mut cache = DecisionCache::default();
        let now = Instant::now();
        cache.insert(TokenHash::of("a-token"), Decision::Allowed, now);
        assert_eq!(
            cache.get(&TokenHash::of("a-token"), now),
            Some(Decision::Allowed)
        );
        assert_eq!(cache.get(&TokenHash::of("another-token"), now), None);
    }

    #[test]
    fn decisions_expire_invalid_tokens_first() {
        let mut cache = DecisionCache::default();
        let now = Instant::now();
        cache.insert(TokenHash::of("valid"), Decision::Forbidden, now);
        cache.insert(TokenHash::of("forged"), Decision::Unauthenticated, now);
        let before = |ttl: Duration| now + ttl - Duration::from_millis(1);
        let forged = TokenHash::of("forged");
        assert_eq!(
            cache.get(&forged, before(UNAUTHENTICATED_TTL)),
            Some(Decision::Unauthenticated)
        );
        assert_eq!(cache.get(&forged, now + UNAUTHENTICATED_TTL), None);
        let valid = TokenHash::of("valid");
        assert_eq!(
            cache.get(&valid, before(AUTHENTICATED_TTL)),
            Some(Decision::Forbidden)
        );
        assert_eq!(cache.get(&valid, now + AUTHENTICATED_TTL), None);
    }

    #[test]
    fn each_room_is_bounded_and_invalid_tokens_never_push_out_valid_ones() {
        let mut cache = DecisionCache::default();
        let now = Instant::now();
        cache.insert(TokenHash::of("valid"), Decision::Allowed, now);
        for i in 0..3 * CACHE_CAPACITY {
            let forged = TokenHash::of(&format!("forged-{i}"));
            cache.insert(forged, Decision::Unauthenticated, now);
        }
        assert_eq!(cache.unauthenticated.0.len(), CACHE_CAPACITY);
        assert_eq!(
            cache.get(&TokenHash::of("valid"), now),
            Some(Decision::Allowed)
        );
        // The newest invalid tokens stay; the oldest made room.
        let newest = TokenHash::of(&format!("forged-{}", 3 * CACHE_CAPACITY - 1));
        assert_eq!(cache.get(&newest, now), Some(Decision::Unauthenticated));

        for i in 0..2 * CACHE_CAPACITY {
            let valid = TokenHash::of(&format!("valid-{i}"));
            cache.insert(valid, Decision::Allowed, now);
        }
        assert_eq!(cache.authenticated.0.len(), CACHE_CAPACITY);
    }
}
