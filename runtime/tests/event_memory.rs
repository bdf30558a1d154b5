//! What publishing events keeps in memory: nothing, once they are published. A manager
//! that makes 10,000 new objects Ready publishes 10,000 `Reconciled` events; kube's
//! `Recorder` kept each for six minutes, 30 MB of them at the peak of `make bench-scale`
//! (heaptrack: its cache, `kube_runtime::events`). `controller::events::publish` creates
//! each event and forgets it.
//!
//! A test binary of its own, with one test: its allocator counts every byte allocated.

use http::Method;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kube::runtime::events::EventType;

use rsbuilder_runtime::controller::events;
use rsbuilder_runtime::testing::mock::{self, events_path, finish};

#[path = "support/allocations.rs"]
mod allocations;

#[global_allocator]
static ALLOCATOR: allocations::Counting = allocations::Counting;

const EVENTS: usize = 1_000;

fn object(n: usize) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("object-{n}")),
            namespace: Some("team-a".into()),
            uid: Some(format!("uid-{n}")),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    }
}

#[tokio::test]
async fn a_published_event_is_not_kept() {
    let (client, mut server) = mock::client();
    let answered = tokio::spawn(async move {
        for _ in 0..=EVENTS {
            let event = server
                .expect(Method::POST, &events_path(Some("team-a")))
                .await;
            mock::check_event(&event.body, "team-a");
            event.echo();
        }
    });
    let event = events::event(EventType::Normal, "Reconciled", "up to date");
    // The first request sets up what every later one reuses.
    events::publish(&client, "thing-controller", &object(EVENTS), &event).await;
    let before = allocations::allocated();
    for n in 0..EVENTS {
        events::publish(&client, "thing-controller", &object(n), &event).await;
    }
    let kept = allocations::allocated().saturating_sub(before);
    finish(answered).await;
    assert!(
        kept < EVENTS * 64,
        "{kept} bytes kept after {EVENTS} events, {} a event",
        kept / EVENTS
    );
}
