// Copyright Example Org
// SPDX-License-Identifier: MIT

//! Version v1 of the `sea-creatures.example.org` API group, one module per kind.

pub mod kraken;
// +rsbuilder:scaffold:kinds
