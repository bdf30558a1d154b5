//! Standard-library types with fixed schemas, each exactly as schemars renders it:
//! addresses, non-zero integers, arrays, durations, paths, sets and smart pointers.
use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashSet, LinkedList, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::num::{NonZeroI32, NonZeroU16, NonZeroU32, NonZeroU8, Wrapping};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An L4 proxy in front of a set of upstreams.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "proxy.example.com", version = "v1", kind = "Proxy", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct ProxySpec {
    /// Where to listen.
    pub listen: SocketAddr,
    pub admin_listen: Option<SocketAddrV4>,
    pub admin_listen_v6: Option<SocketAddrV6>,
    pub upstreams: Vec<IpAddr>,
    pub allowed_v4: HashSet<Ipv4Addr>,
    pub allowed_v6: BTreeSet<Ipv6Addr>,
    /// A port is never 0.
    pub port: NonZeroU16,
    pub replicas: Option<NonZeroU32>,
    pub weight: NonZeroU8,
    pub offset: NonZeroI32,
    pub shard: std::num::NonZero<u64>,
    pub mac: [u8; 6],
    pub dns: [String; 2],
    #[serde(default)]
    pub timeout: Duration,
    pub keepalive: Option<Duration>,
    pub config_path: PathBuf,
    pub separator: char,
    pub queue: VecDeque<String>,
    pub history: LinkedList<u64>,
    pub priorities: BinaryHeap<u32>,
    pub boxed: Box<Tls>,
    pub shared: Arc<String>,
    pub counted: Rc<Vec<u8>>,
    pub total_bytes: u128,
    pub delta: i128,
    pub buffer: usize,
    pub skew: isize,
    pub budget: Cell<u32>,
    pub generation: Wrapping<u64>,
    pub order: Reverse<i16>,
    pub window: std::ops::Range<u32>,
    #[serde(default)]
    pub limits: Limits,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Tls {
    pub cert: PathBuf,
}

/// Defaults made of std types' own defaults.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Limits {
    pub idle: Duration,
    pub masks: [u8; 4],
    pub counter: Wrapping<u32>,
    pub held: Cell<u8>,
    pub recent: LinkedList<String>,
}
