//! The scaffolding engine: commands describe what they want as a [`Plan`] (pure data),
//! [`Plan::resolve`] turns it into concrete [`Change`]s against the current tree, and
//! only [`Tree::apply`] writes — all files or none, inside the project, never through a
//! link, even when killed (see `tree.rs`).

mod confine;
mod edit;
mod fsops;
mod generated;
pub mod kind_clash;
mod markers;
mod plan;
mod render;
mod report;
pub mod rust_markers;
mod tree;
mod txn;
mod yaml_list;

pub use edit::{DependencySource, Edit};
pub use fsops::Faults;
pub use generated::Generated;
pub use markers::{has_marker, insert_before_marker};
pub use plan::{FileAction, Plan};
pub use render::Renderer;
pub use report::{Output, print_changes};
pub use tree::{Change, DiskTree, MemTree, Tree};
pub use yaml_list::{ListAt, ListEntries};
