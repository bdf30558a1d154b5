//! The words Rust reserves, which no plain name may be.

/// Writes each list once, as a constant for those who list the words and as a `match` for
/// [`reserved`], which every plain name of a kopium-sized file passes through.
macro_rules! words {
    ($(#[$doc:meta])* $list:ident, $is:ident: $($word:literal),* $(,)?) => {
        $(#[$doc])*
        pub const $list: &[&str] = &[$($word),*];

        fn $is(word: &str) -> bool {
            matches!(word, $($word)|*)
        }
    };
}

words! {
    /// Keywords of Rust 2024 (strict and reserved): no identifier, but a raw one (`r#type`).
    /// A plain path with one of them, or with one of [`NOT_RAW`], is left to syn.
    KEYWORDS, is_keyword:
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "try", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield",
}

words! {
    /// Keywords that cannot be raw identifiers either.
    NOT_RAW, is_not_raw: "crate", "self", "super", "Self",
}

/// Whether `word` can be no plain name: `_`, or a keyword of either list (a raw
/// identifier, `r#type`, can).
pub fn reserved(word: &str) -> bool {
    word == "_" || is_keyword(word) || is_not_raw(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_and_the_matches_agree() {
        for word in KEYWORDS.iter().chain(NOT_RAW) {
            assert!(reserved(word), "{word}");
        }
        for word in ["types", "Type", "r#type", "selfish", "", "__"] {
            assert!(!reserved(word), "{word}");
        }
    }
}
