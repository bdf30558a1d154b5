//! What a rule reports: a finding, at a place, with a hint; and the rule it comes from.

use std::path::PathBuf;

use serde::Serialize;

use super::yaml::Pos;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One rule: an id users can `--explain`, its usual severity and what it checks.
#[derive(Debug)]
pub struct RuleId {
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

impl RuleId {
    /// A finding of this rule at `file:pos`, with the rule's usual severity.
    pub fn at(&'static self, file: impl Into<PathBuf>, pos: Pos, message: String) -> Finding {
        Finding {
            rule: self.id,
            severity: self.severity,
            message,
            file: file.into(),
            line: pos.line,
            column: pos.column,
            hint: None,
        }
    }
}

/// A diagnostic, in the order and shape of a compiler's: `error[rule]: message`, then
/// `--> file:line:col`, then a hint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Finding {
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }
}
