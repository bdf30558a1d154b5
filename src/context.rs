//! What every command receives, whoever parsed it: the command line (`cli`) or a replay of
//! PROJECT (`alpha generate`). It sits below both, so commands never look up at `cli`.

use std::path::PathBuf;

use clap::{ArgAction, Args};

use crate::scaffold::Output;

/// The directory a command works in, whether it only shows what it would write, and how
/// much it says.
pub struct Global {
    pub dir: PathBuf,
    pub dry_run: bool,
    pub out: Output,
}

/// `--fetch-deps[=false]`, as kubebuilder's `init` has it: whether the command resolves the
/// project's dependencies into Cargo.lock, which needs crates.io.
#[derive(Debug, Clone, Copy, Args)]
pub struct FetchDeps {
    /// Resolve the dependencies into Cargo.lock (cargo generate-lockfile; needs crates.io).
    /// The image builds from the committed Cargo.lock; --fetch-deps=false skips this step
    #[arg(long = "fetch-deps", num_args = 0..=1, require_equals = true, default_value_t = true,
          default_missing_value = "true", action = ArgAction::Set, value_name = "BOOL")]
    pub enabled: bool,
}
