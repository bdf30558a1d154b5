//! `rsbuilder version`.

/// The crate versions generated projects depend on, and the static CRD generator models.
pub const KUBE: &str = "5.0";
pub const K8S_OPENAPI: &str = "0.29";
pub const KUBERNETES_API: &str = "v1_37";
pub const SCHEMARS: &str = "1";

pub fn run() {
    println!("rsbuilder {}", env!("CARGO_PKG_VERSION"));
    println!(
        "generates for kube {KUBE}, k8s-openapi {K8S_OPENAPI} ({KUBERNETES_API}), schemars {SCHEMARS}"
    );
}
