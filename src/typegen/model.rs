//! The Rust items a schema becomes: structs of fields and enums of string values, named
//! and typed, before they are laid out as text.

/// The type of a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    String,
    Bool,
    I32,
    I64,
    F64,
    /// `x-kubernetes-int-or-string`.
    IntOrString,
    /// Any JSON: no type in the schema, or `x-kubernetes-preserve-unknown-fields` alone.
    Json,
    Vec(Box<Ty>),
    /// An object whose keys are free (`additionalProperties`), or any object.
    Map(Box<Ty>),
    /// A struct or enum of this file.
    Named(String),
}

impl Ty {
    /// The type as Rust source.
    pub fn rust(&self) -> String {
        match self {
            Ty::String => "String".into(),
            Ty::Bool => "bool".into(),
            Ty::I32 => "i32".into(),
            Ty::I64 => "i64".into(),
            Ty::F64 => "f64".into(),
            Ty::IntOrString => "IntOrString".into(),
            Ty::Json => "serde_json::Value".into(),
            Ty::Vec(item) => format!("Vec<{}>", item.rust()),
            Ty::Map(value) => format!("BTreeMap<String, {}>", value.rust()),
            Ty::Named(name) => name.clone(),
        }
    }

    /// The type as a tree of generic arguments, for layout.
    pub fn node(&self) -> TypeNode {
        match self {
            Ty::Vec(item) => TypeNode::generic("Vec", vec![item.node()]),
            Ty::Map(value) => {
                TypeNode::generic("BTreeMap", vec![TypeNode::path("String"), value.node()])
            }
            other => TypeNode::path(&other.rust()),
        }
    }

    /// Whether the type is, or holds, `ty`.
    pub fn uses(&self, ty: &Ty) -> bool {
        self == ty
            || match self {
                Ty::Vec(inner) | Ty::Map(inner) => inner.uses(ty),
                _ => false,
            }
    }

    pub fn uses_map(&self) -> bool {
        match self {
            Ty::Map(_) => true,
            Ty::Vec(inner) => inner.uses_map(),
            _ => false,
        }
    }
}

/// A type as rustfmt lays it out: a path with generic arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeNode {
    pub head: String,
    pub args: Vec<TypeNode>,
}

impl TypeNode {
    pub fn path(head: &str) -> Self {
        Self {
            head: head.to_string(),
            args: Vec::new(),
        }
    }

    pub fn generic(head: &str, args: Vec<TypeNode>) -> Self {
        Self {
            head: head.to_string(),
            args,
        }
    }

    /// The type on one line.
    pub fn flat(&self) -> String {
        if self.args.is_empty() {
            return self.head.clone();
        }
        let args: Vec<String> = self.args.iter().map(TypeNode::flat).collect();
        format!("{}<{}>", self.head, args.join(", "))
    }
}

/// How a field sits in its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Listed in `required`: always there.
    Required,
    /// Listed in `required` and `nullable`: always there, maybe `null`.
    RequiredNullable,
    /// Not required: absent when unset.
    Optional,
    /// The object's other keys (`#[serde(flatten)]`).
    Flatten,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The Rust name, `r#type` for a keyword.
    pub ident: String,
    /// The JSON name; empty for a flattened field.
    pub json: String,
    pub ty: Ty,
    pub presence: Presence,
    pub docs: Vec<String>,
}

impl Field {
    /// The name serde derives from the Rust name (without `r#`).
    pub fn serde_name(&self) -> &str {
        self.ident.strip_prefix("r#").unwrap_or(&self.ident)
    }

    /// The field's type with its `Option` wrapper.
    pub fn rust_type(&self) -> TypeNode {
        match self.presence {
            Presence::Required | Presence::Flatten => self.ty.node(),
            Presence::RequiredNullable | Presence::Optional => {
                TypeNode::generic("Option", vec![self.ty.node()])
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Struct {
    pub name: String,
    pub docs: Vec<String>,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    pub ident: String,
    /// The string value in JSON.
    pub value: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Enum {
    pub name: String,
    pub docs: Vec<String>,
    pub variants: Vec<Variant>,
    /// The variant that holds any other value, as a newer CRD may allow: `Unknown`.
    pub unknown: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Struct(Struct),
    Enum(Enum),
}

impl Item {
    pub fn name(&self) -> &str {
        match self {
            Item::Struct(s) => &s.name,
            Item::Enum(e) => &e.name,
        }
    }
}
