//! How the lexer skips what is not code: literals and comments, read on the bytes by the
//! passes that run before it ([`super::raw_docs`], [`super::shallow`]).

/// Where the line that `i` is on ends: its newline, or the end of `text`.
pub fn line_end(text: &str, i: usize) -> usize {
    text[i..].find('\n').map_or(text.len(), |n| i + n)
}

/// The bytes of a word: ASCII letters, digits and `_`, and with `non_ascii` every byte of
/// a character outside ASCII. A table, as words are most of a file's bytes.
pub const fn word_bytes(non_ascii: bool) -> [bool; 256] {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b == b'_' || b.is_ascii_alphanumeric() || (non_ascii && !b.is_ascii());
        c += 1;
    }
    table
}

/// Past the identifier, keyword or number at `i` (its bytes those `word` takes, a table
/// of [`word_bytes`]), and past the literal it prefixes when it is one (`r"..."`,
/// `r#"..."#`, `b"..."`, `b'.'`, `br"..."`, `c"..."`, `cr"..."`).
pub fn word_end(text: &str, i: usize, word: &[bool; 256]) -> usize {
    let b = text.as_bytes();
    let end = i + b[i..].iter().take_while(|&&c| word[usize::from(c)]).count();
    if end - i > 2 {
        // No literal's prefix is longer.
        return end;
    }
    match (&text[i..end], b.get(end)) {
        ("r" | "br" | "cr", Some(b'"' | b'#')) => raw_string_end(b, end).unwrap_or(end),
        ("b" | "c", Some(b'"')) => string_end(b, end + 1),
        ("b", Some(b'\'')) => quote_end(text, end),
        _ => end,
    }
}

/// Past the raw string whose hashes or quote start at `i`; `None` when there is none
/// (`r#ident`).
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
    if b.get(i + hashes) != Some(&b'"') {
        return None;
    }
    let mut j = i + hashes + 1;
    while j < b.len() {
        if b[j] == b'"'
            && b[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == b'#')
                .count()
                == hashes
        {
            return Some(suffix_end(b, j + 1 + hashes));
        }
        j += 1;
    }
    Some(b.len())
}

/// Past the closing quote (and suffix) of the string whose contents start at `i`.
pub fn string_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return suffix_end(b, i + 1),
            _ => i += 1,
        }
    }
    b.len()
}

/// Past the character literal at `i` (`'x'`, `'\''`, `'\u{..}'`) and its suffix, or past
/// the quote of a lifetime or label (`'a`).
pub fn quote_end(text: &str, i: usize) -> usize {
    let mut chars = text[i + 1..].chars();
    let end = match chars.next() {
        Some('\\') => {
            let escaped = i + 2 + chars.next().map_or(0, char::len_utf8);
            text[escaped..]
                .find('\'')
                .map_or(text.len(), |n| escaped + n + 1)
        }
        Some(c) if chars.next() == Some('\'') => i + 1 + c.len_utf8() + 1,
        _ => return i + 1,
    };
    suffix_end(text.as_bytes(), end)
}

/// Past the suffix of the literal that ends at `i` (`"x"s`, `'c'u8`), which the lexer
/// reads with it (and `'x'r#"..."#` is not a raw string): an ASCII identifier. A suffix
/// of other letters is left out (rustc refuses every suffix on a string or a character).
fn suffix_end(b: &[u8], i: usize) -> usize {
    if !b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    {
        return i;
    }
    i + b[i..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count()
}

/// Past the block comment at `i`, comments nested in it included.
pub fn block_comment_end(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'/', Some(b'*')) => {
                depth += 1;
                i += 2;
            }
            (b'*', Some(b'/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    b.len()
}
