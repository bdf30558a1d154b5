//! What a generator (`generate crds`, `rbac`, `webhooks`, `runtime`, the Helm chart) hands
//! back: a plan, and the files it no longer produces.

use std::path::PathBuf;

use super::Plan;

/// What a generator wants written, and the files it found that nothing produces any more
/// (reported, never deleted: the user may still want them).
#[derive(Debug, Default)]
pub struct Generated {
    pub plan: Plan,
    pub stale: Vec<PathBuf>,
    /// The output directory the user named: the plan writes there and nowhere else, even
    /// outside the project (see `DiskTree::writing_under`).
    pub output_dir: Option<PathBuf>,
}

impl Generated {
    pub fn extend(&mut self, other: Generated) {
        self.plan.extend(other.plan);
        self.stale.extend(other.stale);
        self.output_dir = self.output_dir.take().or(other.output_dir);
    }
}
