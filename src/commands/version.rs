//! `rsbuilder version`.

/// The crate versions generated projects depend on, and the static CRD generator models.
pub const KUBE: &str = "5.0";
pub const K8S_OPENAPI: &str = "0.29";
pub const KUBERNETES_API: &str = "v1_37";
pub const SCHEMARS: &str = "1";

pub fn run() {
    crate::outln!("rsbuilder {}", env!("CARGO_PKG_VERSION"));
    crate::outln!(
        "generates for kube {KUBE}, k8s-openapi {K8S_OPENAPI} ({KUBERNETES_API}), schemars {SCHEMARS}"
    );
}

/// The crates whose versions decide what `generate crds` must produce, with the version
/// prefix rsbuilder's static generator reproduces.
const MODELLED: &[(&str, &str)] = &[
    ("kube-core", "5.0."),
    ("kube-derive", "5.0."),
    ("schemars", "1."),
    ("k8s-openapi", "0.29."),
];

pub fn modelled(krate: &str) -> Option<&'static str> {
    MODELLED
        .iter()
        .find(|(name, _)| *name == krate)
        .map(|(_, v)| v.trim_end_matches('.'))
}

/// `(crate, locked version)` for every modelled crate that `Cargo.lock` pins to another
/// version. Cargo writes each package as `name = "..."` followed by `version = "..."`; a
/// line scan reads that in microseconds, where a TOML parser took a third of the run time
/// of `generate crds`. Anything it does not recognise yields nothing: the check is advice.
pub fn locked_versions_differing(lock: &str) -> Vec<(&'static str, String)> {
    let quoted = |line: &str, key: &str| {
        let value = line
            .strip_prefix(key)?
            .trim_start()
            .strip_prefix('=')?
            .trim();
        value
            .strip_prefix('"')?
            .strip_suffix('"')
            .map(str::to_string)
    };
    let mut differing = Vec::new();
    let mut name: Option<String> = None;
    for line in lock.lines().map(str::trim) {
        if line == "[[package]]" {
            name = None;
        } else if let Some(n) = quoted(line, "name") {
            name = Some(n);
        } else if let (Some(n), Some(version)) = (&name, quoted(line, "version"))
            && let Some((krate, prefix)) = MODELLED.iter().find(|(krate, _)| krate == n)
            && !version.starts_with(prefix)
        {
            differing.push((*krate, version));
        }
    }
    differing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_only_crates_locked_to_other_versions() {
        let lock = r#"
version = 4

[[package]]
name = "kube-core"
version = "5.0.2"

[[package]]
name = "schemars"
version = "0.8.22"

[[package]]
name = "serde"
version = "1.0.0"
"#;
        assert_eq!(
            locked_versions_differing(lock),
            [("schemars", "0.8.22".to_string())]
        );
        assert_eq!(modelled("schemars"), Some("1"));
        assert!(locked_versions_differing("not toml [").is_empty());
    }
}
