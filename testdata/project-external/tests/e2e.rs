// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! End-to-end tests against a real cluster with the manager deployed (`make deploy`).
//! They are ignored by `cargo test`; `make test-e2e` runs them, and so does CI on kind.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, Client};

const NAMESPACE: &str = "project-external-system";
const DEPLOYMENT: &str = "project-external-controller-manager";

#[tokio::test]
#[ignore = "needs a cluster with the manager deployed: run `make test-e2e`"]
async fn the_manager_becomes_available() -> anyhow::Result<()> {
    let client = Client::try_default().await?;
    let deployments: Api<Deployment> = Api::namespaced(client, NAMESPACE);
    let rolled_out = await_condition(
        deployments,
        DEPLOYMENT,
        conditions::is_deployment_completed(),
    );
    tokio::time::timeout(Duration::from_secs(180), rolled_out).await??;
    Ok(())
}
