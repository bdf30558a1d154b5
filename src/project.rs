//! The PROJECT file: the single record of what rsbuilder scaffolded (DESIGN §3).
//!
//! PROJECT is read back and trusted to name files (a resource's types file, the modules
//! and manifests derived from its group, version, kind and plural), so it is validated on
//! read with the rules the command line follows: a hand-edited or foreign PROJECT is one
//! clear error, never a path outside the project.

use std::path::{Component, Path};

use anyhow::{Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use crate::names;

pub const FILE: &str = "PROJECT";
pub const LAYOUT: &str = "rsbuilder.io/v1";
pub const FORMAT_VERSION: &str = "1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Project {
    pub version: String,
    pub layout: String,
    pub domain: String,
    pub project_name: String,
    pub cli_version: String,
    pub namespaced: bool,
    /// Who issues the webhook server's certificate; absent means cert-manager.
    #[serde(default, skip_serializing_if = "WebhookCerts::is_default")]
    pub webhook_certs: WebhookCerts,
    /// Where `rsbuilder-runtime` comes from; absent means the vendored copy.
    #[serde(default, skip_serializing_if = "RuntimeSource::is_default")]
    pub runtime: RuntimeSource,
    /// Whether `dist/chart` is kept in step with `config/` (`edit --helm`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub helm: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<Resource>,
}

/// Where a project takes `rsbuilder-runtime` from (`init --runtime`, `edit --runtime`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeSource {
    /// A copy in rsbuilder-runtime/ that rsbuilder writes and rewrites; builds offline
    #[default]
    Vendored,
    /// The registry (crates.io), pinned to this rsbuilder's version of the crate
    Registry,
}

impl RuntimeSource {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// As the command line and PROJECT spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Vendored => "vendored",
            Self::Registry => "registry",
        }
    }
}

/// Who issues the webhook server's certificate and injects its CA into the webhook
/// configurations and CRDs (`init --webhook-certs`, `edit --webhook-certs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum WebhookCerts {
    /// cert-manager, which must run in the cluster (kubebuilder's convention)
    #[default]
    #[serde(rename = "cert-manager")]
    #[value(name = "cert-manager")]
    CertManager,
    /// The manager itself: a CA and a serving certificate in a Secret of its namespace
    #[serde(rename = "self")]
    #[value(name = "self")]
    SelfIssued,
}

impl WebhookCerts {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// As the command line and PROJECT spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CertManager => "cert-manager",
            Self::SelfIssued => "self",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Resource {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub domain: String,
    pub namespaced: bool,
    pub controller: bool,
    /// The controller keeps a finalizer on every object (`create api --finalizer`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub finalizer: bool,
    /// The types file, relative to the project root; absent for built-in kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A kind this project uses but does not own (`create api --from-crd`): its types are
    /// generated from `crd`, and its CRD is never generated, shipped or installed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub external: bool,
    /// The copy of an external kind's CRD, relative to the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crd: Option<String>,
    #[serde(default, skip_serializing_if = "Webhooks::is_empty")]
    pub webhooks: Webhooks,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Webhooks {
    #[serde(default)]
    pub defaulting: bool,
    #[serde(default)]
    pub validation: bool,
    #[serde(default)]
    pub conversion: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spoke: Vec<String>,
}

impl Webhooks {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl Resource {
    /// A kind of this project's own: its types are here and its CRD is generated.
    pub fn is_own(&self) -> bool {
        self.path.is_some() && !self.external
    }

    /// The rules `create api` and `create webhook` apply to their arguments.
    fn validate(&self) -> Result<()> {
        if self.external {
            return self.validate_external();
        }
        if self.crd.is_some() {
            bail!("crd is recorded for external kinds only (external: true)");
        }
        names::subdomain("group", &self.group)?;
        names::version(&self.version)?;
        names::kind(&self.kind)?;
        names::plural(&self.plural)?;
        match &self.path {
            Some(path) => {
                names::subdomain("domain", &self.domain)?;
                types_path(path)?;
            }
            // A built-in kind (a controller only) has no domain of this project.
            None if self.domain.is_empty() => {}
            None => names::subdomain("domain", &self.domain)?,
        }
        for spoke in &self.webhooks.spoke {
            names::version(spoke)?;
        }
        Ok(())
    }
}

impl Resource {
    /// The rules `create api --from-crd` applies to what it reads from a CRD, and the
    /// places it writes to.
    fn validate_external(&self) -> Result<()> {
        names::crd_group(&self.group)?;
        names::served_version(&self.version)?;
        names::kind(&self.kind)?;
        names::plural(&self.plural)?;
        if !self.domain.is_empty() {
            bail!(
                "an external kind has no domain of this project; its group is {:?}",
                self.group
            );
        }
        if !self.webhooks.is_empty() {
            bail!("an external kind has no webhooks of this project");
        }
        let path = self.path.as_deref().unwrap_or_default();
        types_path(path)?;
        if !crate::external::is_external(Path::new(path)) {
            bail!(
                "invalid path {path:?}: the types of an external kind live under {}/",
                crate::external::TYPES_DIR
            );
        }
        let crd = self.crd.as_deref().unwrap_or_default();
        if crd != crate::external::crd_copy_path(&self.group, &self.plural) {
            bail!(
                "invalid crd {crd:?}: the CRD of an external kind is kept at {:?}",
                crate::external::crd_copy_path(&self.group, &self.plural)
            );
        }
        Ok(())
    }
}

/// A types file: a `.rs` path relative to the project root that stays inside it.
fn types_path(path: &str) -> Result<()> {
    let p = Path::new(path);
    let inside = p.components().all(|c| matches!(c, Component::Normal(_)))
        && p.components().next().is_some();
    if !inside || !path.ends_with(".rs") || path.contains('\\') {
        bail!(
            "invalid path {path:?}: it must be the types file's path relative to the project \
             root, without `..`, e.g. \"src/api/batch/v1/cron_job.rs\""
        );
    }
    Ok(())
}

impl Project {
    /// The versions of this project's own kind `group`/`kind`.
    pub fn own_versions(&self, group: &str, kind: &str) -> Vec<&Resource> {
        self.resources
            .iter()
            .filter(|r| r.group == group && r.domain == self.domain && r.kind == kind && r.is_own())
            .collect()
    }

    /// The external kind PROJECT records for `group`/`kind` (`create api --from-crd`).
    pub fn external_kind(&self, group: &str, kind: &str) -> Option<&Resource> {
        self.resources
            .iter()
            .find(|r| r.external && r.group == group && r.kind == kind)
    }

    pub fn new(
        domain: &str,
        project_name: &str,
        namespaced: bool,
        webhook_certs: WebhookCerts,
        runtime: RuntimeSource,
    ) -> Self {
        Self {
            version: FORMAT_VERSION.into(),
            layout: LAYOUT.into(),
            domain: domain.into(),
            project_name: project_name.into(),
            cli_version: env!("CARGO_PKG_VERSION").into(),
            namespaced,
            webhook_certs,
            runtime,
            helm: false,
            resources: Vec::new(),
        }
    }

    /// Reads and validates `PROJECT` from the project root, explaining what to do when it
    /// is missing.
    pub fn load(root: &Path) -> Result<Self> {
        let path = root.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
                "{} is not an rsbuilder project (no PROJECT file); run `rsbuilder init` first",
                root.display()
            ),
            Err(e) => bail!("cannot read {}: {e}", path.display()),
        };
        Self::parse(&text)
            .map_err(|e| anyhow!("{} is not a valid PROJECT file: {e}", path.display()))
    }

    /// A PROJECT file's contents, validated.
    pub fn parse(text: &str) -> Result<Self> {
        let project: Self = crate::yaml::read::from_str(text)?;
        project.validate()?;
        Ok(project)
    }

    fn validate(&self) -> Result<()> {
        if self.version != FORMAT_VERSION {
            bail!(
                "version {:?} is not the version this rsbuilder ({}) reads, {FORMAT_VERSION:?}; \
                 use the rsbuilder that wrote it",
                self.version,
                env!("CARGO_PKG_VERSION")
            );
        }
        if self.layout != LAYOUT {
            let hint = if self.layout.contains("kubebuilder") {
                " (this is a kubebuilder project, not an rsbuilder one)"
            } else {
                ""
            };
            bail!(
                "layout {:?} is not {LAYOUT:?}, the only one rsbuilder knows{hint}",
                self.layout
            );
        }
        names::subdomain("domain", &self.domain)?;
        names::label("project name", &self.project_name)?;
        for (i, r) in self.resources.iter().enumerate() {
            r.validate().map_err(|e| {
                anyhow!(
                    "resources[{i}] ({} {}/{}): {e}",
                    r.kind.escape_debug(),
                    r.group.escape_debug(),
                    r.version.escape_debug()
                )
            })?;
        }
        Ok(())
    }

    pub fn to_yaml(&self) -> String {
        let body = serde_yaml::to_string(self).expect("PROJECT always serializes");
        format!(
            "# Code generated by rsbuilder. DO NOT EDIT.\n\
             # This file records what was scaffolded; `rsbuilder alpha generate` replays it.\n{body}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_yaml() {
        let mut p = Project::new(
            "example.com",
            "guestbook",
            false,
            WebhookCerts::SelfIssued,
            RuntimeSource::Vendored,
        );
        p.resources.push(Resource {
            group: "batch".into(),
            version: "v1".into(),
            kind: "CronJob".into(),
            plural: "cronjobs".into(),
            domain: "example.com".into(),
            namespaced: true,
            controller: true,
            finalizer: true,
            path: Some("src/api/batch/v1/cronjob.rs".into()),
            external: false,
            crd: None,
            webhooks: Webhooks {
                conversion: true,
                spoke: vec!["v1beta1".into()],
                ..Default::default()
            },
        });
        let yaml = p.to_yaml();
        assert!(yaml.contains("projectName: guestbook"), "{yaml}");
        assert!(yaml.contains("webhookCerts: self"), "{yaml}");
        assert_eq!(crate::yaml::read::from_str::<Project>(&yaml).unwrap(), p);
    }

    fn external(path: &str, crd: &str) -> Project {
        let mut p = Project::new(
            "example.com",
            "demo",
            false,
            WebhookCerts::CertManager,
            RuntimeSource::Registry,
        );
        p.resources.push(Resource {
            group: "cert-manager.io".into(),
            version: "v1".into(),
            kind: "Certificate".into(),
            plural: "certificates".into(),
            domain: String::new(),
            namespaced: true,
            controller: true,
            finalizer: false,
            path: Some(path.into()),
            external: true,
            crd: Some(crd.into()),
            webhooks: Webhooks::default(),
        });
        p
    }

    #[test]
    fn external_kinds_stay_in_their_places() {
        let types = "src/api/external/cert_manager_io/v1/certificate.rs";
        let crd = "config/external-crds/cert-manager.io_certificates.yaml";
        let good = external(types, crd);
        assert_eq!(Project::parse(&good.to_yaml()).unwrap(), good);
        for (project, message) in [
            (
                external("src/api/cert/v1/certificate.rs", crd),
                "live under src/api/external/",
            ),
            (external("src/api/external/../../x.rs", crd), "without `..`"),
            (external(types, "../../etc/passwd"), "is kept at"),
            (external(types, "config/crd/bases/x.yaml"), "is kept at"),
        ] {
            let err = Project::parse(&project.to_yaml()).unwrap_err().to_string();
            assert!(err.contains(message), "{message:?} not in {err}");
        }
        let mut own_with_crd = external(types, crd);
        own_with_crd.resources[0].external = false;
        let err = Project::parse(&own_with_crd.to_yaml())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("crd is recorded for external kinds only"),
            "{err}"
        );
    }
}
