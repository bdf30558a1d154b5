// SPDX-License-Identifier: Apache-2.0

//! lint-seeded: a Kubernetes operator built with kube-rs.
//!
//! `api` holds the custom resource types, `controllers` their reconcilers; `main.rs`
//! wires them into the manager of `rsbuilder-runtime`, which holds the plumbing every
//! operator shares.

pub mod api;
pub mod controllers;
// +rsbuilder:scaffold:modules

/// The Lease the manager's replicas compete for (`--leader-elect`).
pub const LEADER_ELECTION_LEASE: &str = "lint-seeded-leader.example.com";
