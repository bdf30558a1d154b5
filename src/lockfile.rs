//! Cargo.lock for a project rsbuilder has just written (`init`, `alpha generate`).
//!
//! It is not part of the plan: cargo resolves it against crates.io, so its contents change
//! from day to day, and no golden project holds one. The image builds from the committed
//! Cargo.lock (`cargo build --locked`), so the project should have one from the start; when
//! cargo cannot reach the registry the project is complete all the same, and one line says
//! how to create the file later.

use std::path::Path;
use std::process::Command;

use crate::context::Global;

/// Creates `dir/Cargo.lock`, or, when the project already has one, adds what the manifest
/// needs beyond it while keeping every version it pins (`cargo update --workspace`).
/// Never fails: a missing lock file is reported as a warning.
pub fn write(global: &Global, dir: &Path) {
    let existing = dir.join("Cargo.lock").is_file();
    let (verb, args): (&str, &[&str]) = if existing {
        ("update", &["update", "--workspace"])
    } else {
        ("create", &["generate-lockfile"])
    };
    if global.dry_run {
        global.out.say(&format!("would {verb} Cargo.lock"));
        return;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let reason = match Command::new(cargo)
        .args(args)
        .arg("--quiet")
        .current_dir(dir)
        .output()
    {
        Ok(out) if out.status.success() => {
            global.out.say(&format!("{verb} Cargo.lock"));
            return;
        }
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            if global.out.verbose {
                crate::err!("{stderr}");
            }
            stderr
                .lines()
                .find_map(|l| l.strip_prefix("error: "))
                .unwrap_or("no reason given")
                .to_string()
        }
        Err(e) => format!("cannot run cargo: {e}"),
    };
    let command = format!("cargo {}", args.join(" "));
    crate::errln!(
        "warning: Cargo.lock not {verb}d, `{command}` failed ({reason}); run `{command}` \
         once crates.io is reachable, and commit Cargo.lock: the image builds from it"
    );
}
