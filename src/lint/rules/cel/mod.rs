//! CEL validation rules (`x-kubernetes-validations`): each rule parses, type-checks
//! against the schema node it sits on (see `types`), uses `oldSelf` only where the API
//! server can correlate old and new values, and evaluates to true on every sample of its
//! kind (kube-cel, defaults applied, as at creation: transition rules do not run then).
//!
//! What lint cannot type-check or evaluate (a function or macro the runtime lacks) is a
//! warning naming the rule: it is never counted as a pass. The API server's cost limits
//! are not estimated.

pub mod cost;
pub mod decl;
pub mod functions;
pub mod types;

use std::collections::{BTreeMap, BTreeSet};

use kube_cel::cel::parser::Parser;
use kube_cel::cel::{IdedExpr, Program};
use kube_cel::{ErrorKind, Validator, compile_schema};
use serde_json::Value;

use super::find_version;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::{Crd, Inputs, Version};
use crate::lint::registry::Check;
use crate::lint::schema::Schema;
use crate::lint::yaml::{Segment, parse_path};
use types::Ty;

pub static CEL_INVALID: RuleId = RuleId {
    id: "cel-invalid",
    severity: Severity::Error,
    summary: "every x-kubernetes-validations rule parses and type-checks against its schema node",
};
pub static CEL_REJECTS_SAMPLE: RuleId = RuleId {
    id: "cel-rejects-sample",
    severity: Severity::Error,
    summary: "every validation rule holds for every sample of its kind",
};
pub static CEL_UNSUPPORTED: RuleId = RuleId {
    id: "cel-unsupported",
    severity: Severity::Warning,
    summary: "a rule uses CEL that lint cannot check or evaluate offline (never counted as a pass)",
};

pub static CHECK: Check = Check {
    name: "cel",
    rules: &[&CEL_INVALID, &CEL_REJECTS_SAMPLE, &CEL_UNSUPPORTED],
    run,
};

/// Deeper than this, the API server refuses the schema anyway.
const MAX_DEPTH: usize = 64;

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    let crds = inputs.crds();
    // Rules already reported as invalid or unsupported, per CRD and version: their
    // verdicts on samples would say nothing more.
    let mut skipped: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for crd in &crds {
        for version in &crd.versions {
            let mut walk = Walk {
                inputs,
                crd,
                version,
                out,
                skipped: BTreeSet::new(),
            };
            walk.node(Schema(&version.schema_json), &mut Vec::new(), true, true, 0);
            skipped.insert((crd.name.clone(), version.name.clone()), walk.skipped);
        }
    }
    evaluate_samples(inputs, &crds, &skipped, out);
}

struct Walk<'r, 'a> {
    inputs: &'r Inputs,
    crd: &'r Crd<'a>,
    version: &'r Version<'a>,
    out: &'r mut Vec<Finding>,
    skipped: BTreeSet<String>,
}

impl Walk<'_, '_> {
    fn node(
        &mut self,
        s: Schema<'_>,
        path: &mut Vec<Segment>,
        correlatable: bool,
        root: bool,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        for (i, rule) in s.validations().iter().enumerate() {
            let mut rule_path = path.clone();
            rule_path.extend([
                Segment::Key("x-kubernetes-validations".into()),
                Segment::Index(i),
            ]);
            self.rule(s, rule, &rule_path, correlatable, root);
        }
        let mut child =
            |key: Vec<Segment>, sub: Schema<'_>, correlatable: bool, this: &mut Self| {
                let len = path.len();
                path.extend(key);
                this.node(sub, path, correlatable, false, depth + 1);
                path.truncate(len);
            };
        if let Some(properties) = s.properties() {
            for (name, sub) in properties {
                child(
                    vec![
                        Segment::Key("properties".into()),
                        Segment::Key(name.clone()),
                    ],
                    Schema(sub),
                    correlatable,
                    self,
                );
            }
        }
        if let Some(items) = s.items() {
            // Old and new list items correlate only by the keys of a map list.
            let keeps = correlatable && s.list_type() == "map";
            child(vec![Segment::Key("items".into())], items, keeps, self);
        }
        if let Some(values) = s.additional_properties() {
            child(
                vec![Segment::Key("additionalProperties".into())],
                values,
                correlatable,
                self,
            );
        }
    }

    fn rule(
        &mut self,
        s: Schema<'_>,
        rule: &Value,
        path: &[Segment],
        correlatable: bool,
        root: bool,
    ) {
        let schema_node = self.version.schema.expect("walked versions have a schema");
        let mut rule_path = path.to_vec();
        rule_path.push(Segment::Key("rule".into()));
        let crd_pos = schema_node.pos_of(&rule_path);
        let crd_file = self.crd.file.path.clone();
        // Shown where the Rust attribute writes the rule, else in the CRD.
        let (file, pos) = rule
            .get("rule")
            .and_then(Value::as_str)
            .and_then(|text| self.inputs.rust_literal(text))
            .unwrap_or((crd_file, crd_pos));
        let file = &file;
        let Some(text) = rule.get("rule").and_then(Value::as_str) else {
            self.out
                .push(CEL_INVALID.at(file, pos, "a validation has no `rule`".into()));
            return;
        };
        let where_ = format!("{} {}", self.crd.kind, self.version.name);
        let self_ty = if root { Ty::Object(s, true) } else { Ty::of(s) };
        // Kubernetes parses optional syntax (`a.?b`, `l[?0]`); so does lint's type check.
        let expression = match parse(text) {
            Ok(expression) => expression,
            Err(reason) => {
                self.out.push(
                    CEL_INVALID
                        .at(
                            file,
                            pos,
                            format!("rule `{text}` ({where_}) does not parse: {reason}"),
                        )
                        .hint(HINT_RULE),
                );
                self.skipped.insert(text.to_string());
                return;
            }
        };
        let outcome = types::check(&expression, self_ty.clone());
        let mut problems = outcome.errors;
        if !matches!(outcome.ty, Ty::Bool | Ty::Dyn) {
            problems.push(format!(
                "it evaluates to {}, and a rule must evaluate to bool",
                outcome.ty.display()
            ));
        }
        if outcome.uses_old_self && !correlatable {
            problems.push(
                "it uses oldSelf below a list that is not `x-kubernetes-list-type: map`, where \
                 the API server cannot pair old and new values"
                    .into(),
            );
        }
        let optional_old_self = rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true);
        if optional_old_self && !outcome.uses_old_self {
            problems.push("`optionalOldSelf` is set, but the rule does not use oldSelf".into());
        }
        let mut unsupported = outcome.unsupported;
        // The evaluator compiles without optional syntax.
        if Program::compile(text).is_err() {
            unsupported.insert("optional syntax (`.?`, `[?`)".into());
        }
        if let Some(message) = rule.get("messageExpression").and_then(Value::as_str) {
            match parse(message) {
                Err(reason) => {
                    problems.push(format!("its messageExpression does not parse: {reason}"))
                }
                Ok(p) => {
                    if Program::compile(message).is_err() {
                        unsupported.insert("optional syntax in its messageExpression".into());
                    }
                    let m = types::check(&p, self_ty);
                    problems.extend(
                        m.errors
                            .into_iter()
                            .map(|e| format!("messageExpression: {e}")),
                    );
                    if !matches!(m.ty, Ty::String | Ty::Dyn) {
                        problems.push(format!(
                            "its messageExpression evaluates to {}, not string",
                            m.ty.display()
                        ));
                    }
                    unsupported.extend(m.unsupported);
                }
            }
        }
        for problem in &problems {
            self.out.push(
                CEL_INVALID
                    .at(file, pos, format!("rule `{text}` ({where_}): {problem}"))
                    .hint(HINT_RULE),
            );
        }
        let evaluable = problems.is_empty() && unsupported.is_empty();
        if !unsupported.is_empty() {
            let list: Vec<String> = unsupported.into_iter().collect();
            self.out.push(
                CEL_UNSUPPORTED
                    .at(
                        file,
                        pos,
                        format!(
                            "rule `{text}` ({where_}) uses {}, which lint cannot evaluate: the samples were not checked against it",
                            list.join(", ")
                        ),
                    )
                    .hint("check it against the API server: `kubectl apply --dry-run=server -k config/samples`"),
            );
        }
        if !evaluable {
            self.skipped.insert(text.to_string());
        }
    }
}

const HINT_RULE: &str = "the API server refuses a CRD whose rules do not compile; fix the rule \
    in the Rust type's `#[x_kube(validation = ...)]` (or `#[kube(validation = ...)]`) and run `make manifests`";

/// Parses a rule as Kubernetes does (optional syntax on), or says why it does not parse.
fn parse(text: &str) -> Result<IdedExpr, String> {
    Parser::new()
        .enable_optional_syntax(true)
        .parse(text)
        .map_err(|e| parse_error(&e.to_string()))
}

/// The first line of a CEL parse error, without the `ERROR: <input>:` prefix.
fn parse_error(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    first
        .strip_prefix("ERROR: <input>:")
        .map_or(first, str::trim)
        .to_string()
}

fn evaluate_samples(
    inputs: &Inputs,
    crds: &[Crd<'_>],
    skipped: &BTreeMap<(String, String), BTreeSet<String>>,
    out: &mut Vec<Finding>,
) {
    let samples = inputs.samples();
    if samples.is_empty() {
        return;
    }
    let validator = Validator::new();
    let mut compiled = BTreeMap::new();
    for sample in &samples {
        let Ok((crd, version)) = find_version(crds, sample) else {
            continue; // the samples rule reports it
        };
        if !version.has_rules {
            continue;
        }
        let key = (crd.name.clone(), version.name.clone());
        let schema = compiled
            .entry(key.clone())
            .or_insert_with(|| compile_schema(&version.schema_json));
        let Err(errors) = validator.validate_compiled(schema, &sample.doc.to_json(), None) else {
            continue;
        };
        let skip = skipped.get(&key);
        for error in errors {
            if skip.is_some_and(|s| s.contains(&error.rule)) {
                continue;
            }
            let pos = sample.doc.pos_of(&parse_path(&error.field_path));
            let who = format!("{} `{}`", sample.kind, sample.name);
            let finding = match error.kind {
                ErrorKind::ValidationFailure | ErrorKind::InvalidResult => CEL_REJECTS_SAMPLE.at(
                    &sample.file.path,
                    pos,
                    format!("{who} breaks rule `{}`: {}", error.rule, error.message),
                ),
                ErrorKind::EvaluationError => CEL_REJECTS_SAMPLE.at(
                    &sample.file.path,
                    pos,
                    format!("rule `{}` fails on {who}: {}", error.rule, error.message),
                ),
                // Anything else the evaluator could not do is reported, never passed.
                _ => CEL_UNSUPPORTED.at(
                    &sample.file.path,
                    pos,
                    format!(
                        "rule `{}` cannot be evaluated on {who}: {}",
                        error.rule, error.message
                    ),
                ),
            };
            out.push(finding.hint(
                "the API server refuses this object; fix the sample, or the rule if the sample is right",
            ));
        }
    }
}
