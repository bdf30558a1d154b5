//! The CEL functions lint can check and evaluate: those of the environment the API server
//! compiles CRD rules in (Kubernetes 1.37: the standard library, strings v2, lists, sets,
//! regex, URLs, IP/CIDR, quantity, semver, named formats — no math, no encoders, no
//! `cel.bind`), which the `cel` crate and kube-cel also provide. A test asks the runtime
//! for every entry, so the table never claims a function the evaluator lacks.
//!
//! A call of a function the API server declares but lint cannot evaluate ([`SERVER_ONLY`])
//! is reported as unsupported; a call of one the server does not declare either is an
//! error, as it is for the server.

/// A type as far as signatures care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ret {
    Bool,
    Int,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    /// Anything: the checker stops typing there.
    Dyn,
    /// The receiver's type.
    Recv,
    /// The element type of the receiver (a list).
    Elem,
    /// An optional of the receiver's element type.
    OptElem,
    ListString,
    ListInt,
    ListDyn,
    MapStringListString,
    /// The inner type of an optional receiver.
    Inner,
    /// An optional of the first argument's type.
    OptArg,
    OptDyn,
    /// A Kubernetes library object: `quantity`, `url`, `ip`, `cidr`, `semver`, `format`.
    Opaque(&'static str),
    OptOpaque(&'static str),
    OptListString,
}

/// One overload family: a name, called on a receiver (`method`) or not, with `arity`
/// arguments (None: any number), on receivers of the listed kinds.
#[derive(Debug)]
pub struct Function {
    pub name: &'static str,
    pub method: bool,
    pub arity: Option<&'static [usize]>,
    /// Receiver kinds (see `types::Ty::kind`); empty for global functions; `dyn` accepts all.
    pub receivers: &'static [&'static str],
    pub ret: Ret,
}

const fn m(
    name: &'static str,
    arity: &'static [usize],
    receivers: &'static [&'static str],
    ret: Ret,
) -> Function {
    Function {
        name,
        method: true,
        arity: Some(arity),
        receivers,
        ret,
    }
}

const fn g(name: &'static str, arity: &'static [usize], ret: Ret) -> Function {
    Function {
        name,
        method: false,
        arity: Some(arity),
        receivers: &[],
        ret,
    }
}

const STR: &[&str] = &["string"];
const LIST: &[&str] = &["list"];
const TIME: &[&str] = &["timestamp", "duration"];
const QTY_SEMVER: &[&str] = &["quantity", "semver"];
const IP_CIDR: &[&str] = &["ip", "cidr"];

pub static FUNCTIONS: &[Function] = &[
    // The standard library (cel crate).
    m("size", &[0], &["string", "bytes", "list", "map"], Ret::Int),
    g("size", &[1], Ret::Int),
    m("contains", &[1], STR, Ret::Bool),
    m("startsWith", &[1], STR, Ret::Bool),
    m("endsWith", &[1], STR, Ret::Bool),
    m("matches", &[1], STR, Ret::Bool),
    g("matches", &[2], Ret::Bool),
    g("int", &[1], Ret::Int),
    g("uint", &[1], Ret::Int),
    g("double", &[1], Ret::Double),
    g("string", &[1], Ret::String),
    g("bytes", &[1], Ret::Bytes),
    g("duration", &[1], Ret::Duration),
    g("timestamp", &[1], Ret::Timestamp),
    m("getFullYear", &[0, 1], TIME, Ret::Int),
    m("getMonth", &[0, 1], TIME, Ret::Int),
    m("getDayOfYear", &[0, 1], TIME, Ret::Int),
    m("getDayOfMonth", &[0, 1], TIME, Ret::Int),
    m("getDate", &[0, 1], TIME, Ret::Int),
    m("getDayOfWeek", &[0, 1], TIME, Ret::Int),
    m("getHours", &[0, 1], TIME, Ret::Int),
    m("getMinutes", &[0, 1], TIME, Ret::Int),
    m("getSeconds", &[0, 1], TIME, Ret::Int),
    m("getMilliseconds", &[0, 1], TIME, Ret::Int),
    // Optional values.
    g("optional.of", &[1], Ret::OptArg),
    g("optional.none", &[0], Ret::OptDyn),
    g("optional.ofNonZeroValue", &[1], Ret::OptArg),
    m("hasValue", &[0], &["optional"], Ret::Bool),
    m("value", &[0], &["optional"], Ret::Inner),
    m("or", &[1], &["optional"], Ret::Recv),
    m("orValue", &[1], &["optional"], Ret::Inner),
    // Extended strings.
    m("charAt", &[1], STR, Ret::String),
    m("indexOf", &[1, 2], &["string", "list"], Ret::Int),
    m("lastIndexOf", &[1, 2], &["string", "list"], Ret::Int),
    m("lowerAscii", &[0], STR, Ret::String),
    m("upperAscii", &[0], STR, Ret::String),
    m("replace", &[2, 3], STR, Ret::String),
    m("split", &[1, 2], STR, Ret::ListString),
    m("substring", &[1, 2], STR, Ret::String),
    m("trim", &[0], STR, Ret::String),
    m("join", &[0, 1], LIST, Ret::String),
    m("format", &[1], STR, Ret::String),
    g("strings.quote", &[1], Ret::String),
    // Lists.
    m("isSorted", &[0], LIST, Ret::Bool),
    m("sum", &[0], LIST, Ret::Elem),
    m("min", &[0], LIST, Ret::Elem),
    m("max", &[0], LIST, Ret::Elem),
    m("slice", &[2], LIST, Ret::Recv),
    m("sort", &[0], LIST, Ret::Recv),
    m("flatten", &[0, 1], LIST, Ret::ListDyn),
    m("distinct", &[0], LIST, Ret::Recv),
    m("reverse", &[0], LIST, Ret::Recv),
    m("first", &[0], LIST, Ret::OptElem),
    m("last", &[0], LIST, Ret::OptElem),
    g("lists.range", &[1], Ret::ListInt),
    // Sets.
    g("sets.contains", &[2], Ret::Bool),
    g("sets.equivalent", &[2], Ret::Bool),
    g("sets.intersects", &[2], Ret::Bool),
    // Regex.
    m("find", &[1], STR, Ret::String),
    m("findAll", &[1, 2], STR, Ret::ListString),
    // URLs.
    g("url", &[1], Ret::Opaque("url")),
    g("isURL", &[1], Ret::Bool),
    m("getScheme", &[0], &["url"], Ret::String),
    m("getHost", &[0], &["url"], Ret::String),
    m("getHostname", &[0], &["url"], Ret::String),
    m("getPort", &[0], &["url"], Ret::String),
    m("getEscapedPath", &[0], &["url"], Ret::String),
    m("getQuery", &[0], &["url"], Ret::MapStringListString),
    // IP and CIDR.
    g("ip", &[1], Ret::Opaque("ip")),
    m("ip", &[0], &["cidr"], Ret::Opaque("ip")),
    g("isIP", &[1], Ret::Bool),
    g("ip.isCanonical", &[1], Ret::Bool),
    m("family", &[0], &["ip"], Ret::Int),
    m("isLoopback", &[0], &["ip"], Ret::Bool),
    m("isUnspecified", &[0], &["ip"], Ret::Bool),
    m("isLinkLocalMulticast", &[0], &["ip"], Ret::Bool),
    m("isLinkLocalUnicast", &[0], &["ip"], Ret::Bool),
    m("isGlobalUnicast", &[0], &["ip"], Ret::Bool),
    g("cidr", &[1], Ret::Opaque("cidr")),
    g("isCIDR", &[1], Ret::Bool),
    m("containsIP", &[1], &["cidr"], Ret::Bool),
    m("containsCIDR", &[1], &["cidr"], Ret::Bool),
    m("prefixLength", &[0], &["cidr"], Ret::Int),
    m("masked", &[0], &["cidr"], Ret::Opaque("cidr")),
    m("string", &[0], IP_CIDR, Ret::String),
    // Quantity.
    g("quantity", &[1], Ret::Opaque("quantity")),
    g("isQuantity", &[1], Ret::Bool),
    m("isInteger", &[0], &["quantity"], Ret::Bool),
    m("asInteger", &[0], &["quantity"], Ret::Int),
    m("asApproximateFloat", &[0], &["quantity"], Ret::Double),
    m("sign", &[0], &["quantity"], Ret::Int),
    m("add", &[1], &["quantity"], Ret::Opaque("quantity")),
    m("sub", &[1], &["quantity"], Ret::Opaque("quantity")),
    m("isGreaterThan", &[1], QTY_SEMVER, Ret::Bool),
    m("isLessThan", &[1], QTY_SEMVER, Ret::Bool),
    m("compareTo", &[1], QTY_SEMVER, Ret::Int),
    // Semver.
    g("semver", &[1, 2], Ret::Opaque("semver")),
    g("isSemver", &[1, 2], Ret::Bool),
    m("major", &[0], &["semver"], Ret::Int),
    m("minor", &[0], &["semver"], Ret::Int),
    m("patch", &[0], &["semver"], Ret::Int),
    // Named formats.
    g("format.dns1123Label", &[0], Ret::Opaque("format")),
    g("format.dns1123Subdomain", &[0], Ret::Opaque("format")),
    g("format.dns1035Label", &[0], Ret::Opaque("format")),
    g("format.dns1035LabelPrefix", &[0], Ret::Opaque("format")),
    g("format.dns1123LabelPrefix", &[0], Ret::Opaque("format")),
    g("format.dns1123SubdomainPrefix", &[0], Ret::Opaque("format")),
    g("format.qualifiedName", &[0], Ret::Opaque("format")),
    g("format.labelValue", &[0], Ret::Opaque("format")),
    g("format.uri", &[0], Ret::Opaque("format")),
    g("format.uuid", &[0], Ret::Opaque("format")),
    g("format.byte", &[0], Ret::Opaque("format")),
    g("format.date", &[0], Ret::Opaque("format")),
    g("format.datetime", &[0], Ret::Opaque("format")),
    g("format.named", &[1], Ret::OptOpaque("format")),
    m("validate", &[1], &["format"], Ret::OptListString),
];

/// Functions and macros the API server declares for CRD rules that lint cannot evaluate:
/// a rule that calls one is unsupported, not wrong.
pub const SERVER_ONLY: &[&str] = &[
    // The standard library: types as values.
    "type",
    "dyn",
    // Two-variable comprehensions (Kubernetes 1.32) and `sortBy` (lists v3, 1.34).
    "transformList",
    "transformMap",
    "transformMapEntry",
    "sortBy",
    // Macros of optional values.
    "optMap",
    "optFlatMap",
];

/// Global functions called `name`.
pub fn global(name: &str) -> impl Iterator<Item = &'static Function> + '_ {
    FUNCTIONS
        .iter()
        .filter(move |f| !f.method && f.name == name)
}

/// Methods called `name`.
pub fn methods(name: &str) -> impl Iterator<Item = &'static Function> + '_ {
    FUNCTIONS.iter().filter(move |f| f.method && f.name == name)
}

/// The kinds each argument of `name` takes where the API server's overloads pin them
/// (`receiver`: the kind of a method's receiver, None for a global), one slice per
/// argument; None where lint does not check them.
pub fn params(name: &str, receiver: Option<&str>) -> Option<&'static [&'static [&'static str]]> {
    const S: &[&str] = &["string"];
    const I: &[&str] = &["int"];
    const SIZED: &[&str] = &["string", "bytes", "list", "map"];
    Some(match (receiver, name) {
        (Some("string"), "contains" | "startsWith" | "endsWith" | "matches" | "find") => &[S],
        (Some("string"), "indexOf" | "lastIndexOf") => &[S, I],
        (Some("string"), "charAt") => &[I],
        (Some("string"), "replace") => &[S, S, I],
        (Some("string"), "split" | "findAll") => &[S, I],
        (Some("string"), "substring") => &[I, I],
        (Some("list"), "join") => &[S],
        (None, "size") => &[SIZED],
        (None, "matches") => &[S, S],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::KubeCelExt;
    use kube_cel::cel::{Context, ExecutionError, Program};

    /// Every function of the table exists in the runtime lint evaluates with: calling it
    /// with wrong arguments may fail, but never as an undeclared reference.
    #[test]
    fn the_runtime_provides_every_function_of_the_table() {
        let ctx = Context::default().with_all();
        for f in FUNCTIONS {
            let call = if f.method {
                format!("'x'.{}()", f.name)
            } else {
                format!("{}()", f.name)
            };
            let program = Program::compile(&call).unwrap_or_else(|e| panic!("{call}: {e}"));
            if let Err(ExecutionError::UndeclaredReference(name)) = program.execute(&ctx) {
                panic!("the runtime has no function {name} (from `{call}`)");
            }
        }
    }

    /// And what the table leaves out really is missing: these need macros the `cel`
    /// crate does not have.
    #[test]
    fn known_gaps_are_undeclared_in_the_runtime() {
        let ctx = Context::default().with_all();
        for call in [
            "[1].sortBy(x, x)",
            "cel.bind(x, 1, x)",
            "[1].transformList(i, v, v)",
        ] {
            let program = Program::compile(call).unwrap();
            assert!(
                matches!(
                    program.execute(&ctx),
                    Err(ExecutionError::UndeclaredReference(_))
                ),
                "{call} is supported now: add it to the table"
            );
        }
    }
}
