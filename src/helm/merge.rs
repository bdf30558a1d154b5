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
    let mut result = Vec::new();
    let mut used = vec![false; off.len()];
    for on_value in on {
        let matched = off
            .iter()
            .enumerate()
            .find(|(i, off_value)| !used[*i] && same_item(off_value, on_value));
        match matched {
            Some((i, off_value)) => {
                used[i] = true;
                result.append(&mut before[i]);
                if let Some(mut item) = from_off.get_mut(i).and_then(Option::take) {
                    fold(&mut item.node, off_value, on_value, cond);
                    result.push(item);
                }
            }
            None => result.push(Item {
                node: Node::from_value(on_value),
                gate: Some(format!("if {cond}")),
            }),
        }
    }
    for (i, item) in from_off.into_iter().enumerate() {
        result.append(&mut before[i]);
        if let Some(mut item) = item {
            if !used[i] {
                item.gate = Some(format!("if not {cond}"));
            }
            result.push(item);
        }
    }
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
