//! CEL validation rules (`x-kubernetes-validations`): each rule parses, type-checks
//! against the schema node it sits on (see `types`), uses `oldSelf` only where the API
//! server can correlate old and new values, and evaluates to true on every sample of its
//! kind (kube-cel, defaults applied, as at creation: transition rules do not run then).
//!
//! What lint cannot type-check or evaluate (a function or macro the runtime lacks) is a
//! warning naming the rule: it is never counted as a pass.
//!
//! Cost (`cel-cost`): the API server estimates each rule's worst-case cost when it
//! accepts a CRD and refuses a rule over its per-rule budget, counting the rule once per
//! value it may run on (the product of the `maxItems`/`maxProperties` of the lists and
//! maps above it, or, when one has none, how many values of the node fit in a 3 MiB
//! request), and a schema whose rules (and messageExpressions) add up to more than its
//! per-CRD budget ("Resource use by validation functions" in the CRD docs). `cost`
//! reproduces that estimate and `decl` the sizes it starts from, so lint reports the
//! number and factor the server prints. Where the estimator meets a construct it cannot
//! cost exactly it gives no estimate: the rule is reported as `cel-unsupported` (its
//! cost was not checked), and the schema's total is reported only as a lower bound.
//!
//! Why one file: a rule's checks (parse, type, `oldSelf`, cost) run in one walk of the
//! schema that carries what each needs: the node's type, its path for the finding, whether
//! old and new values correlate there, and how often it can occur; the samples' verdicts
//! follow from what that walk set aside.

pub mod cost;
pub mod decl;
mod field_path;
pub mod functions;
pub mod types;

use std::collections::{BTreeMap, BTreeSet};

use kube_cel::cel::parser::Parser;
use kube_cel::cel::{IdedExpr, Program};
use kube_cel::{ErrorKind, Validator, compile_schema};
use serde_json::Value;

use super::find_version;
use crate::lint::check::Check;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::{Crd, Inputs, Version};
use crate::lint::schema::Schema;
use crate::lint::yaml::{Pos, Segment, parse_path};
use decl::Decl;
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

pub static CEL_COST: RuleId = RuleId {
    id: "cel-cost",
    severity: Severity::Error,
    summary: "no rule's estimated cost exceeds the API server's per-rule budget, nor a version's rules together its per-CRD budget (the server's own estimate)",
};

pub static CHECK: Check = Check {
    name: "cel",
    rules: &[
        &CEL_INVALID,
        &CEL_REJECTS_SAMPLE,
        &CEL_UNSUPPORTED,
        &CEL_COST,
    ],
    run,
};

/// The reasons a validation may give (apiextensions' `FieldValueErrorReason`).
const REASONS: &[&str] = &[
    "FieldValueRequired",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueDuplicate",
];

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
                total: Total::default(),
            };
            let at = Context {
                correlatable: true,
                root: true,
                depth: 0,
                cardinality: Some(1),
            };
            walk.node(Schema(&version.schema_json), &mut Vec::new(), at);
            walk.total_cost();
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
    total: Total,
}

/// Where in the schema a node is.
#[derive(Debug, Clone, Copy)]
struct Context {
    /// Whether old and new values of the node can be paired (for oldSelf).
    correlatable: bool,
    /// The schema's root.
    root: bool,
    depth: usize,
    /// How many values of the node one object may hold, None when a list or map above
    /// it has no bound (see `decl::child_cardinality`).
    cardinality: Option<u64>,
}

/// The estimated costs of a version's rules, added up as the API server adds them.
#[derive(Debug, Default)]
struct Total {
    cost: u64,
    /// Expressions lint could not estimate: then `cost` is only a lower bound.
    uncosted: usize,
    /// Each expression's cost and what it is, for the hint.
    parts: Vec<(u64, String)>,
}

impl Walk<'_, '_> {
    fn node(&mut self, s: Schema<'_>, path: &mut Vec<Segment>, at: Context) {
        if at.depth > MAX_DEPTH {
            return;
        }
        for (i, rule) in s.validations().iter().enumerate() {
            let mut rule_path = path.clone();
            rule_path.extend([
                Segment::Key("x-kubernetes-validations".into()),
                Segment::Index(i),
            ]);
            self.rule(s, rule, &rule_path, at);
        }
        let below = Context {
            root: false,
            depth: at.depth + 1,
            cardinality: decl::child_cardinality(s, at.cardinality),
            ..at
        };
        let mut child = |key: Vec<Segment>, sub: Schema<'_>, at: Context, this: &mut Self| {
            let len = path.len();
            path.extend(key);
            this.node(sub, path, at);
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
                    below,
                    self,
                );
            }
        }
        if let Some(items) = s.items() {
            // Old and new list items correlate only by the keys of a map list.
            let correlatable = at.correlatable && s.list_type() == "map";
            let at = Context {
                correlatable,
                ..below
            };
            child(vec![Segment::Key("items".into())], items, at, self);
        }
        if let Some(values) = s.additional_properties() {
            child(
                vec![Segment::Key("additionalProperties".into())],
                values,
                below,
                self,
            );
        }
    }

    fn rule(&mut self, s: Schema<'_>, rule: &Value, path: &[Segment], at: Context) {
        let Context {
            correlatable, root, ..
        } = at;
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
        let optional_old_self = rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true);
        let outcome = types::check(&expression, self_ty.clone(), optional_old_self);
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
        if optional_old_self && !outcome.uses_old_self {
            problems.push("`optionalOldSelf` is set, but the rule does not use oldSelf".into());
        }
        let mut unsupported = outcome.unsupported;
        // The evaluator compiles without optional syntax.
        if Program::compile(text).is_err() {
            unsupported.insert("optional syntax (`.?`, `[?`)".into());
        }
        let mut message_expression = None;
        if let Some(message) = rule.get("messageExpression").and_then(Value::as_str) {
            match parse(message) {
                Err(reason) => {
                    problems.push(format!("its messageExpression does not parse: {reason}"))
                }
                Ok(p) => {
                    if Program::compile(message).is_err() {
                        unsupported.insert("optional syntax in its messageExpression".into());
                    }
                    let m = types::check(&p, self_ty, optional_old_self);
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
                    message_expression = Some((message, p));
                }
            }
        }
        let message = rule.get("message").and_then(Value::as_str);
        match message.map(str::trim) {
            Some("") => problems.push("its message must be non-empty if specified".into()),
            Some(m) if m.contains(['\n', '\r']) => {
                problems.push("its message must not contain line breaks".into())
            }
            None if text.trim().contains(['\n', '\r']) => problems
                .push("it has line breaks, and then the API server wants a `message`".into()),
            _ => {}
        }
        if let Some(reason) = rule.get("reason").and_then(Value::as_str)
            && !REASONS.contains(&reason)
        {
            problems.push(format!(
                "its reason `{reason}` is none of {}",
                REASONS.join(", ")
            ));
        }
        if let Some(field_path) = rule.get("fieldPath").and_then(Value::as_str)
            && let Err(why) = field_path::resolve(s, field_path)
        {
            problems.push(format!("its fieldPath `{field_path}` {why}"));
        }
        for problem in &problems {
            self.out.push(
                CEL_INVALID
                    .at(file, pos, format!("rule `{text}` ({where_}): {problem}"))
                    .hint(HINT_RULE),
            );
        }
        let evaluable = problems.is_empty() && unsupported.is_empty();
        // A rule that does not compile costs nothing on the API server.
        let uncosted = if problems.is_empty() {
            let message = message_expression.as_ref().map(|(m, e)| (*m, e));
            let rule = Costed {
                text,
                expression: &expression,
                message,
                file,
                pos,
                where_: &where_,
            };
            self.cost(s, &rule, at)
        } else {
            BTreeSet::new()
        };
        let unsupported = if !unsupported.is_empty() {
            let cost = if uncosted.is_empty() {
                ""
            } else {
                ", nor its cost estimated against the API server's budget"
            };
            Some((
                unsupported,
                format!(
                    "which lint cannot evaluate: the samples were not checked against it{cost}"
                ),
                "check it against the API server: `kubectl apply --dry-run=server -k config/samples`",
            ))
        } else if !uncosted.is_empty() {
            Some((
                uncosted,
                "whose cost lint cannot estimate as the API server does: its cost budget was not checked".into(),
                "let the API server check it: `kubectl apply --server-side --dry-run=server -f` the CRD",
            ))
        } else {
            None
        };
        if let Some((constructs, consequence, hint)) = unsupported {
            let list: Vec<String> = constructs.into_iter().collect();
            let message = format!(
                "rule `{text}` ({where_}) uses {}, {consequence}",
                list.join(", ")
            );
            self.out
                .push(CEL_UNSUPPORTED.at(file, pos, message).hint(hint));
        }
        if !evaluable {
            self.skipped.insert(text.to_string());
        }
    }
}

/// One rule to cost, and where to report it.
struct Costed<'e> {
    text: &'e str,
    expression: &'e IdedExpr,
    message: Option<(&'e str, &'e IdedExpr)>,
    file: &'e std::path::Path,
    pos: Pos,
    where_: &'e str,
}

impl Walk<'_, '_> {
    /// Estimates a rule (and its messageExpression) as the API server does, reports one
    /// over the per-rule budget and adds it to the version's total; the constructs it
    /// could not cost.
    fn cost(&mut self, s: Schema<'_>, rule: &Costed<'_>, at: Context) -> BTreeSet<String> {
        let mut uncosted = BTreeSet::new();
        let Some(node) = Decl::of(s, at.root || s.embedded_resource()) else {
            self.total.uncosted += 1;
            uncosted.insert("a schema node the API server does not declare to rules".into());
            return uncosted;
        };
        let runs = at
            .cardinality
            .unwrap_or_else(|| decl::unbounded_cardinality(node.min_size()));
        let expressions = [
            Some((None, rule.expression)),
            rule.message.map(|(m, e)| (Some(m), e)),
        ];
        for (message, expression) in expressions.into_iter().flatten() {
            // A messageExpression counts once, whatever the cardinality.
            let times = message.is_none().then_some((runs, at.cardinality));
            match cost::estimate(expression, node) {
                Ok(estimate) => self.over_budget(rule, message, &estimate, times),
                Err(constructs) => {
                    self.total.uncosted += 1;
                    let suffix = message.map_or("", |_| " (messageExpression)");
                    uncosted.extend(constructs.into_iter().map(|c| format!("{c}{suffix}")));
                }
            }
        }
        uncosted
    }

    /// Adds one expression's estimate to the total and reports it over the per-rule
    /// budget. `runs`: how many times the rule may run and how that is known (None for
    /// a messageExpression, which counts once).
    fn over_budget(
        &mut self,
        rule: &Costed<'_>,
        message: Option<&str>,
        estimate: &cost::Estimate,
        runs: Option<(u64, Option<u64>)>,
    ) {
        let text = rule.text;
        let total = match (estimate.cost, runs) {
            (0, _) | (_, None) => estimate.cost,
            (cost, Some((runs, _))) => cost.saturating_mul(runs),
        };
        let what = match message {
            Some(message) => format!("messageExpression `{message}` of rule `{text}`"),
            None => format!("rule `{text}`"),
        };
        self.observe(total, what.clone());
        if total <= cost::RULE_LIMIT {
            return;
        }
        let times = match runs {
            None | Some((1, _)) => String::new(),
            Some((n, Some(_))) => format!(
                ": {} per run, {n} runs (the maxItems/maxProperties of the lists and maps above it)",
                estimate.cost
            ),
            Some((n, None)) => format!(
                ": {} per run, {n} runs (as many values as fit in a 3 MiB request: a list or map above it has no maxItems/maxProperties)",
                estimate.cost
            ),
        };
        let budget = if message.is_some() {
            "per-expression"
        } else {
            "per-rule"
        };
        let text = format!(
            "{what} ({}): estimated cost {total} exceeds the API server's {budget} budget of {} by a factor of {}{times}",
            rule.where_,
            cost::RULE_LIMIT,
            cost::exceed_factor(total, cost::RULE_LIMIT),
        );
        self.out.push(
            CEL_COST
                .at(rule.file, rule.pos, text)
                .hint(cost_hint(estimate.biggest.as_deref())),
        );
    }

    fn observe(&mut self, cost: u64, what: String) {
        self.total.cost = self.total.cost.saturating_add(cost);
        self.total.parts.push((cost, what));
    }

    /// Reports a version whose rules together exceed the per-CRD budget.
    fn total_cost(&mut self) {
        let total = &mut self.total;
        if total.cost <= cost::CRD_LIMIT {
            return;
        }
        total.parts.sort_by_key(|part| std::cmp::Reverse(part.0));
        let biggest: Vec<String> = total
            .parts
            .iter()
            .take(3)
            .map(|(cost, what)| format!("{what} ({cost})"))
            .collect();
        let (at_least, message) = if total.uncosted == 0 {
            ("", String::new())
        } else {
            (
                "at least ",
                format!(
                    " ({} expression(s) lint could not estimate are left out)",
                    total.uncosted
                ),
            )
        };
        let text = format!(
            "{} {}: the estimated cost of all its rules, {at_least}{}, exceeds the API server's per-CRD budget of {} by a factor of {at_least}{}{message}",
            self.crd.kind,
            self.version.name,
            total.cost,
            cost::CRD_LIMIT,
            cost::exceed_factor(total.cost, cost::CRD_LIMIT),
        );
        let pos = self.version.schema.map_or(self.version.node.pos, |s| s.pos);
        self.out.push(
            CEL_COST
                .at(&self.crd.file.path, pos, text)
                .hint(format!(
                    "the costliest: {}; add maxItems, maxLength or maxProperties where the schema is unbounded, or simplify the rules",
                    biggest.join(", ")
                )),
        );
    }
}

fn cost_hint(biggest: Option<&str>) -> String {
    let lead = biggest.map_or(String::new(), |b| format!("most of it is {b}; "));
    format!(
        "{lead}add maxItems, maxLength or maxProperties where the schema is unbounded, or simplify the rule: the API server refuses this CRD"
    )
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
        let created = version.as_created(sample);
        let Err(errors) = validator.validate_compiled(schema, &created, None) else {
            continue;
        };
        let skip = skipped.get(&key);
        for error in errors {
            if skip.is_some_and(|s| s.contains(&error.rule)) {
                continue;
            }
            // The API server evaluates no rule on a null value (apiextensions' CEL validator
            // returns before it); kube-cel does.
            if value_at(&created, &parse_path(&error.field_path)).is_some_and(Value::is_null) {
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

/// The value at `path` in `value`, if there is one.
fn value_at<'v>(value: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    path.iter().try_fold(value, |at, step| match step {
        Segment::Key(key) => at.get(key.as_str()),
        Segment::Index(i) => at.get(*i),
    })
}
