// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Children: the objects a controller creates for the object it reconciles.
//!
//! [`apply`] is the one way to create or change a child, and it follows the rules that keep
//! reconciliations idempotent: one server-side apply creates the child or brings it to
//! what the controller says, so applying the same child again changes nothing; the owner
//! reference makes Kubernetes delete the child with its owner. It reads nothing first: the
//! API server itself refuses to give a child of another owner a second controller.

use std::fmt::Debug;

use kube::api::{Api, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Why a child could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request to the API server failed.
    #[error("Kubernetes API request failed: {0}")]
    Kube(#[from] kube::Error),
    /// The child exists and another object controls it.
    #[error("{kind} {name} exists and is controlled by another object; rename the child")]
    Foreign { kind: String, name: String },
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
