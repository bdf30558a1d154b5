//! The build script of every parity case that is a crate of its own: reports the features
//! cargo enabled on it to the oracle's build script (through `links` metadata), which
//! lists the case's roots under the same `#[cfg(feature = ...)]`s.
fn main() {
    let features = std::env::var("CARGO_CFG_FEATURE").unwrap_or_default();
    println!("cargo::metadata=features={features}");
}
