// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The `monitoring.coreos.com` API group, which this project uses but does not own: one module per
//! version.

pub mod v1;
// +rsbuilder:scaffold:versions
