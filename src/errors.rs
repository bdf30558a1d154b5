//! Error messages whose first line names the cause. anyhow's `context` puts the step that
//! failed first ("replaying `rsbuilder create api ...`") and hides the cause until `-v`;
//! [`During::during`] writes the cause first and the step after it, and keeps the cause's
//! own chain for `-v`.

use std::fmt;

/// Adds the step that failed after the cause of an error.
pub trait During<T> {
    /// `<cause> (while <step>)`.
    fn during(self, step: impl FnOnce() -> String) -> anyhow::Result<T>;
}

impl<T, E: Into<anyhow::Error>> During<T> for Result<T, E> {
    fn during(self, step: impl FnOnce() -> String) -> anyhow::Result<T> {
        self.map_err(|e| {
            anyhow::Error::new(WhileDoing {
                cause: e.into(),
                step: step(),
            })
        })
    }
}

#[derive(Debug)]
struct WhileDoing {
    cause: anyhow::Error,
    step: String,
}

impl fmt::Display for WhileDoing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (while {})", self.cause, self.step)
    }
}

impl std::error::Error for WhileDoing {
    /// What caused the cause: this error's own message already holds the cause.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.chain().nth(1)
    }
}

#[cfg(test)]
mod tests {
    use anyhow::{Context, anyhow};

    use super::*;

    #[test]
    fn the_cause_comes_first_and_its_chain_stays() {
        let failed: anyhow::Result<()> = Err(anyhow!("disk full")).context("cannot write x");
        let e = failed.during(|| "replaying `init`".into()).unwrap_err();
        assert_eq!(e.to_string(), "cannot write x (while replaying `init`)");
        assert_eq!(
            format!("{e:#}"),
            "cannot write x (while replaying `init`): disk full"
        );
    }
}
