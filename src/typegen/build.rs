//! A schema's shape as Rust items: one struct per object with properties, one enum per
//! string with `enum` values, maps for `additionalProperties`, `serde_json::Value` where
//! the schema leaves the shape open. Items come out parent first, in the order of the
//! schema's properties, so the file reads from the top down.
//!
//! Structural schemas (which the API server requires of every CRD) put the whole shape in
//! `type`, `properties`, `items` and `additionalProperties`; `allOf`, `anyOf`, `oneOf` and
//! `not` may only add validation to it, so they are not read.

use std::collections::BTreeSet;

use anyhow::{Result, bail};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

use super::docs;
use super::model::{Enum, Field, Item, Presence, Struct, Ty, Variant};
use super::naming;

/// How deep objects may nest: like every walk over types in rsbuilder, 64.
pub const MAX_DEPTH: usize = 64;

/// The items of one kind's types, named after `kind`.
pub struct Builder {
    kind: String,
    items: Vec<Item>,
    /// Type names in use: those of this file and those it imports.
    taken: BTreeSet<String>,
}

/// Where a schema sits: the keys from the kind's root (which name its types) and its JSON
/// path (which documents them).
#[derive(Debug, Clone, Default)]
pub struct Place {
    keys: Vec<String>,
    json: String,
    /// Objects, arrays and maps above it.
    depth: usize,
}

impl Place {
    /// The top of the object.
    pub fn root() -> Place {
        Place::default()
    }

    /// The place of a property `key` below this one.
    pub fn key(&self, key: &str) -> Place {
        let mut keys = self.keys.clone();
        keys.push(key.to_string());
        Place {
            keys,
            json: format!("{}.{key}", self.json),
            depth: self.depth + 1,
        }
    }

    fn items(&self) -> Place {
        Place {
            keys: self.keys.clone(),
            json: format!("{}[]", self.json),
            depth: self.depth + 1,
        }
    }

    fn values(&self) -> Place {
        Place {
            keys: self.keys.clone(),
            json: format!("{}{{}}", self.json),
            depth: self.depth + 1,
        }
    }
}

/// Who documents a type: the type itself, or the field of that type (whose docs already
/// hold the schema's description; the type then only says where it is used).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Docs {
    Own,
    Field,
}

impl Builder {
    /// `reserved`: names the file uses otherwise (the kind's own struct, imports).
    pub fn new(kind: &str, reserved: &[&str]) -> Self {
        Self {
            kind: kind.to_string(),
            items: Vec::new(),
            taken: reserved.iter().map(|s| s.to_string()).collect(),
        }
    }

    pub fn finish(self) -> Vec<Item> {
        self.items
    }

    /// The struct `name` for the object `schema` at `place` (`spec`, `status`), whatever its
    /// shape: its properties, or one flattened map when it has none, since kube-derive
    /// needs them as structs.
    pub fn root_struct(
        &mut self,
        name: String,
        schema: &JSONSchemaProps,
        place: &Place,
    ) -> Result<String> {
        let name = naming::unique(name, &mut self.taken);
        let slot = self.reserve();
        let fields = match &schema.properties {
            Some(_) => self.fields(schema, place)?,
            None => vec![Field {
                ident: "entries".into(),
                json: String::new(),
                ty: self.map_type(schema, place)?,
                presence: Presence::Flatten,
                docs: vec!["Every key of the object: its schema names none.".into()],
            }],
        };
        self.items[slot] = Item::Struct(Struct {
            name: name.clone(),
            docs: docs::lines(schema.description.as_deref()),
            fields,
        });
        Ok(name)
    }

    /// The Rust type of the value `schema` describes at `place`.
    fn type_of(&mut self, schema: &JSONSchemaProps, place: &Place, docs: Docs) -> Result<Ty> {
        if place.depth > MAX_DEPTH {
            bail!(
                "the schema nests deeper than {MAX_DEPTH} levels (at {}); rsbuilder does not type it",
                place.json
            );
        }
        if schema.x_kubernetes_int_or_string == Some(true) {
            return Ok(Ty::IntOrString);
        }
        Ok(match schema.type_.as_deref() {
            Some("string") => match string_values(schema) {
                Some(values) => Ty::Named(self.enumeration(schema, place, docs, values)),
                None => Ty::String,
            },
            Some("boolean") => Ty::Bool,
            Some("integer") if schema.format.as_deref() == Some("int32") => Ty::I32,
            Some("integer") => Ty::I64,
            Some("number") => Ty::F64,
            Some("array") => match &schema.items {
                Some(JSONSchemaPropsOrArray::Schema(items)) => {
                    Ty::Vec(Box::new(self.type_of(items, &place.items(), Docs::Own)?))
                }
                // A list of schemas (a tuple) or none: items of any shape.
                _ => Ty::Vec(Box::new(Ty::Json)),
            },
            Some("object") if schema.properties.is_some() => {
                Ty::Named(self.object(schema, place, docs)?)
            }
            Some("object") => self.map_type(schema, place)?,
            // No type: any JSON (`x-kubernetes-preserve-unknown-fields`, or an open schema).
            _ => Ty::Json,
        })
    }

    /// A map for an object without properties: of its `additionalProperties`, else of any
    /// JSON (`x-kubernetes-preserve-unknown-fields`, or an object the API server prunes to
    /// `{}`).
    fn map_type(&mut self, schema: &JSONSchemaProps, place: &Place) -> Result<Ty> {
        let value = match &schema.additional_properties {
            Some(JSONSchemaPropsOrBool::Schema(values)) => {
                self.type_of(values, &place.values(), Docs::Own)?
            }
            _ => Ty::Json,
        };
        Ok(Ty::Map(Box::new(value)))
    }

    /// The doc lines of a type at `place`.
    fn type_docs(schema: &JSONSchemaProps, place: &Place, docs: Docs) -> Vec<String> {
        match (docs, schema.description.as_deref()) {
            (Docs::Own, Some(description)) => docs::lines(Some(description)),
            _ => vec![format!("The value of `{}`.", place.json)],
        }
    }

    /// The struct of an object with properties; its name.
    fn object(&mut self, schema: &JSONSchemaProps, place: &Place, docs: Docs) -> Result<String> {
        let name = naming::unique(naming::type_name(&self.kind, &place.keys), &mut self.taken);
        let slot = self.reserve();
        let fields = self.fields(schema, place)?;
        self.items[slot] = Item::Struct(Struct {
            name: name.clone(),
            docs: Self::type_docs(schema, place, docs),
            fields,
        });
        Ok(name)
    }

    /// The fields of an object's properties, and a flattened map of the keys its schema
    /// does not name when it keeps them (`x-kubernetes-preserve-unknown-fields`).
    fn fields(&mut self, schema: &JSONSchemaProps, place: &Place) -> Result<Vec<Field>> {
        let required: BTreeSet<&str> = schema
            .required
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let mut idents = BTreeSet::new();
        let mut fields = Vec::new();
        for (key, property) in schema.properties.iter().flatten() {
            let ty = self.type_of(property, &place.key(key), Docs::Field)?;
            let presence = match (required.contains(key.as_str()), property.nullable) {
                (true, Some(true)) => Presence::RequiredNullable,
                (true, _) => Presence::Required,
                (false, _) => Presence::Optional,
            };
            fields.push(Field {
                ident: naming::unique(naming::field(key), &mut idents),
                json: key.clone(),
                ty,
                presence,
                docs: docs::lines(property.description.as_deref()),
            });
        }
        if schema.x_kubernetes_preserve_unknown_fields == Some(true) {
            fields.push(Field {
                ident: naming::unique("other_fields".into(), &mut idents),
                json: String::new(),
                ty: Ty::Map(Box::new(Ty::Json)),
                presence: Presence::Flatten,
                docs: vec![
                    "The fields the schema does not name, which it keeps".into(),
                    "(`x-kubernetes-preserve-unknown-fields`).".into(),
                ],
            });
        }
        Ok(fields)
    }

    /// The enum of a string's `enum` values; its name.
    fn enumeration(
        &mut self,
        schema: &JSONSchemaProps,
        place: &Place,
        docs: Docs,
        values: Vec<String>,
    ) -> String {
        let name = naming::unique(naming::type_name(&self.kind, &place.keys), &mut self.taken);
        let mut idents = BTreeSet::new();
        let variants = values
            .into_iter()
            .map(|value| Variant {
                ident: naming::unique(naming::variant(&value), &mut idents),
                value,
            })
            .collect();
        self.items.push(Item::Enum(Enum {
            name: name.clone(),
            docs: Self::type_docs(schema, place, docs),
            variants,
            unknown: naming::unique("Unknown".into(), &mut idents),
        }));
        name
    }

    /// A place for an item whose fields are still to be built, so that a parent comes
    /// before its children.
    fn reserve(&mut self) -> usize {
        self.items.push(Item::Struct(Struct {
            name: String::new(),
            docs: Vec::new(),
            fields: Vec::new(),
        }));
        self.items.len() - 1
    }
}

/// The distinct string values of `enum`, in order, when they are all strings (`null`, the
/// value a nullable enum lists, aside).
fn string_values(schema: &JSONSchemaProps) -> Option<Vec<String>> {
    let mut values: Vec<String> = Vec::new();
    for value in schema.enum_.as_ref()? {
        match &value.0 {
            serde_json::Value::String(s) if !values.contains(s) => values.push(s.clone()),
            serde_json::Value::String(_) | serde_json::Value::Null => {}
            _ => return None,
        }
    }
    (!values.is_empty()).then_some(values)
}
