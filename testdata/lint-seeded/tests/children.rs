// SPDX-License-Identifier: Apache-2.0

//! `controllers::children::apply` against a mocked API server (see `support`): a child
//! is read before it is created, owned by its owner, and never taken from another owner.

mod support;

use http::{Method, StatusCode};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, ObjectMeta};
use serde_json::json;

use lint_seeded::controllers::children::{self, Error};

use support::{context, failure, finish};

const PATH: &str = "/api/v1/namespaces/default/configmaps/child";

#[tokio::test]
async fn a_missing_child_is_created_with_an_owner_reference() {
    let (ctx, mut server) = context();
    let server = tokio::spawn(async move {
        let get = server.expect(Method::GET, PATH).await;
        let code = StatusCode::NOT_FOUND;
        get.respond(
            code,
            failure(code, "NotFound", "configmaps \"child\" not found"),
        );
        let apply = server.expect(Method::PATCH, PATH).await;
        assert!(apply.query.contains("fieldManager=test"), "{}", apply.query);
        let owner = &apply.body["metadata"]["ownerReferences"][0];
        assert_eq!(
            (&owner["uid"], &owner["controller"]),
            (&json!("owner-uid"), &json!(true))
        );
        apply.echo();
        server.expect_no_more().await;
    });
    let api: Api<ConfigMap> = Api::namespaced(ctx.client.clone(), "default");
    let result = children::apply(&api, &owner(), config_map("child", None), "test").await;
    drop((api, ctx));
    finish(server).await;
    result.expect("the child is applied");
}

#[tokio::test]
async fn a_child_of_another_owner_is_left_alone() {
    let (ctx, mut server) = context();
    let server = tokio::spawn(async move {
        let get = server.expect(Method::GET, PATH).await;
        let someone_else = OwnerReference {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: "someone-else".into(),
            uid: "someone-else-uid".into(),
            controller: Some(true),
            ..OwnerReference::default()
        };
        let existing = config_map("child", Some(someone_else));
        get.respond(StatusCode::OK, json!(existing));
        server.expect_no_more().await;
    });
    let api: Api<ConfigMap> = Api::namespaced(ctx.client.clone(), "default");
    let result = children::apply(&api, &owner(), config_map("child", None), "test").await;
    drop((api, ctx));
    finish(server).await;
    assert!(matches!(result, Err(Error::Foreign { .. })), "{result:?}");
}

fn owner() -> ConfigMap {
    let mut owner = config_map("owner", None);
    owner.metadata.uid = Some("owner-uid".into());
    owner
}

fn config_map(name: &str, owner: Option<OwnerReference>) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            owner_references: owner.map(|owner| vec![owner]),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    }
}
