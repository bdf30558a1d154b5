//! What planning `create webhook` reads, and the one typed context its templates see.

use std::path::Path;

use anyhow::Result;
use heck::ToSnakeCase;
use serde::Serialize;

use super::layout::{path_let, review_let};
use crate::project::{Project, Resource};
use crate::scaffold::{Plan, Renderer, Tree};
use crate::webhook::{self, conversion, emit};

pub const CARGO: &str = "Cargo.toml";
pub const WEBHOOKS_MOD: &str = "src/webhooks/mod.rs";

/// What planning reads: the project's files, the templates, its `src/api` sources, and
/// whether `--force` re-scaffolds the kind's files.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub tree: &'a dyn Tree,
    pub renderer: &'a Renderer,
    pub sources: &'a conversion::Sources,
    pub force: bool,
}

/// The webhook types a command asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Admission {
    Defaulting,
    Validation,
}

/// Everything the webhook templates may refer to.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Ctx {
    pub boilerplate: String,
    pub project_name: String,
    pub crate_name: String,
    pub group_mod: String,
    pub api_group: String,
    pub version: String,
    pub kind: String,
    pub kind_snake: String,
    pub plural: String,
    pub namespaced: bool,
    pub crd_name: String,
    pub mutate_path: String,
    pub validate_path: String,
    pub hub: String,
    pub spoke: String,
    pub hub_annotation: String,
    pub spoke_annotation: String,
    pub imports: String,
    pub functions: String,
    pub sample: String,
    pub bench_use: String,
    pub index: usize,
    pub default_sig: String,
    pub validate_create_sig: String,
    pub validate_update_sig: String,
    pub validate_delete_sig: String,
    pub mutate_path_let: String,
    pub validate_path_let: String,
    /// The test's AdmissionReview of the kind, laid out as rustfmt lays it out.
    pub review_let: String,
    /// The kind version's module under `src/webhooks`: `batch_v1_cron_job`.
    pub module: String,
    /// Whether the spec still has the scaffolded `foo: Option<String>`, which the
    /// admission webhooks' example rules default and check.
    pub foo_rules: bool,
}

impl Ctx {
    /// The context of the kind version `r` of `project`.
    pub fn new(tree: &dyn Tree, project: &Project, r: &Resource) -> Result<Ctx> {
        let api_group = format!("{}.{}", r.group, r.domain);
        let snake = r.kind.to_snake_case();
        let by_ref = format!("&{}", r.kind);
        let verdict = Some("Result<(), String>");
        let signature = |name: &str, params: &[(&str, &str)], ret: Option<&str>| {
            emit::signature(0, "pub ", name, params, ret)
        };
        Ok(Ctx {
            boilerplate: tree
                .read(Path::new("hack/boilerplate.rs.txt"))?
                .unwrap_or_default(),
            project_name: project.project_name.clone(),
            crate_name: project.project_name.to_snake_case(),
            group_mod: r.group.replace(['-', '.'], "_"),
            version: r.version.clone(),
            kind: r.kind.clone(),
            kind_snake: r.kind.to_snake_case(),
            plural: r.plural.clone(),
            namespaced: r.namespaced,
            crd_name: format!("{}.{api_group}", r.plural),
            mutate_path: webhook::admission_path("mutate", &api_group, &r.version, &r.kind),
            validate_path: webhook::admission_path("validate", &api_group, &r.version, &r.kind),
            hub: r.version.clone(),
            hub_annotation: webhook::annotation(&r.kind, &r.version),
            api_group: api_group.clone(),
            default_sig: signature("default", &[(&snake, &format!("&mut {}", r.kind))], None),
            validate_create_sig: signature("validate_create", &[(&snake, &by_ref)], verdict),
            validate_update_sig: signature(
                "validate_update",
                &[("old", &by_ref), ("new", &by_ref)],
                verdict,
            ),
            validate_delete_sig: signature("validate_delete", &[(&snake, &by_ref)], verdict),
            review_let: review_let(&r.kind),
            mutate_path_let: path_let(&webhook::admission_path(
                "mutate", &api_group, &r.version, &r.kind,
            )),
            validate_path_let: path_let(&webhook::admission_path(
                "validate", &api_group, &r.version, &r.kind,
            )),
            ..Ctx::default()
        })
    }

    /// The kind version's module under `src/webhooks`: `batch_v1_cron_job`.
    pub fn webhooks_module(&self) -> String {
        webhook::module_name(&self.group_mod, &self.version, &self.kind_snake)
    }
}

/// Scaffolds `file` from `templates/webhook/<file>.hbs` unless it exists.
pub fn scaffold_missing(
    tree: &dyn Tree,
    renderer: &Renderer,
    ctx: &Ctx,
    file: &str,
) -> Result<Plan> {
    let mut plan = Plan::new();
    if tree.read(Path::new(file))?.is_none() {
        plan.scaffold(file, renderer.render(&format!("webhook/{file}.hbs"), ctx)?);
    }
    Ok(plan)
}
