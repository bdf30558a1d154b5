//! Rust names for what a schema names: kopium's rules (fields in snake_case, types named
//! after their path from the kind, `Certificate` + `spec` + `issuerRef` =
//! `CertificateSpecIssuerRef`, enum variants in UpperCamelCase), made safe for any key a
//! schema may hold: keywords, characters Rust does not allow, and keys that become the
//! same name.

use std::collections::BTreeSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::syntax::{KEYWORDS, NOT_RAW};

/// Only ASCII letters, digits and `_`: a key's other characters separate words.
fn ascii_words(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// A field's Rust name for the JSON key `key`: `tlsConfig` -> `tls_config`,
/// `type` -> `r#type`, `self` -> `self_`, `2xx` -> `field_2xx`, `$` -> `field`.
pub fn field(key: &str) -> String {
    let snake = ascii_words(key).to_snake_case();
    let name = match snake.chars().next() {
        None => "field".to_string(),
        Some(c) if c.is_ascii_digit() => format!("field_{snake}"),
        Some(_) => snake,
    };
    if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// The type named by the path from the kind: `kind` + each key in UpperCamelCase.
pub fn type_name(kind: &str, path: &[String]) -> String {
    let words: String = path
        .iter()
        .map(|key| format!(" {}", ascii_words(key)))
        .collect();
    format!("{kind}{words}").to_upper_camel_case()
}

/// An enum variant for the string `value`: `PathPrefix` -> `PathPrefix`, `RSA` -> `Rsa`,
/// `1.2` -> `V12`, `""` -> `Empty`.
pub fn variant(value: &str) -> String {
    let camel = ascii_words(value).to_upper_camel_case();
    match camel.chars().next() {
        None if value.is_empty() => "Empty".into(),
        None => "Value".into(),
        Some(c) if c.is_ascii_digit() => format!("V{camel}"),
        Some(_) if camel == "Self" => "SelfValue".into(),
        Some(_) => camel,
    }
}

/// `name`, or `name2`, `name3`, ... (`name_2` for snake_case names), whichever `taken`
/// does not hold yet; it is then taken.
pub fn unique(name: String, taken: &mut BTreeSet<String>) -> String {
    if taken.insert(name.clone()) {
        return name;
    }
    // A numbered keyword is no keyword any more: `r#type` -> `type_2`.
    let base = name.strip_prefix("r#").unwrap_or(&name);
    let separator = if base.starts_with(|c: char| c.is_ascii_lowercase()) {
        "_"
    } else {
        ""
    };
    (2..)
        .map(|n| format!("{base}{separator}{n}"))
        .find(|candidate| taken.insert(candidate.clone()))
        .expect("some number is free")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_snake_case_rust_names() {
        for (key, name) in [
            ("tlsConfig", "tls_config"),
            ("secretName", "secret_name"),
            ("isCA", "is_ca"),
            ("type", "r#type"),
            ("match", "r#match"),
            ("gen", "r#gen"),
            ("self", "self_"),
            ("Self", "self_"),
            ("x-kubernetes-thing", "x_kubernetes_thing"),
            ("$ref", "r#ref"),
            ("2xx", "field_2xx"),
            ("$", "field"),
            ("", "field"),
            ("héllo", "h_llo"),
        ] {
            assert_eq!(field(key), name, "{key}");
            let ident = name.strip_prefix("r#").unwrap_or(name);
            assert!(
                crate::syntax::parse_str::<syn::Ident>(name).is_ok() || KEYWORDS.contains(&ident)
            );
        }
    }

    #[test]
    fn types_are_named_by_their_path() {
        let path = |keys: &[&str]| keys.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        assert_eq!(
            type_name("Certificate", &path(&["spec", "issuerRef"])),
            "CertificateSpecIssuerRef"
        );
        assert_eq!(
            type_name("HTTPRoute", &path(&["spec", "rules"])),
            "HttpRouteSpecRules"
        );
        assert_eq!(
            type_name("ServiceMonitor", &path(&["spec", "x-kubernetes.io/odd"])),
            "ServiceMonitorSpecXKubernetesIoOdd"
        );
    }

    #[test]
    fn variants_are_upper_camel_case() {
        for (value, name) in [
            ("PathPrefix", "PathPrefix"),
            ("RSA", "Rsa"),
            ("Ed25519", "Ed25519"),
            ("client auth", "ClientAuth"),
            ("1.2", "V12"),
            ("", "Empty"),
            ("*", "Value"),
            ("self", "SelfValue"),
        ] {
            assert_eq!(variant(value), name, "{value}");
        }
    }

    #[test]
    fn names_taken_get_a_number() {
        let mut taken = BTreeSet::new();
        assert_eq!(unique("tls_config".into(), &mut taken), "tls_config");
        assert_eq!(unique("tls_config".into(), &mut taken), "tls_config_2");
        assert_eq!(unique("tls_config".into(), &mut taken), "tls_config_3");
        assert_eq!(unique("Foo".into(), &mut taken), "Foo");
        assert_eq!(unique("Foo".into(), &mut taken), "Foo2");
        assert_eq!(unique("r#type".into(), &mut taken), "r#type");
        assert_eq!(unique("r#type".into(), &mut taken), "type_2");
        assert_eq!(unique("field".into(), &mut taken), "field");
        assert_eq!(unique("field".into(), &mut taken), "field_2");
    }
}
