//! The memory the webhooks give request bodies, all requests together. The webhook port
//! admits every source (the API server's address is not known in advance), and each of
//! the server's connections could otherwise hold a body of the limit: a request waits
//! until the bytes it declares fit in the budget, and one declaring more than its route
//! reads is refused before its body is read.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

/// The bytes of request bodies the webhooks hold at once, shared by their routes.
#[derive(Clone, Debug)]
pub struct Budget {
    bytes: Arc<Semaphore>,
    total: usize,
}

impl Budget {
    pub fn new(total: usize) -> Self {
        let total = total.clamp(1, u32::MAX as usize);
        Self {
            bytes: Arc::new(Semaphore::new(total)),
            total,
        }
    }
}

/// Middleware of a route that reads bodies of up to `limit` bytes: holds the bytes the
/// request declares (`limit` when it declares none) while it is answered.
pub async fn admit(
    State((budget, limit)): State<(Budget, usize)>,
    request: Request,
    next: Next,
) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|length| length > limit) {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    }
    let bytes = declared.unwrap_or(limit).clamp(1, budget.total);
    // At most `u32::MAX`: `Budget::new` clamps the total.
    let Ok(_held) = budget.bytes.acquire_many(bytes as u32).await else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    next.run(request).await
}
