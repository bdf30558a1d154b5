// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Version v1 of the `batch.example.com` API group, one module per kind.

pub mod cron_job;
pub mod cron_job_conversion;
// +rsbuilder:scaffold:kinds
