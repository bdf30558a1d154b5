//! `lint`'s `cel-cost` judged by the real API server. Kubernetes estimates the worst-case
//! cost of every validation rule when a CRD is created or updated, and refuses the CRD
//! when one rule's estimate (times the number of values it may run on) exceeds the
//! per-rule budget, or when the estimates of a schema's rules add up to more than the
//! per-CRD budget: "Resource use by validation functions" and "Estimated cost limit" in
//! https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#resource-use-by-validation-functions
//!
//! Each shape below is a CRD whose cost grows with one number (a `maxLength`,
//! `maxItems` or `maxProperties`). lint finds the largest number it accepts; the CRD with
//! that number and the one with the next are applied server-side: the server must accept
//! the first and refuse the second, and the factors it prints ("exceeds budget by factor
//! of 1.000002x") must be the ones lint prints. Fixed shapes (unbounded strings, lists
//! and maps) are judged the same way, once each.

mod common;

use std::fs;
use std::path::Path;

use common::api_server::{ApiServer, api_server};
use regex::Regex;
use rsbuilder::lint::{self, Sources};
use serde_json::{Value, json};

const GROUP: &str = "cost.example.com";
/// 23 characters: a quarter unit each, rounded up: 6 per character matched.
const REGEX: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";
/// A DNS-1123 subdomain, as a validation rule often writes it (80 characters).
const SUBDOMAIN: &str =
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*[.]example[.]com$";

fn rule(text: &str) -> Value {
    json!([{ "rule": text }])
}

fn string(max_length: Option<u64>) -> Value {
    let mut s = json!({ "type": "string" });
    if let Some(n) = max_length {
        s["maxLength"] = n.into();
    }
    s
}

fn list(items: Value, max_items: Option<u64>) -> Value {
    let mut s = json!({ "type": "array", "items": items });
    if let Some(n) = max_items {
        s["maxItems"] = n.into();
    }
    s
}

fn map(values: Value, max_properties: Option<u64>) -> Value {
    let mut s = json!({ "type": "object", "additionalProperties": values });
    if let Some(n) = max_properties {
        s["maxProperties"] = n.into();
    }
    s
}

fn object(properties: Value) -> Value {
    json!({ "type": "object", "properties": properties })
}

fn with_rules(mut s: Value, rules: Value) -> Value {
    s["x-kubernetes-validations"] = rules;
    s
}

/// A spec of `count` fields `<prefix><i>`, each `field`.
fn many(prefix: &str, count: usize, field: Value) -> Value {
    let properties: serde_json::Map<String, Value> = (0..count)
        .map(|i| (format!("{prefix}{i}"), field.clone()))
        .collect();
    object(Value::Object(properties))
}

/// A spec of one field, `name`, of schema `s` with the rule `text` on it.
fn one(name: &str, s: Value, text: &str) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(name.into(), with_rules(s, rule(text)));
    object(Value::Object(properties))
}

/// `spec` of a kind, given the number the shape grows with.
type Spec = fn(Option<u64>) -> Value;

struct Shape {
    name: &'static str,
    spec: Spec,
    /// None: judged once as it is. Some: lint accepts the low end and flags the high;
    /// the boundary lint finds, the number after, three times that and no bound at all
    /// are judged.
    search: Option<(u64, u64)>,
}

fn shapes() -> Vec<Shape> {
    vec![
        // A string rule with `matches`: (4·maxLength + 1)/10 × 6 per run.
        Shape {
            name: "matches on a string, maxLength",
            spec: |n| one("s", string(n), &format!("self.matches('{REGEX}')")),
            search: Some((1, 10_000_000)),
        },
        Shape {
            name: "matches on an unbounded string, subdomain regex",
            spec: |_| one("s", string(None), &format!("self.matches('{SUBDOMAIN}')")),
            search: None,
        },
        Shape {
            name: "matches on an unbounded string, 161-character regex",
            spec: |_| {
                let regex = format!("{SUBDOMAIN}|{SUBDOMAIN}");
                one("s", string(None), &format!("self.matches('{regex}')"))
            },
            search: None,
        },
        Shape {
            name: "matches on a string of maxLength 253 from the spec",
            spec: |_| {
                let rules = rule(&format!(
                    "!has(self.host) || self.host.matches('{SUBDOMAIN}')"
                ));
                with_rules(object(json!({ "host": string(Some(253)) })), rules)
            },
            search: None,
        },
        // `all` over a list: maxItems × the body.
        Shape {
            name: "all over a list, maxItems",
            spec: |n| {
                let rule = format!("self.all(x, x.matches('{REGEX}'))");
                one("l", list(string(Some(64)), n), &rule)
            },
            search: Some((1, 1_000_000)),
        },
        Shape {
            name: "exists and size over a list without maxItems",
            spec: |_| {
                let rule = "self.exists(x, x.size() > 3) && self.exists_one(x, x == 'a')";
                one("l", list(string(Some(10)), None), rule)
            },
            search: None,
        },
        // Nested lists: the outer maxItems times the inner body.
        Shape {
            name: "nested lists, outer maxItems",
            spec: |n| {
                let inner = list(string(Some(20)), Some(100));
                let rule = "self.all(x, x.all(y, y.startsWith('a') && y.lowerAscii() == y))";
                one("l", list(inner, n), rule)
            },
            search: Some((1, 100_000)),
        },
        Shape {
            name: "nested lists without maxItems",
            spec: |_| {
                let inner = list(string(Some(20)), None);
                one("l", list(inner, None), "self.all(x, x.exists(y, y == 'a'))")
            },
            search: None,
        },
        Shape {
            name: "map and filter over a list, maxItems",
            spec: |n| {
                let items =
                    object(json!({ "name": string(Some(63)), "port": { "type": "integer" } }));
                let rule = "self.filter(x, x.port > 1024).map(x, x.name).all(n, n.contains('-'))";
                one("l", list(items, n), rule)
            },
            search: Some((1, 1_000_000)),
        },
        // A map: maxProperties × the body.
        Shape {
            name: "all over a map, maxProperties",
            spec: |n| {
                let rule = "self.all(k, self[k].contains('x') && k.size() < 64)";
                one("m", map(string(Some(100)), n), rule)
            },
            search: Some((1, 1_000_000)),
        },
        // A rule on a list's items runs once per item: its cost times maxItems.
        Shape {
            name: "a rule inside a list item, maxItems",
            spec: |n| {
                let item = json!({
                    "type": "object",
                    "required": ["name"],
                    "properties": { "name": string(Some(253)), "tier": { "type": "string", "enum": ["gold", "silver"] } },
                    "x-kubernetes-validations": rule(&format!("self.name.matches('{SUBDOMAIN}') && self.tier != 'bronze'")),
                });
                object(json!({ "l": list(item, n) }))
            },
            search: Some((1, 1_000_000)),
        },
        Shape {
            name: "a rule inside a list item without maxItems",
            spec: |_| {
                let item = json!({
                    "type": "object",
                    "required": ["name"],
                    "properties": { "name": string(Some(63)) },
                    "x-kubernetes-validations": rule("self.name.startsWith('a')"),
                });
                object(json!({ "l": list(item, None) }))
            },
            search: None,
        },
        Shape {
            name: "a rule inside a map value inside a list, both bounded",
            spec: |n| {
                let value = with_rules(string(Some(64)), rule(&format!("self.matches('{REGEX}')")));
                object(json!({ "l": list(map(value, Some(16)), n) }))
            },
            search: Some((1, 1_000_000)),
        },
        // The per-CRD budget: 11 rules each under the per-rule budget.
        Shape {
            name: "per CRD: eleven strings, maxLength",
            spec: |n| {
                let s = with_rules(string(n), rule(&format!("self.matches('{REGEX}')")));
                many("s", 11, s)
            },
            search: Some((1, 10_000_000)),
        },
        Shape {
            name: "per CRD: twelve lists of items with a rule, maxItems",
            spec: |n| {
                let text = format!("!has(self.name) || self.name.matches('{SUBDOMAIN}')");
                let item = object(json!({ "name": string(Some(253)) }));
                many("l", 12, list(with_rules(item, rule(&text)), n))
            },
            search: Some((1, 1_000_000)),
        },
        Shape {
            name: "per CRD: rules and messageExpressions",
            spec: |n| {
                let rules = json!([{
                    "rule": format!("self.matches('{REGEX}')"),
                    "messageExpression": "'bad value: ' + self.lowerAscii()",
                }]);
                many("s", 10, with_rules(string(n), rules))
            },
            search: Some((1, 10_000_000)),
        },
    ]
}

fn kind_of(plural: &str) -> String {
    let mut chars = plural.trim_end_matches('s').chars();
    let first = chars.next().unwrap().to_ascii_uppercase();
    std::iter::once(first).chain(chars).collect()
}

fn crd(plural: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": { "name": format!("{plural}.{GROUP}") },
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {
                "kind": kind_of(plural),
                "listKind": format!("{}List", kind_of(plural)),
                "plural": plural,
                "singular": plural.trim_end_matches('s'),
            },
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "schema": { "openAPIV3Schema": object(json!({ "spec": spec })) },
            }],
        },
    })
}

/// What `cel-cost` says of a CRD: (per-rule or per-CRD, factor, estimate) per finding.
fn lint_costs(dir: &Path, crd: &Value) -> Vec<(String, String, u64)> {
    let crds = dir.join("lint");
    let _ = fs::remove_dir_all(&crds);
    fs::create_dir_all(&crds).unwrap();
    fs::write(crds.join("crd.yaml"), serde_yaml::to_string(crd).unwrap()).unwrap();
    let sources = Sources {
        crds: Some(crds),
        samples: None,
    };
    let findings = lint::lint(dir, &sources).unwrap();
    let pattern =
        Regex::new(r"cost (?:of all its rules, )?(\d+),? exceeds the API server's (per-\S+) budget of \d+ by a factor of (more than 100x|[0-9.]+x)")
            .unwrap();
    let mut costs = Vec::new();
    for finding in findings {
        assert_ne!(finding.rule, "cel-invalid", "{}", finding.message);
        if finding.rule != "cel-cost" {
            continue;
        }
        let found = pattern
            .captures(&finding.message)
            .unwrap_or_else(|| panic!("unexpected cel-cost message: {}", finding.message));
        let scope = if &found[2] == "per-CRD" {
            "crd"
        } else {
            "rule"
        };
        costs.push((
            scope.into(),
            found[3].to_string(),
            found[1].parse().unwrap(),
        ));
    }
    costs.sort();
    costs
}

/// Applies the CRD; None when the server accepts it, else the factors of its cost
/// refusals (per-rule or per-CRD, factor) and the whole message.
fn server_costs(
    server: &ApiServer,
    dir: &Path,
    crd: &Value,
) -> Option<(Vec<(String, String)>, String)> {
    let file = dir.join("crd.json");
    fs::write(&file, serde_json::to_string(crd).unwrap()).unwrap();
    let error = match server.apply(&file) {
        Ok(()) => return None,
        Err(error) => error,
    };
    let pattern = Regex::new(
        r"(estimated rule cost|estimated messageExpression cost|estimated rule cost total for entire OpenAPIv3 schema) exceeds budget by factor of (more than 100x|[0-9.]+x)",
    )
    .unwrap();
    let mut factors: Vec<(String, String)> = pattern
        .captures_iter(&error)
        .map(|c| {
            let scope = if c[1].contains("total") {
                "crd"
            } else {
                "rule"
            };
            (scope.to_string(), c[2].to_string())
        })
        .collect();
    factors.sort();
    Some((factors, error))
}

#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
fn lint_flags_exactly_the_rules_and_crds_the_api_server_refuses_for_cost() {
    let server = api_server();
    let dir = tempfile::tempdir().unwrap();
    let mut judged = 0;
    let mut rules_judged = 0;
    let mut table = Vec::new();
    let mut disagreements = Vec::new();
    for (i, shape) in shapes().iter().enumerate() {
        let mut variants = Vec::new();
        match shape.search {
            None => variants.push(None),
            Some((mut low, mut high)) => {
                // The largest number lint accepts, by bisection.
                let flagged =
                    |n| !lint_costs(dir.path(), &crd("probes", (shape.spec)(Some(n)))).is_empty();
                assert!(
                    !flagged(low) && flagged(high),
                    "{}: no boundary in {low}..{high}",
                    shape.name
                );
                while high - low > 1 {
                    let mid = low + (high - low) / 2;
                    if flagged(mid) {
                        high = mid;
                    } else {
                        low = mid;
                    }
                }
                variants.extend([Some(low), Some(high), Some(high * 3), None]);
            }
        }
        for (j, n) in variants.into_iter().enumerate() {
            let plural = format!("costs{i}x{j}s");
            let crd = crd(&plural, (shape.spec)(n));
            let rules = serde_json::to_string(&crd)
                .unwrap()
                .matches("\"rule\"")
                .count();
            let lint = lint_costs(dir.path(), &crd);
            let server_says = server_costs(server, dir.path(), &crd);
            judged += 1;
            rules_judged += rules;
            let shown_n = n.map_or("-".into(), |n| n.to_string());
            let lint_factors: Vec<(String, String)> = lint
                .iter()
                .map(|(s, f, _)| (s.clone(), f.clone()))
                .collect();
            match &server_says {
                None if lint.is_empty() => {
                    table.push(format!(
                        "{:<55} {shown_n:>8}  accepted   lint: under budget",
                        shape.name
                    ));
                    server.discard_crd(&format!("{plural}.{GROUP}"));
                }
                None => {
                    disagreements.push(format!(
                        "{} (n = {shown_n}): lint flags {lint:?}, the API server accepts it",
                        shape.name
                    ));
                    server.discard_crd(&format!("{plural}.{GROUP}"));
                }
                Some((factors, error)) => {
                    if factors.is_empty() {
                        disagreements.push(format!(
                            "{} (n = {shown_n}): refused for something else: {error}",
                            shape.name
                        ));
                    } else if *factors != lint_factors {
                        disagreements.push(format!(
                            "{} (n = {shown_n}): the API server refuses with {factors:?}, lint says {lint:?}",
                            shape.name
                        ));
                    }
                    for (scope, factor, estimate) in &lint {
                        table.push(format!(
                            "{:<55} {shown_n:>8}  refused    {scope:<4} lint: {estimate:>12} = {factor:<14} server: {}",
                            shape.name,
                            factors.iter().find(|(s, f)| s == scope && f == factor).map_or("(differs)", |(_, f)| f.as_str()),
                        ));
                    }
                }
            }
        }
    }
    // Rules of one CRD refused alike are one row.
    let mut rows: Vec<(String, usize)> = Vec::new();
    for line in table {
        match rows.last_mut() {
            Some((last, count)) if *last == line => *count += 1,
            _ => rows.push((line, 1)),
        }
    }
    for (row, count) in rows {
        let times = if count > 1 {
            format!("  (x{count})")
        } else {
            String::new()
        };
        eprintln!("{row}{times}");
    }
    eprintln!(
        "{judged} CRDs ({rules_judged} rules) judged, {} disagreements",
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "lint and the API server disagree on cost:\n{}",
        disagreements.join("\n")
    );
    assert!(judged >= 45, "only {judged} CRDs judged");
}
