//! Validation of every user-supplied name, run before any plan is built.
//!
//! The rules are Kubernetes' own (DNS-1123 / DNS-1035) plus what Rust needs from a
//! type or module name. Because `/` and `..` can never pass them, they also keep
//! generated paths inside the project.
//!
//! The names a CustomResourceDefinition carries follow the API server's validation of
//! CRDs (apiextensions-apiserver, `ValidateCustomResourceDefinitionSpec` and
//! `ValidateCustomResourceDefinitionNames`): the group is a DNS-1123 subdomain with at
//! least one dot; versions, plurals, singulars, short names and categories are DNS-1035
//! labels; a kind and its list kind (`<Kind>List`) are DNS-1035 labels once lowercased.

use anyhow::{Result, bail};

pub mod clash;
pub mod typed;

pub use typed::{Group, Kind, Plural, Version};

const MAX_LABEL: usize = 63;
const MAX_SUBDOMAIN: usize = 253;
/// A kind's list kind, `<Kind>List`, must fit in a label too.
const MAX_KIND: usize = MAX_LABEL - "List".len();

fn is_dns1123_label(s: &str) -> bool {
    let bytes = s.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= MAX_LABEL
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
}

/// A DNS-1035 label: a DNS-1123 label that starts with a letter.
fn is_dns1035_label(s: &str) -> bool {
    is_dns1123_label(s) && s.as_bytes()[0].is_ascii_lowercase()
}

/// A DNS-1123 label: project names.
pub fn label(what: &str, value: &str) -> Result<()> {
    if !is_dns1123_label(value) {
        bail!(
            "invalid {what} {value:?}: it must be a DNS-1123 label (at most 63 lowercase \
             letters, digits or '-', starting and ending with a letter or digit), e.g. \"my-operator\""
        );
    }
    Ok(())
}

/// A DNS-1035 label: the API server's rule for plurals, singulars, short names,
/// categories and version names of a CRD.
pub fn dns1035_label(what: &str, value: &str) -> Result<()> {
    if !is_dns1035_label(value) {
        bail!(
            "invalid {what} {value:?}: it must be a DNS-1035 label (at most 63 lowercase \
             letters, digits or '-', starting with a letter and ending with a letter or digit), e.g. \"cronjobs\""
        );
    }
    Ok(())
}

/// A plural resource name, as the API server accepts it in a CRD.
pub fn plural(value: &str) -> Result<()> {
    dns1035_label("plural", value)
}

/// The group of a CRD: a DNS-1123 subdomain with at least one dot, so that no CRD takes a
/// group of Kubernetes' own (`apps`, `batch`, ...).
pub fn crd_group(value: &str) -> Result<()> {
    subdomain("group", value)?;
    if !value.contains('.') {
        bail!(
            "invalid group {value:?}: the group of a CustomResourceDefinition must be a domain \
             with at least one dot, e.g. \"{value}.example.com\""
        );
    }
    Ok(())
}

/// A version name as the API server serves it: any DNS-1035 label (rsbuilder scaffolds
/// only those [`version`] accepts, but reads any the API server would).
pub fn served_version(value: &str) -> Result<()> {
    dns1035_label("version", value)
}

/// A kind as the API server serves it: letters, digits and '-' starting with a letter,
/// short enough for its list kind; here also a Rust type name, so without '-'.
pub fn served_kind(value: &str) -> Result<()> {
    let ok = value
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && value.chars().all(|c| c.is_ascii_alphanumeric())
        && value.len() <= MAX_KIND;
    if !ok {
        bail!(
            "invalid kind {value:?}: it must start with a letter and contain only letters and \
             digits (at most {MAX_KIND}, so that its list kind {value}List fits in 63), e.g. \"CronJob\""
        );
    }
    Ok(())
}

/// Free text that lands in generated files (`--owner`): one line of printable text.
/// Control characters (a newline would end the comment it is written into and turn the
/// rest into code), line separators and bidirectional overrides (which rustc rejects in
/// comments, and which make code read differently from how it compiles) are refused.
pub fn free_text(what: &str, value: &str) -> Result<()> {
    let bad = value.chars().find(|c| {
        c.is_control()
            || matches!(
                c,
                '\u{061C}'
                    | '\u{200E}'
                    | '\u{200F}'
                    | '\u{2028}'
                    | '\u{2029}'
                    | '\u{202A}'..='\u{202E}'
                    | '\u{2066}'..='\u{2069}'
            )
    });
    if let Some(c) = bad {
        bail!(
            "invalid {what} {value:?}: it must be one line of printable text, without {:?} \
             (no newlines, tabs, other control characters or bidirectional overrides)",
            c
        );
    }
    Ok(())
}

/// A DNS-1123 subdomain: domains, and groups once joined with the domain.
pub fn subdomain(what: &str, value: &str) -> Result<()> {
    if value.is_empty() || value.len() > MAX_SUBDOMAIN || !value.split('.').all(is_dns1123_label) {
        bail!(
            "invalid {what} {value:?}: it must be a DNS-1123 subdomain (lowercase letters, \
             digits, '-' and '.', each part starting and ending with a letter or digit), e.g. \"example.com\""
        );
    }
    Ok(())
}

/// A Kubernetes API version: `v<N>`, `v<N>alpha<M>` or `v<N>beta<M>`, no leading zeros.
pub fn version(value: &str) -> Result<()> {
    if parse_version(value).is_none() {
        bail!(
            "invalid version {value:?}: it must look like v1, v2beta1 or v1alpha2 \
             (lowercase 'v', a number without leading zeros, optionally alpha<N> or beta<N>)"
        );
    }
    Ok(())
}

/// Kubernetes' version priority: GA > beta > alpha, then by major, then by minor.
/// Returns a key that sorts ascending in that priority (v1alpha1 < v1beta1 < v1 < v2).
pub fn version_priority(value: &str) -> Option<(u8, u32, u32)> {
    parse_version(value).map(|(major, stage, minor)| (stage, major, minor))
}

/// A key that sorts every version name ascending in the API server's priority
/// (`CompareKubeAwareVersionStrings`, the "version priority" of
/// https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#version-priority):
/// names matching `v<N>[(alpha|beta)<M>]` (any digits: `v0`, `v1beta0` and `v01` too) by
/// GA > beta > alpha, then major, then minor; every other name ranks below them, among
/// themselves in reverse alphabetical order (the API server lists them alphabetically).
pub fn version_order(value: &str) -> (Option<(u8, u64, u64)>, std::cmp::Reverse<String>) {
    (
        kube_aware_version(value),
        std::cmp::Reverse(value.to_string()),
    )
}

/// The API server's parse of a version name: `(stage, major, minor)`, stage 0 = alpha,
/// 1 = beta, 2 = GA. Numbers are read like Go's `strconv.Atoi` (leading zeros allowed,
/// values past `i64::MAX` rejected).
fn kube_aware_version(value: &str) -> Option<(u8, u64, u64)> {
    let atoi = |digits: &str| {
        let ok = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        ok.then(|| digits.parse::<u64>().ok())
            .flatten()
            .filter(|n| *n <= i64::MAX as u64)
    };
    let rest = value.strip_prefix('v')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let major = atoi(&rest[..digits])?;
    let tail = &rest[digits..];
    if tail.is_empty() {
        return Some((2, major, 0));
    }
    let (stage, minor) = if let Some(m) = tail.strip_prefix("alpha") {
        (0, m)
    } else {
        (1, tail.strip_prefix("beta")?)
    };
    Some((stage, major, atoi(minor)?))
}

fn parse_version(value: &str) -> Option<(u32, u8, u32)> {
    let rest = value.strip_prefix('v')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let major = number(&rest[..digits])?;
    if major == 0 {
        return None;
    }
    let tail = &rest[digits..];
    if tail.is_empty() {
        return Some((major, 2, 0));
    }
    let (stage, minor) = if let Some(m) = tail.strip_prefix("alpha") {
        (0, m)
    } else if let Some(m) = tail.strip_prefix("beta") {
        (1, m)
    } else {
        return None;
    };
    let minor = number(minor)?;
    (minor > 0).then_some((major, stage, minor))
}

fn number(digits: &str) -> Option<u32> {
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !(digits.len() > 1 && digits.starts_with('0'));
    if ok { digits.parse().ok() } else { None }
}

/// The crates every Rust program can name without a dependency.
const BUILTIN_CRATES: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

/// The project's crate name (its name in snake case), as `use <crate>::...` needs it: a
/// Rust identifier that is no keyword, no built-in crate and none of its own dependencies.
pub fn crate_name(project_name: &str, crate_name: &str, dependencies: &[String]) -> Result<()> {
    let why = if crate::syntax::parse_str::<syn::Ident>(crate_name).is_err() {
        "a Rust keyword or not a Rust identifier"
    } else if BUILTIN_CRATES.contains(&crate_name) {
        "a crate of Rust's own"
    } else if dependencies.iter().any(|d| d == crate_name) {
        "a crate the project depends on"
    } else {
        return Ok(());
    };
    bail!(
        "invalid project name {project_name:?}: its crate would be `{crate_name}`, {why}; \
         pass --project-name to choose another, e.g. \"my-{project_name}\""
    )
}

/// Rust keywords and names that a `#[derive(CustomResource)]` kind may not take
/// because the generated code or prelude already uses them.
const RESERVED_KINDS: &[&str] = &[
    "Self", "Type", "Crate", "Super", "Box", "Option", "Result", "Some", "None", "Ok", "Err",
    "Vec", "String", "Default", "Clone", "Copy", "Send", "Sync", "Sized", "Drop", "Fn",
];

/// A kind: PascalCase, a DNS-1035 label once lowercased, and usable as a Rust type name.
pub fn kind(value: &str) -> Result<()> {
    let first_upper = value.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    let alnum = value.chars().all(|c| c.is_ascii_alphanumeric());
    if !first_upper || !alnum || value.len() > MAX_KIND {
        bail!(
            "invalid kind {value:?}: it must be PascalCase, start with an uppercase letter and \
             contain only letters and digits (at most {MAX_KIND}, so that its list kind \
             {value}List fits in 63), e.g. \"CronJob\""
        );
    }
    if RESERVED_KINDS.contains(&value) {
        bail!(
            "invalid kind {value:?}: it is reserved in Rust; choose another name, e.g. \"{value}Resource\""
        );
    }
    Ok(())
}

/// A printer column's `type` and `format`, as the API server accepts them
/// (apiextensions-apiserver's `printerColumnDatatypes` and
/// `customResourceColumnDefinitionFormats`); kube-derive writes any string.
pub fn printer_column(type_: &str, format: Option<&str>) -> Result<()> {
    const TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];
    const FORMATS: &[&str] = &[
        "int32",
        "int64",
        "float",
        "double",
        "byte",
        "date",
        "date-time",
        "password",
    ];
    let quoted = |list: &[&str]| {
        let all: Vec<String> = list.iter().map(|t| format!("{t:?}")).collect();
        let (last, rest) = all.split_last().expect("a list");
        format!("{} and {last}", rest.join(", "))
    };
    if !TYPES.contains(&type_) {
        let hint = if matches!(type_, "float" | "double") {
            " (for a float, type \"number\" with format \"float\" or \"double\")"
        } else {
            ""
        };
        bail!(
            "invalid printer column type {type_:?}: the API server accepts only {}{hint}",
            quoted(TYPES)
        );
    }
    if let Some(format) = format.filter(|f| !f.is_empty() && !FORMATS.contains(f)) {
        bail!(
            "invalid printer column format {format:?}: the API server accepts only {}",
            quoted(FORMATS)
        );
    }
    Ok(())
}

/// A selectable field's JSON path: the API server takes only a path that starts with `.`
/// (`.spec.name`); kube-derive writes what it is given.
pub fn selectable_field(value: &str) -> Result<()> {
    if !value.starts_with('.') {
        bail!(
            "invalid selectable field {value:?}: the API server needs a JSON path that starts \
             with '.', e.g. {:?}",
            format!(".{value}")
        );
    }
    Ok(())
}

/// A label key: a qualified name, `[prefix/]name` (apimachinery's `IsQualifiedName`).
pub fn label_key(value: &str) -> Result<()> {
    if !is_qualified_name(value) {
        bail!(
            "invalid label key {value:?}: it must be a qualified name (an optional DNS \
             subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', \
             starting and ending with a letter or digit)"
        );
    }
    Ok(())
}

/// A label value (apimachinery's `IsValidLabelValue`).
pub fn label_value(value: &str) -> Result<()> {
    if !is_label_value(value) {
        bail!(
            "invalid label value {value:?}: at most 63 letters, digits, '-', '_' or '.', \
             starting and ending with a letter or digit (or empty)"
        );
    }
    Ok(())
}

/// `[prefix/]name`: an optional DNS-1123 subdomain prefix, and a name of at most 63
/// alphanumerics, '-', '_' and '.' that starts and ends with an alphanumeric.
pub fn is_qualified_name(s: &str) -> bool {
    let (prefix, name) = match s.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    prefix.is_none_or(|p| {
        !p.is_empty() && p.len() <= MAX_SUBDOMAIN && p.split('.').all(is_dns1123_label)
    }) && !name.is_empty()
        && is_label_value(name)
}

/// A label value: empty, or at most 63 alphanumerics, '-', '_' and '.' that starts and
/// ends with an alphanumeric.
pub fn is_label_value(s: &str) -> bool {
    s.len() <= MAX_LABEL
        && (s.is_empty()
            || (s
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
                && s.as_bytes()[0].is_ascii_alphanumeric()
                && s.as_bytes()[s.len() - 1].is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for ok in ["a", "my-operator", "x1", "1x"] {
            assert!(label("name", ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "A",
            "a_b",
            "a.b",
            "..",
            "a/b",
            &"a".repeat(64),
        ] {
            assert!(label("name", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn subdomains() {
        for ok in ["example.com", "a", "batch.example.com", "my-domain.io"] {
            assert!(subdomain("domain", ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "a..b",
            "Example.com",
            "a/b",
            "../x",
            "a.",
            "-a.com",
        ] {
            assert!(subdomain("domain", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn versions() {
        for ok in ["v1", "v2", "v1alpha1", "v1beta2", "v10beta10"] {
            assert!(version(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "v",
            "1",
            "V1",
            "v0",
            "v01",
            "v1beta",
            "v1beta0",
            "v1gamma1",
            "v1alpha01",
            "v1/../x",
        ] {
            assert!(version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn version_order_follows_kubernetes() {
        let mut v = vec![
            "v2", "v1", "v1beta1", "v1alpha2", "v1alpha1", "v2beta1", "v1beta2",
        ];
        v.sort_by_key(|s| version_priority(s).unwrap());
        assert_eq!(
            v,
            [
                "v1alpha1", "v1alpha2", "v1beta1", "v1beta2", "v2beta1", "v1", "v2"
            ]
        );
    }

    #[test]
    fn kinds() {
        for ok in ["CronJob", "A", "Tenant2"] {
            assert!(kind(ok).is_ok(), "{ok}");
        }
        for bad in ["cronJob", "Self", "Type", "Crd-Job", "", "Cron_Job", "../X"] {
            assert!(kind(bad).is_err(), "{bad}");
        }
        // The API server refuses a list kind longer than a label.
        assert!(kind(&format!("A{}", "b".repeat(58))).is_ok());
        assert!(kind(&format!("A{}", "b".repeat(59))).is_err());
    }

    #[test]
    fn crd_names_follow_the_api_server() {
        for ok in ["a.b", "batch.example.com", "x-1.io"] {
            assert!(crd_group(ok).is_ok(), "{ok}");
        }
        for bad in [
            "batch",
            "",
            "/tmp/x/evil",
            "../../../x/evil",
            "a..b",
            "A.b",
            ".a",
        ] {
            assert!(crd_group(bad).is_err(), "{bad}");
        }
        for ok in ["cronjobs", "a", "a-1"] {
            assert!(plural(ok).is_ok(), "{ok}");
        }
        for bad in ["1abc", "", "a/b", "..", "Cronjobs", "a-"] {
            assert!(plural(bad).is_err(), "{bad}");
        }
        for ok in ["v1", "v1beta1", "v2foo", "stable"] {
            assert!(served_version(ok).is_ok(), "{ok}");
        }
        for bad in ["1", "V1", "v1/../x", "", "v1."] {
            assert!(served_version(bad).is_err(), "{bad}");
        }
        for ok in ["CronJob", "cronJob", "A1"] {
            assert!(served_kind(ok).is_ok(), "{ok}");
        }
        for bad in ["1A", "Cron-Job", "Cron_Job", "", "a/b"] {
            assert!(served_kind(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn free_text_is_one_printable_line() {
        for ok in [
            "",
            "Example Inc.",
            "Jörg & Söhne <j@example.com>",
            "株式会社",
        ] {
            assert!(free_text("owner", ok).is_ok(), "{ok}");
        }
        for bad in [
            "a\nfn main() {}",
            "a\rb",
            "a\tb",
            "a\0",
            "a\u{1b}[31m",
            "a\u{85}b",
            "a\u{2028}b",
            "a\u{202e}b",
            "a\u{2066}b",
        ] {
            let err = free_text("owner", bad).unwrap_err().to_string();
            assert!(err.starts_with("invalid owner"), "{err}");
            assert!(!err.contains('\n'), "the message is one line: {err}");
        }
    }

    #[test]
    fn every_version_has_a_place_in_kubernetes_order() {
        let mut v = vec!["v1", "foo10", "v2beta1", "foo1", "v1alpha1"];
        v.sort_by_key(|s| version_order(s));
        assert_eq!(v, ["foo10", "foo1", "v1alpha1", "v2beta1", "v1"]);
    }

    #[test]
    fn version_order_reads_names_as_the_api_server_does() {
        // `v0`, `v1beta0` and `v01` match the API server's pattern (zero and leading zeros
        // included); `v1alpha` (no minor) and `v99999999999999999999` (past Atoi) do not.
        let mut v = vec![
            "v2",
            "v0",
            "v1alpha",
            "v1beta0",
            "legacy",
            "v01beta1",
            "v99999999999999999999",
        ];
        v.sort_by_key(|s| version_order(s));
        assert_eq!(
            v,
            [
                "v99999999999999999999",
                "v1alpha",
                "legacy",
                "v1beta0",
                "v01beta1",
                "v0",
                "v2"
            ]
        );
    }
}
