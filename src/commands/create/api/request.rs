//! `create api`'s arguments, turned at the door into one request whose names are valid:
//! planning takes only this, and checks no name again.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use clap::{ArgAction, Args};
use heck::ToSnakeCase;

use crate::names::{self, Group, Kind, Plural, Version};
use crate::scaffold::kind_clash;

#[derive(Debug, Args)]
pub struct ApiArgs {
    /// API group without the domain (batch -> batch.<domain>); with --resource=false, also a
    /// Kubernetes group for a built-in kind (core, apps, batch, networking.k8s.io, ...), or
    /// the group of an external kind
    #[arg(
        long,
        required_unless_present = "from_crd",
        conflicts_with = "from_crd"
    )]
    pub group: Option<String>,
    /// API version: v1, v2beta1, v1alpha1, ...; with --from-crd, the version to type (default:
    /// the CRD's storage version)
    #[arg(long, required_unless_present = "from_crd")]
    pub version: Option<String>,
    /// Kind, in PascalCase, e.g. CronJob; with --from-crd, which CRD of the file to read
    #[arg(long, required_unless_present = "from_crd")]
    pub kind: Option<String>,
    /// Plural resource name (default: the lowercased kind made plural, as kube-derive does)
    #[arg(long, conflicts_with = "from_crd")]
    pub plural: Option<String>,
    /// Make the kind cluster-scoped instead of namespaced
    #[arg(long, conflicts_with = "from_crd")]
    pub cluster_scoped: bool,
    /// Scaffold the types, CRD and samples; --resource=false scaffolds only a controller
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = true,
          default_missing_value = "true", action = ArgAction::Set, value_name = "BOOL",
          conflicts_with = "from_crd")]
    pub resource: bool,
    /// Scaffold a controller for the kind (one per kind; it watches the storage version).
    /// Default: true; with --from-crd, false
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true",
          action = ArgAction::Set, value_name = "BOOL")]
    pub controller: Option<bool>,
    /// Give every object of the kind a finalizer, so that the controller's cleanup runs
    /// before Kubernetes deletes it: for kinds that hold something outside the cluster
    #[arg(long, conflicts_with = "from_crd")]
    pub finalizer: bool,
    /// Scaffold again files that exist, overwriting them
    #[arg(long)]
    pub force: bool,
    /// Generate the Rust types of a kind this project uses but does not own from its
    /// CustomResourceDefinition (a YAML file, or - for stdin), under src/api/external/. The
    /// project never ships or installs that CRD: the cluster must have it
    #[arg(long, value_name = "FILE|-")]
    pub from_crd: Option<PathBuf>,
}

/// `create api` for a kind of this project, or a controller alone.
#[derive(Debug)]
pub struct ApiRequest {
    pub group: Group,
    pub version: Version,
    pub kind: Kind,
    /// The kind's Rust module, `cron_job`: an identifier, not a keyword.
    pub kind_snake: String,
    pub plural: Option<Plural>,
    pub cluster_scoped: bool,
    pub resource: bool,
    pub controller: bool,
    pub finalizer: bool,
    pub force: bool,
}

impl ApiRequest {
    /// The request `args` make in a project of `domain`, or the first rule they break.
    pub fn new(args: ApiArgs, domain: &str) -> Result<Self> {
        let missing = |what| anyhow!("--{what} is required (or --from-crd)");
        let group = args.group.ok_or_else(|| missing("group"))?;
        let version = Version::parse(&args.version.ok_or_else(|| missing("version"))?)?;
        let kind = Kind::parse(&args.kind.ok_or_else(|| missing("kind"))?)?;
        let kind_snake = kind.to_snake_case();
        if crate::syntax::parse_str::<syn::Ident>(&kind_snake).is_err() {
            bail!(
                "invalid kind {kind:?}: its Rust module would be `{kind_snake}`, a Rust keyword; choose another name, e.g. \"{kind}Resource\"",
                kind = &*kind
            );
        }
        let plural = args.plural.as_deref().map(Plural::parse).transpose()?;
        let controller = args.controller.unwrap_or(true);
        if !args.resource && !controller {
            bail!("nothing to create: --resource=false and --controller=false; drop one of them");
        }
        if args.finalizer && !controller {
            bail!(
                "--finalizer is kept by a controller, and --controller=false scaffolds none; drop one of them"
            );
        }
        if controller {
            let module = Path::new("src/controllers").join(format!("{kind_snake}.rs"));
            kind_clash::check_module(&kind, &kind_snake, &module)?;
        }
        let group = Group::parse(&group)?;
        if args.resource {
            own_group(&group, domain)?;
        }
        Ok(Self {
            group,
            version,
            kind,
            kind_snake,
            plural,
            cluster_scoped: args.cluster_scoped,
            resource: args.resource,
            controller,
            finalizer: args.finalizer,
            force: args.force,
        })
    }

    /// The group's Rust module under `src/api/`: `batch`, `my_group`.
    pub fn group_module(&self) -> String {
        group_module(&self.group)
    }
}

fn group_module(group: &str) -> String {
    group.replace(['-', '.'], "_")
}

/// What a group of this project's own kinds needs beyond a valid name: to stay a valid
/// group joined with the domain, and to name a Rust module of its own.
fn own_group(group: &Group, domain: &str) -> Result<()> {
    let api_group = format!("{group}.{domain}");
    names::subdomain("group", &api_group).map_err(|_| {
        anyhow!(
            "invalid group {:?}: joined with the domain, {api_group:?} is longer than 253 characters",
            &**group
        )
    })?;
    let module = group_module(group);
    if crate::syntax::parse_str::<syn::Ident>(&module).is_err() {
        bail!(
            "invalid group {:?}: its Rust module would be `{module}`, not a Rust identifier (a keyword, or starting with a digit); choose another group",
            &**group
        );
    }
    if module == "external" {
        bail!(
            "invalid group {:?}: its Rust module would be src/api/external, where the kinds of \
             `create api --from-crd` live; choose another group",
            &**group
        );
    }
    Ok(())
}
