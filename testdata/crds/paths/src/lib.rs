//! A cache operator laid out like a real crate.
pub mod api;
pub mod common;
/// A module whose name is a keyword, declared as a raw identifier (its file is `box.rs`).
pub mod r#box;
/// Types shared with other tools live in a generated directory.
#[path = "generated/shared_types.rs"]
pub mod shared;

pub use self::common::Labels;
pub use k8s_openapi::api::core::v1 as core;
pub use k8s_openapi::apimachinery;

/// What the API modules import with one glob.
pub mod prelude {
    pub use super::common::*;
    pub use crate::shared::Endpoint as Target;
}

/// Two modules that glob each other: rustc resolves it, and so must rsbuilder.
pub mod cycle {
    pub mod a {
        pub use super::b::*;
    }
    pub mod b {
        pub use super::a::*;

        #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        pub struct Shard {
            pub index: u16,
        }
    }
}
