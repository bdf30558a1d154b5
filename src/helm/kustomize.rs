//! `config/default` rendered by kustomize, as the chart's templates are made from it: once
//! with every optional part off, once per optional part switched on, and once in the other
//! `--webhook-certs` mode. The renders run
//! on a copy of `config/` (with what the same command is about to write), so the project
//! is never touched and a chart planned beside new CRDs shows the new CRDs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};
use serde_yaml::Value;
use tempfile::TempDir;

use crate::project::{Project, WebhookCerts};
use crate::scaffold::{DiskTree, Plan, Renderer};
use crate::webhook::certs;

/// The directory kustomize renders, relative to the project.
pub const DEFAULT: &str = "config/default";
const KUSTOMIZATION: &str = "config/default/kustomization.yaml";

/// A part of `config/default` a user switches on by listing a directory in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed {
    /// The kustomization list that names it.
    pub list: &'static str,
    pub entry: &'static str,
    /// The chart value that switches it on.
    pub value: &'static str,
}

pub const LISTED: [Listed; 2] = [
    Listed {
        list: "components",
        entry: "../prometheus",
        value: "prometheus.enabled",
    },
    Listed {
        list: "resources",
        entry: "../network-policy",
        value: "networkPolicy.enabled",
    },
];

/// The value that chooses who issues the webhook server's certificate.
pub const CERT_MANAGER: &str = "certManager.enabled";

/// The objects of one render with a value changed from its default.
#[derive(Debug)]
pub struct Switched {
    /// The chart value (`prometheus.enabled`).
    pub value: &'static str,
    /// The value's default.
    pub default: bool,
    /// The template condition under which these objects are the ones rendered.
    pub cond: String,
    pub objects: Vec<Value>,
}

/// The objects of every render.
#[derive(Debug)]
pub struct Renders {
    /// The project's certificate mode, every listed part off.
    pub base: Vec<Value>,
    /// Per listed part, the render with it on; and the render in the other certificate
    /// mode, for a project with webhooks.
    pub switched: Vec<Switched>,
}

/// Renders `config/default` of the project at `root`, with the files of `pending`
/// (paths relative to the project) in place of those on disk.
pub fn render(
    root: &Path,
    project: &Project,
    pending: &BTreeMap<PathBuf, Option<String>>,
) -> Result<Renders> {
    let copy = copy_project_config(root, pending)?;
    let kustomization = read_kustomization(copy.path())?;
    let base = build(copy.path(), &kustomization, None)?;
    let mut switched = Vec::new();
    for listed in LISTED {
        switched.push(Switched {
            value: listed.value,
            default: is_listed(&kustomization, listed),
            cond: format!(".Values.{}", listed.value),
            objects: build(copy.path(), &kustomization, Some(listed))?,
        });
    }
    // The copy holds what the same command is about to write (`create webhook` makes
    // config/webhook-certs).
    if certs::any(project) && copy.path().join(certs::DIR).is_dir() {
        let other_mode = match project.webhook_certs {
            WebhookCerts::CertManager => WebhookCerts::SelfIssued,
            WebhookCerts::SelfIssued => WebhookCerts::CertManager,
        };
        let other = copy_project_config(root, pending)?;
        in_mode(other.path(), project, other_mode)?;
        let kustomization = read_kustomization(other.path())?;
        let cert_manager = format!(".Values.{CERT_MANAGER}");
        switched.push(Switched {
            value: CERT_MANAGER,
            default: project.webhook_certs == WebhookCerts::CertManager,
            cond: match other_mode {
                WebhookCerts::CertManager => cert_manager,
                WebhookCerts::SelfIssued => format!("(not {cert_manager})"),
            },
            objects: build(other.path(), &kustomization, None)?,
        });
    }
    Ok(Renders { base, switched })
}

/// A temporary copy of the project's `config/`, with `pending` written over it.
fn copy_project_config(
    root: &Path,
    pending: &BTreeMap<PathBuf, Option<String>>,
) -> Result<TempDir> {
    let copy = tempfile::Builder::new()
        .prefix("rsbuilder-chart-")
        .tempdir()
        .context("cannot create a temporary directory for kustomize")?;
    copy_config(&root.join("config"), &copy.path().join("config"))?;
    for (path, text) in pending.iter().filter(|(p, _)| p.starts_with("config")) {
        match text {
            Some(text) => write(copy.path(), path, text)?,
            None => {
                let _ = std::fs::remove_file(copy.path().join(path));
            }
        }
    }
    Ok(copy)
}

fn write(root: &Path, path: &Path, text: &str) -> Result<()> {
    let to = root.join(path);
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&to, text).with_context(|| format!("cannot write {}", to.display()))
}

/// The copy's config/ as `rsbuilder edit --webhook-certs mode` would leave it.
fn in_mode(copy: &Path, project: &Project, mode: WebhookCerts) -> Result<()> {
    let mut other = project.clone();
    other.webhook_certs = mode;
    let mut plan = Plan::new();
    certs::plan(&mut plan, &Renderer::new()?, &other, &DiskTree::new(copy))?;
    for change in plan.resolve(&DiskTree::new(copy), true)? {
        if let Some(new) = change
            .new
            .as_deref()
            .filter(|_| change.path.starts_with("config"))
        {
            write(copy, &change.path, new)?;
        }
    }
    Ok(())
}

fn read_kustomization(copy: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(copy.join(KUSTOMIZATION)).with_context(|| {
        format!("the chart is made from {DEFAULT}, and {KUSTOMIZATION} cannot be read")
    })?;
    crate::yaml::read::from_str(&text).with_context(|| format!("{KUSTOMIZATION} is not YAML"))
}

/// Renders the copy's config/default with only `on` of the listed parts.
fn build(copy: &Path, kustomization: &Value, on: Option<Listed>) -> Result<Vec<Value>> {
    let mut k = kustomization.clone();
    for listed in LISTED {
        set_listed(&mut k, listed, Some(listed) == on);
    }
    std::fs::write(copy.join(KUSTOMIZATION), serde_yaml::to_string(&k)?)?;
    kustomize(&copy.join(DEFAULT))
}

fn is_listed(kustomization: &Value, switch: Listed) -> bool {
    kustomization
        .get(switch.list)
        .and_then(Value::as_sequence)
        .is_some_and(|l| l.iter().any(|e| e.as_str() == Some(switch.entry)))
}

fn set_listed(kustomization: &mut Value, switch: Listed, on: bool) {
    let Some(map) = kustomization.as_mapping_mut() else {
        return;
    };
    let list = map
        .entry(Value::from(switch.list))
        .or_insert(Value::Sequence(Vec::new()));
    if !list.is_sequence() {
        *list = Value::Sequence(Vec::new());
    }
    let items = list.as_sequence_mut().expect("made a sequence above");
    items.retain(|e| e.as_str() != Some(switch.entry));
    if on {
        items.push(Value::from(switch.entry));
    }
}

/// A copy of `from`: files are read through symbolic links (as kustomize reads them);
/// linked directories are not followed.
fn copy_config(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    let entries = std::fs::read_dir(from).with_context(|| {
        format!(
            "the chart is made from config/, and {} cannot be read",
            from.display()
        )
    })?;
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_config(&path, &to.join(entry.file_name()))?;
        } else if path.is_file() {
            std::fs::copy(&path, to.join(entry.file_name()))
                .with_context(|| format!("cannot copy {}", path.display()))?;
        }
    }
    Ok(())
}

/// How kustomize is run, and where that was decided.
struct Kustomize {
    argv: Vec<String>,
    /// Whether the user chose it with `KUSTOMIZE`.
    from_env: bool,
}

impl Kustomize {
    /// `$KUSTOMIZE` (a command, as the Makefile names it), else `kubectl kustomize`, else
    /// `kustomize build`.
    fn find() -> Result<Self> {
        if let Ok(line) = std::env::var("KUSTOMIZE")
            && !line.trim().is_empty()
        {
            return Ok(Self {
                argv: line.split_whitespace().map(String::from).collect(),
                from_env: true,
            });
        }
        for candidate in [["kubectl", "kustomize"], ["kustomize", "build"]] {
            if Command::new(candidate[0])
                .arg("version")
                .arg("--client")
                .output()
                .is_ok()
            {
                return Ok(Self {
                    argv: candidate.map(String::from).to_vec(),
                    from_env: false,
                });
            }
        }
        bail!(
            "the Helm chart is made from what kustomize renders of {DEFAULT}, and neither kubectl nor kustomize is on PATH; install kubectl, or set KUSTOMIZE to the command that runs kustomize"
        )
    }

    /// What the user can do when the command itself is at fault.
    fn fix(&self) -> &'static str {
        if self.from_env {
            "set KUSTOMIZE to the command that runs kustomize (e.g. `kubectl kustomize` or `kustomize build`), or unset it to use kubectl from PATH"
        } else {
            "install kubectl, or set KUSTOMIZE to the command that runs kustomize"
        }
    }

    /// Where the command came from, for a message: ` (from KUSTOMIZE)` or nothing.
    fn origin(&self) -> &'static str {
        if self.from_env {
            " (from KUSTOMIZE)"
        } else {
            ""
        }
    }
}

fn kustomize(dir: &Path) -> Result<Vec<Value>> {
    let command = Kustomize::find()?;
    let shown = command.argv.join(" ");
    let out = match Command::new(&command.argv[0])
        .args(&command.argv[1..])
        .arg(dir)
        .output()
    {
        Ok(out) => out,
        Err(e) => bail!(
            "cannot run `{shown}`{origin}: {e}; the Helm chart is made from what kustomize renders of {DEFAULT}: {fix}",
            origin = command.origin(),
            fix = command.fix()
        ),
    };
    if !out.status.success() {
        // kustomize's message, on the one line of rsbuilder's.
        let said = String::from_utf8_lossy(&out.stderr)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if said.is_empty() {
            bail!(
                "`{shown} {DEFAULT}`{origin} failed ({status}) without saying why; the Helm chart is made from what kustomize renders of {DEFAULT}: {fix}",
                origin = command.origin(),
                status = out.status,
                fix = command.fix()
            );
        }
        bail!(
            "kustomize cannot render {DEFAULT} (`{shown} {DEFAULT}` says: {said}); the chart is made from it, so fix that first"
        );
    }
    let text = String::from_utf8(out.stdout).context("kustomize printed something not UTF-8")?;
    let documents =
        crate::yaml::read::documents(&text).context("kustomize printed something not YAML")?;
    Ok(documents.into_iter().filter(|d| !d.is_null()).collect())
}
