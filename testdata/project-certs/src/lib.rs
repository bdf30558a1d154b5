// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! project-certs: a Kubernetes operator built with kube-rs.
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
pub mod webhooks;
// +rsbuilder:scaffold:modules
