//! The runtime against a real Kubernetes API server (envtest, `testing::control_plane`):
//! one control plane for this whole test binary, a namespace for each test. The manifests
//! the tests grant are those `rsbuilder init` writes, read from the golden project
//! `testdata/project-init` (kept equal to what `init` writes by rsbuilder's golden test).
//!
//! The tests need kube-apiserver and etcd (`KUBEBUILDER_ASSETS`, which `.ci/run` sets from
//! `rsbuilder envtest use`), so they are ignored unless asked for: `cargo test -p
//! rsbuilder-runtime -- --include-ignored`.

mod backlog;
mod cache;
mod children;
mod context;
mod deadline;
mod leader;
mod metrics_auth;
mod resync;
mod triggers;

use rsbuilder_runtime::testing::control_plane::{ControlPlane, Environment};

/// The control plane of this test binary.
fn control_plane() -> &'static ControlPlane {
    ControlPlane::shared(|| {
        Environment::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/project-init"
        ))
    })
}
