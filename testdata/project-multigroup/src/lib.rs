// Copyright Example Org
// SPDX-License-Identifier: MIT

//! project-multigroup: a Kubernetes operator built with kube-rs.
//!
//! `api` holds the custom resource types, `controllers` their reconcilers; the rest is
//! the manager's plumbing, wired together in `main.rs`.

pub mod api;
pub mod controllers;
pub mod deadline;
pub mod leader;
pub mod metrics;
pub mod metrics_auth;
pub mod server;
pub mod shutdown;
pub mod supervisor;
pub mod telemetry;
pub mod tls;
// +rsbuilder:scaffold:modules
