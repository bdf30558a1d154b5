//! Lines of Rust laid out as rustfmt lays them out, for the fragments `create webhook`
//! inserts into files that must stay formatted.

use std::cmp::Ordering;

use crate::webhook::emit::{self, call};

/// `let path = "<path>";` in a test function (indented by 8 once inserted), broken after
/// `=` as rustfmt does when it does not fit.
pub fn review_let(kind: &str) -> String {
    let call = format!("admission_review::<kind::{kind}>(operation, object, old_object);");
    if 8 + "let review = ".len() + call.len() <= emit::MAX_WIDTH {
        format!("        let review = {call}")
    } else {
        format!("        let review =\n            {call}")
    }
}

pub fn path_let(path: &str) -> String {
    let one = format!("    let path = {path:?};");
    if 4 + one.len() <= emit::MAX_WIDTH {
        one
    } else {
        format!("    let path =\n        {path:?};")
    }
}

/// `(a, b, ...),` as rustfmt writes an item of a list at `indent` (8 in the routes, 4 in
/// the conversions); returned without that indentation.
pub fn tuple_line(indent: usize, items: Vec<emit::Expr>) -> String {
    let tuple = call("", items);
    let lines = tuple.render(indent, "", ",");
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// rustfmt's order of names in a `use` list: text, with runs of digits compared as numbers.
pub fn version_sort(a: &str, b: &str) -> Ordering {
    fn chunks(s: &str) -> Vec<(bool, String)> {
        let mut out: Vec<(bool, String)> = Vec::new();
        for c in s.chars() {
            let digit = c.is_ascii_digit();
            match out.last_mut() {
                Some((d, text)) if *d == digit => text.push(c),
                _ => out.push((digit, c.to_string())),
            }
        }
        out
    }
    for (x, y) in chunks(a).iter().zip(chunks(b).iter()) {
        let order = match (x, y) {
            ((true, m), (true, n)) => m
                .parse::<u64>()
                .unwrap_or(0)
                .cmp(&n.parse::<u64>().unwrap_or(0)),
            ((_, m), (_, n)) => m.cmp(n),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhook::emit::atom;

    #[test]
    fn routes_fit_or_break_like_rustfmt() {
        let handler = |name: &str| call("conversion::handler", vec![atom(name)]);
        assert_eq!(
            tuple_line(8, vec![atom("CONVERSION_PATH"), handler("CONVERSIONS")]),
            "(CONVERSION_PATH, conversion::handler(CONVERSIONS)),"
        );
        assert_eq!(
            tuple_line(
                8,
                vec![
                    atom("\"/mutate-batch-example-com-v1-cronjob\""),
                    call(
                        "admission::defaulting",
                        vec![atom("batch_v1_cron_job::default")]
                    )
                ]
            ),
            "(\n    \"/mutate-batch-example-com-v1-cronjob\",\n    admission::defaulting(batch_v1_cron_job::default),\n),"
        );
    }

    #[test]
    fn versions_sort_like_rustfmt_imports() {
        let mut v = vec!["v2", "v10", "v1beta1", "v1"];
        v.sort_by(|a, b| version_sort(a, b));
        assert_eq!(v, ["v1", "v1beta1", "v2", "v10"]);
    }
}
