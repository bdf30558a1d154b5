//! `config/default` rendered by kustomize, as the chart's templates are made from it: once
//! with every optional part off, and once per optional part switched on. The renders run
//! on a copy of `config/` (with what the same command is about to write), so the project
//! is never touched and a chart planned beside new CRDs shows the new CRDs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};
use serde_yaml::Value;

/// The directory kustomize renders, relative to the project.
pub const DEFAULT: &str = "config/default";
const KUSTOMIZATION: &str = "config/default/kustomization.yaml";

/// A part of `config/default` a user switches on by listing a directory in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch {
    /// The kustomization list that names it.
    pub list: &'static str,
    pub entry: &'static str,
    /// The chart value that switches it on.
    pub value: &'static str,
}

pub const SWITCHES: [Switch; 2] = [
    Switch {
        list: "components",
        entry: "../prometheus",
        value: ".Values.prometheus.enabled",
    },
    Switch {
        list: "resources",
        entry: "../network-policy",
        value: ".Values.networkPolicy.enabled",
    },
];

/// The objects of every render.
#[derive(Debug)]
pub struct Renders {
    /// Every switch off.
    pub base: Vec<Value>,
    /// Per switch: the objects with it on (the others off), and whether config/default
    /// lists it now (the value's default).
    pub switched: Vec<(Switch, Vec<Value>, bool)>,
}

/// Renders `config/default` of the project at `root`, with the files of `pending`
/// (paths relative to the project) in place of those on disk.
pub fn render(root: &Path, pending: &BTreeMap<PathBuf, String>) -> Result<Renders> {
    let copy = tempfile::Builder::new()
        .prefix("rsbuilder-chart-")
        .tempdir()
        .context("cannot create a temporary directory for kustomize")?;
    copy_config(&root.join("config"), &copy.path().join("config"))?;
    for (path, text) in pending {
        if path.starts_with("config") {
            let to = copy.path().join(path);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&to, text)?;
        }
    }
    let kustomization_path = copy.path().join(KUSTOMIZATION);
    let text = std::fs::read_to_string(&kustomization_path).with_context(|| {
        format!("the chart is made from {DEFAULT}, and {KUSTOMIZATION} cannot be read")
    })?;
    let kustomization: Value = crate::yaml::read::from_str(&text)
        .with_context(|| format!("{KUSTOMIZATION} is not YAML"))?;
    let build = |on: Option<Switch>| -> Result<Vec<Value>> {
        let mut k = kustomization.clone();
        for switch in SWITCHES {
            set_listed(&mut k, switch, Some(switch) == on);
        }
        std::fs::write(&kustomization_path, serde_yaml::to_string(&k)?)?;
        kustomize(&copy.path().join(DEFAULT))
    };
    let base = build(None)?;
    let switched = SWITCHES
        .iter()
        .map(|&switch| Ok((switch, build(Some(switch))?, listed(&kustomization, switch))))
        .collect::<Result<_>>()?;
    Ok(Renders { base, switched })
}

fn listed(kustomization: &Value, switch: Switch) -> bool {
    kustomization
        .get(switch.list)
        .and_then(Value::as_sequence)
        .is_some_and(|l| l.iter().any(|e| e.as_str() == Some(switch.entry)))
}

fn set_listed(kustomization: &mut Value, switch: Switch, on: bool) {
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
