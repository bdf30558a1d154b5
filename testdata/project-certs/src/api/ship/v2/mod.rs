// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Version v2 of the `ship.example.com` API group, one module per kind.

pub mod frigate;
pub mod frigate_conversion;
// +rsbuilder:scaffold:kinds
