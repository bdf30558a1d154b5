//! Children: the objects a controller creates for the object it reconciles.
//!
//! [`apply`] is the one way to create or change a child, and it follows the rules that keep
//! reconciliations idempotent: one server-side apply creates the child or brings it to
//! what the controller says, so applying the same child again changes nothing; the owner
//! reference makes Kubernetes delete the child with its owner. It reads nothing first: the
//! API server itself refuses to give a child of another owner a second controller.

use std::fmt::Debug;

use kube::Client;
use kube::api::{Api, Patch, PatchParams};
use kube::core::PartialObjectMeta;
use kube::runtime::{Controller, WatchStreamExt as _, watcher};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Scope;

/// `controller`, woken also whenever a child of kind `Child` changes (in `namespace`, or
/// in every namespace when `None`, as the controller's own watch), for the object that
/// controls it (its owner reference with `controller: true`, as [`apply`] writes it).
///
/// The children are watched by their metadata only (a metadata-only watch: the owner
/// references are all it needs), so the manager neither receives nor parses their specs
/// and statuses, and keeps none of them: with many children, or large ones (ConfigMaps,
/// Secrets), this is most of what `Controller::owns` would cost. Where a reconciliation
/// reads children, it gets them from the API server, current.
pub fn owned<Child, K>(
    controller: Controller<K>,
    client: Client,
    namespace: Option<&str>,
) -> Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    Child: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + 'static,
    Child::Scope: Scope,
{
    // An API of `PartialObjectMeta` asks the API server for metadata only.
    let api = super::api::<PartialObjectMeta<Child>>(client, namespace);
    let children = watcher(api, super::watch_config())
        .default_backoff()
        .touched_objects();
    controller.owns_stream(children)
}

/// Why a child could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request to the API server failed.
    #[error("Kubernetes API request failed: {0}")]
    Kube(#[from] kube::Error),
    /// The child exists and another object controls it.
    #[error("{kind} {name} exists and is controlled by another object; rename the child")]
    Foreign {
        /// The child's kind.
        kind: String,
        /// The child's name.
        name: String,
    },
    /// The owner has no name or uid, so nothing can point to it.
    #[error("the owner has no name or uid: was it read from the API server?")]
    UnsavedOwner,
}

/// Creates `child`, or brings it to what `child` says, owned by `owner`. Returns the child
/// as the API server stored it.
pub async fn apply<K, O>(
    api: &Api<K>,
    owner: &O,
    mut child: K,
    field_manager: &str,
) -> Result<K, Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
    O: Resource<DynamicType = ()>,
{
    let owner_reference = owner.controller_owner_ref(&()).ok_or(Error::UnsavedOwner)?;
    let name = child.name_any();
    child.meta_mut().owner_references = Some(vec![owner_reference]);
    let params = PatchParams::apply(field_manager).force();
    match api.patch(&name, &params, &Patch::Apply(&child)).await {
        Ok(stored) => Ok(stored),
        Err(error) if has_another_controller(&error) => Err(Error::Foreign {
            kind: K::kind(&()).into_owned(),
            name,
        }),
        Err(error) => Err(error.into()),
    }
}

/// Whether the API server refused an apply because the object would have two controllers.
///
/// Server-side apply merges `metadata.ownerReferences` entry by entry (it is a list-map
/// keyed by `uid`), so applying this owner's reference to a child that another object
/// controls leaves both references, each with `controller: true`. ObjectMeta allows at most
/// one managing controller, and the API server rejects the object as Invalid (422) with a
/// cause on the field `metadata.ownerReferences`.
fn has_another_controller(error: &kube::Error) -> bool {
    let kube::Error::Api(status) = error else {
        return false;
    };
    status.is_invalid()
        && status.details.as_ref().is_some_and(|details| {
            details
                .causes
                .iter()
                .any(|cause| cause.field == "metadata.ownerReferences")
        })
}

#[cfg(test)]
mod tests {
    //! [`apply`] against a mocked API server: a child is created or updated by one
    //! server-side apply, owned by its owner, and never taken from another owner.

    use http::{Method, StatusCode};
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;
    use serde_json::{Value, json};

    use super::*;
    use crate::testing::mock;

    const PATH: &str = "/api/v1/namespaces/default/configmaps/child";

    #[tokio::test]
    async fn a_child_is_applied_in_one_request_with_an_owner_reference() {
        let (client, mut server) = mock::client();
        let server = tokio::spawn(async move {
            // No read first: a server-side apply creates the child or updates it.
            let apply = server.expect(Method::PATCH, PATH).await;
            assert_eq!(apply.content_type, mock::APPLY_PATCH);
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
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let result = apply(&api, &owner(), config_map("child"), "test").await;
        drop(api);
        mock::finish(server).await;
        result.expect("the child is applied");
    }

    #[tokio::test]
    async fn a_child_of_another_owner_is_left_alone() {
        let (client, mut server) = mock::client();
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
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let result = apply(&api, &owner(), config_map("child"), "test").await;
        drop(api);
        mock::finish(server).await;
        assert!(matches!(result, Err(Error::Foreign { .. })), "{result:?}");
    }

    #[tokio::test]
    async fn another_invalid_child_is_an_api_error() {
        let (client, mut server) = mock::client();
        let server = tokio::spawn(async move {
            let apply = server.expect(Method::PATCH, PATH).await;
            let message = "must have at most 1048576 bytes";
            apply.respond(StatusCode::UNPROCESSABLE_ENTITY, invalid("data", message));
            server.expect_no_more().await;
        });
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let result = apply(&api, &owner(), config_map("child"), "test").await;
        drop(api);
        mock::finish(server).await;
        assert!(matches!(result, Err(Error::Kube(_))), "{result:?}");
    }

    /// The API server's answer to an object that fails validation on `field`.
    fn invalid(field: &str, message: &str) -> Value {
        let code = StatusCode::UNPROCESSABLE_ENTITY;
        let text = format!("ConfigMap \"child\" is invalid: {field}: Invalid value: {message}");
        let mut body = mock::failure(code, "Invalid", &text);
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
}
