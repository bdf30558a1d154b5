//! rsbuilder: scaffold and grow kube-rs operators. See ARCHITECTURE.md for the map.

pub mod cli;
pub mod commands;
pub mod crd;
pub mod envtest;
pub mod errors;
pub mod external;
pub mod lint;
pub mod lock;
pub mod lockfile;
pub mod names;
pub mod project;
pub mod rbac;
pub mod runtime_crate;
pub mod scaffold;
pub mod syntax;
pub mod typegen;
pub mod webhook;
pub mod yaml;
