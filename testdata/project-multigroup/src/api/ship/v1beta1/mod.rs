// Copyright Example Org
// SPDX-License-Identifier: MIT

//! Version v1beta1 of the `ship.example.org` API group, one module per kind.

pub mod frigate;
pub mod condition;
// +rsbuilder:scaffold:kinds
