//! CRD size, with the limits the real API server applies (`tests/api_server_crds.rs`
//! measures them). `kubectl apply` without `--server-side` keeps the whole object in the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation, and the API server caps
//! an object's annotations at 256 KiB (262,144 bytes, apimachinery's
//! TotalAnnotationSizeLimitB). Any request body is capped at 3 MiB (the API server's
//! MaxRequestBodyBytes). etcd's 1.5 MiB per request applies to the object as stored, which
//! for a CRD is protobuf, much smaller than its JSON: a 2.75 MB JSON CRD is stored.

use crate::lint::check::Check;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::Inputs;

pub static CRD_SIZE: RuleId = RuleId {
    id: "crd-size",
    severity: Severity::Warning,
    summary: "a CRD fits client-side apply's 256 KiB annotation (warning) and the API server's 3 MiB request limit (error)",
};

pub static CHECK: Check = Check {
    name: "size",
    rules: &[&CRD_SIZE],
    run,
};

/// The annotations of one object, at most (bytes).
pub const ANNOTATION_LIMIT: usize = 256 * 1024;
/// One request body, at most (bytes).
pub const REQUEST_LIMIT: usize = 3 * 1024 * 1024;

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    for crd in inputs.crds() {
        // The annotation holds the object as compact JSON.
        let size = serde_json::to_string(&crd.doc.to_json()).map_or(0, |s| s.len());
        if size > REQUEST_LIMIT {
            out.push(
                CRD_SIZE
                    .at(
                        &crd.file.path,
                        crd.doc.pos,
                        format!(
                            "CRD {} is {size} bytes as JSON, over the 3 MiB ({REQUEST_LIMIT} bytes) the API server accepts in one request",
                            crd.name
                        ),
                    )
                    .severity(Severity::Error)
                    .hint("shrink the schema: fewer versions, shorter descriptions (doc comments), or types that are not inlined"),
            );
        } else if size > ANNOTATION_LIMIT {
            out.push(
                CRD_SIZE
                    .at(
                        &crd.file.path,
                        crd.doc.pos,
                        format!(
                            "CRD {} is {size} bytes as JSON, over the {ANNOTATION_LIMIT} bytes of annotations client-side `kubectl apply` needs for it",
                            crd.name
                        ),
                    )
                    .hint("install it with `kubectl apply --server-side` (as `make install` does), or shrink the schema"),
            );
        }
    }
}
