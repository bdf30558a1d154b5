//! Rust expressions laid out the way rustfmt lays them out with its default settings, for
//! the few shapes the conversion generator writes: atoms, calls (and `vec![...]`), method
//! chains and struct literals, with comment lines between fields.
//!
//! Generated files must pass `cargo fmt --check` as they are, and rsbuilder does not run
//! rustfmt while it renders (its output would depend on the installed toolchain), so the
//! generator lays its code out itself. Only the rules these shapes need are modelled:
//! rustfmt's width heuristics (`max_width` 100, `fn_call_width` 60, `struct_lit_width` 18,
//! `chain_width` 60, `array_width` 60), vertical fallbacks, and the overflow of a last
//! argument that is a struct literal. `tests/webhook_conversion.rs` checks the result with
//! rustfmt itself.

pub const MAX_WIDTH: usize = 100;
const FN_CALL_WIDTH: usize = 60;
const STRUCT_LIT_WIDTH: usize = 18;
const CHAIN_WIDTH: usize = 60;
const ARRAY_WIDTH: usize = 60;
const INDENT: usize = 4;

/// An expression of generated code.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// Text that is never broken: a path, a literal, a field access.
    Atom(String),
    /// `callee(args)`, or `callee[args]` for `vec!`.
    Call {
        callee: String,
        args: Vec<Expr>,
        brackets: bool,
    },
    /// `base.link.link(...)`; each link is `.field` or `.method(atoms)` text.
    Chain { base: String, links: Vec<String> },
    /// `path { fields, ..rest }`, with comment lines after the last field.
    Struct {
        path: String,
        fields: Vec<Field>,
        rest: Option<String>,
        trailing: Vec<String>,
    },
}

/// One field of a struct literal, after its comment lines (without `//`).
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub comments: Vec<String>,
    pub name: String,
    pub value: Expr,
}

pub fn atom(text: impl Into<String>) -> Expr {
    Expr::Atom(text.into())
}

pub fn call(callee: impl Into<String>, args: Vec<Expr>) -> Expr {
    Expr::Call {
        callee: callee.into(),
        args,
        brackets: false,
    }
}

pub fn vec_of(items: Vec<Expr>) -> Expr {
    Expr::Call {
        callee: "vec!".into(),
        args: items,
        brackets: true,
    }
}

pub fn chain(base: impl Into<String>, links: &[&str]) -> Expr {
    Expr::Chain {
        base: base.into(),
        links: links.iter().map(|l| l.to_string()).collect(),
    }
}

impl Expr {
    /// The expression on one line, when it can be written on one line at all (no
    /// comments inside).
    pub fn flat(&self) -> Option<String> {
        match self {
            Expr::Atom(text) => Some(text.clone()),
            Expr::Call {
                callee,
                args,
                brackets,
            } => {
                let args = flat_all(args)?;
                let (open, close) = if *brackets { ('[', ']') } else { ('(', ')') };
                Some(format!("{callee}{open}{}{close}", args.join(", ")))
            }
            Expr::Chain { base, links } => Some(format!("{base}{}", links.concat())),
            Expr::Struct {
                path,
                fields,
                rest,
                trailing,
            } => {
                if !trailing.is_empty() || fields.iter().any(|f| !f.comments.is_empty()) {
                    return None;
                }
                let body = struct_body(fields, rest)?;
                // rustfmt writes a struct literal on one line only with a short body.
                if body.len() > STRUCT_LIT_WIDTH {
                    return None;
                }
                if body.is_empty() {
                    Some(format!("{path} {{}}"))
                } else {
                    Some(format!("{path} {{ {body} }}"))
                }
            }
        }
    }

    /// Whether rustfmt would let this expression, as a last argument, overflow onto the
    /// lines after the call's opening line.
    fn overflows(&self) -> bool {
        match self {
            Expr::Struct { .. } => true,
            Expr::Call { args, .. } => args.len() == 1 && args[0].overflows(),
            _ => false,
        }
    }

    /// The lines of `prefix` + this expression + `suffix`, the first line indented by
    /// `indent` columns.
    pub fn render(&self, indent: usize, prefix: &str, suffix: &str) -> Vec<String> {
        let pad = " ".repeat(indent);
        let fits = |text: &str| indent + prefix.len() + text.len() + suffix.len() <= MAX_WIDTH;
        match self {
            Expr::Atom(text) => vec![format!("{pad}{prefix}{text}{suffix}")],
            Expr::Call {
                callee,
                args,
                brackets,
            } => {
                let (open, close) = if *brackets { ("[", "]") } else { ("(", ")") };
                let limit = if *brackets {
                    ARRAY_WIDTH
                } else {
                    FN_CALL_WIDTH
                };
                if let Some(flat) = flat_all(args) {
                    let joined = flat.join(", ");
                    let text = format!("{callee}{open}{joined}{close}");
                    if joined.len() <= limit && fits(&text) {
                        return vec![format!("{pad}{prefix}{text}{suffix}")];
                    }
                }
                // A lone call argument may take the line beyond `fn_call_width`.
                if let [only @ Expr::Call { .. }] = args.as_slice()
                    && let Some(flat) = only.flat()
                {
                    let text = format!("{callee}{open}{flat}{close}");
                    if fits(&text) {
                        return vec![format!("{pad}{prefix}{text}{suffix}")];
                    }
                }
                // The last argument overflows: `callee(a, Path {` ... `})`.
                if let Some((last, init)) = args.split_last()
                    && last.overflows()
                    && let Some(init) = flat_all(init)
                {
                    let head: String = init.iter().map(|a| format!("{a}, ")).collect();
                    let opening = format!("{prefix}{callee}{open}{head}");
                    let lines = last.render(indent, &opening, &format!("{close}{suffix}"));
                    if lines[0].len() <= MAX_WIDTH && !(last.is_call() && lines.len() == 1) {
                        return lines;
                    }
                }
                let mut lines = vec![format!("{pad}{prefix}{callee}{open}")];
                for arg in args {
                    lines.extend(arg.render(indent + INDENT, "", ","));
                }
                lines.push(format!("{pad}{close}{suffix}"));
                lines
            }
            Expr::Chain { base, links } => {
                let text = format!("{base}{}", links.concat());
                if text.len() <= CHAIN_WIDTH && fits(&text) {
                    return vec![format!("{pad}{prefix}{text}{suffix}")];
                }
                let inner = " ".repeat(indent + INDENT);
                let mut lines = vec![format!("{pad}{prefix}{base}")];
                for (i, link) in links.iter().enumerate() {
                    let end = if i + 1 == links.len() { suffix } else { "" };
                    lines.push(format!("{inner}{link}{end}"));
                }
                lines
            }
            Expr::Struct {
                path,
                fields,
                rest,
                trailing,
            } => {
                if let Some(flat) = self.flat()
                    && fits(&flat)
                {
                    return vec![format!("{pad}{prefix}{flat}{suffix}")];
                }
                let inner = indent + INDENT;
                let inner_pad = " ".repeat(inner);
                let mut lines = vec![format!("{pad}{prefix}{path} {{")];
                for field in fields {
                    lines.extend(comment_lines(inner, &field.comments));
                    lines.extend(field.value.render(inner, &format!("{}: ", field.name), ","));
                }
                if let Some(rest) = rest {
                    lines.push(format!("{inner_pad}..{rest}"));
                }
                lines.extend(comment_lines(inner, trailing));
                lines.push(format!("{pad}}}{suffix}"));
                lines
            }
        }
    }

    fn is_call(&self) -> bool {
        matches!(self, Expr::Call { .. })
    }
}

fn flat_all(exprs: &[Expr]) -> Option<Vec<String>> {
    exprs.iter().map(Expr::flat).collect()
}

fn struct_body(fields: &[Field], rest: &Option<String>) -> Option<String> {
    let mut parts = Vec::new();
    for f in fields {
        parts.push(format!("{}: {}", f.name, f.value.flat()?));
    }
    if let Some(rest) = rest {
        parts.push(format!("..{rest}"));
    }
    Some(parts.join(", "))
}

/// `// text` lines, each already short enough.
pub fn comment_lines(indent: usize, comments: &[String]) -> Vec<String> {
    let pad = " ".repeat(indent);
    comments
        .iter()
        .map(|c| {
            if c.is_empty() {
                format!("{pad}//")
            } else {
                format!("{pad}// {c}")
            }
        })
        .collect()
}

/// Splits `text` into comment lines that, indented by `indent` and after `// `, end
/// within `MAX_WIDTH` columns (rustfmt leaves comments alone; this keeps them readable).
pub fn wrap(text: &str, indent: usize) -> Vec<String> {
    let width = MAX_WIDTH.saturating_sub(indent + 3).max(40);
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        if !current.is_empty() && current.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// A function `fn name(param: ty) -> ret {` header as rustfmt writes it, with the body
/// lines to follow and the closing brace.
pub fn function(
    visibility: &str,
    name: &str,
    param: Option<(&str, &str)>,
    ret: &str,
    body: Vec<String>,
) -> Vec<String> {
    let params: Vec<(&str, &str)> = param.into_iter().collect();
    let mut lines: Vec<String> = signature(0, visibility, name, &params, Some(ret))
        .lines()
        .map(str::to_string)
        .collect();
    lines.extend(body);
    lines.push("}".into());
    lines
}

/// `fn name(params) -> ret {` at `indent`, as rustfmt breaks it when it is too long: the
/// parameters one per line, or with none, the return type on the next line.
pub fn signature(
    indent: usize,
    visibility: &str,
    name: &str,
    params: &[(&str, &str)],
    ret: Option<&str>,
) -> String {
    let pad = " ".repeat(indent);
    let ret = ret.map(|r| format!(" -> {r}")).unwrap_or_default();
    let joined = params
        .iter()
        .map(|(p, t)| format!("{p}: {t}"))
        .collect::<Vec<_>>()
        .join(", ");
    let one = format!("{pad}{visibility}fn {name}({joined}){ret} {{");
    if one.len() <= MAX_WIDTH {
        return one;
    }
    if params.is_empty() {
        return format!("{pad}{visibility}fn {name}()\n{pad}{} {{", ret.trim_start());
    }
    let mut out = format!("{pad}{visibility}fn {name}(\n");
    for (p, t) in params {
        out.push_str(&format!("{pad}    {p}: {t},\n"));
    }
    out.push_str(&format!("{pad}){ret} {{"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str, value: Expr) -> Field {
        Field {
            comments: Vec::new(),
            name: name.into(),
            value,
        }
    }

    #[test]
    fn short_struct_literals_stay_on_one_line() {
        let s = Expr::Struct {
            path: "hub::A".into(),
            fields: vec![field("image", atom("src.x"))],
            rest: None,
            trailing: Vec::new(),
        };
        assert_eq!(s.render(4, "", ""), ["    hub::A { image: src.x }"]);
        let long = Expr::Struct {
            path: "hub::A".into(),
            fields: vec![field("image_name", atom("src.image_name"))],
            rest: None,
            trailing: Vec::new(),
        };
        assert_eq!(
            long.render(4, "", ""),
            [
                "    hub::A {",
                "        image_name: src.image_name,",
                "    }"
            ]
        );
    }

    #[test]
    fn long_chains_go_vertical() {
        let c = chain(
            "src",
            &[
                ".extra_templates",
                ".into_iter()",
                ".map(job_template_to_hub)",
                ".collect()",
            ],
        );
        assert_eq!(
            c.render(8, "extra_templates: ", ","),
            [
                "        extra_templates: src",
                "            .extra_templates",
                "            .into_iter()",
                "            .map(job_template_to_hub)",
                "            .collect(),",
            ]
        );
    }

    #[test]
    fn a_struct_literal_overflows_its_call() {
        let s = Expr::Struct {
            path: "spoke::T".into(),
            fields: vec![field("image_name", atom("\"image\".into()"))],
            rest: None,
            trailing: Vec::new(),
        };
        assert_eq!(
            vec_of(vec![s]).render(8, "items: ", ","),
            [
                "        items: vec![spoke::T {",
                "            image_name: \"image\".into(),",
                "        }],",
            ]
        );
    }

    #[test]
    fn calls_that_do_not_fit_break_their_arguments() {
        let c = call(
            "k8s_openapi::apimachinery::pkg::apis::meta::v1::Time",
            vec![atom("Default::default()")],
        );
        assert_eq!(
            c.render(8, "last_transition_time: ", ","),
            [
                "        last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(",
                "            Default::default(),",
                "        ),",
            ]
        );
    }
}
