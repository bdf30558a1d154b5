//! Generates `$OUT_DIR/cases.rs`: the table of every `#[derive(CustomResource)]` root type
//! per parity case, and the modules that hold them. Two kinds of case:
//!
//! - a case with only `src/`: its `src/**/*.rs` files are mounted here as modules with
//!   `#[path]` (so the oracle compiles exactly the bytes rsbuilder reads);
//! - a case with a `Cargo.toml` is a crate of its own (features, `crate::` paths, `#[path]`
//!   modules, feature crates): the oracle depends on it by path (listed in the oracle's
//!   Cargo.toml, with the `--features` the case asks for) and names its roots through it.
//!
//! A root under `#[cfg]` (on its struct, its inline modules or the `mod` items that
//! declare its file) is listed under the same `#[cfg]`, so rustc decides whether it
//! exists. A crate case's `feature = "x"` is rewritten to `crd_case_<case>_feature = "x"`,
//! set from the features cargo enabled on that crate (its build script, the shared
//! `case_build.rs`, reports them through `links` metadata).
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

/// A root type: its module path, its name, and the `#[cfg]` predicates it exists under.
struct Root {
    path: Vec<String>,
    name: String,
    guards: Vec<String>,
}

fn main() {
    // Read at run time, and watched: cargo reuses this script's output from a target
    // directory shared by checkouts at other paths, whose cases it would mount instead.
    println!("cargo:rerun-if-env-changed=RSBUILDER_CRD_CASES");
    let cases_dir = match std::env::var_os("RSBUILDER_CRD_CASES") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it");
            Path::new(&manifest)
                .parent()
                .expect("oracle lives in testdata/crds")
                .to_path_buf()
        }
    };
    println!("cargo:rerun-if-changed={}", cases_dir.display());
    println!("cargo:rustc-env=RSBUILDER_CRD_CASES_DIR={}", cases_dir.display());

    let mut out = String::new();
    let mut table = String::from(
        "pub fn all() -> Vec<(&'static str, Vec<Result<Crd, String>>)> {\n    let mut all = Vec::new();\n",
    );
    // `refused/<shape>` holds shapes rsbuilder refuses: what kube-derive does with them
    // (writes a CRD, or panics) is what the API server is shown.
    let refused = cases_dir.join("refused");
    let cases = sorted_dir(&cases_dir)
        .into_iter()
        .chain(if refused.is_dir() { sorted_dir(&refused) } else { Vec::new() });
    for case in cases {
        let src = case.join("src");
        if !src.is_dir() || case.ends_with("oracle") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", src.display());
        let name = case.strip_prefix(&cases_dir).unwrap().to_string_lossy().to_string();
        let ident = name.replace(['-', '/'], "_");
        let mut roots = Vec::new();
        let prefix = if case.join("Cargo.toml").is_file() {
            let feature_cfg = format!("crd_case_{ident}_feature");
            let links = format!("DEP_CRD_CASE_{}_FEATURES", ident.to_uppercase());
            let features = std::env::var(&links).unwrap_or_else(|_| {
                panic!(
                    "case {name} has a Cargo.toml: add `crd-case-{name} = {{ path = \"../{name}\" }}` \
                     to the oracle's [dependencies] (and `links = \"crd_case_{ident}\"`, \
                     `build = \"../oracle/case_build.rs\"` to its [package])"
                )
            });
            println!("cargo::rustc-check-cfg=cfg({feature_cfg}, values(any()))");
            for f in features.split(',').filter(|f| !f.is_empty()) {
                println!("cargo::rustc-cfg={feature_cfg}=\"{f}\"");
            }
            let lib = src.join("lib.rs");
            walk_crate(&lib, &mut Vec::new(), &[], &feature_cfg, &mut roots);
            format!("::crd_case_{ident}")
        } else {
            let module = format!("case_{ident}");
            let mut tree = ModTree::default();
            collect(&src, &mut tree, &mut Vec::new(), &mut roots);
            writeln!(out, "#[allow(dead_code, clippy::all)]\npub mod {module} {{").unwrap();
            render(&tree, &mut out);
            out.push_str("}\n");
            module
        };
        writeln!(table, "    {{\n        let mut crds = Vec::new();").unwrap();
        for root in &roots {
            let path = if root.path.is_empty() {
                String::new()
            } else {
                format!("{}::", root.path.join("::"))
            };
            if !root.guards.is_empty() {
                writeln!(table, "        #[cfg(all({}))]", root.guards.join(", ")).unwrap();
            }
            writeln!(
                table,
                "        crds.push(crd_of(<{prefix}::{path}{} as kube::CustomResourceExt>::crd));",
                root.name
            )
            .unwrap();
        }
        writeln!(table, "        all.push(({name:?}, crds));\n    }}").unwrap();
    }
    table.push_str("    all\n}\n");
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

fn parse(file: &Path) -> syn::File {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

fn collect(dir: &Path, tree: &mut ModTree, path: &mut Vec<String>, roots: &mut Vec<Root>) {
    for entry in sorted_dir(dir) {
        let stem = entry.file_stem().unwrap().to_string_lossy().to_string();
        if entry.is_dir() {
            path.push(stem.clone());
            collect(&entry, tree.dirs.entry(stem).or_default(), path, roots);
            path.pop();
        } else if entry.extension().is_some_and(|e| e == "rs") {
            let file = parse(&entry);
            path.push(stem.clone());
            let guards = guards(&file.attrs, None, "");
            find_roots(&file.items, path, &guards, "", roots);
            path.pop();
            tree.files.insert(stem, entry);
        }
    }
}

/// A crate case: follows `mod` declarations from `file` the way rustc does.
fn walk_crate(
    file: &Path,
    path: &mut Vec<String>,
    outer: &[String],
    feature_cfg: &str,
    roots: &mut Vec<Root>,
) {
    let ast = parse(file);
    let mut guards = outer.to_vec();
    guards.extend(self::guards(&ast.attrs, None, feature_cfg));
    find_roots(&ast.items, path, &guards, feature_cfg, roots);
    let name = file.file_name().unwrap().to_string_lossy();
    let dir = file.parent().unwrap();
    let own_dir = if name == "lib.rs" || name == "mod.rs" {
        dir.to_path_buf()
    } else {
        dir.join(file.file_stem().unwrap())
    };
    for item in &ast.items {
        let syn::Item::Mod(m) = item else { continue };
        if m.content.is_some() {
            continue; // inline: `find_roots` went in
        }
        let child = m.ident.to_string();
        let path_attr = m.attrs.iter().find(|a| a.path().is_ident("path")).map(|a| {
            match &a.meta.require_name_value().unwrap().value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => s.value(),
                _ => panic!("#[path] must be a string"),
            }
        });
        let target = match path_attr {
            Some(p) => dir.join(p),
            None if own_dir.join(format!("{child}.rs")).is_file() => {
                own_dir.join(format!("{child}.rs"))
            }
            None => own_dir.join(&child).join("mod.rs"),
        };
        let mut inner = guards.clone();
        inner.extend(self::guards(&m.attrs, None, feature_cfg));
        if !target.is_file() {
            // Only allowed when the `mod` is configured out; rustc says otherwise.
            continue;
        }
        path.push(child);
        walk_crate(&target, path, &inner, feature_cfg, roots);
        path.pop();
    }
}

/// Every `#[derive(CustomResource)]` struct, including those in inline modules.
fn find_roots(
    items: &[syn::Item],
    path: &mut Vec<String>,
    outer: &[String],
    feature_cfg: &str,
    roots: &mut Vec<Root>,
) {
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                if let Some(root) = custom_resource_root(&s.attrs) {
                    let mut g = outer.to_vec();
                    g.extend(guards(&s.attrs, None, feature_cfg));
                    roots.push(Root {
                        path: path.clone(),
                        name: root,
                        guards: g,
                    });
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    let mut g = outer.to_vec();
                    g.extend(guards(&m.attrs, None, feature_cfg));
                    path.push(m.ident.to_string());
                    find_roots(inner, path, &g, feature_cfg, roots);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

/// The `#[cfg]` predicates of `attrs` (a `#[cfg_attr(p, cfg(q))]` gives `any(not(p), q)`),
/// with `feature` rewritten to `feature_cfg` when given.
fn guards(attrs: &[syn::Attribute], under: Option<String>, feature_cfg: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in attrs {
        if attr.path().is_ident("cfg") {
            let pred: syn::Meta = attr.parse_args().expect("cfg predicate");
            let p = predicate(&pred, feature_cfg);
            out.push(match &under {
                Some(c) => format!("any(not({c}), {p})"),
                None => p,
            });
        } else if attr.path().is_ident("cfg_attr") {
            let (cond, inner) = attr
                .parse_args_with(|input: syn::parse::ParseStream<'_>| {
                    let cond: syn::Meta = input.parse()?;
                    input.parse::<syn::Token![,]>()?;
                    let rest =
                        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated(
                            input,
                        )?;
                    Ok((cond, rest))
                })
                .expect("cfg_attr");
            let cond = predicate(&cond, feature_cfg);
            let cond = match &under {
                Some(c) => format!("all({c}, {cond})"),
                None => cond,
            };
            let inner: Vec<syn::Attribute> = inner
                .into_iter()
                .map(|meta| syn::Attribute {
                    meta,
                    ..attr.clone()
                })
                .collect();
            out.extend(guards(&inner, Some(cond), feature_cfg));
        }
    }
    out
}

fn predicate(meta: &syn::Meta, feature_cfg: &str) -> String {
    match meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("feature") && !feature_cfg.is_empty() => {
            let value = quote::ToTokens::to_token_stream(&nv.value).to_string();
            format!("{feature_cfg} = {value}")
        }
        syn::Meta::List(list) => {
            let inner = list
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .expect("cfg list");
            let parts: Vec<String> = inner.iter().map(|m| predicate(m, feature_cfg)).collect();
            format!(
                "{}({})",
                quote::ToTokens::to_token_stream(&list.path),
                parts.join(", ")
            )
        }
        other => quote::ToTokens::to_token_stream(other).to_string(),
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
