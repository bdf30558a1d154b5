//! The templates' context of `create api`: one typed value per kind, made from a request
//! (a kind of this project, or a controller alone) or from an external kind's CRD.

use std::path::Path;

use anyhow::Result;
use heck::ToSnakeCase;
use serde::Serialize;

use super::request::ApiRequest;
use crate::external;
use crate::project::Project;
use crate::scaffold::Tree;

/// Everything the `api` templates may refer to: one typed context.
#[derive(Debug, Clone, Serialize)]
pub struct Ctx {
    pub boilerplate: String,
    pub project_name: String,
    pub crate_name: String,
    /// As given: `batch`.
    pub group: String,
    /// Rust module of the group: `batch`, `my_group`.
    pub group_mod: String,
    /// Full API group: `batch.example.com` (for built-in kinds, the Kubernetes group).
    pub api_group: String,
    /// The group as users write it (`core` for the core group).
    pub group_display: String,
    /// The group in an RBAC marker (`""` for the core group).
    pub rbac_group: String,
    pub version: String,
    pub kind: String,
    pub kind_snake: String,
    pub kind_lower: String,
    pub plural: String,
    pub shortname: String,
    pub namespaced: bool,
    pub storage: bool,
    /// The controller keeps a finalizer on every object (`--finalizer`).
    pub finalizer: bool,
    /// Names of the per-kind RBAC roles: `cronjob` -> `cronjob-admin-role`.
    pub role_prefix: String,
    /// The k8s-openapi module of a built-in kind.
    pub k8s_module: String,
    /// A kind this project uses but does not own (`--from-crd`).
    pub external: bool,
    /// The module of an external kind's types below the crate root:
    /// `api::external::cert_manager_io::v1::certificate`.
    pub types_module: String,
    /// Rust module of the version: `v1`, `v2_preview`.
    pub version_mod: String,
    /// Rendered into the group module template.
    pub kind_block: String,
    pub sample_file: String,
    pub sample_spec: String,
    /// An external kind's field of the spec whose values an enum lists, for the envtest test
    /// of a value the types do not know.
    pub enum_field: Option<EnumField>,
}

/// A field as JSON pointers: into the version's `openAPIV3Schema`, and into an object.
#[derive(Debug, Clone, Serialize)]
pub struct EnumField {
    pub schema: String,
    pub object: String,
}

impl EnumField {
    /// The field of the spec at `keys`, which are plain (see `typegen::enum_field`).
    pub fn at(keys: &[String]) -> Self {
        Self {
            schema: keys.iter().fold("/properties/spec".into(), |path, key| {
                format!("{path}/properties/{key}")
            }),
            object: keys
                .iter()
                .fold("/spec".into(), |path, key| format!("{path}/{key}")),
        }
    }
}

/// The names a context starts from.
struct Names<'a> {
    group: &'a str,
    version: &'a str,
    kind: &'a str,
    kind_snake: &'a str,
    namespaced: bool,
    finalizer: bool,
}

impl Ctx {
    /// A kind of this project, or the kind of a controller alone, as `request` names it.
    pub fn new(tree: &dyn Tree, project: &Project, request: &ApiRequest) -> Result<Self> {
        let names = Names {
            group: &request.group,
            version: &request.version,
            kind: &request.kind,
            kind_snake: &request.kind_snake,
            namespaced: !request.cluster_scoped,
            finalizer: request.finalizer,
        };
        Self::from_names(tree, project, names)
    }

    /// An external kind of `group`/`version` (`create api --from-crd`, or a controller for
    /// a kind typed that way).
    pub fn external(
        tree: &dyn Tree,
        project: &Project,
        (group, version, kind): (&str, &str, &str),
        plural: &str,
        namespaced: bool,
    ) -> Result<Self> {
        let kind_snake = external::kind_module(kind);
        let names = Names {
            group,
            version,
            kind,
            kind_snake: &kind_snake,
            namespaced,
            finalizer: false,
        };
        let mut ctx = Self::from_names(tree, project, names)?;
        ctx.point_at_external(group, version, plural, namespaced)?;
        Ok(ctx)
    }

    fn from_names(tree: &dyn Tree, project: &Project, n: Names) -> Result<Self> {
        let boilerplate = tree
            .read(Path::new("hack/boilerplate.rs.txt"))?
            .unwrap_or_default();
        Ok(Ctx {
            boilerplate,
            project_name: project.project_name.clone(),
            crate_name: project.project_name.to_snake_case(),
            group: n.group.to_string(),
            group_mod: n.group.replace(['-', '.'], "_"),
            api_group: format!("{}.{}", n.group, project.domain),
            group_display: n.group.to_string(),
            rbac_group: format!("{}.{}", n.group, project.domain),
            version: n.version.to_string(),
            kind: n.kind.to_string(),
            kind_snake: n.kind_snake.to_string(),
            kind_lower: n.kind.to_lowercase(),
            plural: String::new(),
            shortname: shortname(n.kind),
            namespaced: n.namespaced,
            storage: true,
            finalizer: n.finalizer,
            role_prefix: n.kind.to_lowercase(),
            k8s_module: String::new(),
            external: false,
            types_module: String::new(),
            version_mod: n.version.to_string(),
            kind_block: String::new(),
            sample_file: format!("{}_{}_{}.yaml", n.group, n.version, n.kind.to_lowercase()),
            sample_spec: String::new(),
            enum_field: None,
        })
    }

    /// Points the context at an external kind of `group`/`version`.
    pub fn point_at_external(
        &mut self,
        group: &str,
        version: &str,
        plural: &str,
        namespaced: bool,
    ) -> Result<()> {
        self.external = true;
        self.group = group.to_string();
        self.group_mod = external::group_module(group);
        self.api_group = group.to_string();
        self.group_display = group.to_string();
        self.rbac_group = group.to_string();
        self.version = version.to_string();
        self.version_mod = external::version_module(version)?;
        self.plural = plural.to_string();
        self.namespaced = namespaced;
        self.types_module = format!(
            "api::external::{}::{}::{}",
            self.group_mod, self.version_mod, self.kind_snake
        );
        Ok(())
    }
}

/// A short name for `kubectl get`: the initials of a multi-word kind (ReplicaPool -> rp),
/// or the first letter and following consonants of a one-word kind (Tenant -> tnt).
/// `group_names::check` drops it where another kind already has it.
fn shortname(kind: &str) -> String {
    let initials: String = kind
        .chars()
        .filter(char::is_ascii_uppercase)
        .collect::<String>()
        .to_lowercase();
    if initials.len() >= 2 {
        return initials;
    }
    let lower = kind.to_lowercase();
    let mut chars = lower.chars();
    let mut out: String = chars.next().into_iter().collect();
    for c in chars {
        if out.len() == 3 {
            break;
        }
        if !"aeiou".contains(c) && !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortnames() {
        assert_eq!(shortname("ReplicaPool"), "rp");
        assert_eq!(shortname("CronJob"), "cj");
        assert_eq!(shortname("Tenant"), "tnt");
        assert_eq!(shortname("Database"), "dtb");
        assert_eq!(shortname("A"), "a");
        assert_eq!(shortname("HTTPRoute"), "httpr");
    }
}
