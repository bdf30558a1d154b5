//! Resolution through `crate::` paths (the layout of a generated project, which the oracle
//! cannot mount) gives the same CRD as the equivalent `super::` path, which parity covers.

use std::path::PathBuf;

use rsbuilder::crd::{SourceFile, generate};

fn files(path_to_owner: &str) -> Vec<SourceFile> {
    let kind = format!(
        "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{{Deserialize, Serialize}};\n\
         use {path_to_owner}::Owner;\n\
         #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
         pub struct ThingSpec {{ pub owner: Owner, pub backup: Option<{path_to_owner}::Owner> }}\n"
    );
    let shared = "use schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\
                  /// Who owns it.\n#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
                  pub struct Owner { pub name: String }\n";
    vec![
        SourceFile {
            path: PathBuf::from("proj/src/api/v1/thing.rs"),
            text: kind,
        },
        SourceFile {
            path: PathBuf::from("proj/src/api/shared.rs"),
            text: shared.to_string(),
        },
    ]
}

#[test]
fn crate_paths_resolve_like_relative_paths() {
    let via_crate = generate(&files("crate::api::shared")).expect("crate:: path resolves");
    let via_super = generate(&files("super::super::shared")).expect("super:: path resolves");
    assert_eq!(via_crate, via_super);
    let yaml = &via_crate["t.example.com_things.yaml"];
    assert!(yaml.contains("description: Who owns it."), "{yaml}");
}

#[test]
fn sub_tree_of_the_crate_resolves_by_module_suffix() {
    // `--paths src/api/v1` style: only part of the crate is given, `crate::api::v1::...`
    // still names the file rsbuilder sees.
    let kind = "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\
                #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
                #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
                pub struct ThingSpec { pub inner: crate::api::v1::thing::Inner }\n\
                #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Inner { pub x: u8 }\n";
    let out = generate(&[SourceFile {
        path: PathBuf::from("/abs/v1/thing.rs"),
        text: kind.to_string(),
    }]);
    assert!(
        out.is_ok(),
        "{}",
        out.err().map(|d| d.to_string()).unwrap_or_default()
    );
}
