//! Types from std and from the crates schemars supports through its optional features
//! (`chrono04`, `url2`, `uuid1`, ...): a table from the type's path to functions over the
//! *real* type, linked into rsbuilder, so every schema comes from schemars' own impl, as
//! the user's crate would get it. Nothing here is a hand-written schema.
//!
//! Generic types read their parameters through `typeops`' [`Slot`] (and [`Slot2`] for a
//! second one), like `Option<T>` and `Vec<T>` there. A feature-crate type is only used when
//! the crate's manifest (or lock file) turns the schemars feature on: without it the user's
//! crate has no `JsonSchema` impl for the type, and rsbuilder says which feature is missing.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::typeops::{ApplyFn, Slot, Slot2, apply};

/// How a type's parameters are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Params {
    /// No parameters.
    None,
    /// Parameters that do not change the schema (`DateTime<Tz>`).
    Ignored,
    /// One type parameter, the element or wrapped type.
    One,
    /// One parameter that is an array type `[T; N]`, of which `T` matters (`SmallVec`).
    OneArray,
    /// A map: a `String` key, and the value type.
    StringKeyed,
    /// Two type parameters (`Either<L, R>`).
    Two,
}

/// What `Default::default()` of the type serializes to.
#[derive(Clone, Copy)]
pub enum DefaultOf {
    /// `serde_json::to_value(T::default())` of the real type.
    Value(fn() -> Option<Value>),
    /// An empty sequence or map.
    EmptyArray,
    EmptyObject,
    /// The default of the one parameter (`Cell<T>`, `Reverse<T>`).
    Inner,
    /// No `Default` impl, or none whose serialized form rsbuilder knows.
    Unknown,
}

/// One type.
pub struct ExtType {
    /// The path code names it by (std types by their `std::` path).
    pub path: &'static str,
    /// schemars' feature that holds the impl; `None` for std.
    pub feature: Option<&'static str>,
    pub params: Params,
    pub apply: ApplyFn,
    pub default: DefaultOf,
}

fn value_of<T: Default + serde::Serialize>() -> Option<Value> {
    serde_json::to_value(T::default()).ok()
}

macro_rules! plain {
    ($path:literal, $ty:ty) => {
        ExtType {
            path: $path,
            feature: None,
            params: Params::None,
            apply: apply::<$ty>,
            default: DefaultOf::Unknown,
        }
    };
    ($path:literal, $ty:ty, default) => {
        ExtType {
            path: $path,
            feature: None,
            params: Params::None,
            apply: apply::<$ty>,
            default: DefaultOf::Value(value_of::<$ty>),
        }
    };
}

macro_rules! generic {
    ($path:literal, $params:ident, $ty:ty, $default:ident) => {
        ExtType {
            path: $path,
            feature: None,
            params: Params::$params,
            apply: apply::<$ty>,
            default: DefaultOf::$default,
        }
    };
}

macro_rules! featured {
    ($feature:literal, $path:literal, $params:ident, $ty:ty, $default:ident) => {
        ExtType {
            path: $path,
            feature: Some($feature),
            params: Params::$params,
            apply: apply::<$ty>,
            default: DefaultOf::$default,
        }
    };
}

fn all() -> Vec<ExtType> {
    use std::num::*;
    vec![
        plain!("std::net::IpAddr", std::net::IpAddr),
        plain!("std::net::Ipv4Addr", std::net::Ipv4Addr),
        plain!("std::net::Ipv6Addr", std::net::Ipv6Addr),
        plain!("std::net::SocketAddr", std::net::SocketAddr),
        plain!("std::net::SocketAddrV4", std::net::SocketAddrV4),
        plain!("std::net::SocketAddrV6", std::net::SocketAddrV6),
        plain!("std::num::NonZeroU8", NonZeroU8),
        plain!("std::num::NonZeroU16", NonZeroU16),
        plain!("std::num::NonZeroU32", NonZeroU32),
        plain!("std::num::NonZeroU64", NonZeroU64),
        plain!("std::num::NonZeroU128", NonZeroU128),
        plain!("std::num::NonZeroUsize", NonZeroUsize),
        plain!("std::num::NonZeroI8", NonZeroI8),
        plain!("std::num::NonZeroI16", NonZeroI16),
        plain!("std::num::NonZeroI32", NonZeroI32),
        plain!("std::num::NonZeroI64", NonZeroI64),
        plain!("std::num::NonZeroI128", NonZeroI128),
        plain!("std::num::NonZeroIsize", NonZeroIsize),
        plain!("std::time::Duration", std::time::Duration, default),
        plain!("std::time::SystemTime", std::time::SystemTime),
        plain!("std::path::Path", std::path::Path),
        plain!("std::ffi::OsString", std::ffi::OsString, default),
        plain!(
            "std::sync::atomic::AtomicBool",
            std::sync::atomic::AtomicBool,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicU8",
            std::sync::atomic::AtomicU8,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicU16",
            std::sync::atomic::AtomicU16,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicU32",
            std::sync::atomic::AtomicU32,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicU64",
            std::sync::atomic::AtomicU64,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicUsize",
            std::sync::atomic::AtomicUsize,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicI8",
            std::sync::atomic::AtomicI8,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicI16",
            std::sync::atomic::AtomicI16,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicI32",
            std::sync::atomic::AtomicI32,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicI64",
            std::sync::atomic::AtomicI64,
            default
        ),
        plain!(
            "std::sync::atomic::AtomicIsize",
            std::sync::atomic::AtomicIsize,
            default
        ),
        generic!(
            "std::collections::LinkedList",
            One,
            std::collections::LinkedList<Slot>,
            EmptyArray
        ),
        generic!(
            "std::collections::BinaryHeap",
            One,
            std::collections::BinaryHeap<Slot>,
            EmptyArray
        ),
        generic!("std::cell::Cell", One, std::cell::Cell<Slot>, Inner),
        generic!("std::cell::RefCell", One, std::cell::RefCell<Slot>, Inner),
        generic!("std::sync::Mutex", One, std::sync::Mutex<Slot>, Inner),
        generic!("std::sync::RwLock", One, std::sync::RwLock<Slot>, Inner),
        generic!("std::num::Wrapping", One, Wrapping<Slot>, Inner),
        generic!("std::cmp::Reverse", One, std::cmp::Reverse<Slot>, Inner),
        generic!("std::ops::Range", One, std::ops::Range<Slot>, Unknown),
        generic!(
            "std::ops::RangeInclusive",
            One,
            std::ops::RangeInclusive<Slot>,
            Unknown
        ),
        featured!(
            "chrono04",
            "chrono::DateTime",
            Ignored,
            chrono::DateTime<chrono::Utc>,
            Unknown
        ),
        featured!(
            "chrono04",
            "chrono::NaiveDate",
            None,
            chrono::NaiveDate,
            Unknown
        ),
        featured!(
            "chrono04",
            "chrono::NaiveDateTime",
            None,
            chrono::NaiveDateTime,
            Unknown
        ),
        featured!(
            "chrono04",
            "chrono::NaiveTime",
            None,
            chrono::NaiveTime,
            Unknown
        ),
        featured!(
            "chrono04",
            "chrono::Weekday",
            None,
            chrono::Weekday,
            Unknown
        ),
        featured!(
            "chrono04",
            "chrono::TimeDelta",
            None,
            chrono::TimeDelta,
            Unknown
        ),
        featured!(
            "chrono04",
            "chrono::Duration",
            None,
            chrono::TimeDelta,
            Unknown
        ),
        featured!("url2", "url::Url", None, url::Url, Unknown),
        featured!("uuid1", "uuid::Uuid", None, uuid::Uuid, Unknown),
        featured!("semver1", "semver::Version", None, semver::Version, Unknown),
        featured!("bytes1", "bytes::Bytes", None, bytes::Bytes, Unknown),
        featured!("bytes1", "bytes::BytesMut", None, bytes::BytesMut, Unknown),
        featured!("either1", "either::Either", Two, either::Either<Slot, Slot2>, Unknown),
        featured!("indexmap2", "indexmap::IndexMap", StringKeyed, indexmap::IndexMap<String, Slot>, EmptyObject),
        featured!("indexmap2", "indexmap::map::IndexMap", StringKeyed, indexmap::IndexMap<String, Slot>, EmptyObject),
        featured!(
            "indexmap2",
            "indexmap::IndexSet",
            One,
            indexmap::IndexSet<Slot>,
            EmptyArray
        ),
        featured!(
            "indexmap2",
            "indexmap::set::IndexSet",
            One,
            indexmap::IndexSet<Slot>,
            EmptyArray
        ),
        featured!(
            "smallvec1",
            "smallvec::SmallVec",
            OneArray,
            smallvec::SmallVec<[Slot; 1]>,
            EmptyArray
        ),
        featured!(
            "smol_str",
            "smol_str::SmolStr",
            None,
            smol_str::SmolStr,
            Unknown
        ),
        featured!("jiff02", "jiff::Timestamp", None, jiff::Timestamp, Unknown),
        featured!("jiff02", "jiff::Zoned", None, jiff::Zoned, Unknown),
        featured!("jiff02", "jiff::Span", None, jiff::Span, Unknown),
        featured!(
            "jiff02",
            "jiff::SignedDuration",
            None,
            jiff::SignedDuration,
            Unknown
        ),
        featured!(
            "jiff02",
            "jiff::civil::Date",
            None,
            jiff::civil::Date,
            Unknown
        ),
        featured!(
            "jiff02",
            "jiff::civil::Time",
            None,
            jiff::civil::Time,
            Unknown
        ),
        featured!(
            "jiff02",
            "jiff::civil::DateTime",
            None,
            jiff::civil::DateTime,
            Unknown
        ),
        featured!(
            "rust_decimal1",
            "rust_decimal::Decimal",
            None,
            rust_decimal::Decimal,
            Unknown
        ),
        featured!(
            "bigdecimal04",
            "bigdecimal::BigDecimal",
            None,
            bigdecimal::BigDecimal,
            Unknown
        ),
    ]
}

/// Other paths to the same types: `core::`/`alloc::` for std, and the crates' re-exports.
const ALIASES: &[(&str, &str)] = &[
    ("core::", "std::"),
    ("alloc::", "std::"),
    ("std::collections::linked_list::", "std::collections::"),
    ("std::collections::binary_heap::", "std::collections::"),
    ("chrono::naive::", "chrono::"),
    ("chrono::datetime::", "chrono::"),
    ("chrono::prelude::", "chrono::"),
    ("rust_decimal::prelude::", "rust_decimal::"),
    ("jiff::civil::", "jiff::civil::"),
];

/// Looks up a fully qualified path (`std::net::IpAddr`, `chrono::DateTime`).
pub fn lookup(path: &str) -> Option<&'static ExtType> {
    static TABLE: OnceLock<HashMap<&'static str, ExtType>> = OnceLock::new();
    let table = TABLE.get_or_init(|| all().into_iter().map(|t| (t.path, t)).collect());
    if let Some(t) = table.get(path) {
        return Some(t);
    }
    ALIASES.iter().find_map(|(from, to)| {
        let rest = path.strip_prefix(from)?;
        table.get(format!("{to}{rest}").as_str())
    })
}

/// `std::num::NonZero<u16>`: the generic spelling of `NonZeroU16`.
pub fn non_zero(primitive: &str) -> Option<&'static ExtType> {
    let suffix = match primitive {
        "u8" => "U8",
        "u16" => "U16",
        "u32" => "U32",
        "u64" => "U64",
        "u128" => "U128",
        "usize" => "Usize",
        "i8" => "I8",
        "i16" => "I16",
        "i32" => "I32",
        "i64" => "I64",
        "i128" => "I128",
        "isize" => "Isize",
        _ => return None,
    };
    lookup(&format!("std::num::NonZero{suffix}"))
}

/// Whether a path is `std::num::NonZero` (the generic form).
pub fn is_non_zero(path: &str) -> bool {
    matches!(path, "std::num::NonZero" | "core::num::NonZero")
}

/// `[T; N]` for the lengths schemars implements (0 to 32).
pub fn array(len: usize) -> Option<ApplyFn> {
    macro_rules! arrays {
        ($($n:literal)*) => {
            match len {
                $($n => Some(apply::<[Slot; $n]>),)*
                _ => None,
            }
        };
    }
    arrays!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}

/// The package a feature-crate type comes from, for messages (`chrono` for `chrono::…`).
pub fn package(t: &ExtType) -> &'static str {
    t.path.split("::").next().unwrap_or(t.path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::typeops::{Op, with_slot, with_slot2};

    #[test]
    fn finds_types_and_aliases() {
        assert!(lookup("std::net::IpAddr").is_some());
        assert!(lookup("core::num::NonZeroU16").is_some());
        assert!(lookup("chrono::naive::NaiveDate").is_some());
        assert_eq!(
            non_zero("u16").map(|t| t.path),
            Some("std::num::NonZeroU16")
        );
        assert!(lookup("std::net::Nope").is_none());
        assert!(array(32).is_some() && array(33).is_none());
    }

    #[test]
    fn two_slots_behave_like_the_real_types() {
        let mut g = crate::crd::transforms::generator();
        let real = g.subschema_for::<either::Either<u8, String>>();
        let left = g.subschema_for::<u8>();
        let right = g.subschema_for::<String>();
        let t = lookup("either::Either").unwrap();
        let got = with_slot(left, || {
            with_slot2(right, || (t.apply)(Op::Subschema, &mut g))
        });
        assert_eq!(real, got);
    }
}
