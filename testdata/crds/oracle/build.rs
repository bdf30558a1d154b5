//! Generates `$OUT_DIR/cases.rs`: one module per parity case, mounting the case's
//! `src/**/*.rs` files with `#[path]` (so the oracle compiles exactly the bytes rsbuilder
//! reads), plus a table of every `#[derive(CustomResource)]` root type per case.
//!
//! Only the struct's `kind`/`root` are read here; everything the CRD contains comes from
//! kube-derive at run time.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Default)]
struct ModTree {
    files: BTreeMap<String, PathBuf>,
    dirs: BTreeMap<String, ModTree>,
}

fn main() {
    let cases_dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("oracle lives in testdata/crds")
        .to_path_buf();
    println!("cargo:rerun-if-changed={}", cases_dir.display());

    let mut out = String::new();
    let mut table = String::from("pub fn all() -> Vec<(&'static str, Vec<Crd>)> {\n    vec![\n");
    for case in sorted_dir(&cases_dir) {
        let src = case.join("src");
        if !src.is_dir() || case.ends_with("oracle") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", src.display());
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let module = format!("case_{}", name.replace('-', "_"));
        let mut tree = ModTree::default();
        let mut roots = Vec::new();
        collect(&src, &mut tree, &mut Vec::new(), &mut roots);
        writeln!(out, "#[allow(dead_code, clippy::all)]\npub mod {module} {{").unwrap();
        render(&tree, &mut out);
        out.push_str("}\n");
        let crds: Vec<String> = roots
            .iter()
            .map(|(path, root)| {
                let path = if path.is_empty() {
                    String::new()
                } else {
                    format!("{}::", path.join("::"))
                };
                format!("<{module}::{path}{root} as kube::CustomResourceExt>::crd()")
            })
            .collect();
        writeln!(table, "        ({name:?}, vec![{}]),", crds.join(", ")).unwrap();
    }
    table.push_str("    ]\n}\n");
    out.push_str(&table);
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("cases.rs");
    std::fs::write(dest, out).unwrap();
}

fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    entries
}

fn collect(
    dir: &Path,
    tree: &mut ModTree,
    path: &mut Vec<String>,
    roots: &mut Vec<(Vec<String>, String)>,
) {
    for entry in sorted_dir(dir) {
        let stem = entry.file_stem().unwrap().to_string_lossy().to_string();
        if entry.is_dir() {
            path.push(stem.clone());
            collect(&entry, tree.dirs.entry(stem).or_default(), path, roots);
            path.pop();
        } else if entry.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&entry).unwrap();
            let file =
                syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
            path.push(stem.clone());
            find_roots(&file.items, path, roots);
            path.pop();
            tree.files.insert(stem, entry);
        }
    }
}

/// Every `#[derive(CustomResource)]` struct, including those in inline modules.
fn find_roots(items: &[syn::Item], path: &mut Vec<String>, roots: &mut Vec<(Vec<String>, String)>) {
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                if let Some(root) = custom_resource_root(&s.attrs) {
                    roots.push((path.clone(), root));
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    path.push(m.ident.to_string());
                    find_roots(inner, path, roots);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

/// `root = "..."` if given, else `kind = "..."`, for a struct deriving `CustomResource`.
fn custom_resource_root(attrs: &[syn::Attribute]) -> Option<String> {
    let derives = attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|m| {
                found |= m
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "CustomResource");
                Ok(())
            });
            found
        });
    if !derives {
        return None;
    }
    let (mut kind, mut root) = (None, None);
    for attr in attrs.iter().filter(|a| a.path().is_ident("kube")) {
        let _ = attr.parse_nested_meta(|m| {
            if m.path.is_ident("kind") || m.path.is_ident("root") {
                let is_kind = m.path.is_ident("kind");
                let lit: syn::LitStr = m.value()?.parse()?;
                if is_kind {
                    kind = Some(lit.value())
                } else {
                    root = Some(lit.value())
                }
            } else if m.input.peek(syn::Token![=]) {
                let _: syn::Expr = m.value()?.parse()?;
            } else if m.input.peek(syn::token::Paren) {
                let _ = m.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        let _: syn::Expr = inner.value()?.parse()?;
                    }
                    Ok(())
                });
            }
            Ok(())
        });
    }
    root.or(kind)
}

fn render(tree: &ModTree, out: &mut String) {
    for (name, file) in &tree.files {
        writeln!(
            out,
            "#[path = {:?}]\npub mod {name};",
            file.display().to_string()
        )
        .unwrap();
    }
    for (name, sub) in &tree.dirs {
        writeln!(out, "pub mod {name} {{").unwrap();
        render(sub, out);
        out.push_str("}\n");
    }
}
