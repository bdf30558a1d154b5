//! Two jobs before the crate compiles:
//!
//! - the templates are embedded with `include_dir!`, which cargo cannot see: rebuild when
//!   any of them changes;
//! - the final YAML of the Kubernetes types' inner schemas is precomputed, by running
//!   k8s-openapi's own `JsonSchema` impls through the crate's own transform pipeline
//!   (`src/crd/sealed/precompute.rs`; the runtime side is `src/crd/sealed/mod.rs`).

#[path = "src/crd/transforms.rs"]
#[allow(dead_code)]
mod transforms;

#[path = "src/crd/structural_rewrite.rs"]
mod structural_rewrite;

#[path = "src/crd/sealed/precompute.rs"]
#[allow(dead_code)]
mod precompute;

use std::path::PathBuf;

type SubschemaFn = fn(&mut schemars::SchemaGenerator) -> schemars::Schema;

/// The list of `src/crd/k8s_list.rs`, as (path, `subschema_for::<T>`) pairs.
macro_rules! table {
    (default: [$($($d:ident)::+),* $(,)?], no_default: [$($($n:ident)::+),* $(,)?] $(,)?) => {
        fn all() -> Vec<(&'static str, SubschemaFn)> {
            vec![
                $((concat!($(stringify!($d), "::"),+), |g| g.subschema_for::<$($d)::+>())),*,
                $((concat!($(stringify!($n), "::"),+), |g| g.subschema_for::<$($n)::+>())),*
            ]
        }
    };
}
include!("src/crd/k8s_list.rs");

fn main() {
    println!("cargo:rerun-if-changed=templates");
    println!("cargo:rerun-if-changed=runtime/Cargo.toml");
    println!("cargo:rerun-if-changed=runtime/src");
    for input in [
        "src/crd/k8s_list.rs",
        "src/crd/transforms.rs",
        "src/crd/structural_rewrite.rs",
        "src/crd/structural_rewrite/plain.rs",
        "src/crd/sealed/precompute.rs",
    ] {
        println!("cargo:rerun-if-changed={input}");
    }
    let pipeline = precompute::Pipeline {
        generator: transforms::generator,
        apply: transforms::apply,
    };
    let mut tables = precompute::Tables::default();
    for (path, subschema) in all() {
        tables.add(path.trim_end_matches("::"), subschema, &pipeline);
    }
    let (rust, text) = tables.to_rust();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("k8s_sealed.rs"), rust).expect("write k8s_sealed.rs");
    std::fs::write(out.join("k8s_sealed.txt"), text).expect("write k8s_sealed.txt");
}
