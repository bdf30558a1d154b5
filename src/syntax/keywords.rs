//! The words Rust reserves, which no plain name may be.

/// Keywords of Rust 2024 (strict and reserved): no identifier, but a raw one (`r#type`).
/// A plain path with one of them, or with one of [`NOT_RAW`], is left to syn.
pub const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "try", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers either.
pub const NOT_RAW: &[&str] = &["crate", "self", "super", "Self"];

/// Whether `word` can be no plain name: `_`, or a keyword of either list (a raw
/// identifier, `r#type`, can).
pub fn reserved(word: &str) -> bool {
    word == "_" || KEYWORDS.contains(&word) || NOT_RAW.contains(&word)
}
