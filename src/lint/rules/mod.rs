//! One module per rule; `crate::lint::registry` lists them. Helpers that several rules
//! share live here (`find_version`) and in `formats`/`metadata`.

pub mod cel;
pub mod columns;
pub mod formats;
pub mod manifests;
pub mod metadata;
pub mod names;
pub mod rbac;
pub mod samples;
pub mod size;
pub mod versions;

use super::input::{Crd, Sample, Version};

/// Why a sample has no schema to be checked against.
pub struct Unmatched {
    pub message: String,
    pub hint: String,
}

/// The CRD and served version a sample is an object of.
pub fn find_version<'c, 'a>(
    crds: &'c [Crd<'a>],
    sample: &Sample<'_>,
) -> Result<(&'c Crd<'a>, &'c Version<'a>), Unmatched> {
    let api_version = if sample.group.is_empty() {
        sample.version.clone()
    } else {
        format!("{}/{}", sample.group, sample.version)
    };
    let Some(crd) = crds
        .iter()
        .find(|c| c.group == sample.group && c.kind == sample.kind)
    else {
        return Err(Unmatched {
            message: format!(
                "no CRD of the project defines {} in {api_version}",
                sample.kind
            ),
            hint: "samples are objects of the project's own kinds; check apiVersion and kind"
                .into(),
        });
    };
    match crd.version(&sample.version) {
        Some(v) if v.served && v.schema.is_some() => Ok((crd, v)),
        Some(v) if !v.served => Err(Unmatched {
            message: format!("{} {} is not served", sample.kind, sample.version),
            hint: "the API server refuses objects of a version with `served: false`".into(),
        }),
        Some(_) => Err(Unmatched {
            message: format!("{} {} has no schema", sample.kind, sample.version),
            hint: "every version of an apiextensions.k8s.io/v1 CRD needs openAPIV3Schema".into(),
        }),
        None => {
            let known: Vec<&str> = crd.versions.iter().map(|v| v.name.as_str()).collect();
            Err(Unmatched {
                message: format!(
                    "{} has no version {} (it has {})",
                    crd.kind,
                    sample.version,
                    known.join(", ")
                ),
                hint: "fix the sample's apiVersion, or add the version with `rsbuilder create api`"
                    .into(),
            })
        }
    }
}
