// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Prints every CustomResourceDefinition of this project as kube-derive builds it.
//! `rsbuilder generate crds --exact` runs this, and `tests/crds.rs` compares its output
//! with `config/crd/bases`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let crds = match project_certs::api::crds() {
        Ok(crds) => crds,
        Err(error) => {
            eprintln!("error: cannot merge the versions of a CRD: {error}");
            return ExitCode::FAILURE;
        }
    };
    for crd in crds {
        match serde_saphyr::to_string(&crd) {
            Ok(yaml) => print!("---\n{yaml}"),
            Err(error) => {
                eprintln!("error: cannot print a CRD as YAML: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
