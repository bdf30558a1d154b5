//! schemars validation and metadata attributes.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "auth.example.com", version = "v1", kind = "User", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct UserSpec {
    #[schemars(length(min = 3, max = 32), regex(pattern = "^[a-z][a-z0-9-]*$"))]
    pub username: String,
    #[schemars(email)]
    pub email: String,
    #[schemars(url)]
    pub homepage: Option<String>,
    #[schemars(range(min = 18, max = 150))]
    pub age: u8,
    #[schemars(range(min = 0.5))]
    pub score: f64,
    #[schemars(length(equal = 2))]
    pub pair: Vec<String>,
    /// Ignored doc.
    #[schemars(description = "Overridden description.", title = "Nick")]
    pub nickname: Option<String>,
    #[schemars(example = 42, example = 7)]
    pub lucky: i32,
    #[schemars(extend("x-kubernetes-list-type" = "set"))]
    pub roles: Vec<String>,
    #[schemars(required)]
    pub must: Option<String>,
    #[schemars(pattern("^v[0-9]+$"))]
    pub version: String,
    #[schemars(contains(pattern = "@"))]
    pub handle: String,
    /// # The Title
    ///
    /// And the description.
    pub titled: bool,
    #[deprecated]
    pub old: Option<bool>,
}
