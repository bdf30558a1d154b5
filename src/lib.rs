//! rsbuilder: scaffold and grow kube-rs operators. See ARCHITECTURE.md for the map.

// println! and friends panic when stdout or stderr cannot be written; output goes through
// `console` (outln!, errln!), which exits 1 instead. Tests may print as they like.
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

pub mod builtin_kinds;
pub mod cli;
pub mod commands;
pub mod console;
pub mod context;
pub mod crd;
pub mod diagnostic;
pub mod envtest;
pub mod errors;
pub mod external;
pub mod helm;
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
