//! The names of an API a command is asked for, valid by construction: a command turns its
//! arguments into these at the door, and planning, which only takes these, never meets an
//! invalid name and never checks one again.

use std::fmt;
use std::ops::Deref;

use anyhow::Result;

macro_rules! checked_name {
    ($(#[$doc:meta])* $name:ident, $check:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// The name, once the rule above accepts it.
            pub fn parse(value: &str) -> Result<Self> {
                let check: fn(&str) -> Result<()> = $check;
                check(value)?;
                Ok(Self(value.to_string()))
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<$name> for String {
            fn from(name: $name) -> String {
                name.0
            }
        }
    };
}

checked_name!(
    /// An API group as given, without the project's domain: a DNS-1123 subdomain (`batch`,
    /// or a Kubernetes group such as `networking.k8s.io`).
    Group,
    |value| super::subdomain("group", value)
);
checked_name!(
    /// A Kubernetes API version: `v1`, `v2beta1`, `v1alpha2`.
    Version,
    super::version
);
checked_name!(
    /// A kind: PascalCase, a DNS-1035 label once lowercased, a Rust type name.
    Kind,
    super::kind
);
checked_name!(
    /// A resource's plural: a DNS-1035 label.
    Plural,
    super::plural
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_valid_names_are_constructed() {
        assert_eq!(&*Kind::parse("CronJob").unwrap(), "CronJob");
        assert!(Kind::parse("cronjob").is_err());
        assert!(Version::parse("v01").is_err());
        assert!(Group::parse("../etc").is_err());
        assert!(Plural::parse("Cron_Jobs").is_err());
        assert_eq!(Version::parse("v1beta1").unwrap().to_string(), "v1beta1");
    }
}
