//! Names that two kinds of one API group both claim, judged as the API server judges them.
//!
//! The rule is apiextensions-apiserver's naming controller
//! (k8s.io/apiextensions-apiserver, pkg/controller/status/naming_controller.go):
//! `getAcceptedNamesForGroup` collects, over every other CRD *of the same group*, the
//! plural, singular and short names into one set of resource names, and the kind and list
//! kind into one set of kind names; `calculateNamesAndConditions` then refuses each
//! requested name already in its set (`equalToAcceptedOrFresh`). The CRD is stored anyway,
//! with `NamesAccepted=False` (PluralConflict, SingularConflict, ShortNamesConflict,
//! KindConflict, ListKindConflict) and is never Established, so its kind is never served
//! (tests/api_server_names.rs shows each). Two kinds with one plural share the CRD name
//! `<plural>.<group>`: the second is not a CRD of its own at all.
//!
//! What the controller does not check is not checked here: names within one kind (a short
//! name listed twice, or equal to the kind's own plural, is accepted) and other groups.
//!
//! Kubernetes' built-in kinds are not CRDs and no CRD can be in their groups, so for the
//! API server their short names never clash. kubectl resolves a short name across all
//! groups (client-go, restmapper/shortcut.go, `expandResourceShortcut`): it takes the first
//! match in discovery order, where built-in groups come first, and only warns that a lower
//! priority resource also matches. A CRD's short name equal to a built-in one is therefore
//! served but never reached by `kubectl get <short name>`: [`built_in_short_name`].

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionNames;

/// One of a kind's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Plural,
    Singular,
    ShortName,
    Kind,
    ListKind,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Plural => "plural",
            Role::Singular => "singular",
            Role::ShortName => "short name",
            Role::Kind => "kind",
            Role::ListKind => "list kind",
        }
    }

    /// Plural, singular and short names are resource names (in URLs and `kubectl get`);
    /// kind and list kind are kind names (in objects). Each clashes within its own set only.
    fn is_resource(self) -> bool {
        matches!(self, Role::Plural | Role::Singular | Role::ShortName)
    }
}

/// The names one kind claims in its group: a CRD's `spec.names` with the API server's
/// defaults applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindNames {
    pub kind: String,
    pub list_kind: String,
    pub plural: String,
    pub singular: String,
    pub short_names: Vec<String>,
}

impl KindNames {
    /// A kind's names where singular and list kind take the API server's defaults
    /// (apiextensions v1 `SetDefaults_CustomResourceDefinitionSpec`: the lowercased kind and
    /// `<Kind>List`, which kube-derive writes too).
    pub fn new(kind: &str, plural: &str, short_names: Vec<String>) -> Self {
        Self {
            kind: kind.to_string(),
            list_kind: format!("{kind}List"),
            plural: plural.to_string(),
            singular: kind.to_lowercase(),
            short_names,
        }
    }

    /// The names of a CRD, defaults applied where it leaves them out.
    pub fn of_crd(names: &CustomResourceDefinitionNames) -> Self {
        let mut out = Self::new(
            &names.kind,
            &names.plural,
            names.short_names.clone().unwrap_or_default(),
        );
        if let Some(singular) = names.singular.as_ref().filter(|s| !s.is_empty()) {
            out.singular = singular.clone();
        }
        if let Some(list_kind) = names.list_kind.as_ref().filter(|s| !s.is_empty()) {
            out.list_kind = list_kind.clone();
        }
        out
    }

    /// Every name with its role, in the order the naming controller checks them.
    pub fn claims(&self) -> impl Iterator<Item = (Role, &str)> {
        [
            (Role::Plural, self.plural.as_str()),
            (Role::Singular, self.singular.as_str()),
        ]
        .into_iter()
        .chain(
            self.short_names
                .iter()
                .map(|s| (Role::ShortName, s.as_str())),
        )
        .chain([
            (Role::Kind, self.kind.as_str()),
            (Role::ListKind, self.list_kind.as_str()),
        ])
    }
}

/// One name of a kind that another kind of its group already claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    pub name: String,
    /// What the name is to the kind checked.
    pub role: Role,
    /// What it is to the kind that claims it already.
    pub theirs: Role,
}

impl Clash {
    /// `the singular "cronjobs" of CronJobs is the plural of CronJob`.
    pub fn describe(&self, kind: &str, other: &str) -> String {
        format!(
            "the {} {:?} of {kind} is the {} of {other}",
            self.role.as_str(),
            self.name,
            self.theirs.as_str()
        )
    }
}

/// Every name of `later` that `earlier`, another kind of the same group, already claims:
/// what the naming controller refuses when `later` is created after `earlier`.
pub fn between(earlier: &KindNames, later: &KindNames) -> Vec<Clash> {
    let mut out = Vec::new();
    for (role, name) in later.claims() {
        let theirs = earlier
            .claims()
            .find(|(r, n)| r.is_resource() == role.is_resource() && *n == name);
        if let Some((theirs, _)) = theirs
            && !out.iter().any(|c: &Clash| c.role == role && c.name == name)
        {
            out.push(Clash {
                name: name.to_string(),
                role,
                theirs,
            });
        }
    }
    out
}

/// A clash in a group: `later` (an index into the kinds given) loses `clash` to `earlier`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InGroup {
    pub later: usize,
    pub earlier: usize,
    pub clash: Clash,
}

/// Every clash among the kinds of one group, each reported at the later of the two in the
/// order given (the server refuses whichever comes second; rsbuilder cannot know which
/// one a user applies first, so it names both).
pub fn in_group(kinds: &[KindNames]) -> Vec<InGroup> {
    let mut out = Vec::new();
    for (later, l) in kinds.iter().enumerate() {
        for (earlier, e) in kinds[..later].iter().enumerate() {
            out.extend(between(e, l).into_iter().map(|clash| InGroup {
                later,
                earlier,
                clash,
            }));
        }
    }
    out
}

/// The short names of Kubernetes' built-in resources, with the resource each stands for:
/// every `ShortNames()` of kubernetes v1.37.2's pkg/registry and of
/// apiextensions-apiserver's customresourcedefinition registry.
const BUILT_IN_SHORT_NAMES: &[(&str, &str)] = &[
    ("cj", "cronjobs.batch"),
    ("cm", "configmaps"),
    ("crd", "customresourcedefinitions.apiextensions.k8s.io"),
    ("crds", "customresourcedefinitions.apiextensions.k8s.io"),
    ("cs", "componentstatuses"),
    ("csr", "certificatesigningrequests.certificates.k8s.io"),
    ("deploy", "deployments.apps"),
    ("ds", "daemonsets.apps"),
    ("ep", "endpoints"),
    ("ev", "events"),
    ("hpa", "horizontalpodautoscalers.autoscaling"),
    ("ing", "ingresses.networking.k8s.io"),
    ("ip", "ipaddresses.networking.k8s.io"),
    ("limits", "limitranges"),
    ("netpol", "networkpolicies.networking.k8s.io"),
    ("no", "nodes"),
    ("ns", "namespaces"),
    ("pc", "priorityclasses.scheduling.k8s.io"),
    ("pdb", "poddisruptionbudgets.policy"),
    ("po", "pods"),
    ("pv", "persistentvolumes"),
    ("pvc", "persistentvolumeclaims"),
    ("quota", "resourcequotas"),
    ("rc", "replicationcontrollers"),
    ("rs", "replicasets.apps"),
    ("sa", "serviceaccounts"),
    ("sc", "storageclasses.storage.k8s.io"),
    ("sts", "statefulsets.apps"),
    ("svc", "services"),
    ("vac", "volumeattributesclasses.storage.k8s.io"),
];

/// The built-in resource (`cronjobs.batch`) whose short name `name` is: kubectl reaches that
/// one for `kubectl get <name>`, whatever CRD also has it.
pub fn built_in_short_name(name: &str) -> Option<&'static str> {
    BUILT_IN_SHORT_NAMES
        .iter()
        .find(|(short, _)| *short == name)
        .map(|(_, resource)| *resource)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(kind: &str, plural: &str, short: &[&str]) -> KindNames {
        KindNames::new(kind, plural, short.iter().map(|s| s.to_string()).collect())
    }

    /// (earlier, later, the clashes of later as `role name theirs`).
    #[test]
    fn the_naming_controller_s_sets() {
        let cron = names("CronJob", "cronjobs", &["cj"]);
        let cases = [
            (
                names("CronJobs", "cronjobses", &[]),
                vec!["singular cronjobs plural"],
            ),
            (
                names("CronJobList", "cronjoblists", &[]),
                vec!["kind CronJobList list kind"],
            ),
            (
                names("ClusterJob", "clusterjobs", &["cj"]),
                vec!["short name cj short name"],
            ),
            (
                names("Widget", "cronjob", &[]),
                vec!["plural cronjob singular"],
            ),
            (
                names("Widget", "cronjobs", &[]),
                vec!["plural cronjobs plural"],
            ),
            (
                names("Widget", "widgets", &["cronjobs", "cronjob"]),
                vec!["short name cronjobs plural", "short name cronjob singular"],
            ),
            // A kind name and a resource name never meet: `cronjob` the singular and
            // `Cronjob` the kind are apart, and case matters.
            (
                names("Cronjob", "cronjobz", &[]),
                vec!["singular cronjob singular"],
            ),
            (names("Widget", "widgets", &["wd"]), vec![]),
        ];
        for (later, want) in cases {
            let got: Vec<String> = between(&cron, &later)
                .iter()
                .map(|c| format!("{} {} {}", c.role.as_str(), c.name, c.theirs.as_str()))
                .collect();
            assert_eq!(got, want, "{later:?}");
        }
    }

    #[test]
    fn a_group_reports_each_clash_at_the_later_kind() {
        let kinds = [
            names("Frigate", "frigates", &["fr"]),
            names("Brig", "brigs", &[]),
            names("Sloop", "sloops", &["fr"]),
        ];
        let got = in_group(&kinds);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].later, got[0].earlier), (2, 0));
        assert_eq!(
            got[0].clash.describe("Sloop", "Frigate"),
            "the short name \"fr\" of Sloop is the short name of Frigate"
        );
    }

    #[test]
    fn defaults_fill_what_a_crd_leaves_out() {
        let crd = CustomResourceDefinitionNames {
            kind: "Frigate".into(),
            plural: "frigates".into(),
            ..Default::default()
        };
        assert_eq!(KindNames::of_crd(&crd), names("Frigate", "frigates", &[]));
        assert_eq!(built_in_short_name("cj"), Some("cronjobs.batch"));
        assert_eq!(built_in_short_name("fr"), None);
    }
}
