//! What switching on a part of `config/default` changes in an object, folded into the
//! object's template as entries and items under `{{- if SWITCH }}` (or `if not`).

use serde_yaml::Value;

use super::template::{Entry, Item, Node};

/// Folds the difference between `off` (the object as `node` was made from it, every
/// switch off) and `on` (with the switch on) into `node`, gated by `cond`.
pub fn fold(node: &mut Node, off: &Value, on: &Value, cond: &str) {
    match (node, off, on) {
        (Node::Map { entries, .. }, Value::Mapping(off), Value::Mapping(on)) => {
            for (key, on_value) in on {
                let key_text = key.as_str().unwrap_or_default();
                match off.get(key) {
                    Some(off_value) => {
                        if let Some(entry) = entries
                            .iter_mut()
                            .find(|e| e.key == key_text && e.gate.is_none())
                        {
                            fold(&mut entry.node, off_value, on_value, cond);
                        }
                    }
                    None => entries.push(Entry {
                        key: key_text.to_string(),
                        node: Node::from_value(on_value),
                        gate: Some(format!("if {cond}")),
                    }),
                }
            }
            for (key, _) in off.iter().filter(|(k, _)| !on.contains_key(*k)) {
                let key_text = key.as_str().unwrap_or_default();
                if let Some(entry) = entries
                    .iter_mut()
                    .find(|e| e.key == key_text && e.gate.is_none())
                {
                    entry.gate = Some(format!("if not {cond}"));
                }
            }
        }
        (Node::List { items, .. }, Value::Sequence(off), Value::Sequence(on)) => {
            *items = fold_list(std::mem::take(items), off, on, cond);
        }
        (node, off, on) if off != on => {
            let was = std::mem::replace(node, Node::Scalar(Value::Null));
            *node = Node::Expr(format!(
                "{{{{ if {cond} }}}}{}{{{{ else }}}}{}{{{{ end }}}}",
                Node::from_value(on).inline_json(),
                was.inline_json()
            ));
        }
        _ => {}
    }
}

/// The items of `on` in its order, those of `off` matched by identity (a `name`, else the
/// whole value) and folded, the others gated; items only `off` has stay, gated by `not`.
fn fold_list(items: Vec<Item>, off: &[Value], on: &[Value], cond: &str) -> Vec<Item> {
    // The ungated items are `off`'s, in order; the gated ones came from other switches and
    // keep their place before the ungated item they preceded.
    let mut from_off: Vec<Option<Item>> = Vec::new();
    let mut before: Vec<Vec<Item>> = vec![Vec::new()];
    for item in items {
        if item.gate.is_none() {
            from_off.push(Some(item));
            before.push(Vec::new());
        } else {
            before.last_mut().expect("never empty").push(item);
        }
    }
    // `before[i]` precedes ungated item i; the last group ends the list.
    let trailing = before.pop().unwrap_or_default();
    // Each item of `on` matched to one of `off`; the unmatched ones are new, and stand
    // before the next matched item (so `off`'s order, the default render, is kept).
    let mut on_for: Vec<Option<&Value>> = vec![None; off.len()];
    let mut new_before: Vec<Vec<Item>> = vec![Vec::new(); off.len() + 1];
    let mut unmatched = Vec::new();
    for on_value in on {
        let matched = (0..off.len()).find(|&i| on_for[i].is_none() && same_item(&off[i], on_value));
        match matched {
            Some(i) => {
                on_for[i] = Some(on_value);
                new_before[i].append(&mut unmatched);
            }
            None => unmatched.push(Item {
                node: Node::from_value(on_value),
                gate: Some(format!("if {cond}")),
            }),
        }
    }
    new_before[off.len()].append(&mut unmatched);
    let mut result = Vec::new();
    for (i, item) in from_off.into_iter().enumerate() {
        result.append(&mut before[i]);
        result.append(&mut new_before[i]);
        let Some(mut item) = item else { continue };
        match (off.get(i), on_for.get(i).copied().flatten()) {
            (Some(off_value), Some(on_value)) => fold(&mut item.node, off_value, on_value, cond),
            _ => item.gate = Some(format!("if not {cond}")),
        }
        result.push(item);
    }
    result.append(&mut new_before[off.len()]);
    result.extend(trailing);
    result
}

fn same_item(a: &Value, b: &Value) -> bool {
    match (a.get("name"), b.get("name")) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helm::template::emit;

    fn yaml(text: &str) -> Value {
        crate::yaml::read::from_str(text).unwrap()
    }

    #[test]
    fn what_a_switch_adds_is_gated_by_it_in_place() {
        let off = yaml("env:\n- name: A\n  value: a\nvolumes: []\n");
        let on =
            yaml("env:\n- name: A\n  value: a\n- name: B\n  value: b\nvolumes: []\nextra: x\n");
        let mut node = Node::from_value(&off);
        fold(&mut node, &off, &on, ".Values.p");
        assert_eq!(
            emit(&node),
            "env:\n- name: A\n  value: a\n{{- if .Values.p }}\n- name: B\n  value: b\n{{- end }}\nvolumes: []\n{{- if .Values.p }}\nextra: x\n{{- end }}\n"
        );
    }

    #[test]
    fn what_one_switch_added_keeps_its_place_when_another_is_folded_in() {
        let off = yaml("env:\n- name: A\n");
        let on_p = yaml("env:\n- name: P\n- name: A\n");
        let on_q = yaml("env:\n- name: A\n- name: Q\n");
        let mut node = Node::from_value(&off);
        fold(&mut node, &off, &on_p, ".Values.p");
        fold(&mut node, &off, &on_q, ".Values.q");
        assert_eq!(
            emit(&node),
            "env:\n{{- if .Values.p }}\n- name: P\n{{- end }}\n- name: A\n{{- if .Values.q }}\n- name: Q\n{{- end }}\n"
        );
    }

    #[test]
    fn items_a_switch_removes_keep_their_place() {
        let off = yaml("env:\n- name: A\n- name: B\n- name: C\n");
        let on = yaml("env:\n- name: New\n- name: C\n");
        let mut node = Node::from_value(&off);
        fold(&mut node, &off, &on, ".Values.p");
        assert_eq!(
            emit(&node),
            "env:\n{{- if not .Values.p }}\n- name: A\n{{- end }}\n{{- if not .Values.p }}\n- name: B\n{{- end }}\n{{- if .Values.p }}\n- name: New\n{{- end }}\n- name: C\n"
        );
    }

    #[test]
    fn what_a_switch_removes_is_gated_by_its_negation() {
        let off = yaml("a: 1\nb: 2\n");
        let on = yaml("a: 3\n");
        let mut node = Node::from_value(&off);
        fold(&mut node, &off, &on, ".Values.p");
        assert_eq!(
            emit(&node),
            "a: {{ if .Values.p }}3{{ else }}1{{ end }}\n{{- if not .Values.p }}\nb: 2\n{{- end }}\n"
        );
    }
}
