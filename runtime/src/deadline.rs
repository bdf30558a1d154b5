//! A deadline on every request the manager sends the API server, watches excepted.
//!
//! kube's client waits for an answer as long as it takes: one status patch sent on a
//! connection to an API server instance that died hard would hang its controller forever,
//! while the Lease keeps being renewed and the probes stay green. client-go notices such a
//! connection within about a minute (TCP keepalive, HTTP/2 health checks); here a request
//! fails once its deadline passes, the head and the whole body of its answer included, and
//! the next one opens a new connection. Watches stay open as long as the API server keeps
//! them (`timeoutSeconds`): kube's watcher has its own idle timeout for them.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use anyhow::Context as _;
use http::{Request, Response, Uri};
use hyper::body::{Body, Frame, SizeHint};
use kube::client::ClientBuilder;
use kube::{Client, Config};
use tokio::time::{Instant, Sleep};
use tower::{BoxError, Layer, Service};

/// A client of `config` whose requests but watches fail after `timeout`.
pub fn client(config: Config, timeout: Duration) -> anyhow::Result<Client> {
    let builder =
        ClientBuilder::try_from(config).context("cannot configure a Kubernetes client")?;
    Ok(builder.with_layer(&DeadlineLayer(timeout)).build())
}

/// A duration as the flags take it, like Go's: `500ms`, `30s`, `2m`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 30s"))?;
    match unit {
        "ms" => Ok(Duration::from_millis(number)),
        "s" => Ok(Duration::from_secs(number)),
        "m" => Ok(Duration::from_secs(number * 60)),
        _ => Err(format!("`{text}`: the unit is ms, s or m")),
    }
}

/// The request timed out: its answer had not arrived whole by its deadline.
#[derive(Debug, thiserror::Error)]
#[error("the API server did not answer within {0:?}")]
pub struct TimedOut(pub Duration);

/// Whether `uri` asks for a watch, which may stay open for minutes.
fn is_watch(uri: &Uri) -> bool {
    uri.query().is_some_and(|query| {
        query
            .split('&')
            .any(|pair| pair == "watch=true" || pair == "watch=1")
    })
}

/// Adds [`Deadline`] to a client's stack.
#[derive(Clone, Copy, Debug)]
pub struct DeadlineLayer(pub Duration);

impl<S> Layer<S> for DeadlineLayer {
    type Service = Deadline<S>;

    fn layer(&self, inner: S) -> Deadline<S> {
        Deadline {
            inner,
            timeout: self.0,
        }
    }
}

/// A service whose calls fail with [`TimedOut`] once their deadline has passed.
#[derive(Clone, Debug)]
pub struct Deadline<S> {
    inner: S,
    timeout: Duration,
}

impl<S, B, R> Service<Request<B>> for Deadline<S>
where
    S: Service<Request<B>, Response = Response<R>>,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
{
    type Response = Response<DeadlineBody<R>>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let timeout = self.timeout;
        let deadline = (!is_watch(request.uri())).then(|| Instant::now() + timeout);
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = match deadline {
                Some(at) => tokio::time::timeout_at(at, answer)
                    .await
                    .map_err(|_| TimedOut(timeout))?,
                None => answer.await,
            }
            .map_err(Into::into)?;
            let sleep = deadline.map(|at| Box::pin(tokio::time::sleep_until(at)));
            Ok(response.map(|body| DeadlineBody {
                body,
                sleep,
                timeout,
            }))
        })
    }
}

/// The body of an answer, failing with [`TimedOut`] when the request's deadline passes
/// before its last frame.
pub struct DeadlineBody<B> {
    body: B,
    sleep: Option<Pin<Box<Sleep>>>,
    timeout: Duration,
}

impl<B> Body for DeadlineBody<B>
where
    B: Body + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = B::Data;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        if let Some(sleep) = &mut this.sleep {
            ready!(sleep.as_mut().poll(cx));
            return Poll::Ready(Some(Err(TimedOut(this.timeout).into())));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_gos() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        for bad in ["", "s", "60", "1h", "-1s", "1.5s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_watches_go_without_a_deadline() {
        let uri = |s: &str| s.parse::<Uri>().expect("a URI");
        assert!(is_watch(&uri("/api/v1/pods?watch=true&resourceVersion=1")));
        assert!(is_watch(&uri("/api/v1/pods?resourceVersion=1&watch=1")));
        assert!(!is_watch(&uri("/api/v1/pods?limit=500")));
        assert!(!is_watch(&uri("/api/v1/namespaces/default/pods/watch-me")));
        assert!(!is_watch(&uri("/api/v1/pods?watch=false")));
    }
}
