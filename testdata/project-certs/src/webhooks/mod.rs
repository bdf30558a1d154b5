// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The webhooks the API server calls over HTTPS: conversion between the versions of a
//! kind, defaulting and validation, served by `rsbuilder_runtime::webhook` (started in
//! `main.rs`). `rsbuilder create webhook` adds each one here and in
//! `config/webhook/manifests.yaml`.

pub mod ship_v2_frigate;
// +rsbuilder:scaffold:webhook-modules

// The names the routes use, whichever webhooks the project has.
use rsbuilder_runtime::webhook::*;

/// Every webhook of this manager: its path and its handler.
pub fn routes() -> Routes {
    vec![
        (CONVERSION_PATH, conversion::handler(CONVERSIONS)),
        (
            "/mutate-ship-example-com-v2-frigate",
            admission::defaulting(ship_v2_frigate::default),
        ),
        (
            "/validate-ship-example-com-v2-frigate",
            admission::validating(
                ship_v2_frigate::validate_create,
                ship_v2_frigate::validate_update,
                ship_v2_frigate::validate_delete,
            ),
        ),
        // +rsbuilder:scaffold:webhook-routes
    ]
}

/// The kinds the conversion webhook converts: API group, kind, and the conversion through
/// the kind's hub (`src/api/<group>/<hub>/<kind>_conversion.rs`).
pub const CONVERSIONS: &[conversion::Conversion<'static>] = &[
    (
        "ship.example.com",
        "Frigate",
        crate::api::ship::v2::frigate_conversion::convert,
    ),
    // +rsbuilder:scaffold:conversion-kinds
];
