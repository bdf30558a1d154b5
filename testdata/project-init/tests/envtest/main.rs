// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The operator against a real Kubernetes API server (envtest): one control plane for
//! this whole test binary (`rsbuilder_runtime::testing::control_plane`), a namespace for
//! each test. `make test` gets kube-apiserver and etcd first (`rsbuilder envtest use`).
//! The runtime's own parts (leader election, the metrics server's authorization, request
//! deadlines) are tested in rsbuilder's repository; these tests are the project's.

// +rsbuilder:scaffold:envtest-modules

/// The runtime's envtest harness, started with what this project installs.
mod control_plane {
    pub use rsbuilder_runtime::testing::control_plane::*;

    /// The control plane of this test binary, started by the first test that asks.
    pub fn control_plane() -> &'static ControlPlane {
        ControlPlane::shared(super::environment)
    }
}

/// What the control plane installs besides `config/crd/bases`: rsbuilder adds the
/// webhooks (`create webhook`) and the CRDs of kinds the project does not own
/// (`create api --from-crd`).
fn environment() -> control_plane::Environment {
    control_plane::Environment {
        // +rsbuilder:scaffold:envtest-environment
        ..control_plane::Environment::new(env!("CARGO_MANIFEST_DIR"))
    }
}

/// The control plane starts with everything [`environment`] installs: the CRDs
/// Established, the webhooks served and called.
#[test]
fn the_control_plane_starts_with_the_projects_environment() {
    control_plane::control_plane();
}
