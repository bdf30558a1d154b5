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

/// Modules that glob-import each other (as `pub use super::*` chains and re-exports of
/// other crates' modules do in real operators) resolve in linear time: an unknown name
/// used to be looked for through every glob again at every level, exponentially.
#[test]
fn glob_cycles_resolve_quickly() {
    let mut lib = String::from(
        "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n",
    );
    for i in 0..12 {
        let next = (i + 1) % 12;
        let after = (i + 5) % 12;
        lib.push_str(&format!(
            "pub mod m{i} {{ pub use super::*; pub use crate::m{next}::*; pub use crate::m{after}::*; pub use other::a{i}::*; pub use other::b{i}::*; pub use other::c{i}::*; }}\n"
        ));
    }
    lib.push_str(
        "#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
         pub struct ThingSpec { pub a: m3::Unknown, pub b: m7::Local }\n\
         #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Local { pub x: u8 }\n",
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let out = generate(&[SourceFile {
            path: PathBuf::from("src/lib.rs"),
            text: lib,
        }]);
        let _ = tx.send(out.map(|_| ()).map_err(|d| d.to_string()));
    });
    let result = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("resolution finished within 20 s");
    let err = result.expect_err("`m3::Unknown` is nowhere");
    assert!(
        err.contains("type `m3::Unknown` cannot be generated statically"),
        "{err}"
    );
    assert!(
        !err.contains("m7::Local"),
        "`m7::Local` resolves through the globs: {err}"
    );
}

/// A crate depended on by `path` is read for its types only: its item macros could not
/// define the crate's kinds, so they are no warning there.
#[test]
fn a_path_dependency_gives_types_and_no_warnings() {
    let case =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crds/workspace-deps");
    let krate = rsbuilder::crd::Crate::read(&case.join("Cargo.toml"), &[]).unwrap();
    let sources = rsbuilder::crd::collect_sources(&[case.join("src")]).unwrap();
    let generated = rsbuilder::crd::generate_in(&krate, &sources).unwrap();
    assert_eq!(
        generated.output.keys().collect::<Vec<_>>(),
        ["mesh.example.com_routes.yaml"],
        "the dependency's own kind is not generated"
    );
    assert!(generated.warnings.is_empty(), "{:?}", generated.warnings);
}

/// Where a name leads depends on the module it is written in: `Option` is the prelude's in
/// one module and a struct of the sources in the other. The resolver remembers where paths
/// outside the sources lead; it must not carry that from one module to the other, in
/// either order.
#[test]
fn a_name_leads_where_its_module_says() {
    let thing = |first: &str, second: &str| {
        format!(
            "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{{Deserialize, Serialize}};\n\
             #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
             #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
             pub struct ThingSpec {{ {first}, {second} }}\n\
             pub mod own {{\n\
                 use schemars::JsonSchema;\nuse serde::{{Deserialize, Serialize}};\n\
                 #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Option {{ pub x: u8 }}\n\
                 #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Holder {{ pub o: Option }}\n\
             }}\n"
        )
    };
    let (prelude, own) = ("pub a: Option<u8>", "pub b: own::Holder");
    for text in [thing(prelude, own), thing(own, prelude)] {
        let out = generate(&[SourceFile {
            path: PathBuf::from("src/lib.rs"),
            text,
        }])
        .map_err(|d| d.to_string())
        .expect("both fields resolve");
        let yaml = &out["t.example.com_things.yaml"];
        assert!(yaml.contains("nullable: true"), "{yaml}");
        assert!(yaml.contains("x:\n"), "`own::Option` is the struct: {yaml}");
    }
}
