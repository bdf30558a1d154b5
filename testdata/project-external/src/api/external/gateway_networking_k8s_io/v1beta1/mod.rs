// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Version v1beta1 of the `gateway.networking.k8s.io` API group, one module per kind.

pub mod http_route;
// +rsbuilder:scaffold:kinds
