//! Kubernetes release versions, and the selectors `envtest use` takes (`1.37`, `1.37.2`,
//! `v1.37.2`).

use std::fmt;
use std::str::FromStr;

use anyhow::{Result, bail};

/// A released Kubernetes version, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Version {
    /// `v1.37.2` or `1.37.2`; pre-releases (`v1.38.0-beta.0`) and anything else are `None`.
    pub fn parse(text: &str) -> Option<Self> {
        let parts = numbers(text.strip_prefix('v').unwrap_or(text))?;
        match parts[..] {
            [major, minor, patch] => Some(Self {
                major,
                minor,
                patch,
            }),
            _ => None,
        }
    }
}

/// Which versions a command accepts: a minor release (its newest patch) or one patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selector {
    pub major: u32,
    pub minor: u32,
    pub patch: Option<u32>,
}

impl Selector {
    pub fn matches(&self, version: &Version) -> bool {
        version.major == self.major
            && version.minor == self.minor
            && self.patch.is_none_or(|patch| patch == version.patch)
    }

    /// The newest of `versions` this selector accepts.
    pub fn newest<'a>(&self, versions: impl IntoIterator<Item = &'a Version>) -> Option<Version> {
        versions
            .into_iter()
            .filter(|v| self.matches(v))
            .max()
            .copied()
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.patch {
            Some(patch) => write!(f, "{}.{}.{patch}", self.major, self.minor),
            None => write!(f, "{}.{}", self.major, self.minor),
        }
    }
}

impl FromStr for Selector {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Self> {
        let parts = numbers(text.strip_prefix('v').unwrap_or(text));
        match parts.as_deref() {
            Some(&[major, minor]) => Ok(Self {
                major,
                minor,
                patch: None,
            }),
            Some(&[major, minor, patch]) => Ok(Self {
                major,
                minor,
                patch: Some(patch),
            }),
            _ => bail!(
                "{text:?} is not a Kubernetes version: give a minor release such as 1.37, or a patch release such as 1.37.2"
            ),
        }
    }
}

/// Dot-separated decimal numbers without leading zeros, or `None`.
fn numbers(text: &str) -> Option<Vec<u32>> {
    text.split('.')
        .map(|part| {
            let plain = !part.is_empty()
                && part.len() <= 9
                && part.bytes().all(|b| b.is_ascii_digit())
                && (part == "0" || !part.starts_with('0'));
            plain.then(|| part.parse().ok()).flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_name_a_minor_or_a_patch_release() {
        let minor: Selector = "1.37".parse().unwrap();
        let patch: Selector = "v1.37.2".parse().unwrap();
        let v = |text| Version::parse(text).unwrap();
        assert!(minor.matches(&v("v1.37.0")) && minor.matches(&v("1.37.9")));
        assert!(!minor.matches(&v("1.36.9")) && !minor.matches(&v("2.37.0")));
        assert!(patch.matches(&v("1.37.2")) && !patch.matches(&v("1.37.3")));
        let all = [v("1.37.2"), v("1.38.0"), v("1.37.10"), v("1.36.4")];
        assert_eq!(minor.newest(&all), Some(v("1.37.10")));
        assert_eq!(patch.newest(&all), Some(v("1.37.2")));
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "",
            "1",
            "latest",
            "1.37.",
            "1.x",
            "01.37",
            "1.37.2.1",
            "../1.37",
            "1.37-rc.1",
        ] {
            assert!(bad.parse::<Selector>().is_err(), "{bad:?}");
        }
        assert_eq!(Version::parse("v1.38.0-beta.0"), None);
    }
}
