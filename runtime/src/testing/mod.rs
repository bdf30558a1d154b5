//! Helpers for a project's tests (feature `testing`, for dev-dependencies): [`mock`], a
//! mocked API server for reconciler tests. The certificates and HTTPS clients of servers'
//! tests are [`crate::tls::testing`].

pub mod mock;
