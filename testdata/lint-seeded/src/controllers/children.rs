// SPDX-License-Identifier: Apache-2.0

//! Children: the objects a controller creates for the object it reconciles.
//!
//! [`apply`] is the one way to create or change a child, and it follows the rules that keep
//! reconciliations idempotent: it reads the child from the API server first (not from a
//! cache, which may not have seen a child created a moment ago, so a stale read would
//! create it twice); it leaves alone an object that another owner controls; it sets the
//! owner reference, so that Kubernetes deletes the child with its owner; and it writes
//! with server-side apply, so applying the same child again changes nothing.

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

/// Creates `child` unless it exists, or brings it to what `child` says, owned by `owner`.
/// Returns the child as the API server stored it.
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
    // Fresh from the API server, not from a cache.
    if let Some(existing) = api.get_opt(&name).await? {
        let controller = existing
            .owner_references()
            .iter()
            .find(|reference| reference.controller == Some(true));
        if controller.is_some_and(|reference| reference.uid != owner_reference.uid) {
            let kind = K::kind(&()).into_owned();
            return Err(Error::Foreign { kind, name });
        }
    }
    child.meta_mut().owner_references = Some(vec![owner_reference]);
    let params = PatchParams::apply(field_manager).force();
    Ok(api.patch(&name, &params, &Patch::Apply(&child)).await?)
}
