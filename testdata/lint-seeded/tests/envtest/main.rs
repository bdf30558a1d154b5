// SPDX-License-Identifier: Apache-2.0

//! The operator against a real Kubernetes API server (envtest): one control plane for
//! this whole test binary (`support/control_plane.rs`), a namespace for each test.
//! `make test` gets kube-apiserver and etcd first (`rsbuilder envtest use`).

#[path = "../support/control_plane.rs"]
mod control_plane;

mod deadline;
mod leader;
mod metrics_auth;
mod crds;
mod frigate_controller;
mod config_map_controller;
// +rsbuilder:scaffold:envtest-modules

/// What the control plane installs besides `config/crd/bases`: rsbuilder adds the
/// webhooks (`create webhook`) and the CRDs of kinds the project does not own
/// (`create api --from-crd`).
fn environment() -> control_plane::Environment {
    control_plane::Environment {
        // +rsbuilder:scaffold:envtest-environment
        ..Default::default()
    }
}
