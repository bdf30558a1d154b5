//! Arbitrary input never panics: the name validators and the Rust-source reader of
//! `generate crds` either accept it or say why not.

use std::path::PathBuf;

use proptest::prelude::*;
use rsbuilder::crd::{SourceFile, generate};
use rsbuilder::names;

/// Valid sources from the parity corpus, the seeds for mutation.
fn corpus() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/crds");
    let mut texts = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable corpus") {
            let path = entry.expect("entry").path();
            if path.is_dir() && !path.ends_with("oracle") && !path.ends_with("target") {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.to_string_lossy().contains("/src/")
            {
                texts.push(std::fs::read_to_string(&path).expect("readable source"));
            }
        }
    }
    texts.sort();
    texts
}

fn read(text: String) {
    let source = SourceFile {
        path: PathBuf::from("src/api/fuzz.rs"),
        text,
    };
    // Either CRDs or diagnostics; a panic fails the property.
    let _ = generate(&[source]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn validators_never_panic(s in "\\PC{0,80}") {
        let _ = names::label("name", &s);
        let _ = names::subdomain("domain", &s);
        let _ = names::version(&s);
        let _ = names::version_priority(&s);
        let _ = names::kind(&s);
    }

    #[test]
    fn validators_never_accept_path_tricks(prefix in "[a-z0-9]{0,5}", suffix in "[a-z0-9]{0,5}", trick in prop::sample::select(vec!["/", "..", "\\", "\0"])) {
        let s = format!("{prefix}{trick}{suffix}");
        prop_assert!(names::label("name", &s).is_err());
        prop_assert!(names::version(&s).is_err());
        prop_assert!(names::kind(&s).is_err());
        if trick != ".." {
            prop_assert!(names::subdomain("domain", &s).is_err());
        }
    }

    #[test]
    fn the_source_reader_never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        read(text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Mutations of real CRD sources reach deep into the schema builder: delete a byte
    /// range, or splice in a token that changes a type or attribute.
    #[test]
    fn the_source_reader_never_panics_on_mutated_crds(
        seed in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        len in 0usize..40,
        token in prop::sample::select(vec![
            "", "Option<", ">", "Vec<", "#[serde(flatten)]", "#[serde(untagged)]", "#[serde(default)]",
            "#[schemars(range(min = 1))]", "(u8)", "{ a: u8 }", "storage = false,", "namespaced,",
            "Box<Self>", "u128", "f32", "()", "HashMap<u8, u8>", "#[serde(tag = \"t\")]", "crate::",
        ]),
    ) {
        let corpus = corpus();
        let text = seed.get(&corpus);
        let mut start = at.index(text.len().max(1));
        while !text.is_char_boundary(start) { start -= 1; }
        let mut end = (start + len).min(text.len());
        while !text.is_char_boundary(end) { end -= 1; }
        read(format!("{}{token}{}", &text[..start], &text[end..]));
    }
}
