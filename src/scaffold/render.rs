//! Handlebars templates, embedded from `templates/` and rendered in strict mode, so a
//! missing variable is an error rather than an empty string.

use anyhow::{Context, Result};
use handlebars::Handlebars;
use include_dir::{Dir, include_dir};
use serde::Serialize;

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

/// Every template file ends in this suffix; the output path is the template path without it.
const SUFFIX: &str = ".hbs";

pub struct Renderer {
    registry: Handlebars<'static>,
}

impl Renderer {
    pub fn new() -> Result<Self> {
        let mut registry = Handlebars::new();
        registry.set_strict_mode(true);
        registry.register_escape_fn(handlebars::no_escape);
        for file in all_files(&TEMPLATES) {
            let name = file.path().to_string_lossy();
            let text = file
                .contents_utf8()
                .with_context(|| format!("template {name} is not UTF-8"))?;
            registry
                .register_template_string(&name, text)
                .with_context(|| format!("template {name} does not parse"))?;
        }
        Ok(Self { registry })
    }

    /// The name of every template, its path under `templates/`.
    pub fn template_names(&self) -> impl Iterator<Item = &str> {
        self.registry.get_templates().keys().map(String::as_str)
    }

    pub fn render(&self, template: &str, ctx: &impl Serialize) -> Result<String> {
        self.registry
            .render(template, ctx)
            .with_context(|| format!("cannot render template {template}"))
    }

    /// Renders every template under `dir` and returns `(output path, text)` pairs, the
    /// output path being relative to `dir` with the `.hbs` suffix removed.
    pub fn render_dir(&self, dir: &str, ctx: &impl Serialize) -> Result<Vec<(String, String)>> {
        let root = TEMPLATES
            .get_dir(dir)
            .with_context(|| format!("no template directory {dir}"))?;
        all_files(root)
            .map(|file| {
                let name = file.path().to_string_lossy();
                let rel = file
                    .path()
                    .strip_prefix(dir)
                    .expect("inside dir")
                    .to_string_lossy();
                let out = rel.strip_suffix(SUFFIX).unwrap_or(&rel).to_string();
                Ok((out, self.render(&name, ctx)?))
            })
            .collect()
    }
}

fn all_files<'a>(dir: &'a Dir<'a>) -> impl Iterator<Item = &'a include_dir::File<'a>> {
    let mut stack = vec![dir];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        files.extend(d.files());
        stack.extend(d.dirs());
    }
    files.sort_by_key(|f| f.path());
    files.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses() {
        Renderer::new().unwrap();
    }

    #[test]
    fn a_missing_variable_is_an_error() {
        let renderer = Renderer::new().unwrap();
        let err = renderer
            .render("init/Cargo.toml.hbs", &serde_json::json!({}))
            .unwrap_err();
        assert!(format!("{err:#}").contains("strict mode"), "{err:#}");
    }
}
