// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Version v1 of the `infra.example.com` API group, one module per kind.

pub mod tenant;
// +rsbuilder:scaffold:kinds
