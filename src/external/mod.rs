//! Kinds this project uses but does not own, whose types `create api --from-crd` generates
//! from their CustomResourceDefinitions (cert-manager's Certificate, the Gateway API's
//! HTTPRoute, ...).
//!
//! One rule says which types are external: **everything under `src/api/external/` is**.
//! `generate crds` skips those files, `api::crds()` (and with it `crdgen` and the
//! generated `tests/crds.rs`) never lists them, and no kustomization names their CRDs:
//! this project neither ships nor installs them. The CRD each was generated from is kept
//! under `config/external-crds/`, outside every kustomization, for `alpha generate` and
//! for the e2e cluster.

pub mod crd_file;

use std::path::Path;

use anyhow::{Result, bail};
use heck::ToSnakeCase;

/// The types of external kinds: `<group>/<version>/<kind>.rs` below it.
pub const TYPES_DIR: &str = "src/api/external";
/// The CRDs of external kinds, one file each, in no kustomization.
pub const CRDS_DIR: &str = "config/external-crds";

/// Whether a source file (relative to the project root) holds external types.
pub fn is_external(path: &Path) -> bool {
    path.starts_with(TYPES_DIR)
}

/// The Rust module of an API group: `cert-manager.io` -> `cert_manager_io`.
pub fn group_module(group: &str) -> String {
    let module = group.replace(['-', '.'], "_");
    if module.starts_with(|c: char| c.is_ascii_digit()) {
        format!("group_{module}")
    } else {
        module
    }
}

/// The Rust module of a version: `v1beta1`, `v2_preview`.
pub fn version_module(version: &str) -> Result<String> {
    let module = version.replace('-', "_");
    if crate::syntax::parse_str::<syn::Ident>(&module).is_err() {
        bail!(
            "the version {version:?} cannot name a Rust module; rsbuilder cannot generate types for it"
        );
    }
    Ok(module)
}

/// The Rust module of a kind: `HTTPRoute` -> `http_route` (`match_` for a keyword).
pub fn kind_module(kind: &str) -> String {
    let snake = kind.to_snake_case();
    if crate::syntax::parse_str::<syn::Ident>(&snake).is_ok() {
        snake
    } else {
        format!("{snake}_")
    }
}

/// Where the CRD of `group`/`plural` is kept.
pub fn crd_copy_path(group: &str, plural: &str) -> String {
    format!("{CRDS_DIR}/{group}_{plural}.yaml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_rust_names() {
        assert_eq!(group_module("cert-manager.io"), "cert_manager_io");
        assert_eq!(group_module("3scale.net"), "group_3scale_net");
        assert_eq!(version_module("v2-preview").unwrap(), "v2_preview");
        assert!(version_module("match").is_err());
        assert_eq!(kind_module("HTTPRoute"), "http_route");
        assert_eq!(kind_module("Match"), "match_");
    }

    #[test]
    fn the_rule_is_the_directory() {
        assert!(is_external(Path::new(
            "src/api/external/cert_manager_io/v1/certificate.rs"
        )));
        assert!(!is_external(Path::new("src/api/batch/v1/cron_job.rs")));
        assert!(!is_external(Path::new(
            "src/api/external_things/v1/thing.rs"
        )));
    }
}
