//! Running schemars' own `JsonSchema` impls on types rsbuilder only knows by name.
//!
//! Standard types (`u16`, `String`, `Option<_>`, `BTreeMap<String, _>`, ...) and
//! Kubernetes types are real Rust types here, so their schemas come from schemars /
//! k8s-openapi themselves. A user type has no Rust type in this process: its schema is
//! built by [`super::schema`] and handed to the generic impls through [`Slot`], a
//! `JsonSchema` type whose schema is "whatever was put in the slot". `Option<Slot>` then
//! behaves exactly like `Option<UserType>` would.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use schemars::{JsonSchema, Schema, SchemaGenerator};

/// What the derive asks of a field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `generator.subschema_for::<T>()`
    Subschema,
    /// `T::_schemars_private_non_optional_json_schema(generator)` (for `#[schemars(required)]`)
    NonOptional,
    /// `json_schema_for_flatten::<T>(generator, required)` (for `#[serde(flatten)]`)
    Flatten { required: bool },
}

pub type ApplyFn = fn(Op, &mut SchemaGenerator) -> Schema;

/// Runs `op` on the real type `T`.
pub fn apply<T: JsonSchema + ?Sized>(op: Op, generator: &mut SchemaGenerator) -> Schema {
    match op {
        Op::Subschema => generator.subschema_for::<T>(),
        Op::NonOptional => T::_schemars_private_non_optional_json_schema(generator),
        // schemars_derive calls this hidden helper for flattened fields; calling the same
        // function keeps the unit-variant and `Option` special cases identical.
        Op::Flatten { required } => {
            schemars::_private::json_schema_for_flatten::<T>(generator, required)
        }
    }
}

/// What the slot stands for: the type's schema, and for a type schemars treats as an
/// `Option` (`_schemars_private_is_option`) the schema without the `Option`.
struct Slotted {
    schema: Option<Schema>,
    non_optional: Option<Schema>,
    is_option: bool,
    /// Whether the impl reads its parameter at most once, so the schemas can be moved out
    /// of the slot rather than copied (see [`with_option_slot`]).
    read_once: bool,
}

impl Slotted {
    fn hand_out(read_once: bool, schema: &mut Option<Schema>) -> Option<Schema> {
        if !read_once {
            return schema.clone();
        }
        let taken = schema.take();
        assert!(
            taken.is_some(),
            "a schemars impl read its type parameter twice, given it to read once"
        );
        taken
    }
}

thread_local! {
    static SLOT: RefCell<Vec<Slotted>> = const { RefCell::new(Vec::new()) };
}

/// A stand-in type whose schema is the one most recently given to [`with_slot`].
#[derive(Clone)]
pub struct Slot;

impl Slot {
    fn top<R>(f: impl FnOnce(Option<&mut Slotted>) -> R) -> R {
        SLOT.with(|s| f(s.borrow_mut().last_mut()))
    }
}

impl JsonSchema for Slot {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Slot".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Self::top(|t| t.and_then(|t| Slotted::hand_out(t.read_once, &mut t.schema)))
            .unwrap_or_else(|| Schema::from(false))
    }

    // `Option<T>`, and everything that forwards to it (`Box`, `Arc`, transparent newtypes),
    // answers these two differently from other types: the derive makes such a field
    // optional, and `#[schemars(required)]`/`flatten` take the inner schema.
    fn _schemars_private_non_optional_json_schema(generator: &mut SchemaGenerator) -> Schema {
        Self::top(|t| {
            t.filter(|t| t.is_option)
                .and_then(|t| Slotted::hand_out(t.read_once, &mut t.non_optional))
        })
        .unwrap_or_else(|| Self::json_schema(generator))
    }

    fn _schemars_private_is_option() -> bool {
        Self::top(|t| t.is_some_and(|t| t.is_option))
    }
}

/// Runs `f` (which applies an impl over `Slot`) with `schema` in the slot, copied out at
/// each read: for the impls nobody checked to read their parameter only once (other
/// standard and library generics, arrays, maps with keys that are not strings).
pub fn with_slot(schema: Schema, f: impl FnOnce() -> Schema) -> Schema {
    fill_slot(schema, None, false, f)
}

/// Runs `f` with `schema` in the slot (and for a type schemars treats as an `Option`, the
/// schema without it in `non_optional`), for `Slot` itself and the [`Wrapper`]s: they read
/// their parameter once (`wrappers_read_their_parameter_once` checks each), so the schema
/// is moved out, not copied. A kopium-style CRD wraps its deep tree of types in an
/// `Option` or a `Vec` at every level: copies made each subtree again at each level above
/// it (4 % of the Pooler case's instructions).
pub fn with_option_slot(
    schema: Schema,
    non_optional: Option<Schema>,
    f: impl FnOnce() -> Schema,
) -> Schema {
    fill_slot(schema, non_optional, true, f)
}

/// Runs `f` with a stand-in in the slot, then puts `schema` where the impl placed the
/// stand-in: for the [`Wrapper`]s that place their parameter's schema whole without
/// looking into it ([`Wrapper::places_whole`]). Their impls build their schema with
/// `json_schema!`, which serializes every value it is given, so the parameter's schema
/// itself would be copied once more at every `Vec` or map of a deep tree of types.
pub fn with_stand_in(
    schema: Schema,
    non_optional: Option<Schema>,
    f: impl FnOnce() -> Schema,
) -> Schema {
    let mut out = fill_slot(stand_in(), non_optional, false, f);
    if is_stand_in(out.as_value()) {
        return schema;
    }
    let mut places = Vec::new();
    if let Some(object) = out.as_object_mut() {
        stand_ins(object.values_mut(), &mut places);
    }
    // The impl may place its parameter more than once: all places but the last get a copy.
    let mut schema = Some(schema.to_value());
    let last = places.len().saturating_sub(1);
    for (i, place) in places.into_iter().enumerate() {
        *place = if i == last {
            schema.take().unwrap_or_default()
        } else {
            schema.clone().unwrap_or_default()
        };
    }
    out
}

/// What [`with_stand_in`] puts in the slot: a schema no impl writes itself.
fn stand_in() -> Schema {
    let mut schema = Schema::default();
    schema.insert(STAND_IN.to_string(), true.into());
    schema
}

const STAND_IN: &str = "x-rsbuilder-stand-in";

fn is_stand_in(value: &serde_json::Value) -> bool {
    value
        .as_object()
        .is_some_and(|o| o.len() == 1 && o.contains_key(STAND_IN))
}

fn stand_ins<'v>(
    values: impl Iterator<Item = &'v mut serde_json::Value>,
    out: &mut Vec<&'v mut serde_json::Value>,
) {
    for value in values {
        if is_stand_in(value) {
            out.push(value);
            continue;
        }
        match value {
            serde_json::Value::Object(object) => stand_ins(object.values_mut(), out),
            serde_json::Value::Array(array) => stand_ins(array.iter_mut(), out),
            _ => {}
        }
    }
}

fn fill_slot(
    schema: Schema,
    non_optional: Option<Schema>,
    read_once: bool,
    f: impl FnOnce() -> Schema,
) -> Schema {
    SLOT.with(|s| {
        s.borrow_mut().push(Slotted {
            schema: Some(schema),
            is_option: non_optional.is_some(),
            non_optional,
            read_once,
        })
    });
    let out = f();
    SLOT.with(|s| s.borrow_mut().pop());
    out
}

thread_local! {
    static SLOT2: RefCell<Vec<Schema>> = const { RefCell::new(Vec::new()) };
}

/// A second stand-in type, for the second parameter of a two-parameter type.
pub struct Slot2;

impl JsonSchema for Slot2 {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Slot2".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        SLOT2
            .with(|s| s.borrow().last().cloned())
            .unwrap_or_else(|| Schema::from(false))
    }
}

/// Runs `f` with `schema` as [`Slot2`]'s schema.
pub fn with_slot2(schema: Schema, f: impl FnOnce() -> Schema) -> Schema {
    SLOT2.with(|s| s.borrow_mut().push(schema));
    let out = f();
    SLOT2.with(|s| s.borrow_mut().pop());
    out
}
/// A standard generic type with one type parameter we resolve ourselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    Option,
    Vec,
    VecDeque,
    Box,
    Arc,
    Rc,
    /// `Cow<'_, T>` (its lifetime argument is dropped when resolving).
    Cow,
    BTreeSet,
    HashSet,
    /// A map with `String` keys; other keys are refused.
    BTreeMap,
    HashMap,
}

impl Wrapper {
    /// The impl over `Wrapper<Slot>`.
    pub fn apply(self) -> ApplyFn {
        match self {
            Self::Option => apply::<Option<Slot>>,
            Self::Vec => apply::<Vec<Slot>>,
            Self::VecDeque => apply::<VecDeque<Slot>>,
            Self::Box => apply::<Box<Slot>>,
            Self::Arc => apply::<std::sync::Arc<Slot>>,
            Self::Rc => apply::<std::rc::Rc<Slot>>,
            Self::Cow => apply::<std::borrow::Cow<'static, Slot>>,
            Self::BTreeSet => apply::<BTreeSet<Slot>>,
            Self::HashSet => apply::<HashSet<Slot>>,
            Self::BTreeMap => apply::<BTreeMap<String, Slot>>,
            Self::HashMap => apply::<HashMap<String, Slot>>,
        }
    }

    /// Sequences, sets and maps with string keys: their schemars impl places `T`'s schema
    /// in its own without looking into it ([`with_stand_in`]).
    pub fn places_whole(self) -> bool {
        matches!(
            self,
            Self::Vec
                | Self::VecDeque
                | Self::BTreeSet
                | Self::HashSet
                | Self::BTreeMap
                | Self::HashMap
        )
    }

    /// Pointer-like types whose schemars impl forwards everything to `T`.
    pub fn forwards(self) -> bool {
        matches!(self, Self::Box | Self::Arc | Self::Rc | Self::Cow)
    }

    /// The impl over `Map<Slot, Slot2>` (key in [`Slot`], value in `Slot2`), for maps
    /// whose key is not a `String`.
    pub fn apply_keyed(self) -> Option<ApplyFn> {
        match self {
            Self::BTreeMap => Some(apply::<BTreeMap<Slot, Slot2>>),
            Self::HashMap => Some(apply::<HashMap<Slot, Slot2>>),
            _ => None,
        }
    }

    pub fn is_map(self) -> bool {
        matches!(self, Self::BTreeMap | Self::HashMap)
    }

    /// From a fully qualified path or a prelude name.
    pub fn from_path(path: &str) -> Option<Self> {
        Some(match path {
            "Option" | "std::option::Option" | "core::option::Option" => Self::Option,
            "Vec" | "std::vec::Vec" | "alloc::vec::Vec" => Self::Vec,
            "Box" | "std::boxed::Box" | "alloc::boxed::Box" => Self::Box,
            "std::collections::VecDeque"
            | "alloc::collections::VecDeque"
            | "std::collections::vec_deque::VecDeque" => Self::VecDeque,
            "std::sync::Arc" | "alloc::sync::Arc" => Self::Arc,
            "std::rc::Rc" | "alloc::rc::Rc" => Self::Rc,
            "std::borrow::Cow" | "alloc::borrow::Cow" => Self::Cow,
            "std::collections::BTreeSet"
            | "alloc::collections::BTreeSet"
            | "std::collections::btree_set::BTreeSet" => Self::BTreeSet,
            "std::collections::HashSet" | "std::collections::hash_set::HashSet" => Self::HashSet,
            "std::collections::BTreeMap"
            | "alloc::collections::BTreeMap"
            | "std::collections::btree_map::BTreeMap" => Self::BTreeMap,
            "std::collections::HashMap" | "std::collections::hash_map::HashMap" => Self::HashMap,
            _ => return None,
        })
    }
}

/// A non-generic standard type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prim {
    String,
    /// `str`, behind `Box`/`Cow`/`Arc`.
    Str,
    Bool,
    Char,
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
    F32,
    F64,
    JsonValue,
    PathBuf,
    Unit,
}

impl Prim {
    pub fn apply(self) -> ApplyFn {
        match self {
            Self::String => apply::<String>,
            Self::Str => apply::<str>,
            Self::Bool => apply::<bool>,
            Self::Char => apply::<char>,
            Self::U8 => apply::<u8>,
            Self::U16 => apply::<u16>,
            Self::U32 => apply::<u32>,
            Self::U64 => apply::<u64>,
            Self::U128 => apply::<u128>,
            Self::Usize => apply::<usize>,
            Self::I8 => apply::<i8>,
            Self::I16 => apply::<i16>,
            Self::I32 => apply::<i32>,
            Self::I64 => apply::<i64>,
            Self::I128 => apply::<i128>,
            Self::Isize => apply::<isize>,
            Self::F32 => apply::<f32>,
            Self::F64 => apply::<f64>,
            Self::JsonValue => apply::<serde_json::Value>,
            Self::PathBuf => apply::<std::path::PathBuf>,
            Self::Unit => apply::<()>,
        }
    }

    /// Primitive type names (never shadowed by paths).
    pub fn from_primitive(name: &str) -> Option<Self> {
        Some(match name {
            "str" => Self::Str,
            "bool" => Self::Bool,
            "char" => Self::Char,
            "u8" => Self::U8,
            "u16" => Self::U16,
            "u32" => Self::U32,
            "u64" => Self::U64,
            "u128" => Self::U128,
            "usize" => Self::Usize,
            "i8" => Self::I8,
            "i16" => Self::I16,
            "i32" => Self::I32,
            "i64" => Self::I64,
            "i128" => Self::I128,
            "isize" => Self::Isize,
            "f32" => Self::F32,
            "f64" => Self::F64,
            _ => return None,
        })
    }

    /// Fully qualified paths and the prelude's `String`.
    pub fn from_path(path: &str) -> Option<Self> {
        Some(match path {
            "String" | "std::string::String" | "alloc::string::String" => Self::String,
            "serde_json::Value" | "serde_json::value::Value" => Self::JsonValue,
            "std::path::PathBuf" => Self::PathBuf,
            other => {
                return Self::from_primitive(
                    other.strip_prefix("std::primitive::").unwrap_or(other),
                );
            }
        })
    }

    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Self::U8
                | Self::U16
                | Self::U32
                | Self::U64
                | Self::U128
                | Self::Usize
                | Self::I8
                | Self::I16
                | Self::I32
                | Self::I64
                | Self::I128
                | Self::Isize
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::generate::SchemaSettings;

    #[test]
    fn slot_behaves_like_the_real_type() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Inner {
            a: u8,
        }
        let mut g = SchemaSettings::openapi3()
            .with(|s| s.inline_subschemas = true)
            .into_generator();
        let real = g.subschema_for::<Option<Vec<Inner>>>();
        let inner = g.subschema_for::<Inner>();
        let vec = with_slot(inner, || Wrapper::Vec.apply()(Op::Subschema, &mut g));
        let opt = with_slot(vec, || Wrapper::Option.apply()(Op::Subschema, &mut g));
        assert_eq!(real, opt);
    }

    const OPS: [Op; 4] = [
        Op::Subschema,
        Op::NonOptional,
        Op::Flatten { required: true },
        Op::Flatten { required: false },
    ];

    const WRAPPERS: [Wrapper; 11] = {
        use Wrapper::*;
        [
            Option, Vec, VecDeque, Box, Arc, Rc, Cow, BTreeSet, HashSet, BTreeMap, HashMap,
        ]
    };

    /// `with_option_slot` moves the schema out of the slot: right only for impls that read
    /// their parameter once. Each wrapper, for each op, must give what copying gives.
    #[test]
    fn wrappers_read_their_parameter_once() {
        let mut g = SchemaSettings::openapi3()
            .with(|s| s.inline_subschemas = true)
            .into_generator();
        let inner = g.subschema_for::<Option<BTreeMap<String, Vec<u8>>>>();
        let non_optional = g.subschema_for::<BTreeMap<String, Vec<u8>>>();
        let impls = WRAPPERS.iter().map(|w| (format!("{w:?}"), w.apply()));
        for (name, f) in impls.chain([("Slot".to_string(), apply::<Slot> as ApplyFn)]) {
            for op in OPS {
                for non_optional in [None, Some(non_optional.clone())] {
                    let copied =
                        fill_slot(inner.clone(), non_optional.clone(), false, || f(op, &mut g));
                    let moved = with_option_slot(inner.clone(), non_optional, || f(op, &mut g));
                    assert_eq!(moved, copied, "{name} {op:?}");
                }
            }
        }
    }

    /// `with_stand_in` puts the schema where the impl placed the stand-in: right only for
    /// impls that do not look into their parameter's schema. Each wrapper that is given
    /// one, for each op, must give what copying gives; an impl that places it twice, or
    /// returns it as it is, gets the schema at each place.
    #[test]
    fn stand_ins_give_what_copying_gives() {
        let mut g = crate::crd::transforms::generator();
        let inner = g.subschema_for::<Option<BTreeMap<String, Vec<u8>>>>();
        let mut given = 0;
        for w in WRAPPERS.into_iter().filter(|w| w.places_whole()) {
            for op in OPS {
                let copied = with_slot(inner.clone(), || w.apply()(op, &mut g));
                let stood = with_stand_in(inner.clone(), None, || w.apply()(op, &mut g));
                assert_eq!(stood, copied, "{w:?} {op:?}");
                given += 1;
            }
        }
        assert_eq!(given, 6 * OPS.len());
        let twice = with_stand_in(
            inner.clone(),
            None,
            || schemars::json_schema!({"anyOf": [Slot::json_schema(&mut g), Slot::json_schema(&mut g)]}),
        );
        assert_eq!(
            twice.get("anyOf"),
            Some(&serde_json::json!([inner.clone(), inner.clone()]))
        );
        let itself = with_stand_in(inner.clone(), None, || Slot::json_schema(&mut g));
        assert_eq!(itself, inner);
    }
}
