//! Kubernetes events (events.k8s.io/v1) about the objects a controller reconciles, for
//! people: published best effort, so that a refused event never fails a reconciliation.

use kube::Resource;
use kube::ResourceExt;
use kube::runtime::events::{Event, EventType, Recorder};
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

/// Publishes `event` about `object`, best effort: a refused one is logged and the
/// reconciliation goes on. The API server refuses events for reasons that must not block
/// the work: while a namespace is being deleted, the NamespaceLifecycle admission plugin
/// forbids every create in it, and an object there must still lose its finalizer, or the
/// namespace never goes.
pub async fn publish<K>(recorder: &Recorder, object: &K, event: &Event)
where
    K: Resource<DynamicType = ()>,
{
    let reference = object.object_ref(&());
    if let Err(error) = recorder.publish(event, &reference).await {
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
