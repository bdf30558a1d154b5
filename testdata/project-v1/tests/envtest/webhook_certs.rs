// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The webhook server's certificate in the tests. In a cluster cert-manager issues it
//! (`--webhook-certs cert-manager`); here the control plane signs one with its own CA and
//! calls the webhooks by `url:`, as envtest does. Generated from PROJECT: `rsbuilder edit
//! --webhook-certs self` makes it the manager's own, with its tests.

use crate::control_plane::IssueCerts;

/// No certificate task of the manager's (`control_plane::Environment::webhook_certs`).
pub const ISSUE: Option<IssueCerts> = None;
