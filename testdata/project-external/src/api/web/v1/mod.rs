// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Version v1 of the `web.example.com` API group, one module per kind.

pub mod site;
// +rsbuilder:scaffold:kinds
