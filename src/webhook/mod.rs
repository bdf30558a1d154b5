//! Webhooks of the generated project: the names they share (module, paths, annotations),
//! `config/webhook/manifests.yaml` from the PROJECT file ([`manifests`]), and the
//! conversion code generated from a kind's Rust types ([`conversion`], laid out by
//! [`emit`]). Pure functions; `commands::create::webhook` plans the files.

pub mod certs;
pub mod conversion;
pub mod emit;
pub mod manifests;

/// The module of a kind version's admission webhooks: `batch_v1_cron_job`.
pub fn module_name(group_mod: &str, version: &str, kind_snake: &str) -> String {
    format!("{group_mod}_{version}_{kind_snake}")
}

/// `/mutate-batch-example-com-v1-cronjob` (`what` = `mutate`) or `/validate-...`.
pub fn admission_path(what: &str, api_group: &str, version: &str, kind: &str) -> String {
    format!(
        "/{what}-{}-{version}-{}",
        api_group.replace('.', "-"),
        kind.to_lowercase()
    )
}

/// The annotation that keeps the values of `version` of `kind` that another version of it
/// cannot hold.
pub fn annotation(kind: &str, version: &str) -> String {
    format!("conversion.rsbuilder.io/{}-{version}", kind.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(module_name("batch", "v1", "cron_job"), "batch_v1_cron_job");
        assert_eq!(
            admission_path("mutate", "batch.example.com", "v1", "CronJob"),
            "/mutate-batch-example-com-v1-cronjob"
        );
        assert_eq!(
            annotation("CronJob", "v1alpha1"),
            "conversion.rsbuilder.io/cronjob-v1alpha1"
        );
    }
}
