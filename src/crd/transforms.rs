//! The rewrite passes, in the order kube-derive 5 runs them — the very same transform
//! values, not copies: `SchemaSettings::openapi3()`'s list (ReplaceUnevaluatedProperties,
//! ReplaceBoolSchemas, AddNullable, RemoveRefSiblings, SetSingleExample, ReplaceConstValue,
//! ReplacePrefixItems), then `AddNullable`, kube's `StructuralSchemaRewriter`,
//! `OptionalEnum` and `OptionalIntOrString` (kube-derive `custom_resource/mod.rs`).
//! kube's rewriter is given the schema one node at a time (`structural_rewrite`), which
//! gives the same schema in time linear in its size.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator};

/// kube-derive's generator settings: inline everything, no `$schema`.
pub fn settings() -> SchemaSettings {
    SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .with_transform(schemars::transform::AddNullable::default())
        .with_transform(super::structural_rewrite::NodeByNode)
        .with_transform(kube_core::schema::OptionalEnum)
        .with_transform(kube_core::schema::OptionalIntOrString)
}

pub fn generator() -> SchemaGenerator {
    settings().into_generator()
}

/// Runs every transform of `generator` on `schema`, in order (what
/// `into_root_schema_for` does last). kube's rewriter panics on shapes it rejects
/// (conflicting variant properties or types); that becomes `Err` with its message, so the
/// caller can report it at the type.
pub fn apply(generator: &mut SchemaGenerator, schema: &mut Schema) -> Result<(), String> {
    let run = AssertUnwindSafe(|| {
        for t in generator.transforms_mut() {
            t.transform(schema);
        }
    });
    let result = quietly(run);
    result.map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "kube's structural schema rewrite failed".to_string())
    })
}

thread_local! {
    /// Whether this thread's panics are caught and reported by [`quietly`].
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, catching a panic without printing it: kube's panic message is reported as a
/// diagnostic instead. The panic hook is process-wide, so it is installed once and stays
/// quiet only for the thread inside `quietly`; swapping hooks per call would lose another
/// thread's panic message, or keep the quiet hook for good when two calls overlap.
fn quietly<R>(f: impl FnOnce() -> R + std::panic::UnwindSafe) -> std::thread::Result<R> {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let loud = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.get() {
                loud(info);
            }
        }));
    });
    QUIET.set(true);
    let result = catch_unwind(f);
    QUIET.set(false);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(v: serde_json::Value) -> serde_json::Value {
        let mut g = generator();
        let mut s: Schema = serde_json::from_value(v).unwrap();
        apply(&mut g, &mut s).unwrap();
        s.to_value()
    }

    #[test]
    fn option_becomes_nullable() {
        assert_eq!(
            run(json!({"type": ["string", "null"]})),
            json!({"type": "string", "nullable": true})
        );
    }

    #[test]
    fn one_of_properties_are_hoisted() {
        let before = json!({"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"], "additionalProperties": false}
        ]});
        let after = run(before);
        assert_eq!(after["type"], "object");
        assert_eq!(after["properties"]["a"], json!({"type": "string"}));
        assert_eq!(
            after["oneOf"],
            json!([{"required": ["a"]}, {"required": ["b"]}])
        );
    }

    #[test]
    fn conflicting_variants_are_an_error_not_a_panic() {
        let mut g = generator();
        let mut s: Schema = serde_json::from_value(json!({"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"a": {"type": "integer"}}}
        ]}))
        .unwrap();
        assert!(apply(&mut g, &mut s).unwrap_err().contains("\"a\""));
    }
}
