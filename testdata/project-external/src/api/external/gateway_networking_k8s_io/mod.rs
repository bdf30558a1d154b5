// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The `gateway.networking.k8s.io` API group, which this project uses but does not own: one module per
//! version.

pub mod v1beta1;
// +rsbuilder:scaffold:versions
