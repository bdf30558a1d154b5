//! Helpers for a project's tests (feature `testing`, which a project enables in its
//! dev-dependency on this crate): [`mock`], a mocked API server for reconciler tests, and
//! [`control_plane`], the envtest harness. The HTTPS test certificates and client are
//! [`crate::tls::testing`].

pub mod control_plane;
pub mod mock;
pub mod scale;
