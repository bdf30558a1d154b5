//! A custom resource as the sources declare it: the `#[derive(CustomResource)]` struct and
//! its `#[kube]` attributes, with the names kube-derive derives from them. Its own module,
//! below `locate` and `assemble`: assemble points kube's transform rejections at a field
//! through locate, and both take the resource.

use super::attrs::kube::KubeAttrs;
use super::builder::Ctx;
use super::resolve::ItemRef;

/// One `#[derive(CustomResource)]` struct and its `#[kube]` attributes.
pub struct Resource<'a> {
    pub item: ItemRef<'a>,
    pub kube: KubeAttrs,
}

/// kube-derive's plural rule (`to_plural` in custom_resource/mod.rs).
pub fn to_plural(word: &str) -> String {
    if word.ends_with('s')
        || word.ends_with('x')
        || word.ends_with('z')
        || word.ends_with("ch")
        || word.ends_with("sh")
    {
        return format!("{word}es");
    }
    if word.ends_with('y')
        && let Some(c) = word.chars().nth(word.len().wrapping_sub(2))
        && !matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
    {
        let mut chars = word.chars();
        chars.next_back();
        return format!("{}ies", chars.as_str());
    }
    format!("{word}s")
}

impl Resource<'_> {
    pub fn singular(&self) -> String {
        self.kube
            .singular
            .clone()
            .unwrap_or_else(|| self.kube.kind.to_ascii_lowercase())
    }

    pub fn plural(&self) -> String {
        self.kube
            .plural
            .clone()
            .unwrap_or_else(|| to_plural(&self.singular()))
    }

    pub(super) fn ctx(&self) -> Ctx {
        Ctx {
            module: self.item.module.clone(),
            file: self.item.file,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::to_plural;

    #[test]
    fn plurals_follow_kube_derive() {
        assert_eq!(to_plural("policy"), "policies");
        assert_eq!(to_plural("gateway"), "gateways");
        assert_eq!(to_plural("box"), "boxes");
        assert_eq!(to_plural("match"), "matches");
        assert_eq!(to_plural("widget"), "widgets");
        assert_eq!(to_plural("y"), "ys");
    }
}
