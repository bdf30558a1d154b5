//! The conditions a controller writes to an object's status, as Kubernetes' API
//! conventions ask: `Ready`, `Progressing` and `Degraded`, each for the generation it acted
//! on, each keeping its `lastTransitionTime` while its status stays.

use std::fmt::Display;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use serde::Serialize;

use super::Outcome;

/// What an object's status says: its `conditions` (this controller's and other writers')
/// and its `observedGeneration`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observed {
    /// `status.conditions`.
    pub conditions: Vec<Condition>,
    /// `status.observedGeneration`.
    pub generation: Option<i64>,
}

impl Observed {
    /// What the status of `object` says, read by the JSON names the conventions give both
    /// fields (the names the status is written with); nothing when it has no status.
    pub fn of<K: Serialize>(object: &K) -> Self {
        let object = serde_json::to_value(object).unwrap_or_default();
        let status = &object["status"];
        Self {
            conditions: serde_json::from_value(status["conditions"].clone()).unwrap_or_default(),
            generation: status["observedGeneration"].as_i64(),
        }
    }

    /// Whether this status says what `new`, a controller's conditions for `generation`,
    /// says. Conditions other writers own are theirs: only the controller's are compared.
    pub fn says(&self, generation: Option<i64>, new: &[Condition]) -> bool {
        self.generation == generation
            && new
                .iter()
                .all(|condition| self.conditions.contains(condition))
    }
}

/// A controller's conditions after a reconciliation of `generation` that ended with
/// `outcome`:
///
/// | outcome       | Ready | Progressing | Degraded |
/// |---------------|-------|-------------|----------|
/// | `Ready`       | True  | False       | False    |
/// | `Progressing` | False | True        | False    |
/// | an error      | False | False       | True     |
///
/// A condition keeps the `lastTransitionTime` it had in `old` unless its status changes.
pub fn after<E: Display>(
    outcome: &Result<Outcome, E>,
    generation: Option<i64>,
    old: &[Condition],
) -> Vec<Condition> {
    let (statuses, reason, message) = match outcome {
        Ok(Outcome::Ready) => ([true, false, false], "Reconciled", "up to date".into()),
        Ok(Outcome::Progressing { reason, message }) => {
            ([false, true, false], *reason, message.clone())
        }
        Err(error) => ([false, false, true], "ReconcileFailed", error.to_string()),
    };
    let types = ["Ready", "Progressing", "Degraded"];
    types
        .into_iter()
        .zip(statuses)
        .map(|(type_, status)| {
            let status = if status { "True" } else { "False" };
            let since = old
                .iter()
                .find(|o| o.type_ == type_ && o.status == status)
                .map_or_else(
                    || Time(Timestamp::now()),
                    |o| o.last_transition_time.clone(),
                );
            Condition {
                type_: type_.into(),
                status: status.into(),
                reason: reason.into(),
                message: message.clone(),
                observed_generation: generation,
                last_transition_time: since,
            }
        })
        .collect()
}

/// The `Ready` condition, if there is one.
pub fn ready(conditions: &[Condition]) -> Option<&Condition> {
    conditions
        .iter()
        .find(|condition| condition.type_ == "Ready")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const EARLIER: &str = "2020-01-01T00:00:00Z";

    fn earlier() -> Time {
        Time(EARLIER.parse().unwrap())
    }

    fn statuses(conditions: &[Condition]) -> Vec<(&str, &str)> {
        conditions
            .iter()
            .map(|c| (c.type_.as_str(), c.status.as_str()))
            .collect()
    }

    #[test]
    fn each_outcome_sets_its_conditions() {
        let ready = after(&Ok::<_, String>(Outcome::Ready), Some(1), &[]);
        let t = ("Ready", "True");
        assert_eq!(
            statuses(&ready),
            [t, ("Progressing", "False"), ("Degraded", "False")]
        );
        let waiting = Outcome::Progressing {
            reason: "Waiting",
            message: "for a child".into(),
        };
        let progressing = after(&Ok::<_, String>(waiting), Some(1), &[]);
        assert_eq!(progressing[1].status, "True");
        assert_eq!(progressing[1].reason, "Waiting");
        let failed = after(&Err::<Outcome, _>("refused"), Some(2), &[]);
        assert_eq!(
            statuses(&failed),
            [
                ("Ready", "False"),
                ("Progressing", "False"),
                ("Degraded", "True")
            ]
        );
        assert_eq!(failed[2].message, "refused");
        assert!(failed.iter().all(|c| c.observed_generation == Some(2)));
    }

    /// API conventions: `lastTransitionTime` is when the condition's status last changed.
    #[test]
    fn only_a_changed_condition_gets_a_new_transition_time() {
        let old: Vec<Condition> = ["Ready", "Progressing", "Degraded"]
            .into_iter()
            .zip(["False", "False", "True"])
            .map(|(type_, status)| Condition {
                type_: type_.into(),
                status: status.into(),
                reason: "ReconcileFailed".into(),
                message: "it failed".into(),
                observed_generation: Some(1),
                last_transition_time: earlier(),
            })
            .collect();
        let new = after(&Ok::<_, String>(Outcome::Ready), Some(1), &old);
        assert_eq!(new[1].last_transition_time, earlier(), "Progressing stayed");
        assert_ne!(new[0].last_transition_time, earlier(), "Ready changed");
        assert_ne!(new[2].last_transition_time, earlier(), "Degraded changed");
    }

    #[test]
    fn a_status_says_what_it_holds_whatever_other_writers_added() {
        let new = after(&Ok::<_, String>(Outcome::Ready), Some(1), &[]);
        let mut conditions = new.clone();
        conditions.insert(
            1,
            Condition {
                type_: "Backup".into(),
                status: "False".into(),
                reason: "NotConfigured".into(),
                message: String::new(),
                observed_generation: Some(1),
                last_transition_time: earlier(),
            },
        );
        let status = Observed {
            conditions,
            generation: Some(1),
        };
        assert!(status.says(Some(1), &new));
        assert!(!status.says(Some(2), &new), "another generation");
        let failed = after(&Err::<Outcome, _>("refused"), Some(1), &new);
        assert!(!status.says(Some(1), &failed));
    }

    #[test]
    fn a_status_is_read_by_its_json_names() {
        let object = json!({
            "metadata": {"name": "a"},
            "status": {
                "observedGeneration": 3,
                "conditions": [{
                    "type": "Ready", "status": "True", "reason": "Reconciled",
                    "message": "up to date", "lastTransitionTime": EARLIER,
                }],
            },
        });
        let observed = Observed::of(&object);
        assert_eq!(observed.generation, Some(3));
        assert_eq!(
            ready(&observed.conditions).map(|c| c.reason.as_str()),
            Some("Reconciled")
        );
        assert_eq!(Observed::of(&json!({"metadata": {}})), Observed::default());
    }
}
