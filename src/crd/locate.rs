//! The Rust field a schema path leads to (`properties[spec].properties[tls].items`), so a
//! refusal about a generated schema points at the source line that made it rather than at
//! YAML the user never wrote. Follows fields by their serde names (renames, `rename_all`,
//! flattened structs), and through `Option`, collections and maps; stops at the deepest
//! field it can name.

use proc_macro2::Span;
use syn::Fields;

use super::attrs;
use super::attrs::serde::field_name;
use super::model::{Index, TypeItem};
use super::resolve::{ItemRef, Resolver, Shape, bindings_of};
use super::resource::Resource;
use super::typeops::Wrapper;

/// A field of the sources: its file, where it is, and how to name it in a message.
pub struct Field {
    pub file: usize,
    pub span: Span,
    pub name: String,
}

/// One step of a schema path.
#[derive(Debug, PartialEq)]
enum Step {
    Property(String),
    Items,
    AdditionalProperties,
    Other,
}

/// The deepest field of `r` that the schema `path` (relative to `openAPIV3Schema`) passes.
pub fn field_at(index: &Index<'_>, r: &Resource<'_>, path: &str) -> Option<Field> {
    let mut steps = parse(path).into_iter();
    let mut current = match steps.next()? {
        Step::Property(p) if p == "spec" && !r.kube.no_spec => Shape::User(r.item.clone()),
        Step::Property(p) if p == "status" => {
            let status = r.kube.status.as_ref()?;
            let ty = syn::Type::Path(syn::TypePath {
                qself: None,
                path: status.clone(),
            });
            Resolver::new(index).resolve(&r.item.module, &ty).ok()?
        }
        // `no_spec`: the spec's fields are the root's.
        Step::Property(p) if r.kube.no_spec => {
            let (field, shape) = field_named(index, &r.item, &p)?;
            let mut found = Some(field);
            walk(index, shape, steps, &mut found);
            return found;
        }
        _ => return None,
    };
    let mut found = None;
    let rest: Vec<Step> = steps.collect();
    current = unwrap_option(current);
    walk(index, current, rest.into_iter(), &mut found);
    found
}

fn walk<'a>(
    index: &Index<'a>,
    mut current: Shape<'a>,
    steps: impl Iterator<Item = Step>,
    found: &mut Option<Field>,
) {
    for step in steps {
        current = unwrap_option(current);
        current = match (step, current) {
            (Step::Property(p), Shape::User(item)) => match field_named(index, &item, &p) {
                Some((field, shape)) => {
                    *found = Some(field);
                    shape
                }
                None => return,
            },
            (Step::Items, Shape::Wrap(w, inner)) if is_list(w) => *inner,
            (Step::Items, Shape::Array(_, inner)) => *inner,
            (
                Step::AdditionalProperties,
                Shape::Wrap(Wrapper::BTreeMap | Wrapper::HashMap, inner),
            ) => *inner,
            _ => return,
        };
    }
}

fn is_list(w: Wrapper) -> bool {
    matches!(
        w,
        Wrapper::Vec | Wrapper::VecDeque | Wrapper::BTreeSet | Wrapper::HashSet
    )
}

/// `Option` and the forwarding wrappers (`Box`, `Rc`, `Arc`, `Cow`) are transparent in the schema.
fn unwrap_option(shape: Shape<'_>) -> Shape<'_> {
    match shape {
        Shape::Wrap(w, inner) if w == Wrapper::Option || w.forwards() => unwrap_option(*inner),
        other => other,
    }
}

/// The field of struct `item` whose property is `name` (looking into flattened fields),
/// with its resolved type.
fn field_named<'a>(
    index: &Index<'a>,
    item: &ItemRef<'a>,
    name: &str,
) -> Option<(Field, Shape<'a>)> {
    let TypeItem::Struct(s) = item.item else {
        return None;
    };
    let Fields::Named(named) = &s.fields else {
        return None;
    };
    let container = attrs::serde::container(&s.attrs).ok()?;
    let resolver = Resolver::with_bindings(index, bindings_of(item));
    for f in &named.named {
        let sf = attrs::serde::field(&f.attrs).ok()?;
        let resolved = || resolver.resolve(&item.module, &f.ty).ok();
        if sf.flatten {
            if let Some(Shape::User(inner)) = resolved().map(unwrap_option)
                && let Some(found) = field_named(index, &inner, name)
            {
                return Some(found);
            }
            continue;
        }
        if field_name(f.ident.as_ref(), &sf, container.rename_all) != name {
            continue;
        }
        let field = Field {
            file: item.file,
            span: super::diagnostics::span_of(f),
            name: format!("{}.{}", item.item.ident(), f.ident.as_ref()?),
        };
        // A type rsbuilder cannot resolve still names the field (the path ends here).
        let shape = resolved().unwrap_or(Shape::Prim(super::typeops::Prim::Bool));
        return Some((field, shape));
    }
    None
}

/// `properties[a].items.additionalProperties.anyOf[0]` as steps (a property name may hold
/// dots: it runs to the `]` that ends it).
fn parse(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut rest = path.trim_start_matches('.');
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("properties[") {
            let end = after
                .match_indices(']')
                .map(|(i, _)| i)
                .find(|&i| after[i + 1..].is_empty() || after[i + 1..].starts_with('.'))
                .unwrap_or(after.len());
            steps.push(Step::Property(after[..end].to_string()));
            rest = after.get(end + 1..).unwrap_or("");
        } else {
            let end = rest.find('.').unwrap_or(rest.len());
            steps.push(match &rest[..end] {
                "items" => Step::Items,
                "additionalProperties" => Step::AdditionalProperties,
                _ => Step::Other,
            });
            rest = &rest[end..];
        }
        rest = rest.trim_start_matches('.');
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_schema_paths() {
        assert_eq!(
            parse("properties[spec].properties[a.b].items.additionalProperties.anyOf[0]"),
            [
                Step::Property("spec".into()),
                Step::Property("a.b".into()),
                Step::Items,
                Step::AdditionalProperties,
                Step::Other,
            ]
        );
    }
}
