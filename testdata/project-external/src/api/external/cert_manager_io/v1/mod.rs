// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Version v1 of the `cert-manager.io` API group, one module per kind.

pub mod certificate;
// +rsbuilder:scaffold:kinds
