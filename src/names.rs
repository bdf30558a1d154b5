//! Validation of every user-supplied name, run before any plan is built.
//!
//! The rules are Kubernetes' own (DNS-1123 / DNS-1035) plus what Rust needs from a
//! type or module name. Because `/` and `..` can never pass them, they also keep
//! generated paths inside the project.

use anyhow::{Result, bail};

const MAX_LABEL: usize = 63;
const MAX_SUBDOMAIN: usize = 253;

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

/// A DNS-1123 label: project names and plurals.
pub fn label(what: &str, value: &str) -> Result<()> {
    if !is_dns1123_label(value) {
        bail!(
            "invalid {what} {value:?}: it must be a DNS-1123 label (at most 63 lowercase \
             letters, digits or '-', starting and ending with a letter or digit), e.g. \"my-operator\""
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
    if !first_upper || !alnum || value.len() > MAX_LABEL {
        bail!(
            "invalid kind {value:?}: it must be PascalCase, start with an uppercase letter and \
             contain only letters and digits (at most 63), e.g. \"CronJob\""
        );
    }
    if RESERVED_KINDS.contains(&value) {
        bail!(
            "invalid kind {value:?}: it is reserved in Rust; choose another name, e.g. \"{value}Resource\""
        );
    }
    Ok(())
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
    }
}
