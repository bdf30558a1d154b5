//! How serde_yaml writes a string in block context: its own choice first (a literal block
//! for a string with a line break, single quotes for one YAML would read as another type),
//! then libyaml's reading of the characters (`yaml_emitter_analyze_scalar` and
//! `yaml_emitter_select_scalar_style` in unsafe-libyaml). Only the cases this writer lays
//! out are decided; the rest are [`Style::Other`], left to serde_yaml.

#[derive(Debug, PartialEq, Eq)]
pub enum Style {
    /// As it is.
    Plain,
    /// In `'...'`, with `'` doubled.
    SingleQuoted,
    /// A `|` block with this header (`|` or `|-`), its lines indented under the key.
    Literal(&'static str),
    /// Decided by serde_yaml alone.
    Other,
}

pub fn of(s: &str) -> Style {
    let Some(&first) = s.as_bytes().first() else {
        // serde_yaml reads "" as null, so it quotes it.
        return Style::SingleQuoted;
    };
    // A word (most keys of a CRD, and its types and formats): nothing below but the words
    // YAML reads as another type can quote it. One look at its bytes decides.
    if first.is_ascii_alphabetic() && s.bytes().all(|c| c.is_ascii_alphanumeric()) {
        return if reads_as_null_or_bool(s) {
            Style::SingleQuoted
        } else {
            Style::Plain
        };
    }
    // libyaml writes a character that is not printable escaped, and breaks the line at
    // every line break of Unicode's; both in double quotes. (Most strings are ASCII: one
    // quick look at their bytes decides.)
    if !printable_ascii(s.as_bytes())
        && (!s.chars().all(printable) || s.contains(['\u{2028}', '\u{2029}']))
    {
        return Style::Other;
    }
    if s.contains('\n') {
        return literal(s);
    }
    // Numbers, `~`, and words like `.inf` or `-0x1`: whether serde_yaml reads them as
    // another type is its own parser's business.
    if matches!(first, b'0'..=b'9' | b'.' | b'+' | b'-' | b'~') {
        return Style::Other;
    }
    if reads_as_null_or_bool(s) || !plain_allowed(s) {
        Style::SingleQuoted
    } else {
        Style::Plain
    }
}

/// The words serde_yaml reads as null or a boolean, so it quotes them.
fn reads_as_null_or_bool(s: &str) -> bool {
    matches!(
        s,
        "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
    )
}

/// Whether every byte is a line feed or printable ASCII. Counted without a branch per
/// byte, a block at a time, so that the compiler can take many bytes at once: most of a
/// CRD's text is its descriptions.
fn printable_ascii(b: &[u8]) -> bool {
    b.chunks(64).all(|block| {
        block.iter().fold(true, |all, &c| {
            all & ((c == b'\n') | (b' '..=b'~').contains(&c))
        })
    })
}

/// libyaml's printable characters (`IS_PRINTABLE`); tab is not one.
fn printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

/// A multi-line string, for which serde_yaml asks for a literal block: libyaml writes one
/// unless a line ends in a space (which the block would keep invisible: it double-quotes).
/// Blocks that need an indentation digit (a first line starting with a space or empty) or
/// keep several final line breaks (`|+`) are left to serde_yaml.
fn literal(s: &str) -> Style {
    if s.contains(" \n") || s.ends_with(' ') || s.starts_with([' ', '\n']) {
        return Style::Other;
    }
    match s.strip_suffix('\n') {
        None => Style::Literal("|-"),
        Some(rest) if rest.ends_with('\n') => Style::Other,
        Some(_) => Style::Literal("|"),
    }
}

/// libyaml's `block_plain_allowed` for a single line of printable characters.
fn plain_allowed(s: &str) -> bool {
    if s.starts_with(' ') || s.ends_with(' ') || s.starts_with("---") || s.starts_with("...") {
        return false;
    }
    let b = s.as_bytes();
    let blank_at = |i: usize| b.get(i).is_none_or(|&c| c == b' ');
    if matches!(
        b[0],
        b'#' | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    ) || (matches!(b[0], b'?' | b':' | b'-') && blank_at(1))
    {
        return false;
    }
    // Past the first character, `: ` (or a final `:`) and ` #` are what a reader would
    // take for a key's end or a comment.
    (1..b.len()).all(|i| !(b[i] == b':' && blank_at(i + 1) || b[i] == b'#' && b[i - 1] == b' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_follow_serde_yaml_and_libyaml() {
        for (s, want) in [
            ("a", Style::Plain),
            ("a b: c", Style::SingleQuoted),
            ("a:b", Style::Plain),
            ("a #b", Style::SingleQuoted),
            ("a#b", Style::Plain),
            ("true", Style::SingleQuoted),
            ("FALSE", Style::SingleQuoted),
            ("Null", Style::SingleQuoted),
            ("nullable", Style::Plain),
            ("int64", Style::Plain),
            ("", Style::SingleQuoted),
            ("'a", Style::SingleQuoted),
            ("é", Style::Plain),
            ("a\tb", Style::Other),
            ("1", Style::Other),
            ("a\nb", Style::Literal("|-")),
            ("a\nb\n", Style::Literal("|")),
            ("a\nb\n\n", Style::Other),
            ("a \nb", Style::Other),
        ] {
            assert_eq!(of(s), want, "{s:?}");
        }
        // Past the first block of bytes read at once.
        let long = "a".repeat(100);
        for (at, c, want) in [(80, "\t", Style::Other), (70, "é", Style::Plain)] {
            let s = format!("{}{c}{}", &long[..at], &long[at..]);
            assert_eq!(of(&s), want, "{s:?}");
        }
    }
}
