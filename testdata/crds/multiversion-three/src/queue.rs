//! Three versions in one file's modules; the storage version (v1beta1) is not the newest,
//! v1alpha1 is deprecated without a warning and not served.
pub mod v1alpha1 {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "mq.example.com", version = "v1alpha1", kind = "Queue", storage = false, served = false, deprecated)]
    pub struct QueueSpec {
        pub size: u16,
    }
}

pub mod v1beta1 {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "mq.example.com", version = "v1beta1", kind = "Queue")]
    pub struct QueueSpec {
        pub size: u32,
        pub durable: bool,
    }
}

pub mod v1 {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "mq.example.com", version = "v1", kind = "Queue", storage = false)]
    #[serde(rename_all = "camelCase")]
    pub struct QueueSpec {
        pub max_size: u64,
        pub durable: bool,
    }
}
