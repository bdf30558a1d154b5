//! The shape of rsbuilder's own code, read from `src/`: which file uses which, the import
//! cycles between files, the arrows that run against the layers ARCHITECTURE.md names (and
//! against the order of `crd`'s stages), and the long functions and files.
//! `cargo test --test architecture -- --nocapture` prints the counts; the other tests hold
//! the rules: no cycle, no arrow up a layer or back a stage, no function of `src/commands/`
//! over 80 lines, no file over 600 lines without a reason in its first comment.
//!
//! A file uses another when one of its paths (in a `use` or in code) names an item the other
//! defines; a path through a re-export counts for the file that defines the item. Code
//! under `#[cfg(test)]` is left out: tests may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

/// A module path below `crate`, e.g. `["crd", "model"]`.
type ModPath = Vec<String>;

struct Source {
    path: PathBuf,
    module: ModPath,
    ast: syn::File,
    lines: usize,
}

/// What a file declares at its top level: the names it defines, the names its `use` items
/// bind (to absolute paths), and the modules it glob-imports.
#[derive(Default)]
struct Scope {
    defines: BTreeSet<String>,
    binds: BTreeMap<String, ModPath>,
    globs: Vec<ModPath>,
}

struct Crate {
    sources: Vec<Source>,
    by_module: BTreeMap<ModPath, usize>,
    scopes: Vec<Scope>,
    /// `#[macro_export]` macros live at the crate's root but are defined in their file.
    exported_macros: BTreeMap<String, usize>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string() == "test")
    })
}

fn module_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: ModPath = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

impl Crate {
    fn read() -> Crate {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        let sources: Vec<Source> = files
            .into_iter()
            .filter(|f| !f.ends_with("main.rs"))
            .map(|path| {
                let text = std::fs::read_to_string(&path).unwrap();
                let ast = rsbuilder::syntax::parse_file(&text)
                    .unwrap_or_else(|e| panic!("{path:?}: {e}"));
                Source {
                    module: module_of(&src, &path),
                    lines: text.lines().count(),
                    ast,
                    path,
                }
            })
            .collect();
        let by_module = sources
            .iter()
            .enumerate()
            .map(|(i, s)| (s.module.clone(), i))
            .collect();
        let mut krate = Crate {
            sources,
            by_module,
            scopes: Vec::new(),
            exported_macros: BTreeMap::new(),
        };
        for (file, source) in krate.sources.iter().enumerate() {
            for item in &source.ast.items {
                if let syn::Item::Macro(m) = item
                    && let Some(ident) = &m.ident
                    && m.attrs.iter().any(|a| a.path().is_ident("macro_export"))
                {
                    krate.exported_macros.insert(ident.to_string(), file);
                }
            }
        }
        krate.scopes = (0..krate.sources.len()).map(|i| krate.scope(i)).collect();
        krate
    }

    fn scope(&self, file: usize) -> Scope {
        let source = &self.sources[file];
        let mut scope = Scope::default();
        for item in &source.ast.items {
            let (ident, attrs) = match item {
                syn::Item::Use(u) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, Vec::new(), &mut leaves);
                    for (path, alias) in leaves {
                        let Some(abs) = self.absolute(&source.module, &path, None) else {
                            continue;
                        };
                        match alias {
                            Some(name) => {
                                scope.binds.insert(name, abs);
                            }
                            None => scope.globs.push(abs),
                        }
                    }
                    continue;
                }
                syn::Item::Fn(f) => (Some(f.sig.ident.clone()), &f.attrs),
                syn::Item::Struct(s) => (Some(s.ident.clone()), &s.attrs),
                syn::Item::Enum(e) => (Some(e.ident.clone()), &e.attrs),
                syn::Item::Trait(t) => (Some(t.ident.clone()), &t.attrs),
                syn::Item::Type(t) => (Some(t.ident.clone()), &t.attrs),
                syn::Item::Const(c) => (Some(c.ident.clone()), &c.attrs),
                syn::Item::Static(s) => (Some(s.ident.clone()), &s.attrs),
                syn::Item::Union(u) => (Some(u.ident.clone()), &u.attrs),
                syn::Item::Macro(m) => (m.ident.clone(), &m.attrs),
                syn::Item::Mod(m) if m.content.is_some() => (Some(m.ident.clone()), &m.attrs),
                _ => continue,
            };
            if let Some(ident) = ident
                && !is_cfg_test(attrs)
            {
                scope.defines.insert(ident.to_string());
            }
        }
        scope
    }

    /// The absolute module path a path written in `module` names, or `None` for a path
    /// outside the crate. `scope` resolves a first segment bound by a `use`.
    fn absolute(
        &self,
        module: &ModPath,
        path: &[String],
        scope: Option<&Scope>,
    ) -> Option<ModPath> {
        let (first, rest) = path.split_first()?;
        let mut abs = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.clone(),
            "super" => {
                let mut m = module.clone();
                let mut rest = rest;
                m.pop()?;
                while let Some(("super", tail)) = rest.split_first().map(|(h, t)| (h.as_str(), t)) {
                    m.pop()?;
                    rest = tail;
                }
                m.extend(rest.iter().cloned());
                return Some(m);
            }
            name => {
                if let Some(bound) = scope.and_then(|s| s.binds.get(name)) {
                    bound.clone()
                } else {
                    let mut child = module.clone();
                    child.push(name.to_owned());
                    if !self.by_module.contains_key(&child) {
                        return None;
                    }
                    child
                }
            }
        };
        abs.extend(rest.iter().cloned());
        Some(abs)
    }

    /// The file that defines what an absolute path names, following re-exports.
    fn defining_file(&self, abs: &ModPath, depth: usize) -> Option<usize> {
        let split = (0..=abs.len())
            .rev()
            .find(|&n| self.by_module.contains_key(&abs[..n]))?;
        let file = self.by_module[&abs[..split]];
        let Some(item) = abs.get(split) else {
            return None; // the module itself, not an item in it
        };
        if depth > 8 {
            return Some(file);
        }
        if split == 0
            && let Some(&file) = self.exported_macros.get(item)
        {
            return Some(file);
        }
        let scope = &self.scopes[file];
        if scope.defines.contains(item) {
            return Some(file);
        }
        if let Some(target) = scope.binds.get(item) {
            let mut target = target.clone();
            target.extend(abs[split + 1..].iter().cloned());
            return self.defining_file(&target, depth + 1).or(Some(file));
        }
        for glob in &scope.globs {
            let mut target = glob.clone();
            target.extend(abs[split..].iter().cloned());
            if let Some(found) = self.defining_file(&target, depth + 1)
                && self.scopes[found].defines.contains(item)
            {
                return Some(found);
            }
        }
        Some(file)
    }

    /// Each file's uses of other files.
    fn edges(&self) -> BTreeMap<usize, BTreeSet<usize>> {
        let mut edges = BTreeMap::new();
        for (file, source) in self.sources.iter().enumerate() {
            let mut paths = Paths {
                module: source.module.clone(),
                found: Vec::new(),
            };
            paths.visit_file(&source.ast);
            let targets: BTreeSet<usize> = paths
                .found
                .iter()
                .filter_map(|(module, path)| {
                    let abs = self.absolute(module, path, Some(&self.scopes[file]))?;
                    self.defining_file(&abs, 0)
                })
                .filter(|&t| t != file)
                .collect();
            edges.insert(file, targets);
        }
        edges
    }

    fn name(&self, file: usize) -> String {
        let path = &self.sources[file].path;
        let src = Path::new(env!("CARGO_MANIFEST_DIR"));
        path.strip_prefix(src).unwrap().display().to_string()
    }

    /// The layer a file belongs to: the first entry of [`LAYERS`] whose prefix its module
    /// path starts with.
    fn layer(&self, file: usize) -> usize {
        self.rank(LAYERS, file)
            .unwrap_or_else(|| panic!("{} is in no layer of LAYERS", self.name(file)))
    }

    /// The first entry of `table` that holds the file's module, or a module above it.
    fn rank(&self, table: &[&[&str]], file: usize) -> Option<usize> {
        let module = self.sources[file].module.join("::");
        table.iter().position(|entry| {
            entry
                .iter()
                .any(|prefix| module == *prefix || module.starts_with(&format!("{prefix}::")))
        })
    }
}

fn use_leaves(
    tree: &syn::UseTree,
    prefix: Vec<String>,
    into: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let with = |name: &syn::Ident| {
        let mut p = prefix.clone();
        p.push(name.to_string());
        p
    };
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, with(&p.ident), into),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let name = prefix.last().cloned();
            into.push((prefix, name));
        }
        syn::UseTree::Name(n) => into.push((with(&n.ident), Some(n.ident.to_string()))),
        syn::UseTree::Rename(r) => into.push((with(&r.ident), Some(r.rename.to_string()))),
        syn::UseTree::Glob(_) => into.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix.clone(), into);
            }
        }
    }
}

/// Every path a file writes, with the module (inline ones included) it is written in.
struct Paths {
    module: ModPath,
    found: Vec<(ModPath, Vec<String>)>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_cfg_test(&m.attrs) || m.content.is_none() {
            return;
        }
        self.module.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.module.pop();
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !is_cfg_test(&i.attrs) {
            syn::visit::visit_item_impl(self, i);
        }
    }
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if is_cfg_test(&u.attrs) {
            return;
        }
        let mut leaves = Vec::new();
        use_leaves(&u.tree, Vec::new(), &mut leaves);
        for (mut path, alias) in leaves {
            if alias.is_none() {
                path.push("*".into()); // a glob depends on the module's items
            }
            self.found.push((self.module.clone(), path));
        }
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            self.found.push((self.module.clone(), segments));
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `crate::outln!` and friends: the macro's own path.
        self.visit_path(&m.path);
    }
}

/// The layers of ARCHITECTURE.md, top first: a file may use files of its own layer and of
/// the layers below it, never above.
const LAYERS: &[&[&str]] = &[
    &["", "cli"],
    &["commands"],
    &[
        "lint",
        "crd",
        "helm",
        "webhook",
        "external::crd_file",
        "typegen",
        "rbac",
        "envtest",
        "runtime_crate",
        "lockfile",
    ],
    &[
        "context",
        "scaffold",
        "project",
        "external",
        "builtin_kinds",
        "names",
        "lock",
        "syntax",
        "yaml",
        "errors",
        "console",
        "diagnostic",
    ],
];

/// The stages of `src/crd/` in ARCHITECTURE.md, last first: a file of the pipeline uses
/// files of its own stage and of the stages after it in this list (before it in the
/// pipeline), never the other way. `crd/mod.rs`, the entry, is the top.
const CRD_STAGES: &[&[&str]] = &[
    &["crd::emit"],
    &["crd::structural", "crd::name_clashes"],
    &["crd::assemble"],
    &["crd::resource", "crd::locate"],
    &["crd::structural_rewrite", "crd::transforms"],
    &["crd::builder", "crd::defaults", "crd::schema"],
    &[
        "crd::typeops",
        "crd::std_types",
        "crd::k8s_types",
        "crd::consts",
        "crd::resolve",
    ],
    &["crd::attrs", "crd::model", "crd::hidden"],
    &[
        "crd::sources",
        "crd::cfg",
        "crd::modules",
        "crd::krate",
        "crd::deps",
    ],
    &[
        "crd::diagnostics",
        "crd::literals",
        "crd::sealed",
        "crd::k8s_list",
    ],
];

/// Strongly connected components with more than one file (Tarjan).
fn cycles(nodes: usize, edges: &BTreeMap<usize, BTreeSet<usize>>) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, BTreeSet<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn connect(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges.get(&v).into_iter().flatten() {
            match s.index[w] {
                None => {
                    connect(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: vec![None; nodes],
        low: vec![0; nodes],
        on_stack: vec![false; nodes],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..nodes {
        if s.index[v].is_none() {
            connect(&mut s, v);
        }
    }
    s.out
}

/// Functions (methods included) and their length in lines, outside `#[cfg(test)]`.
struct Functions {
    file: usize,
    found: Vec<(usize, String, usize)>,
}

impl Functions {
    fn record(&mut self, name: &syn::Ident, span: proc_macro2::Span) {
        let lines = span.end().line - span.start().line + 1;
        self.found.push((
            self.file,
            format!("{name} (line {})", span.start().line),
            lines,
        ));
    }
}

impl<'ast> Visit<'ast> for Functions {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_cfg_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            self.record(&f.sig.ident, f.span());
            syn::visit::visit_item_fn(self, f);
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.record(&f.sig.ident, f.span());
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if f.default.is_some() {
            self.record(&f.sig.ident, f.span());
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn functions(krate: &Crate) -> Vec<(usize, String, usize)> {
    let mut all = Vec::new();
    for (file, source) in krate.sources.iter().enumerate() {
        let mut v = Functions {
            file,
            found: Vec::new(),
        };
        v.visit_file(&source.ast);
        all.extend(v.found);
    }
    all
}

/// Arrows from a file to a file of a higher layer.
fn upward(krate: &Crate, edges: &BTreeMap<usize, BTreeSet<usize>>) -> Vec<(usize, usize)> {
    edges
        .iter()
        .flat_map(|(&from, to)| to.iter().map(move |&to| (from, to)))
        .filter(|&(from, to)| krate.layer(to) < krate.layer(from))
        .collect()
}

#[test]
fn counts() {
    let krate = Crate::read();
    let edges = krate.edges();
    let cycles = cycles(krate.sources.len(), &edges);
    println!("files: {}", krate.sources.len());
    println!("import cycles between files: {}", cycles.len());
    for c in &cycles {
        let names: Vec<String> = c.iter().map(|&f| krate.name(f)).collect();
        println!("  {}", names.join(" "));
    }
    let up = upward(&krate, &edges);
    println!("arrows up a layer: {}", up.len());
    for (from, to) in &up {
        println!("  {} -> {}", krate.name(*from), krate.name(*to));
    }
    let fns = functions(&krate);
    let long: Vec<_> = fns.iter().filter(|f| f.2 > 100).collect();
    println!("functions over 100 lines: {}", long.len());
    for (file, name, lines) in &long {
        println!("  {lines:4} {} {name}", krate.name(*file));
    }
    let commands_long: Vec<_> = fns
        .iter()
        .filter(|f| {
            f.2 > COMMAND_FN_LINES
                && krate.sources[f.0]
                    .module
                    .first()
                    .is_some_and(|m| m == "commands")
        })
        .collect();
    println!(
        "functions over 80 lines in src/commands: {}",
        commands_long.len()
    );
    for (file, name, lines) in &commands_long {
        println!("  {lines:4} {} {name}", krate.name(*file));
    }
    let mut sizes: Vec<_> = (0..krate.sources.len())
        .map(|f| (krate.sources[f].lines, krate.name(f)))
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    let over: Vec<_> = sizes.iter().filter(|s| s.0 > FILE_LINES).collect();
    println!("files over {FILE_LINES} lines: {}", over.len());
    for (lines, name) in over {
        println!("  {lines:5} {name}");
    }
}

/// The longest a function of a command may be: a command's plan reads as a short list of
/// named steps.
const COMMAND_FN_LINES: usize = 80;
/// The longest a file may be without saying why in its first comment.
const FILE_LINES: usize = 600;
/// How a long file's first comment says why it is one file.
const WHY_ONE_FILE: &str = "Why one file:";

#[test]
fn no_two_files_use_each_other_even_through_others() {
    let krate = Crate::read();
    let cycles = cycles(krate.sources.len(), &krate.edges());
    let named: Vec<Vec<String>> = cycles
        .iter()
        .map(|c| c.iter().map(|&f| krate.name(f)).collect())
        .collect();
    assert!(named.is_empty(), "import cycles between files: {named:#?}");
}

#[test]
fn no_file_uses_a_file_of_a_higher_layer() {
    let krate = Crate::read();
    let up: Vec<String> = upward(&krate, &krate.edges())
        .into_iter()
        .map(|(from, to)| format!("{} -> {}", krate.name(from), krate.name(to)))
        .collect();
    assert!(up.is_empty(), "arrows up a layer (see LAYERS): {up:#?}");
}

#[test]
fn each_crd_stage_uses_only_the_stages_before_it() {
    let krate = Crate::read();
    let in_crd = |f: usize| krate.sources[f].module.first().is_some_and(|m| m == "crd");
    // The entry (`crd/mod.rs`) ranks above every stage.
    let stage = |f: usize| krate.rank(CRD_STAGES, f).map_or(-1, |r| r as i64);
    let mut unstaged = Vec::new();
    let mut backwards = Vec::new();
    for (&from, targets) in &krate.edges() {
        if !in_crd(from) {
            continue;
        }
        if krate.sources[from].module.len() > 1 && krate.rank(CRD_STAGES, from).is_none() {
            unstaged.push(krate.name(from));
        }
        for &to in targets.iter().filter(|&&to| in_crd(to)) {
            if stage(to) < stage(from) {
                backwards.push(format!("{} -> {}", krate.name(from), krate.name(to)));
            }
        }
    }
    assert!(
        unstaged.is_empty(),
        "crd files in no stage of CRD_STAGES: {unstaged:#?}"
    );
    assert!(
        backwards.is_empty(),
        "crd files using a later stage: {backwards:#?}"
    );
}

#[test]
fn commands_plan_in_short_steps() {
    let krate = Crate::read();
    let long: Vec<String> = functions(&krate)
        .into_iter()
        .filter(|(file, _, lines)| {
            *lines > COMMAND_FN_LINES
                && krate.sources[*file]
                    .module
                    .first()
                    .is_some_and(|m| m == "commands")
        })
        .map(|(file, name, lines)| format!("{} {name}: {lines} lines", krate.name(file)))
        .collect();
    assert!(
        long.is_empty(),
        "functions of src/commands over {COMMAND_FN_LINES} lines: {long:#?}"
    );
}

#[test]
fn long_files_say_why_they_are_one_file() {
    let krate = Crate::read();
    let unexplained: Vec<String> = krate
        .sources
        .iter()
        .filter(|s| s.lines > FILE_LINES)
        .filter(|s| {
            let text = std::fs::read_to_string(&s.path).unwrap();
            let first_comment: Vec<&str> =
                text.lines().take_while(|l| l.starts_with("//!")).collect();
            !first_comment.join(" ").contains(WHY_ONE_FILE)
        })
        .map(|s| format!("{} ({} lines)", s.path.display(), s.lines))
        .collect();
    assert!(
        unexplained.is_empty(),
        "files over {FILE_LINES} lines whose first comment has no {WHY_ONE_FILE:?}: {unexplained:#?}"
    );
}
