pub mod cache;
pub mod hold;
