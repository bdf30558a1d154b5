//! What a command wants done, as data, and its resolution against the current tree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::{Change, Edit, ListEntries, Tree, insert_before_marker, rust_markers};

/// One intended change to one file. Paths are relative to the project root.
#[derive(Debug, Clone, PartialEq)]
pub enum FileAction {
    /// A scaffolded file: written once, then the user's. Existing files are an error
    /// unless the plan is resolved with `force`.
    Scaffold { path: PathBuf, contents: String },
    /// A generated file: rsbuilder owns it and rewrites it whenever it differs.
    Generate { path: PathBuf, contents: String },
    /// A fragment inserted above a scaffold marker, skipped when already present.
    Insert {
        path: PathBuf,
        marker: String,
        fragment: String,
    },
    /// A structural edit of an existing file (a dependency in `Cargo.toml`, a section
    /// appended once); skipped when the file already says it.
    Edit { path: PathBuf, edit: Edit },
    /// A generated file rsbuilder no longer keeps: removed while it holds exactly
    /// `generated` (what rsbuilder writes there), else left to its owner.
    Remove { path: PathBuf, generated: String },
}

/// The ordered list of actions of one command. Planning does no IO.
#[derive(Debug, Default)]
pub struct Plan {
    actions: Vec<FileAction>,
}

impl Plan {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn scaffold(&mut self, path: impl Into<PathBuf>, contents: String) {
        self.actions.push(FileAction::Scaffold {
            path: path.into(),
            contents,
        });
    }

    pub fn generate(&mut self, path: impl Into<PathBuf>, contents: String) {
        self.actions.push(FileAction::Generate {
            path: path.into(),
            contents,
        });
    }

    pub fn insert(&mut self, path: impl Into<PathBuf>, marker: &str, fragment: impl Into<String>) {
        self.actions.push(FileAction::Insert {
            path: path.into(),
            marker: marker.into(),
            fragment: fragment.into(),
        });
    }

    /// Entries of a list of a kustomization file (see [`ListEntries`]).
    pub fn add_to_list(&mut self, path: impl Into<PathBuf>, entries: ListEntries) {
        self.edit(path, Edit::YamlList(entries));
    }

    pub fn edit(&mut self, path: impl Into<PathBuf>, edit: Edit) {
        self.actions.push(FileAction::Edit {
            path: path.into(),
            edit,
        });
    }

    pub fn remove(&mut self, path: impl Into<PathBuf>, generated: String) {
        self.actions.push(FileAction::Remove {
            path: path.into(),
            generated,
        });
    }

    /// Appends the actions of `other`, after this plan's own.
    pub fn extend(&mut self, other: Plan) {
        self.actions.extend(other.actions);
    }

    pub fn actions(&self) -> &[FileAction] {
        &self.actions
    }

    /// Applies every action, in order, to an in-memory overlay of `tree` and returns the
    /// files whose contents change, sorted by path. Any conflict fails the whole plan.
    pub fn resolve(&self, tree: &dyn Tree, force: bool) -> Result<Vec<Change>> {
        let mut overlay = Overlay {
            tree,
            files: BTreeMap::new(),
        };
        for action in &self.actions {
            match action {
                FileAction::Scaffold { path, contents } => {
                    let existing = overlay.current(path)?;
                    if existing.is_some_and(|old| old != *contents) && !force {
                        bail!(
                            "{} already exists; rsbuilder does not overwrite your files (use --force to replace it)",
                            path.display()
                        );
                    }
                    overlay.set(path, contents.clone())?;
                }
                FileAction::Generate { path, contents } => overlay.set(path, contents.clone())?,
                FileAction::Remove { path, generated } => {
                    if overlay.current(path)?.as_ref() == Some(generated) {
                        overlay.remove(path)?;
                    }
                }
                FileAction::Insert {
                    path,
                    marker,
                    fragment,
                } => {
                    let Some(text) = overlay.current(path)? else {
                        bail!(
                            "{} is missing; rsbuilder needs it to register new code",
                            path.display()
                        );
                    };
                    // Rust is read as Rust: a marker or a fragment in a comment is none.
                    let inserted = if path.extension().is_some_and(|e| e == "rs") {
                        rust_markers::insert(path, &text, marker, fragment, None)?
                    } else {
                        insert_before_marker(&text, marker, fragment)
                            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
                    };
                    if let Some(new) = inserted {
                        overlay.set(path, new)?;
                    }
                }
                FileAction::Edit { path, edit } => {
                    let Some(text) = overlay.current(path)? else {
                        bail!(
                            "{} is missing; rsbuilder needs it to {}",
                            path.display(),
                            edit.purpose()
                        );
                    };
                    let edited = edit
                        .apply(&text)
                        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                    if edited != text {
                        overlay.set(path, edited)?;
                    }
                }
            }
        }
        Ok(overlay
            .files
            .into_iter()
            .filter(|(_, (old, new))| old != new)
            .map(|(path, (old, new))| Change { path, old, new })
            .collect())
    }
}

/// The tree as the plan has changed it so far: path -> (contents on disk, new contents,
/// `None` once removed).
struct Overlay<'a> {
    tree: &'a dyn Tree,
    files: BTreeMap<PathBuf, (Option<String>, Option<String>)>,
}

impl Overlay<'_> {
    fn current(&self, path: &Path) -> Result<Option<String>> {
        match self.files.get(path) {
            Some((_, new)) => Ok(new.clone()),
            None => self.tree.read(path),
        }
    }

    fn set(&mut self, path: &Path, new: String) -> Result<()> {
        self.put(path, Some(new))
    }

    fn remove(&mut self, path: &Path) -> Result<()> {
        self.put(path, None)
    }

    fn put(&mut self, path: &Path, new: Option<String>) -> Result<()> {
        let old = match self.files.remove(path) {
            Some((old, _)) => old,
            None => self.tree.read(path)?,
        };
        self.files.insert(path.to_path_buf(), (old, new));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaffold::MemTree;

    fn tree(files: &[(&str, &str)]) -> MemTree {
        MemTree::new(files.iter().map(|(p, c)| (PathBuf::from(p), c.to_string())))
    }

    #[test]
    fn scaffold_refuses_existing_files_without_force() {
        let t = tree(&[("a.rs", "mine")]);
        let mut plan = Plan::new();
        plan.scaffold("a.rs", "theirs".into());
        let err = plan.resolve(&t, false).unwrap_err().to_string();
        assert!(err.contains("a.rs already exists"), "{err}");
        let changes = plan.resolve(&t, true).unwrap();
        assert_eq!(
            changes,
            [Change {
                path: "a.rs".into(),
                old: Some("mine".into()),
                new: Some("theirs".into())
            }]
        );
    }

    #[test]
    fn a_generated_file_is_removed_only_while_it_holds_what_was_generated() {
        let t = tree(&[("gen.yaml", "generated"), ("edited.yaml", "mine")]);
        let mut plan = Plan::new();
        plan.remove("gen.yaml", "generated".into());
        plan.remove("edited.yaml", "generated".into());
        plan.remove("missing.yaml", "generated".into());
        let changes = plan.resolve(&t, false).unwrap();
        assert_eq!(
            changes,
            [Change {
                path: "gen.yaml".into(),
                old: Some("generated".into()),
                new: None
            }]
        );
    }

    #[test]
    fn unchanged_files_drop_out_of_the_plan() {
        let t = tree(&[
            ("a.rs", "same"),
            ("m.rs", "mod x;\n// +rsbuilder:scaffold:m\n"),
        ]);
        let mut plan = Plan::new();
        plan.scaffold("a.rs", "same".into());
        plan.generate("b.yaml", "new".into());
        plan.insert("m.rs", "m", "mod x;");
        let changes = plan.resolve(&t, false).unwrap();
        assert_eq!(
            changes,
            [Change {
                path: "b.yaml".into(),
                old: None,
                new: Some("new".into())
            }]
        );
    }

    #[test]
    fn insertions_see_files_created_earlier_in_the_plan() {
        let t = tree(&[]);
        let mut plan = Plan::new();
        plan.scaffold("k.yaml", "resources:\n# +rsbuilder:scaffold:r\n".into());
        plan.insert("k.yaml", "r", "- a.yaml");
        plan.insert("k.yaml", "r", "- b.yaml");
        let changes = plan.resolve(&t, false).unwrap();
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].old, None);
        assert_eq!(
            changes[0].new.as_deref(),
            Some("resources:\n- a.yaml\n- b.yaml\n# +rsbuilder:scaffold:r\n")
        );
    }

    #[test]
    fn insertion_into_a_missing_file_fails() {
        let mut plan = Plan::new();
        plan.insert("src/lib.rs", "mods", "pub mod x;");
        let err = plan.resolve(&tree(&[]), false).unwrap_err().to_string();
        assert!(err.contains("src/lib.rs is missing"), "{err}");
    }
}
