//! Kubernetes events (events.k8s.io/v1) about the objects a controller reconciles, for
//! people: published best effort, so that a refused event never fails a reconciliation.

use k8s_openapi::api::events::v1::Event as K8sEvent;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::runtime::events::{Event, EventType};
use kube::{Client, Resource, ResourceExt};
use tracing::warn;

/// The longest note the API server accepts on an events.k8s.io/v1 Event (1 kB).
pub const NOTE_LIMIT: usize = 1024;

/// An event of a reconciliation: `note` cut to [`NOTE_LIMIT`] bytes (at a character
/// boundary), since error messages can be longer and the API server refuses such an Event.
pub fn event(type_: EventType, reason: &str, note: &str) -> Event {
    let mut end = note.len().min(NOTE_LIMIT);
    while !note.is_char_boundary(end) {
        end -= 1;
    }
    Event {
        type_,
        reason: reason.into(),
        note: Some(note[..end].into()),
        action: "Reconcile".into(),
        secondary: None,
    }
}

/// Publishes `event` about `object` as `controller` (its `reportingController`; the pod,
/// `HOSTNAME`, is the `reportingInstance`), best effort: a refused one is logged and the
/// reconciliation goes on. The API server refuses events for reasons that must not block
/// the work: while a namespace is being deleted, the NamespaceLifecycle admission plugin
/// forbids every create in it, and an object there must still lose its finalizer, or the
/// namespace never goes.
///
/// Each event is one create, and nothing of it is kept. kube's `Recorder` keeps every
/// event it published for six minutes, to count repeats into a series: after 10,000 new
/// objects became Ready, 30 MB of `Reconciled` events (`make bench-scale`). The runtime
/// publishes an event at a change of `Ready` only, so repeats are rare.
pub async fn publish<K>(client: &Client, controller: &str, object: &K, event: &Event)
where
    K: Resource<DynamicType = ()>,
{
    let reference = object.object_ref(&());
    let namespace = reference
        .namespace
        .clone()
        .unwrap_or_else(|| "default".into());
    let now = Timestamp::now();
    let name = reference.name.clone().unwrap_or_else(|| controller.into());
    let published = K8sEvent {
        metadata: ObjectMeta {
            name: Some(format!("{name}.{:x}", now.as_nanosecond())),
            namespace: Some(namespace.clone()),
            ..ObjectMeta::default()
        },
        action: Some(event.action.clone()),
        reason: Some(event.reason.clone()),
        note: event.note.clone(),
        type_: Some(match event.type_ {
            EventType::Normal => "Normal".into(),
            EventType::Warning => "Warning".into(),
        }),
        event_time: Some(MicroTime(now)),
        regarding: Some(reference),
        related: event.secondary.clone(),
        reporting_controller: Some(controller.into()),
        reporting_instance: Some(std::env::var("HOSTNAME").unwrap_or_else(|_| controller.into())),
        ..K8sEvent::default()
    };
    let events: Api<K8sEvent> = Api::namespaced(client.clone(), &namespace);
    if let Err(error) = events.create(&PostParams::default(), &published).await {
        warn!(name = %object.name_any(), reason = %event.reason, %error, "event not published");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_note_is_cut_at_the_limit_on_a_character_boundary() {
        let long = "é".repeat(NOTE_LIMIT);
        let note = event(EventType::Warning, "ReconcileFailed", &long)
            .note
            .unwrap();
        assert!(
            note.len() <= NOTE_LIMIT && note.len() > NOTE_LIMIT - 2,
            "{}",
            note.len()
        );
        assert!(long.starts_with(&note));
        let short = event(EventType::Normal, "Reconciled", "up to date");
        assert_eq!(short.note.as_deref(), Some("up to date"));
    }
}
