//! Findings as the user reads them: compiler-style diagnostics, or JSON for tools.

use serde::Serialize;

use super::finding::{Finding, Severity};

/// How many findings of each severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
}

pub fn count(findings: &[Finding]) -> Counts {
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    Counts {
        errors,
        warnings: findings.len() - errors,
    }
}

/// `error[rule]: message`, `  --> file:line:col`, `  = hint: ...`, then a summary line.
pub fn human(findings: &[Finding], colour: bool) -> String {
    let paint = |code: &str, text: &str| {
        if colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();
    for f in findings {
        let (code, label) = match f.severity {
            Severity::Error => ("1;31", "error"),
            Severity::Warning => ("1;33", "warning"),
        };
        out.push_str(&format!(
            "{}: {}\n  {} {}:{}:{}\n",
            paint(code, &format!("{label}[{}]", f.rule)),
            f.message,
            paint("1;34", "-->"),
            f.file.display(),
            f.line,
            f.column
        ));
        if let Some(hint) = &f.hint {
            out.push_str(&format!("  {} {hint}\n", paint("1;34", "= hint:")));
        }
        out.push('\n');
    }
    out.push_str(&summary(count(findings)));
    out.push('\n');
    out
}

pub fn summary(counts: Counts) -> String {
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("{n} {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    format!(
        "lint: {}, {}",
        plural(counts.errors, "error"),
        plural(counts.warnings, "warning")
    )
}

/// `{"findings": [...], "errors": n, "warnings": n}`, pretty and stable.
pub fn json(findings: &[Finding]) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        findings: &'a [Finding],
        #[serde(flatten)]
        counts: Counts,
    }
    let report = Report {
        findings,
        counts: count(findings),
    };
    let mut text = serde_json::to_string_pretty(&report).expect("findings serialize");
    text.push('\n');
    text
}
