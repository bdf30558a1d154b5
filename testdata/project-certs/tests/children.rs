// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! `controllers::children::apply` against a mocked API server (see `support`): a child
//! is created or updated by one server-side apply, owned by its owner, and never taken
//! from another owner.

mod support;

use http::{Method, StatusCode};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta};
use serde_json::{Value, json};

use project_certs::controllers::children::{self, Error};

use support::{APPLY_PATCH, context, failure, finish};

const PATH: &str = "/api/v1/namespaces/default/configmaps/child";

#[tokio::test]
async fn a_child_is_applied_in_one_request_with_an_owner_reference() {
    let (ctx, mut server) = context();
    let server = tokio::spawn(async move {
        // No read first: a server-side apply creates the child or updates it.
        let apply = server.expect(Method::PATCH, PATH).await;
        assert_eq!(apply.content_type, APPLY_PATCH);
        assert_eq!(apply.param("fieldManager"), Some("test"));
        assert_eq!(apply.param("force"), Some("true"));
        let owner = &apply.body["metadata"]["ownerReferences"][0];
        assert_eq!(
            (&owner["uid"], &owner["controller"]),
            (&json!("owner-uid"), &json!(true))
        );
        apply.echo();
        server.expect_no_more().await;
    });
    let api: Api<ConfigMap> = Api::namespaced(ctx.client.clone(), "default");
    let result = children::apply(&api, &owner(), config_map("child"), "test").await;
    drop((api, ctx));
    finish(server).await;
    result.expect("the child is applied");
}

#[tokio::test]
async fn a_child_of_another_owner_is_left_alone() {
    let (ctx, mut server) = context();
    let server = tokio::spawn(async move {
        let apply = server.expect(Method::PATCH, PATH).await;
        // Owner references merge by uid, so the child would have two controllers.
        let message = "Only one reference can have Controller set to true. Found \"true\" in references for ConfigMap/someone-else and ConfigMap/owner";
        apply.respond(
            StatusCode::UNPROCESSABLE_ENTITY,
            invalid("metadata.ownerReferences", message),
        );
        server.expect_no_more().await;
    });
    let api: Api<ConfigMap> = Api::namespaced(ctx.client.clone(), "default");
    let result = children::apply(&api, &owner(), config_map("child"), "test").await;
    drop((api, ctx));
    finish(server).await;
    assert!(matches!(result, Err(Error::Foreign { .. })), "{result:?}");
}

#[tokio::test]
async fn another_invalid_child_is_an_api_error() {
    let (ctx, mut server) = context();
    let server = tokio::spawn(async move {
        let apply = server.expect(Method::PATCH, PATH).await;
        let message = "must have at most 1048576 bytes";
        apply.respond(StatusCode::UNPROCESSABLE_ENTITY, invalid("data", message));
        server.expect_no_more().await;
    });
    let api: Api<ConfigMap> = Api::namespaced(ctx.client.clone(), "default");
    let result = children::apply(&api, &owner(), config_map("child"), "test").await;
    drop((api, ctx));
    finish(server).await;
    assert!(matches!(result, Err(Error::Kube(_))), "{result:?}");
}

/// The API server's answer to an object that fails validation on `field`.
fn invalid(field: &str, message: &str) -> Value {
    let code = StatusCode::UNPROCESSABLE_ENTITY;
    let text = format!("ConfigMap \"child\" is invalid: {field}: Invalid value: {message}");
    let mut body = failure(code, "Invalid", &text);
    body["details"] = json!({
        "name": "child",
        "kind": "ConfigMap",
        "causes": [{ "reason": "FieldValueInvalid", "message": message, "field": field }],
    });
    body
}

fn owner() -> ConfigMap {
    let mut owner = config_map("owner");
    owner.metadata.uid = Some("owner-uid".into());
    owner
}

fn config_map(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    }
}
