//! What the crate's manifest decides about its types: the features `#[cfg(feature = ..)]`
//! sees (cargo's rules: `default` unless told otherwise, plus `--features`, closed over
//! the features they enable), schemars' optional features (which third-party types have a
//! `JsonSchema` impl), and renamed dependencies (`chrono04 = { package = "chrono" }`).
//!
//! Read once per run, from Cargo.toml (a few hundred bytes, parsed with toml_edit) and
//! Cargo.lock (a line scan: it can be large, and only schemars' dependency list matters).
//!
//! Why one file: the manifest and the lock are read into one answer; the file passes 600
//! lines only with the tests of cargo's feature rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use toml_edit::{Document, Item, TableLike};

use super::cfg::CfgEnv;

/// The crate the sources belong to, as far as its manifest tells.
#[derive(Debug, Clone, Default)]
pub struct Crate {
    pub cfg: CfgEnv,
    /// schemars' optional features (`chrono04`, `url2`, ...) that are on for this crate,
    /// from its Cargo.toml or, through feature unification, its Cargo.lock.
    pub schemars_features: BTreeSet<String>,
    /// Whether serde_json's `preserve_order` is on: schema properties then keep insertion
    /// order, which decides the property KubeSchema's `#[x_kube]` lands on for a
    /// flattened field.
    pub json_preserves_order: bool,
    /// The names code uses for dependencies that are renamed, to their package names.
    pub renames: BTreeMap<String, String>,
    /// The manifest read, for messages; `None` when there is none.
    pub manifest: Option<PathBuf>,
    /// Dependencies given by `path` (a workspace's own crates), whose sources hold types
    /// the crate uses: found beside the manifest by [`Crate::read`].
    pub path_deps: Vec<PathDep>,
}

/// A dependency on a crate by `path`, as the depending crate turns it on.
#[derive(Debug, Clone)]
pub struct PathDep {
    /// The name code uses for it (`mirrord_config`).
    pub name: String,
    /// Its Cargo.toml; relative to the depending manifest's directory until `read`
    /// resolves it (`None` there: inherited from `[workspace.dependencies]`).
    pub manifest: Option<PathBuf>,
    /// The features the depending crate turns on.
    pub features: Vec<String>,
    /// `default-features = false` turns the default ones off.
    pub default_features: bool,
}

impl Crate {
    /// Reads `manifest` (and the Cargo.lock beside it or in a parent directory, for the
    /// features other crates of the graph enable on schemars), enabling `features` on top
    /// of the default ones, as `cargo build --features` does.
    pub fn read(manifest: &Path, features: &[String]) -> Result<Self> {
        Self::read_shown(manifest, manifest, features)
    }

    /// [`Crate::read`], naming the manifest `shown` in errors.
    fn read_shown(manifest: &Path, shown: &Path, features: &[String]) -> Result<Self> {
        Self::read_with(manifest, shown, features, true)
    }

    /// A path dependency as its dependent turns it on: `features`, and its default ones
    /// unless `default-features = false`.
    pub fn read_dependency(dep: &PathDep, manifest: &Path) -> Result<Self> {
        Self::read_with(manifest, manifest, &dep.features, dep.default_features)
    }

    fn read_with(
        manifest: &Path,
        shown: &Path,
        features: &[String],
        default_features: bool,
    ) -> Result<Self> {
        let text = std::fs::read_to_string(manifest)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", shown.display()))?;
        let lock = lock_file(manifest, &text).and_then(|p| std::fs::read_to_string(p).ok());
        let mut krate = Self::parse_with(&text, lock.as_deref(), features, default_features)
            .map_err(|e| anyhow::anyhow!("{}: {e:#}", shown.display()))?;
        krate.manifest = Some(manifest.to_path_buf());
        let dir = manifest.parent().unwrap_or(Path::new(""));
        let workspace = workspace_dependencies(manifest, &text);
        krate.path_deps.retain_mut(|d| {
            d.manifest = match &d.manifest {
                Some(rel) => Some(super::modules::normalize(&dir.join(rel).join("Cargo.toml"))),
                None => workspace.get(&d.name).cloned(),
            };
            d.manifest.as_ref().is_some_and(|m| m.is_file())
        });
        Ok(krate)
    }

    /// [`Crate::read`] over texts.
    pub fn parse(manifest: &str, lock: Option<&str>, requested: &[String]) -> Result<Self> {
        Self::parse_with(manifest, lock, requested, true)
    }

    fn parse_with(
        manifest: &str,
        lock: Option<&str>,
        requested: &[String],
        default_features: bool,
    ) -> Result<Self> {
        let doc = Document::parse(manifest)
            .map_err(|e| anyhow::anyhow!("Cargo.toml is not valid TOML: {}", e.message().trim()))?;
        let root = doc.as_table();
        let deps = dependencies(root);
        let table = features_table(root)?;
        let features = enabled_features(&table, &deps, requested, default_features)?;
        let mut schemars_features = BTreeSet::new();
        for dep in deps.iter().filter(|d| d.package == "schemars") {
            schemars_features.extend(dep.features.iter().cloned());
            for f in &features {
                for entry in table.get(f).into_iter().flatten() {
                    if let Some((name, feat)) = entry.split_once('/')
                        && name.trim_end_matches('?') == dep.name
                    {
                        schemars_features.insert(feat.to_string());
                    }
                }
            }
        }
        if let Some(lock) = lock {
            schemars_features.extend(locked_schemars_features(lock));
        }
        // serde_json's only optional dependency is indexmap, which `preserve_order` adds.
        let json_preserves_order = schemars_features.contains("preserve_order")
            || deps.iter().any(|d| {
                d.package == "serde_json" && d.features.iter().any(|f| f == "preserve_order")
            })
            || lock.is_some_and(|l| {
                locked_dependencies(l, "serde_json", "1.").any(|(name, _)| name == "indexmap")
            });
        let path_deps = deps
            .iter()
            .filter(|d| !d.build && (d.path.is_some() || d.workspace))
            .filter(|d| {
                !d.optional || features.contains(&d.name) || enables(&table, &features, &d.name)
            })
            .map(|d| PathDep {
                name: d.name.replace('-', "_"),
                manifest: d.path.as_ref().map(PathBuf::from),
                features: d.features.clone(),
                default_features: d.default_features,
            })
            .collect();
        let renames = deps
            .iter()
            .filter(|d| d.name != d.package)
            .map(|d| (d.name.replace('-', "_"), d.package.replace('-', "_")))
            .collect();
        Ok(Self {
            cfg: CfgEnv {
                features: Some(features),
            },
            schemars_features,
            json_preserves_order,
            renames,
            manifest: None,
            path_deps,
        })
    }

    /// The manifest of the crate `paths` (relative to `root`) belong to: the nearest
    /// Cargo.toml at or above the first of them.
    pub fn locate(root: &Path, paths: &[PathBuf]) -> Option<PathBuf> {
        let first = root.join(paths.first()?);
        first
            .ancestors()
            .map(|d| d.join("Cargo.toml"))
            .find(|p| p.is_file())
    }

    /// The crate whose manifest is the nearest Cargo.toml at or above the first of `paths`
    /// (relative to `root`), with `features` on; a crate without a manifest when there is none.
    pub fn of_sources(root: &Path, paths: &[PathBuf], features: &[String]) -> Result<Self> {
        match Self::locate(root, paths) {
            Some(manifest) => {
                let shown = manifest.strip_prefix(root).unwrap_or(&manifest);
                Self::read_shown(&manifest, shown, features)
            }
            None if features.is_empty() => Ok(Self::default()),
            None => bail!("--features needs a Cargo.toml, and none was found above the sources"),
        }
    }

    /// The crate of a project: its root's Cargo.toml with the default features, if any.
    pub fn of_project(root: &Path) -> Result<Self> {
        let manifest = root.join("Cargo.toml");
        if manifest.is_file() {
            Self::read_shown(&manifest, Path::new("Cargo.toml"), &[])
        } else {
            Ok(Self::default())
        }
    }

    /// The package a path's first segment names (`chrono04` → `chrono` when renamed).
    pub fn package_of<'s>(&'s self, krate: &'s str) -> &'s str {
        self.renames.get(krate).map_or(krate, String::as_str)
    }
}

/// Where cargo keeps the lock file of the package of `manifest`: beside it, or beside the
/// manifest of the workspace it belongs to (the nearest one above it with `[workspace]`).
fn lock_file(manifest: &Path, text: &str) -> Option<PathBuf> {
    let dir = manifest.parent()?;
    let root = workspace_root(manifest, text).map(|(root, _)| root);
    [root.as_deref(), Some(dir)]
        .into_iter()
        .flatten()
        .map(|d| d.join("Cargo.lock"))
        .find(|p| p.is_file())
}

/// The directory and manifest text of the workspace `manifest` (with `text`) belongs to:
/// itself when it has `[workspace]`, else the nearest such manifest above it.
fn workspace_root(manifest: &Path, text: &str) -> Option<(PathBuf, String)> {
    let is_workspace = |t: &str| t.lines().any(|l| l.trim() == "[workspace]");
    let dir = manifest.parent()?;
    if is_workspace(text) {
        return Some((dir.to_path_buf(), text.to_string()));
    }
    dir.ancestors().skip(1).find_map(|d| {
        let t = std::fs::read_to_string(d.join("Cargo.toml")).ok()?;
        is_workspace(&t).then(|| (d.to_path_buf(), t))
    })
}

/// One dependency: the name code uses, the package, the features it turns on.
struct Dep {
    name: String,
    package: String,
    optional: bool,
    features: Vec<String>,
    /// `path = ".."`, relative to the manifest.
    path: Option<String>,
    /// `workspace = true`: the rest is in `[workspace.dependencies]`.
    workspace: bool,
    default_features: bool,
    /// A build-dependency: its types never reach the crate's own.
    build: bool,
}

/// `[dependencies]`, `[build-dependencies]` and their `[target.'cfg'.*]` forms (dev
/// dependencies do not exist in a normal build).
fn dependencies(root: &toml_edit::Table) -> Vec<Dep> {
    let mut tables: Vec<(&dyn TableLike, bool)> = Vec::new();
    for key in ["dependencies", "build-dependencies"] {
        if let Some(t) = root.get(key).and_then(Item::as_table_like) {
            tables.push((t, key == "build-dependencies"));
        }
    }
    if let Some(targets) = root.get("target").and_then(Item::as_table_like) {
        for (_, target) in targets.iter() {
            for key in ["dependencies", "build-dependencies"] {
                if let Some(t) = target.get(key).and_then(Item::as_table_like) {
                    tables.push((t, key == "build-dependencies"));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (table, build) in tables {
        for (name, spec) in table.iter() {
            let detail = spec.as_table_like();
            let get = |k: &str| detail.and_then(|d| d.get(k));
            out.push(Dep {
                path: get("path").and_then(Item::as_str).map(str::to_string),
                workspace: get("workspace").and_then(Item::as_bool).unwrap_or(false),
                default_features: get("default-features")
                    .and_then(Item::as_bool)
                    .unwrap_or(true),
                build,
                name: name.to_string(),
                package: get("package")
                    .and_then(Item::as_str)
                    .unwrap_or(name)
                    .to_string(),
                optional: get("optional").and_then(Item::as_bool).unwrap_or(false),
                features: get("features")
                    .and_then(Item::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
            });
        }
    }
    out
}

/// Whether an enabled feature turns the optional dependency `name` on (`dep:name`,
/// `name/feat`).
fn enables(table: &BTreeMap<String, Vec<String>>, on: &BTreeSet<String>, name: &str) -> bool {
    on.iter().filter_map(|f| table.get(f)).flatten().any(|e| {
        e.strip_prefix("dep:") == Some(name) || e.split_once('/').is_some_and(|(d, _)| d == name)
    })
}

/// The `[workspace.dependencies]` given by `path` in the workspace `manifest` belongs to,
/// by the name code uses, to their manifests.
fn workspace_dependencies(manifest: &Path, text: &str) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let Some((root, text)) = workspace_root(manifest, text) else {
        return out;
    };
    let Ok(doc) = Document::parse(text.as_str()) else {
        return out;
    };
    let deps = doc
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(Item::as_table_like);
    for (name, spec) in deps.into_iter().flat_map(|t| t.iter()) {
        if let Some(path) = spec.get("path").and_then(Item::as_str) {
            let manifest = super::modules::normalize(&root.join(path).join("Cargo.toml"));
            out.insert(name.replace('-', "_"), manifest);
        }
    }
    out
}

fn features_table(root: &toml_edit::Table) -> Result<BTreeMap<String, Vec<String>>> {
    let mut out = BTreeMap::new();
    let Some(table) = root.get("features") else {
        return Ok(out);
    };
    let table = table
        .as_table_like()
        .context("[features] must be a table")?;
    for (name, list) in table.iter() {
        let list = list
            .as_array()
            .with_context(|| format!("feature `{name}` must be a list of strings"))?;
        out.insert(
            name.to_string(),
            list.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
        );
    }
    Ok(out)
}

/// Cargo's feature resolution for one package: `default` plus `requested`, closed over
/// what each enables. An optional dependency is a feature of its own name unless some
/// feature says `dep:<name>`; `dep/feat` turns that implicit feature on, `dep?/feat` does not.
fn enabled_features(
    table: &BTreeMap<String, Vec<String>>,
    deps: &[Dep],
    requested: &[String],
    default_features: bool,
) -> Result<BTreeSet<String>> {
    let explicit_dep = |name: &str| {
        table
            .values()
            .flatten()
            .any(|e| e.strip_prefix("dep:") == Some(name))
    };
    let implicit: BTreeSet<&str> = deps
        .iter()
        .filter(|d| d.optional && !explicit_dep(&d.name))
        .map(|d| d.name.as_str())
        .collect();
    let mut todo: Vec<String> = Vec::new();
    if default_features && table.contains_key("default") {
        todo.push("default".into());
    }
    for r in requested
        .iter()
        .flat_map(|r| r.split([',', ' ']))
        .filter(|r| !r.is_empty())
    {
        if !table.contains_key(r) && !implicit.contains(r) {
            bail!("the package has no feature `{r}` (asked for with --features)");
        }
        todo.push(r.to_string());
    }
    let mut on = BTreeSet::new();
    while let Some(f) = todo.pop() {
        if !on.insert(f.clone()) {
            continue;
        }
        for entry in table.get(&f).into_iter().flatten() {
            if entry.starts_with("dep:") {
                continue;
            }
            match entry.split_once('/') {
                Some((dep, _)) if !dep.ends_with('?') && implicit.contains(dep) => {
                    todo.push(dep.to_string())
                }
                Some(_) => {}
                None => todo.push(entry.clone()),
            }
        }
    }
    Ok(on)
}

/// The schemars features that the locked graph turns on: schemars 1.x's entry in
/// Cargo.lock lists the optional dependencies some crate enabled (cargo unifies features,
/// so one crate enabling `schemars/chrono04` gives every crate the impl).
fn locked_schemars_features(lock: &str) -> BTreeSet<String> {
    locked_dependencies(lock, "schemars", "1.")
        .filter_map(|(name, version)| schemars_feature_for(name, version))
        .map(str::to_string)
        .collect()
}

/// The dependencies (`name`, `version` when the lock gives one) that Cargo.lock records
/// for `package` at a version starting with `major`.
fn locked_dependencies<'l>(
    lock: &'l str,
    package: &'l str,
    major: &'l str,
) -> impl Iterator<Item = (&'l str, &'l str)> + 'l {
    let mut in_package = false;
    let mut in_deps = false;
    lock.lines().map(str::trim).filter_map(move |line| {
        if line == "[[package]]" {
            in_package = false;
            in_deps = false;
        } else if line.strip_prefix("name = ") == Some(&format!("\"{package}\"")) {
            in_package = true;
        } else if in_package && line.starts_with("version = ") {
            in_package = line.starts_with(&format!("version = \"{major}"));
        } else if in_package && line.starts_with("dependencies = [") {
            in_deps = true;
        } else if in_deps {
            if line.starts_with(']') {
                in_deps = false;
                return None;
            }
            let dep = line.trim_matches(|c| c == '"' || c == ',');
            return Some(dep.split_once(' ').unwrap_or((dep, "")));
        }
        None
    })
}

/// schemars 1's feature for an optional dependency, by package name (and version, for
/// `smol_str`, which has one feature per major version).
fn schemars_feature_for(package: &str, version: &str) -> Option<&'static str> {
    Some(match package {
        "arrayvec" => "arrayvec07",
        "bigdecimal" => "bigdecimal04",
        "bytes" => "bytes1",
        "chrono" => "chrono04",
        "either" => "either1",
        "indexmap" => "indexmap2",
        "jiff" => "jiff02",
        "rust_decimal" => "rust_decimal1",
        "semver" => "semver1",
        "smallvec" => "smallvec1",
        "smol_str" if version.starts_with("0.2") => "smol_str02",
        "smol_str" => "smol_str03",
        "url" => "url2",
        "uuid" => "uuid1",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(manifest: &str, requested: &[&str]) -> Vec<String> {
        let req: Vec<String> = requested.iter().map(|s| s.to_string()).collect();
        let k = Crate::parse(manifest, None, &req).unwrap();
        k.cfg.features.unwrap().into_iter().collect()
    }

    #[test]
    fn preserve_order_is_read_from_the_manifest_and_the_lock() {
        let on = |manifest: &str, lock: Option<&str>| {
            Crate::parse(manifest, lock, &[])
                .unwrap()
                .json_preserves_order
        };
        let plain = "[dependencies]\nserde_json = \"1\"\n";
        assert!(!on(plain, None));
        assert!(on(
            "[dependencies]\nserde_json = { version = \"1\", features = [\"preserve_order\"] }\n",
            None
        ));
        assert!(on(
            "[dependencies]\nschemars = { version = \"1\", features = [\"preserve_order\"] }\n",
            None
        ));
        let lock = |deps: &str| {
            format!(
                "[[package]]\nname = \"serde_json\"\nversion = \"1.0.140\"\ndependencies = [\n{deps}]\n\n[[package]]\nname = \"zmij\"\nversion = \"1.0.0\"\ndependencies = [\n \"indexmap\",\n]\n"
            )
        };
        assert!(on(plain, Some(&lock(" \"indexmap\",\n \"itoa\",\n"))));
        assert!(
            !on(plain, Some(&lock(" \"itoa\",\n"))),
            "another package's indexmap is not serde_json's"
        );
    }

    #[test]
    fn path_dependencies_are_found_beside_the_manifest_and_in_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |p: &str, text: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "Cargo.toml",
            "[workspace]\nmembers = [\"op\", \"api\", \"types\"]\n[workspace.dependencies]\napi-types = { path = \"types\" }\n",
        );
        write(
            "api/Cargo.toml",
            "[package]\nname = \"api\"\n[features]\ntls = []\n",
        );
        write("types/Cargo.toml", "[package]\nname = \"api-types\"\n");
        write(
            "op/Cargo.toml",
            "[package]\nname = \"op\"\n[dependencies]\napi = { path = \"../api\", default-features = false, features = [\"tls\"] }\napi-types = { workspace = true }\ngone = { path = \"../gone\" }\noff = { path = \"../api\", optional = true }\n[build-dependencies]\nbuilder = { path = \"../api\" }\n",
        );
        let krate = Crate::read(&root.join("op/Cargo.toml"), &[]).unwrap();
        let mut found: Vec<(String, PathBuf, Vec<String>, bool)> = krate
            .path_deps
            .into_iter()
            .map(|d| (d.name, d.manifest.unwrap(), d.features, d.default_features))
            .collect();
        found.sort();
        let api = root.join("api/Cargo.toml");
        assert_eq!(
            found,
            [
                ("api".into(), api, vec!["tls".into()], false),
                (
                    "api_types".into(),
                    root.join("types/Cargo.toml"),
                    vec![],
                    true
                ),
            ],
            "missing, optional and build dependencies are left out"
        );
        // A dependency without a `default` feature reads as cargo builds it.
        let types = Crate::read(&root.join("op/Cargo.toml"), &[])
            .unwrap()
            .path_deps;
        for dep in &types {
            let manifest = dep.manifest.as_ref().unwrap();
            assert!(Crate::read_dependency(dep, manifest).is_ok(), "{dep:?}");
        }
    }

    #[test]
    fn rsbuilder_iterates_schema_properties_in_key_order_as_kube_derive_does() {
        // kube's `validate_property(_, 0, _)` runs here on rsbuilder's serde_json: it must
        // see properties in the order a generated project's serde_json has them.
        let map: serde_json::Map<String, serde_json::Value> =
            [("b".to_string(), 1.into()), ("a".to_string(), 2.into())]
                .into_iter()
                .collect();
        assert_eq!(map.keys().next().map(String::as_str), Some("a"));
    }

    #[test]
    fn features_follow_cargo() {
        let m = r#"
[dependencies]
tracing = { version = "0.1", optional = true }
prom = { version = "1", optional = true, package = "prometheus-client" }
[features]
default = ["metrics"]
metrics = ["dep:prom", "extra"]
extra = ["tracing/std"]
other = []
"#;
        assert_eq!(
            features(m, &[]),
            ["default", "extra", "metrics", "tracing"],
            "`tracing/std` turns the implicit `tracing` feature on; `dep:prom` has none"
        );
        assert_eq!(
            features(m, &["other"]),
            ["default", "extra", "metrics", "other", "tracing"]
        );
        assert!(Crate::parse(m, None, &["nope".into()]).is_err());
        assert_eq!(
            features("[package]\nname = \"x\"\n", &[]),
            Vec::<String>::new()
        );
    }

    #[test]
    fn schemars_features_from_manifest_and_lock() {
        let m = r#"
[dependencies]
schemars = { version = "1", features = ["chrono04"] }
[features]
default = ["ids"]
ids = ["schemars/uuid1"]
urls = ["schemars/url2"]
"#;
        let lock = r#"
[[package]]
name = "schemars"
version = "0.8.22"
dependencies = [
 "url",
]

[[package]]
name = "schemars"
version = "1.2.3"
dependencies = [
 "dyn-clone",
 "semver",
 "smol_str 0.2.2",
]
"#;
        let k = Crate::parse(m, Some(lock), &[]).unwrap();
        let got: Vec<&str> = k.schemars_features.iter().map(String::as_str).collect();
        assert_eq!(got, ["chrono04", "semver1", "smol_str02", "uuid1"]);
    }

    #[test]
    fn renamed_dependencies() {
        let k = Crate::parse(
            "[dependencies]\nchrono04 = { version = \"0.4\", package = \"chrono\" }\n",
            None,
            &[],
        )
        .unwrap();
        assert_eq!(k.package_of("chrono04"), "chrono");
        assert_eq!(k.package_of("uuid"), "uuid");
    }
}
