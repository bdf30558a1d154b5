// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Version v1 of the `monitoring.coreos.com` API group, one module per kind.

pub mod service_monitor;
// +rsbuilder:scaffold:kinds
