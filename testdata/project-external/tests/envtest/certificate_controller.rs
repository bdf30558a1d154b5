// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The Certificate controller against a real API server. Certificate is a kind this project uses
//! but does not own: its CRD (`config/external-crds`) is installed by the tests only, as
//! its owner installs it in a cluster. The controller runs as a user bound to the manager's
//! role and nothing else.

use std::sync::Arc;

use kube::api::{Api, PostParams};

use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

use project_external::api::external::cert_manager_io::v1::certificate::Certificate;
use project_external::controllers::{Context, certificate as controller};

use crate::control_plane::{control_plane, counter, eventually, manager_user};

const KIND: &str = "Certificate";

/// How many reconciliations, or failures, `metrics` counted.
fn count(metrics: &Metrics, metric: &str) -> u64 {
    let text = metrics.encode().expect("metrics");
    counter(&text, metric, controller::NAME)
}

#[tokio::test]
async fn the_controller_reconciles_a_new_certificate() {
    let namespace = control_plane().namespace(KIND).await;
    let user = manager_user(&namespace);
    control_plane()
        .grant_manager_role(&user, &namespace, |_| {})
        .await;
    let client = control_plane().client(&user, &[]).await;
    let metrics = Arc::new(Metrics::default());
    let ctx = Context::new(client, metrics.clone(), Some(namespace.clone()));
    let (stop, shutdown) = Shutdown::channel();
    tokio::spawn(controller::run(ctx, Readiness::default(), shutdown));

    let api: Api<Certificate> = Api::namespaced(control_plane().admin().await, &namespace);
    let name = "watched".to_string();
    let object = Certificate::new(&name, Default::default());
    api.create(&PostParams::default(), &object)
        .await
        .expect("the API server accepts a Certificate with a default spec");
    eventually("a reconciliation of the new object", || async {
        (count(&metrics, "controller_reconcile_total") > 0).then_some(())
    })
    .await;
    assert_eq!(count(&metrics, "controller_reconcile_errors_total"), 0);
    stop.fire();
}

/// A newer CRD may allow a value these types do not know (here at `/spec/privateKey/algorithm`):
/// the typed API, and so a watch of whole objects, still reads the object, and a write of
/// what it read keeps the value, which the API server validates against the CRD's schema
/// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation).
#[tokio::test]
async fn a_value_the_types_do_not_know_is_read_and_written_back() {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{DynamicObject, Patch, PatchParams};
    use serde_json::{Value, json};

    const CRD: &str = "certificates.cert-manager.io";
    const FIELD: &str = "/spec/privateKey/algorithm";
    const NEWER: &str = "ANewerValue";

    let namespace = control_plane().namespace(&format!("{KIND}-newer")).await;
    let admin = control_plane().admin().await;
    let crds: Api<CustomResourceDefinition> = Api::all(admin.clone());
    let crd = crds.get(CRD).await.expect("the CRD");
    let version = crd.spec.versions.iter().position(|v| v.name == "v1");
    let version = version.expect("the CRD's version of the types");
    let schema = "/properties/spec/properties/privateKey/properties/algorithm";
    let path = format!("/spec/versions/{version}/schema/openAPIV3Schema{schema}/enum/-");
    let patch = json!([{"op": "add", "path": path, "value": NEWER}]);
    let patch = serde_json::from_value(patch).expect("a JSON patch");
    crds.patch(CRD, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
        .expect("a CRD that allows one value more");

    let api: Api<Certificate> = Api::namespaced(admin.clone(), &namespace);
    let untyped_namespace = Some(namespace.as_str());
    let name = "newer".to_string();
    let object = Certificate::new(&name, Default::default());
    let mut object = serde_json::to_value(object).expect("a serializable object");
    // Index by index, making the objects on the way.
    let keys = FIELD.split('/').skip(1);
    let field = keys.fold(&mut object, |at, key| &mut at[key]);
    *field = json!(NEWER);
    let untyped = control_plane().dynamic_api(&admin, untyped_namespace, &object);
    let object: DynamicObject = serde_json::from_value(object).expect("an object");
    // Allowed once the API server serves the new schema.
    eventually("the CRD's new value is allowed", || async {
        untyped.create(&PostParams::default(), &object).await.ok()
    })
    .await;

    let read = api.get(&name).await;
    let read = read.unwrap_or_else(|e| panic!("a typed read of {NEWER} at {FIELD}: {e}"));
    let value: Value = serde_json::to_value(&read).expect("a serializable object");
    assert_eq!(value.pointer(FIELD), Some(&json!(NEWER)));
    api.replace(&name, &PostParams::default(), &read)
        .await
        .expect("a write of what was read");
    let stored = untyped.get(&name).await.expect("a read");
    assert_eq!(stored.data.pointer(FIELD), Some(&json!(NEWER)));
}
