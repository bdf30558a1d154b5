// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The webhooks the API server calls over HTTPS: conversion between the versions of a
//! kind, defaulting and validation, served by `rsbuilder_runtime::webhook` (started in
//! `main.rs`). `rsbuilder create webhook` adds each one here and in
//! `config/webhook/manifests.yaml`.

pub mod batch_v1_cron_job;
// +rsbuilder:scaffold:webhook-modules

// The names the routes use, whichever webhooks the project has.
use rsbuilder_runtime::webhook::*;

/// Every webhook of this manager: its path and its handler.
pub fn routes() -> Routes {
    vec![
        (CONVERSION_PATH, conversion::handler(CONVERSIONS)),
        (
            "/mutate-batch-example-com-v1-cronjob",
            admission::defaulting(batch_v1_cron_job::default),
        ),
        (
            "/validate-batch-example-com-v1-cronjob",
            admission::validating(
                batch_v1_cron_job::validate_create,
                batch_v1_cron_job::validate_update,
                batch_v1_cron_job::validate_delete,
            ),
        ),
        // +rsbuilder:scaffold:webhook-routes
    ]
}

/// The kinds the conversion webhook converts: API group, kind, and the conversion through
/// the kind's hub (`src/api/<group>/<hub>/<kind>_conversion.rs`).
pub const CONVERSIONS: &[conversion::Conversion<'static>] = &[
    (
        "batch.example.com",
        "CronJob",
        crate::api::batch::v1::cron_job_conversion::convert,
    ),
    // +rsbuilder:scaffold:conversion-kinds
];
