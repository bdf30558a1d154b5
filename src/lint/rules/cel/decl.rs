//! What the API server knows of a schema node when it estimates a rule's cost: the
//! largest size a value of the node may have (characters of a string, items of a list,
//! entries of a map) and the smallest size it takes in a JSON request, which bounds how
//! many values fit in one. A view over the schema, computed on demand.
//!
//! The facts (Kubernetes' "Resource use by validation functions" and the CEL type
//! conversion of a structural schema): a string with `maxLength` n holds at most 4n bytes,
//! one without holds what fits in the 3 MiB request less its quotes, or the longest of its
//! `enum`; `duration` and `date-time` strings at most 32 characters, `date` 12; a list
//! without `maxItems` as many of its smallest items as fit in a request with a comma
//! each, a map without `maxProperties` as many as fit with a key, quotes, colon and comma;
//! an object serializes to at least `{}` plus its required fields that have no default.
//! At the root of a resource `kind` and `apiVersion` are strings and `metadata` holds
//! only `name` (at most 253 characters) and `generateName` (252).

use std::collections::BTreeSet;

use serde_json::Value;

use super::types::escape;
use crate::lint::schema::Schema;

/// The largest request the API server reads (bytes); sizes without a bound come from it.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;

/// The longest `metadata.name` (a DNS-1123 subdomain).
const NAME_MAX_LENGTH: i64 = 253;

/// The CEL type of a declared value, as far as costs care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Object,
    List,
    Map,
    String,
    Bytes,
    Duration,
    Timestamp,
    Bool,
    Int,
    Double,
    /// `x-kubernetes-int-or-string`.
    Dyn,
}

/// A value the API server declares to CEL.
#[derive(Debug, Clone, Copy)]
pub enum Decl<'a> {
    /// A schema node; `true` at the root of a resource or an embedded resource.
    Node(Schema<'a>, bool),
    /// A string of the resource root the server declares itself (`kind`, `apiVersion`,
    /// `metadata.name`, `metadata.generateName`), with its `maxLength` if any.
    String(Option<i64>),
    /// `metadata` at a resource root; the schema's own `metadata`, which may shorten names.
    Metadata(Option<Schema<'a>>),
    /// A map's keys: plain strings, of no declared size.
    Key,
}

fn int(s: Schema<'_>, key: &str) -> Option<i64> {
    s.get(key).and_then(Value::as_i64).map(|n| n.max(0))
}

impl<'a> Decl<'a> {
    /// The declaration of a schema node, or None when the API server does not show it to
    /// rules (no type and no int-or-string, or a list or map of such values).
    pub fn of(s: Schema<'a>, root: bool) -> Option<Decl<'a>> {
        if s.int_or_string() {
            return Some(Decl::Node(s, false));
        }
        match s.type_() {
            "array" => {
                let items = s.items()?;
                Decl::of(items, items.embedded_resource())?;
                Some(Decl::Node(s, false))
            }
            "object" => {
                if let Some(values) = s.additional_properties() {
                    Decl::of(values, values.embedded_resource())?;
                }
                Some(Decl::Node(s, root))
            }
            "string" | "boolean" | "number" | "integer" => Some(Decl::Node(s, false)),
            _ => None,
        }
    }

    pub fn kind(&self) -> Kind {
        let s = match self {
            Decl::Node(s, _) => *s,
            Decl::String(_) | Decl::Key => return Kind::String,
            Decl::Metadata(_) => return Kind::Object,
        };
        if s.int_or_string() {
            return Kind::Dyn;
        }
        match s.type_() {
            "array" => Kind::List,
            "object" if s.additional_properties().is_some() => Kind::Map,
            "object" => Kind::Object,
            "string" => match s.format() {
                "byte" => Kind::Bytes,
                "duration" => Kind::Duration,
                "date" | "date-time" => Kind::Timestamp,
                _ => Kind::String,
            },
            "boolean" => Kind::Bool,
            "number" => Kind::Double,
            _ => Kind::Int,
        }
    }

    /// The most elements a value may have: characters (bytes for `format: byte`) of a
    /// string, items of a list, entries of a map; 0 for other values.
    pub fn max_elements(&self) -> u64 {
        let unbounded = MAX_REQUEST_SIZE_BYTES - 2;
        let n = match self {
            Decl::String(max) => max.map_or(unbounded, |m| m * 4),
            Decl::Metadata(_) | Decl::Key => 0,
            Decl::Node(s, _) => {
                let s = *s;
                match self.kind() {
                    Kind::Dyn | Kind::String => match int(s, "maxLength") {
                        Some(m) => m * 4,
                        None if self.kind() == Kind::String && has_enum(s) => longest_enum(s),
                        None => unbounded,
                    },
                    Kind::Bytes => int(s, "maxLength").unwrap_or(unbounded),
                    Kind::Duration => 32,
                    Kind::Timestamp if s.format() == "date" => 12,
                    Kind::Timestamp => 32,
                    Kind::List => int(s, "maxItems").unwrap_or_else(|| {
                        unbounded / (self.elem().map_or(0, |e| e.min_size()) + 1)
                    }),
                    Kind::Map => int(s, "maxProperties").unwrap_or_else(|| {
                        unbounded / (self.elem().map_or(0, |e| e.min_size()) + 6)
                    }),
                    Kind::Object | Kind::Bool | Kind::Int | Kind::Double => 0,
                }
            }
        };
        n as u64
    }

    /// Whether `max_elements` comes from the schema (`maxLength`, `maxItems`,
    /// `maxProperties`, `enum`, a format) rather than from the request size.
    pub fn bounded(&self) -> bool {
        match self {
            Decl::String(max) => max.is_some(),
            Decl::Metadata(_) | Decl::Key => true,
            Decl::Node(s, _) => match self.kind() {
                Kind::Dyn | Kind::Bytes => s.get("maxLength").is_some(),
                Kind::String => s.get("maxLength").is_some() || has_enum(*s),
                Kind::List => s.get("maxItems").is_some(),
                Kind::Map => s.get("maxProperties").is_some(),
                _ => true,
            },
        }
    }

    /// The fewest bytes a value takes in a JSON request.
    pub fn min_size(&self) -> i64 {
        let s = match self {
            Decl::String(_) | Decl::Key | Decl::Metadata(_) => return 2,
            Decl::Node(s, _) => *s,
        };
        match self.kind() {
            Kind::Dyn | Kind::Int | Kind::Double => 1,
            Kind::List | Kind::Map | Kind::String | Kind::Bytes => 2,
            Kind::Bool => 4,
            Kind::Duration => 3,
            Kind::Timestamp if s.format() == "date" => 12,
            Kind::Timestamp => 21,
            Kind::Object => {
                let required: BTreeSet<&str> = s.required().collect();
                let mut names: BTreeSet<&str> = s
                    .properties()
                    .into_iter()
                    .flat_map(|p| p.keys().map(String::as_str))
                    .collect();
                if matches!(self, Decl::Node(_, true)) {
                    names.extend(["kind", "apiVersion", "metadata"]);
                }
                let mut size = 2;
                for name in names.intersection(&required) {
                    let defaulted = s
                        .property(name)
                        .and_then(|p| p.get("default"))
                        .is_some_and(|d| !d.is_null());
                    if let (false, Some(decl)) = (defaulted, self.declared(name)) {
                        size += name.len() as i64 + decl.min_size() + 4;
                    }
                }
                size
            }
        }
    }

    /// The declaration of the property called `name` (unescaped) of an object.
    fn declared(&self, name: &str) -> Option<Decl<'a>> {
        match self {
            Decl::Node(s, root) => {
                if *root && !declares_type_and_meta(*s) {
                    match name {
                        "kind" | "apiVersion" => return Some(Decl::String(None)),
                        "metadata" => return Some(Decl::Metadata(s.property("metadata"))),
                        _ => {}
                    }
                }
                let property = s.property(name)?;
                Decl::of(property, property.embedded_resource())
            }
            Decl::Metadata(user) => {
                let cap = |limit: i64| {
                    let own = user
                        .and_then(|m| m.property(name))
                        .and_then(|p| int(p, "maxLength"));
                    Some(Decl::String(Some(own.map_or(limit, |o| o.min(limit)))))
                };
                match name {
                    "name" => cap(NAME_MAX_LENGTH),
                    "generateName" => cap(NAME_MAX_LENGTH - 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The field a rule reaches as `.field` (escaped as CEL names it) of an object.
    pub fn field(&self, field: &str) -> Option<Decl<'a>> {
        if self.kind() != Kind::Object {
            return None;
        }
        match self {
            Decl::Node(s, root) => {
                if *root && matches!(field, "kind" | "apiVersion" | "metadata") {
                    return self.declared(field);
                }
                let (name, _) = s
                    .properties()?
                    .iter()
                    .find(|(name, _)| escape(name).as_deref() == Some(field))?;
                self.declared(name)
            }
            _ => self.declared(field),
        }
    }

    /// A list's items or a map's values.
    pub fn elem(&self) -> Option<Decl<'a>> {
        let Decl::Node(s, _) = self else {
            return None;
        };
        match self.kind() {
            Kind::List => s.items().and_then(|i| Decl::of(i, i.embedded_resource())),
            Kind::Map => s
                .additional_properties()
                .and_then(|v| Decl::of(v, v.embedded_resource())),
            _ => None,
        }
    }

    /// A map's keys.
    pub fn key(&self) -> Option<Decl<'a>> {
        (self.kind() == Kind::Map).then_some(Decl::Key)
    }
}

fn has_enum(s: Schema<'_>) -> bool {
    s.get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.is_empty())
}

fn longest_enum(s: Schema<'_>) -> i64 {
    s.get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|v| v.len() as i64)
        .max()
        .unwrap_or(0)
}

/// Whether a root schema already declares `kind`, `apiVersion` and `metadata.name` and
/// `metadata.generateName` as strings, which the API server then leaves as they are.
fn declares_type_and_meta(s: Schema<'_>) -> bool {
    let is = |p: Option<Schema<'_>>, t: &str| p.is_some_and(|p| p.type_() == t);
    let meta = s.property("metadata");
    is(s.property("kind"), "string")
        && is(s.property("apiVersion"), "string")
        && is(meta, "object")
        && meta.is_some_and(|m| m.properties().is_some())
        && is(meta.and_then(|m| m.property("name")), "string")
        && is(meta.and_then(|m| m.property("generateName")), "string")
}

/// How many times each value of a node may occur in one object: the product of the
/// `maxItems`/`maxProperties` of the lists and maps above it, None when one has none.
/// The cardinality of a child, given its parent's.
pub fn child_cardinality(parent: Schema<'_>, cardinality: Option<u64>) -> Option<u64> {
    let factor = match parent.type_() {
        "object" if parent.get("additionalProperties").is_some() => {
            int(parent, "maxProperties")? as u64
        }
        "array" => int(parent, "maxItems")? as u64,
        _ => 1,
    };
    Some(cardinality?.saturating_mul(factor))
}

/// How many values of a node with this smallest size fit in one request: how often a
/// rule on it may run when a list or map above it has no bound.
pub fn unbounded_cardinality(min_size: i64) -> u64 {
    (MAX_REQUEST_SIZE_BYTES / (min_size + 1)) as u64
}
