// SPDX-License-Identifier: Apache-2.0

//! Version v1beta1 of the `ship.example.com` API group, one module per kind.

pub mod frigate;
// +rsbuilder:scaffold:kinds
