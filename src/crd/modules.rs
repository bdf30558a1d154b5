//! Which of the given files rustc compiles, and as which module: the `mod x;`
//! declarations decide, as they do for rustc. A file declared by a `mod` whose `#[cfg]`
//! is false, or sitting beside its parent module without being declared by it, is not
//! part of the crate and is left out; `#[path = "..."]` puts a file wherever it says.
//! Files whose parent module is not among the sources keep the module their place under
//! `src/` gives them (`--paths src/api` reads a sub-tree of the crate).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use syn::ext::IdentExt;

use super::cfg::{self, CfgEnv, Pass};
use super::diagnostics::{Diagnostic, Unsupported};
use super::literals::lit_str;
use super::sources::ParsedFile;

/// A file's place in the crate after cfg-stripping.
pub struct Placed {
    pub files: Vec<ParsedFile>,
    /// Files whose declaring `mod` has a `#[cfg]` the source does not decide, by module.
    pub undecided: BTreeMap<Vec<String>, (PathBuf, Unsupported)>,
    pub warnings: Vec<Diagnostic>,
}

/// One `mod x;` without a body.
struct Decl {
    parent: usize,
    /// Inline modules between the file and the declaration.
    inline: Vec<String>,
    name: String,
    path_attr: Option<String>,
    /// `Some` when its `#[cfg]` is undecided.
    undecided: Option<Unsupported>,
    /// The `#[cfg]` removed it.
    removed: bool,
}

/// Runs the cfg pass on every file and gives each its module path; drops what rustc
/// would not compile.
pub fn place(mut files: Vec<ParsedFile>, env: &CfgEnv, base: &Path) -> Placed {
    let mut live = vec![true; files.len()];
    let mut decls = Vec::new();
    for (i, f) in files.iter_mut().enumerate() {
        let mut pass = Pass::new(env);
        live[i] = pass.file(&mut f.ast);
        for (inline, name) in pass.removed_mods {
            decls.push(Decl {
                parent: i,
                inline,
                name,
                path_attr: None,
                undecided: None,
                removed: true,
            });
        }
        collect_decls(i, &f.ast.items, &mut Vec::new(), env, &mut decls);
    }
    let by_path: BTreeMap<PathBuf, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (normalize(&f.path), i))
        .collect();
    // parent → declarations it makes, resolved to files among the sources.
    let mut children: BTreeMap<usize, Vec<(usize, &Decl)>> = BTreeMap::new();
    let mut declared = vec![false; files.len()];
    for d in &decls {
        let parent = &files[d.parent].path;
        if let Some(&child) = candidates(parent, d)
            .iter()
            .find_map(|c| by_path.get(&normalize(c)))
            && child != d.parent
        {
            declared[child] = true;
            children.entry(d.parent).or_default().push((child, d));
        }
    }
    let mut undecided = BTreeMap::new();
    let mut warnings = Vec::new();
    // Files nobody declares are roots: lib.rs, or the top of a `--paths` sub-tree.
    let mut modules: Vec<Option<Vec<String>>> = vec![None; files.len()];
    let mut queue = Vec::new();
    for i in 0..files.len() {
        if declared[i] {
            continue;
        }
        if let Some(parent) = natural_parent(&files[i].path, &by_path) {
            if live[parent] {
                warnings.push(Diagnostic {
                    path: files[i].path.clone(),
                    line: 0,
                    column: 0,
                    message: format!(
                        "warning: skipped: no `mod` item in {} declares this file, so rustc does not compile it",
                        files[parent].path.display()
                    ),
                });
            }
            live[i] = false;
            continue;
        }
        modules[i] = Some(module_path_for(&files[i].path, base));
        queue.push(i);
    }
    while let Some(parent) = queue.pop() {
        let Some(base_module) = modules[parent].clone() else {
            continue;
        };
        for (child, d) in children.get(&parent).into_iter().flatten() {
            if !live[parent] || d.removed {
                live[*child] = false;
                continue;
            }
            if modules[*child].is_some() {
                continue;
            }
            let module = [
                &base_module[..],
                &d.inline[..],
                std::slice::from_ref(&d.name),
            ]
            .concat();
            if let Some(u) = &d.undecided {
                undecided.insert(module.clone(), (files[parent].path.clone(), u.clone()));
            }
            if let Some((p, u)) = undecided
                .iter()
                .find(|(m, _)| module.starts_with(m) && **m != module)
                .map(|(_, v)| v.clone())
            {
                undecided.insert(module.clone(), (p, u));
            }
            modules[*child] = Some(module);
            queue.push(*child);
        }
    }
    // A file declared only from files that are not compiled is not compiled either.
    let files = files
        .into_iter()
        .zip(modules)
        .zip(live)
        .filter_map(|((mut f, m), live)| {
            let m = m.filter(|_| live)?;
            f.module = m;
            Some(f)
        })
        .collect();
    Placed {
        files,
        undecided,
        warnings,
    }
}

fn collect_decls(
    file: usize,
    items: &[syn::Item],
    inline: &mut Vec<String>,
    env: &CfgEnv,
    out: &mut Vec<Decl>,
) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        match &m.content {
            Some((_, inner)) => {
                inline.push(m.ident.unraw().to_string());
                collect_decls(file, inner, inline, env, out);
                inline.pop();
            }
            None => out.push(Decl {
                parent: file,
                inline: inline.clone(),
                name: m.ident.unraw().to_string(),
                path_attr: m
                    .attrs
                    .iter()
                    .filter(|a| a.path().is_ident("path"))
                    .find_map(|a| lit_str(&a.meta.require_name_value().ok()?.value).ok()),
                undecided: cfg::undecided(env, &m.attrs),
                removed: false,
            }),
        }
    }
}

/// Where rustc looks for the file of a `mod` declaration in `parent`.
fn candidates(parent: &Path, d: &Decl) -> Vec<PathBuf> {
    let dir = parent.parent().unwrap_or(Path::new(""));
    let mod_rs = is_mod_rs(parent);
    // Non-mod-rs files (`a.rs`) keep their child modules in `a/`.
    let own_dir = if mod_rs {
        dir.to_path_buf()
    } else {
        dir.join(parent.file_stem().unwrap_or_default())
    };
    let mut nested = own_dir.clone();
    for m in &d.inline {
        nested.push(m);
    }
    match &d.path_attr {
        // Outside inline modules, `#[path]` is relative to the declaring file's directory.
        Some(p) if d.inline.is_empty() => vec![dir.join(p)],
        Some(p) => vec![nested.join(p)],
        None => vec![
            nested.join(format!("{}.rs", d.name)),
            nested.join(&d.name).join("mod.rs"),
        ],
    }
}

/// `mod.rs`, and crate roots (`src/lib.rs`, `src/main.rs`, `src/bin/x.rs`), own their directory.
fn is_mod_rs(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = path
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|d| d.to_str());
    name == "mod.rs"
        || ((name == "lib.rs" || name == "main.rs") && dir == Some("src"))
        || dir == Some("bin")
}

/// The file that would declare `path` by the default rules, if it is among the sources.
fn natural_parent(path: &Path, by_path: &BTreeMap<PathBuf, usize>) -> Option<usize> {
    if is_crate_root(path) {
        return None;
    }
    let dir = path.parent()?;
    // `d/x.rs` belongs to the module of `d/`; `d/mod.rs` *is* that module, and belongs to
    // the module of the directory above.
    let module_dir = if path.file_name()? == "mod.rs" {
        dir.parent()?
    } else {
        dir
    };
    module_files(module_dir)
        .iter()
        .find_map(|p| by_path.get(&normalize(p)).copied())
}

/// The files that can hold the module whose children live in `dir`.
fn module_files(dir: &Path) -> Vec<PathBuf> {
    match dir.file_name() {
        Some(n) if n == "src" => vec![dir.join("lib.rs"), dir.join("main.rs")],
        Some(n) => vec![
            dir.join("mod.rs"),
            dir.parent()
                .unwrap_or(Path::new(""))
                .join(format!("{}.rs", n.to_string_lossy())),
        ],
        None => Vec::new(),
    }
}

fn is_crate_root(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = path
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|d| d.to_str());
    ((name == "lib.rs" || name == "main.rs") && dir == Some("src")) || dir == Some("bin")
}

/// `a/./b/../c` → `a/c`, without touching the disk.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The module path of a source file: the components after the last `src/` (or after
/// `base`, the common directory of all sources, when there is no `src/`), without `.rs`
/// and without a trailing `mod`/`lib`/`main`.
pub fn module_path_for(path: &Path, base: &Path) -> Vec<String> {
    let comps: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    let mut rel: Vec<String> = match comps.iter().rposition(|c| c == "src") {
        Some(i) => comps[i + 1..].to_vec(),
        None => path
            .strip_prefix(base)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect(),
    };
    if let Some(last) = rel.last_mut()
        && let Some(stem) = last.strip_suffix(".rs")
    {
        *last = stem.to_string();
    }
    if rel
        .last()
        .is_some_and(|l| l == "mod" || ((l == "lib" || l == "main") && rel.len() == 1))
    {
        rel.pop();
    }
    rel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths() {
        let base = Path::new("/x");
        assert_eq!(
            module_path_for(Path::new("/p/src/api/v1/foo.rs"), base),
            ["api", "v1", "foo"]
        );
        assert_eq!(
            module_path_for(Path::new("/p/src/api/mod.rs"), base),
            ["api"]
        );
        assert_eq!(
            module_path_for(Path::new("/p/src/lib.rs"), base),
            Vec::<String>::new()
        );
        assert_eq!(module_path_for(Path::new("/x/a/b.rs"), base), ["a", "b"]);
    }

    fn parsed(files: &[(&str, &str)]) -> Vec<ParsedFile> {
        files
            .iter()
            .map(|(p, t)| ParsedFile {
                path: PathBuf::from(p),
                ast: crate::syntax::parse_file(t).unwrap(),
                module: Vec::new(),
            })
            .collect()
    }

    fn modules(files: &[(&str, &str)], features: &[&str]) -> (Vec<(String, String)>, usize) {
        let env = CfgEnv {
            features: Some(features.iter().map(|s| s.to_string()).collect()),
        };
        let placed = place(parsed(files), &env, Path::new(""));
        let out = placed
            .files
            .iter()
            .map(|f| (f.path.display().to_string(), f.module.join("::")))
            .collect();
        (out, placed.warnings.len())
    }

    #[test]
    fn declarations_decide_modules() {
        let (got, warnings) = modules(
            &[
                (
                    "src/lib.rs",
                    "mod api; #[cfg(test)] mod tests; #[cfg(feature = \"x\")] mod extra; #[path = \"gen/types.rs\"] mod types;",
                ),
                ("src/api/mod.rs", "pub mod v1;"),
                ("src/api/v1.rs", ""),
                ("src/api/old.rs", ""),
                ("src/tests.rs", ""),
                ("src/extra.rs", ""),
                ("src/gen/types.rs", "mod inner;"),
                ("src/gen/types/inner.rs", ""),
            ],
            &["x"],
        );
        assert_eq!(
            got,
            [
                ("src/lib.rs".to_string(), String::new()),
                ("src/api/mod.rs".into(), "api".into()),
                ("src/api/v1.rs".into(), "api::v1".into()),
                ("src/extra.rs".into(), "extra".into()),
                ("src/gen/types.rs".into(), "types".into()),
                ("src/gen/types/inner.rs".into(), "types::inner".into()),
            ]
        );
        assert_eq!(
            warnings, 1,
            "src/api/old.rs is not declared by src/api/mod.rs"
        );
    }

    #[test]
    fn a_sub_tree_keeps_its_place() {
        let (got, _) = modules(
            &[("src/api/v1/thing.rs", ""), ("src/api/shared.rs", "")],
            &[],
        );
        assert_eq!(
            got,
            [
                (
                    "src/api/v1/thing.rs".to_string(),
                    "api::v1::thing".to_string()
                ),
                ("src/api/shared.rs".into(), "api::shared".into()),
            ]
        );
    }
}
