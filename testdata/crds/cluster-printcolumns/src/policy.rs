//! Cluster scope, printer columns in both syntaxes, names, selectable fields, metadata.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "policy.example.com",
    version = "v1",
    kind = "NetPolicy",
    shortname = "np",
    shortname = "netpol",
    category = "all",
    category = "security",
    printcolumn(name = "Action", type_ = "string", json_path = ".spec.action", description = "What happens"),
    printcolumn = r#"{"name":"Priority", "type":"integer", "jsonPath":".spec.priority", "priority": 1}"#,
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp", format = "date-time"),
    selectable = ".spec.action",
    annotation("example.com/owner", "team-a"),
    label("app.kubernetes.io/part-of", "demo")
)]
pub struct NetPolicySpec {
    pub action: String,
    pub priority: i32,
}
