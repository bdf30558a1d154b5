//! Features decide which modules, kinds and fields exist.
pub mod api;
#[cfg(feature = "experimental")]
pub mod experimental;
#[cfg(test)]
mod tests;
