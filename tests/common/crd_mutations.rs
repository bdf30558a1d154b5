//! CRDs mutated from a real one, for the differential test that shows them to `lint` and to
//! the API server: each changes one thing the server decides when it validates a CRD — a
//! printer column, a selectable field, or a CEL rule with its message, reason, fieldPath and
//! optionalOldSelf — on one served version. Whether a mutation is valid is not decided
//! here: the server decides it.

use serde_json::{Value, json};

/// One mutated CRD: what it changes, and the CRD (not yet renamed, see [`renamed`]).
pub struct Mutation {
    pub what: String,
    pub crd: Value,
}

/// Fields of a version's `spec`, by what they are, reached without crossing a list: the
/// material the mutations point columns, selectable fields and rules at.
#[derive(Default)]
struct Fields {
    string: Option<String>,
    integer: Option<String>,
    boolean: Option<String>,
    number: Option<String>,
    int_or_string: Option<String>,
    object: Option<String>,
    map: Option<String>,
    /// An object that keeps unknown fields and declares none.
    free: Option<String>,
    list: Option<String>,
    /// A list of objects, for rules on its items (where `oldSelf` needs a map list).
    list_of_objects: Option<String>,
}

fn fields_of(spec: &Value) -> Fields {
    let mut found = Fields::default();
    collect(spec, "", &mut found);
    found
}

fn collect(schema: &Value, path: &str, found: &mut Fields) {
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        // A name CEL cannot spell as a field is escaped there; keep the rules simple.
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let here = format!("{path}.{name}");
        let slot = if property["x-kubernetes-int-or-string"] == true {
            &mut found.int_or_string
        } else {
            match property["type"].as_str() {
                Some("string") => &mut found.string,
                Some("integer") => &mut found.integer,
                Some("boolean") => &mut found.boolean,
                Some("number") => &mut found.number,
                Some("object") if property["additionalProperties"].is_object() => &mut found.map,
                Some("object")
                    if property["x-kubernetes-preserve-unknown-fields"] == true
                        && property["properties"].is_null() =>
                {
                    &mut found.free
                }
                Some("object") => {
                    if found.object.is_none() && property["properties"].is_object() {
                        found.object = Some(here.clone());
                    }
                    collect(property, &here, found);
                    continue;
                }
                Some("array") => {
                    if property["items"]["type"] == "object" && found.list_of_objects.is_none() {
                        found.list_of_objects = Some(here.clone());
                    }
                    if found.list.is_none() {
                        found.list = Some(here);
                    }
                    continue;
                }
                _ => continue,
            }
        };
        if slot.is_none() {
            *slot = Some(here);
        }
    }
}

/// Every mutation of `crd` on its first served version that has a `spec` with fields.
pub fn mutations(crd: &Value) -> Vec<Mutation> {
    let versions = crd["spec"]["versions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let Some(index) = versions.iter().position(|v| {
        v["served"] == true
            && v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].is_object()
    }) else {
        return Vec::new();
    };
    let version = &versions[index];
    let spec = &version["schema"]["openAPIV3Schema"]["properties"]["spec"];
    let fields = fields_of(spec);
    let shown = format!(
        "{} {}",
        crd["spec"]["names"]["kind"].as_str().unwrap_or_default(),
        version["name"].as_str().unwrap_or_default()
    );
    let mut out = Vec::new();
    let mut push = |what: String, change: &dyn Fn(&mut Value)| {
        let mut crd = crd.clone();
        change(&mut crd["spec"]["versions"][index]);
        out.push(Mutation {
            what: format!("{shown}: {what}"),
            crd,
        });
    };
    for (what, column) in printer_columns(&fields) {
        push(format!("printer column {what}"), &|v| {
            v["additionalPrinterColumns"] = json!([column.clone()]);
        });
    }
    for (what, paths) in selectable_fields(&fields) {
        push(format!("selectable fields {what}"), &|v| {
            let list: Vec<Value> = paths.iter().map(|p| json!({"jsonPath": p})).collect();
            v["selectableFields"] = Value::Array(list);
        });
    }
    for (at, what, rule) in rules(&fields) {
        push(format!("rule at {at} {what}"), &|v| {
            let mut node = &mut v["schema"]["openAPIV3Schema"];
            for step in at.split('.').filter(|s| !s.is_empty()) {
                node = if step == "[]" {
                    &mut node["items"]
                } else {
                    &mut node["properties"][step]
                };
            }
            let mut rules = node["x-kubernetes-validations"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            rules.push(rule.clone());
            node["x-kubernetes-validations"] = Value::Array(rules);
        });
    }
    out
}

/// Printer columns, each alone: what each is, and the column.
fn printer_columns(f: &Fields) -> Vec<(String, Value)> {
    let column = |name: &str, path: &str, ty: &str, format: Option<&str>| {
        let mut column = json!({"name": name, "jsonPath": path, "type": ty});
        if let Some(format) = format {
            column["format"] = json!(format);
        }
        (format!("{name:?} {path:?} {ty} {format:?}"), column)
    };
    let mut out = vec![
        column("Name", ".metadata.name", "string", None),
        column("App", ".metadata.labels.app", "string", None),
        column("Misspelt", ".metadata.nmae", "string", None),
        column("Age", ".metadata.creationTimestamp", "date", None),
        column(
            "Ready",
            ".status.conditions[?(@.type==\"Ready\")].status",
            "string",
            None,
        ),
        column("Nowhere", ".spec.zzNowhere", "string", None),
        column("Root", ".", "string", None),
        column("Empty", "", "string", None),
    ];
    if let Some(s) = &f.string {
        let spec = format!(".spec{s}");
        out.extend([
            column("S", &spec, "string", None),
            column("S", &spec, "string", Some("password")),
            column("S", &spec, "string", Some("bogus")),
            column("S", &spec, "float", None),
            column("", &spec, "string", None),
            column("S", &format!("{{{spec}}}"), "string", None),
            column("S", &spec[1..], "string", None),
        ]);
    }
    if let Some(i) = &f.integer {
        let spec = format!(".spec{i}");
        out.extend([
            column("I", &spec, "integer", Some("int32")),
            column("I", &spec, "number", Some("double")),
        ]);
    }
    if let Some(b) = &f.boolean {
        out.push(column("B", &format!(".spec{b}"), "boolean", None));
    }
    if let Some(list) = &f.list {
        out.push(column("First", &format!(".spec{list}[0]"), "string", None));
        out.push(column("All", &format!(".spec{list}[*]"), "string", None));
    }
    out
}

/// Selectable fields: what each set is, and its paths.
fn selectable_fields(f: &Fields) -> Vec<(String, Vec<String>)> {
    let mut out = vec![
        (
            "metadata.name".to_string(),
            vec![".metadata.name".to_string()],
        ),
        ("the spec".into(), vec![".spec".into()]),
        ("nowhere".into(), vec![".spec.zzNowhere".into()]),
    ];
    let scalars = [&f.string, &f.integer, &f.boolean];
    for field in scalars.into_iter().flatten() {
        out.push((format!("scalar {field}"), vec![format!(".spec{field}")]));
    }
    if let Some(s) = &f.string {
        out.push(("a field twice".into(), vec![format!(".spec{s}"); 2]));
        out.push(("without the dot".into(), vec![format!("spec{s}")]));
    }
    for (what, field) in [
        ("number", &f.number),
        ("int-or-string", &f.int_or_string),
        ("object", &f.object),
        ("map", &f.map),
    ] {
        if let Some(field) = field {
            out.push((format!("{what} {field}"), vec![format!(".spec{field}")]));
        }
    }
    if let Some(list) = &f.list {
        out.push((format!("list {list}"), vec![format!(".spec{list}")]));
        out.push((
            format!("list item {list}[0]"),
            vec![format!(".spec{list}[0]")],
        ));
    }
    out
}

/// CEL rules: where each goes (`.spec`, `` for the root, `.spec.l.[]` for a list's items),
/// what it is, and the validation.
fn rules(f: &Fields) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    let mut at = |node: &str, rule: Value| {
        out.push((node.to_string(), rule.to_string(), rule));
    };
    let rule = |text: &str| json!({"rule": text});
    at("", rule("self.metadata.name.size() > 0"));
    at("", rule("self.metadata.name.startsWith('s')"));
    at("", rule("has(self.spec)"));
    at("", rule("self.kind == 'Nothing'"));
    at(".spec", rule("self == oldSelf"));
    at(".spec", rule("self.zzNowhere == 1"));
    at(".spec", rule("size(self) >= 0"));
    at(".spec", rule("1 + 1"));
    at(".spec", rule("self.all(k, k.size() > 0)"));
    at(".spec", rule("has(self."));
    at(".spec", json!({"rule": "true", "optionalOldSelf": true}));
    at(
        ".spec",
        json!({"rule": "oldSelf.hasValue() || true", "optionalOldSelf": true}),
    );
    at(
        ".spec",
        json!({"rule": "true", "reason": "FieldValueForbidden"}),
    );
    at(
        ".spec",
        json!({"rule": "true", "reason": "FieldValueBogus"}),
    );
    at(
        ".spec",
        json!({"rule": "true", "messageExpression": "'spec of ' + string(1)"}),
    );
    at(".spec", json!({"rule": "true", "messageExpression": "1"}));
    at(
        ".spec",
        json!({"rule": "true", "messageExpression": "self.zzNowhere"}),
    );
    at(".spec", json!({"rule": "true", "fieldPath": ".zzNowhere"}));
    at(".spec", rule("quantity('1Gi').isLessThan(quantity('2Gi'))"));
    at(
        ".spec",
        rule(
            "isURL('https://example.com') && url('https://example.com').getHost() == 'example.com'",
        ),
    );
    at(
        ".spec",
        rule("ip('10.0.0.1').family() == 4 && cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))"),
    );
    at(
        ".spec",
        rule("[1, 2, 3].isSorted() && sets.contains([1, 2], [1])"),
    );
    at(".spec", rule("optional.of(1).hasValue()"));
    at(
        ".spec",
        rule("'a,b'.split(',').size() == 2 && 'Ab'.lowerAscii() == 'ab'"),
    );
    at(".spec", rule("'abc'.matches('[')"));
    at(".spec", rule("[1, 2].sortBy(x, -x)[0] == 2"));
    at(".spec", rule("math.abs(-1) == 1"));
    at(
        ".spec",
        rule("format.dns1123Label().validate('a').hasValue() == false"),
    );
    at(".spec", rule("'abc'.reverse() == 'cba'"));
    at(
        ".spec",
        rule("semver('1.2.3').isGreaterThan(semver('1.0.0'))"),
    );
    at(
        ".spec",
        rule(
            "duration('1h') > duration('1m') && timestamp('2026-01-01T00:00:00Z') < timestamp('2027-01-01T00:00:00Z')",
        ),
    );
    at(".spec", rule("self.exists(k, k == 'x') || true"));
    at(".spec", rule("cel.bind(x, 1, x == 1)"));
    at(".spec", rule("base64.encode(b'a') == 'YQ=='"));
    at(".spec", rule("[1].first().hasValue()"));
    at(".spec", rule("type(1) == int"));
    at(".spec", json!({"rule": "true", "message": " "}));
    at(".spec", json!({"rule": "true", "message": "two\nlines"}));
    at(".spec", rule("true &&\ntrue"));
    at(
        ".spec",
        json!({"rule": "true &&\ntrue", "message": "one line"}),
    );
    // Rules on one field of `.spec`: `$` stands for the field's path (`.name`).
    let on_fields: [(&Option<String>, &[&str]); 8] = [
        (
            &f.string,
            &[
                "self$.size() >= 0",
                "self$ == 1",
                "self$",
                "self$.startsWith('a')",
                "self$.startsWith('z')",
                "self$.matches('^[a-z]+$')",
                "self$.contains(1)",
                "self$.size() > 100",
                "!has(self$) || self$ != 'a'",
                "self$ == oldSelf$",
                "self.?$.orValue('') == 'a'",
                "int(self$) > 0",
            ],
        ),
        (
            &f.integer,
            &[
                "self$ + 1 > 0",
                "self$ + 'a' > 0",
                "self$ > 1000000",
                "self$ >= oldSelf$",
                "double(self$) > 0.5",
                "self$ / 0 == 1",
            ],
        ),
        (&f.boolean, &["self$", "!self$", "self$ == 'true'"]),
        (&f.number, &["self$ > 1", "self$ > 1.0"]),
        (
            &f.map,
            &[
                "self$.all(k, k.size() > 0)",
                "self$.size() <= 1",
                "'key' in self$",
            ],
        ),
        (&f.free, &["has(self$.zzAnything)", "has(self$)"]),
        (
            &f.object,
            &["has(self$)", "self$ == oldSelf$", "self$.zzNowhere"],
        ),
        (
            &f.int_or_string,
            &["type(self$) == int || type(self$) == string", "self$ > 0"],
        ),
    ];
    for (field, texts) in on_fields {
        let Some(field) = field else { continue };
        for text in texts {
            // `self.?$` wants the field's name without its dot.
            let text = text.replace(".?$", &format!(".?{}", &field[1..]));
            at(".spec", rule(&text.replace('$', field)));
        }
    }
    if let Some(s) = &f.string {
        let size = format!("self{s}.size() > 0");
        at(".spec", json!({"rule": size, "fieldPath": s}));
        let message = format!("'too short: ' + self{s}");
        at(".spec", json!({"rule": size, "messageExpression": message}));
    }
    if let Some(o) = &f.object {
        at(".spec", json!({"rule": "true", "fieldPath": o}));
        let nowhere = format!("{o}.zzNowhere");
        at(".spec", json!({"rule": "true", "fieldPath": nowhere}));
    }
    if let Some(list) = &f.list {
        for text in [
            "self$.size() <= 1",
            "self$.all(x, x == x)",
            "self$.exists_one(x, true)",
            "self$.map(x, 1).size() > 0",
            "self$.filter(x, false).size() == 0",
            "self$[0] == self$[0]",
            "self$.size() == oldSelf$.size()",
        ] {
            at(".spec", rule(&text.replace('$', list)));
        }
    }
    if let Some(list) = &f.list_of_objects {
        let items = format!(".spec{list}.[]");
        at(&items, rule("self == oldSelf"));
        at(&items, rule("size(self) > 0"));
        at(&items, rule("self.zzNowhere == 1"));
    }
    out
}

/// `crd` renamed so that it can be installed beside every other mutation: kind `Mut<n>`,
/// plural `mut<n>s`, without short names and categories, conversion `None` (a webhook the
/// test does not serve would refuse every read at another version), and labelled for
/// cleanup.
pub fn renamed(crd: &Value, n: usize, label: &str) -> Value {
    let mut crd = crd.clone();
    let group = crd["spec"]["group"].as_str().unwrap().to_string();
    let kind = format!("Mut{n}");
    let plural = format!("mut{n}s");
    crd["metadata"] = json!({
        "name": format!("{plural}.{group}"),
        "labels": {label: "true"},
        "annotations": crd["metadata"]["annotations"].clone(),
    });
    if crd["metadata"]["annotations"].is_null() {
        crd["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("annotations");
    }
    crd["spec"]["names"] = json!({
        "kind": kind,
        "listKind": format!("{kind}List"),
        "plural": plural,
        "singular": format!("mut{n}"),
    });
    crd["spec"]["conversion"] = json!({"strategy": "None"});
    crd
}
