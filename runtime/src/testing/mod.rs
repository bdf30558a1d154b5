//! Helpers for a project's tests (feature `testing`, which a project enables in its
//! dev-dependency on this crate). The HTTPS test certificates and client are
//! [`crate::tls::testing`].

pub mod control_plane;
