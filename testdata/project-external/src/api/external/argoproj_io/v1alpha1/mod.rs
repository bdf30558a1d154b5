// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Version v1alpha1 of the `argoproj.io` API group, one module per kind.

pub mod rollout;
// +rsbuilder:scaffold:kinds
