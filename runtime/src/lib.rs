//! What every operator that rsbuilder scaffolds shares, so that a project holds only what
//! is its own (its types, reconcilers and webhooks' logic): the manager with its flags,
//! leader election, metrics served to authorized callers only, health probes, TLS with
//! certificate reloads, request deadlines, what controllers share (the watch, the
//! finalizer flow, conditions, events, retries, children) and (feature `webhooks`) the
//! webhook server with admission and conversion reviews and self-issued certificates.
//! Behind the feature `testing`, for a project's tests: a mocked API server
//! (`testing::mock`), the envtest harness (`testing::control_plane`) and HTTPS test
//! certificates (`tls::testing`).
//!
//! A project gets this crate as a copy that rsbuilder writes and rewrites
//! (`rsbuilder-runtime/`, `rsbuilder generate runtime`): edit it and the next upgrade
//! overwrites the edit.

#![deny(missing_docs)]

pub mod controller;
pub mod deadline;
pub mod leader;
pub mod manager;
pub mod metrics;
pub mod metrics_auth;
pub mod server;
pub mod shutdown;
pub mod supervisor;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tls;
#[cfg(feature = "webhooks")]
pub mod webhook;
