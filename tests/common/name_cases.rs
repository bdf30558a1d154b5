//! Pairs of kinds of one group whose names clash, as `generate crds` refuses them
//! (`name_clashes.rs`) and the API server judges them (`api_server_names.rs`).

const HEAD: &str =
    "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n";

/// A source file defining `kind` in ship.example.com with `#[kube(... kube)]`; its
/// spec struct's name is at 6:12, where refusals point.
pub fn kind(kind: &str, kube: &str) -> String {
    format!(
        "{HEAD}#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[kube(group = \"ship.example.com\", version = \"v1\", kind = \"{kind}\"{kube})]\n\
         pub struct {kind}Spec {{\n    pub size: u32,\n}}\n"
    )
}

/// (case, first kind, second kind, a fragment of the refusal at b.rs:6:12).
pub fn clashing_pairs() -> Vec<(&'static str, String, String, &'static str)> {
    vec![
        (
            "two kinds with one plural",
            kind("Frigate", ""),
            kind("Sloop", ", plural = \"frigates\""),
            "the plural \"frigates\" of Sloop is the plural of Frigate",
        ),
        (
            "a short name of two kinds",
            kind("Frigate", ", shortname = \"fr\""),
            kind("Sloop", ", shortname = \"fr\""),
            "the short name \"fr\" of Sloop is the short name of Frigate",
        ),
        (
            "a singular that is another kind's plural",
            kind("CronJob", ""),
            kind("CronJobs", ""),
            "the singular \"cronjobs\" of CronJobs is the plural of CronJob",
        ),
        (
            "a kind that is another kind's list kind",
            kind("CronJob", ""),
            kind("CronJobList", ""),
            "the kind \"CronJobList\" of CronJobList is the list kind of CronJob",
        ),
        (
            "a list kind that is another kind's kind",
            kind("CronJobList", ""),
            kind("CronJob", ""),
            "the list kind \"CronJobList\" of CronJob is the kind of CronJobList",
        ),
        (
            "a plural that is another kind's singular",
            kind("Frigate", ""),
            kind("Sloop", ", plural = \"frigate\""),
            "the plural \"frigate\" of Sloop is the singular of Frigate",
        ),
        (
            "a short name that is another kind's plural",
            kind("Frigate", ""),
            kind("Sloop", ", shortname = \"frigates\""),
            "the short name \"frigates\" of Sloop is the plural of Frigate",
        ),
    ]
}
