// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! HTTPRoute (gateway.networking.k8s.io/v1beta1), a kind this project uses but does not own, as the
//! CustomResourceDefinition kept in
//! `config/external-crds/gateway.networking.k8s.io_httproutes.yaml` describes it. rsbuilder
//! generated this file from that CRD; it is yours to edit, and `rsbuilder create api --from-crd
//! <CRD> --force` generates it again.

use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// The routing wanted.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "gateway.networking.k8s.io",
    version = "v1beta1",
    kind = "HTTPRoute",
    plural = "httproutes",
    namespaced,
    status = "HttpRouteStatus",
    category = "gateway-api",
    printcolumn = r#"{"jsonPath":".spec.hostnames","name":"Hostnames","type":"string"}"#,
    printcolumn = r#"{"jsonPath":".metadata.creationTimestamp","name":"Age","type":"date"}"#,
    storage = false,
    deprecated = "gateway.networking.k8s.io/v1beta1 HTTPRoute is deprecated; use v1",
    schema = "disabled",
    derive = "Default",
    derive = "PartialEq"
)]
pub struct HttpRouteSpec {
    /// Host names to match against the Host header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostnames: Option<Vec<String>>,

    /// Where the route attaches.
    #[serde(rename = "parentRefs")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_refs: Option<Vec<HttpRouteSpecParentRefs>>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<HttpRouteSpecRules>>,
}

/// A Gateway (or another parent) this route attaches to.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecParentRefs {
    /// Group of the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,

    /// Kind of the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,

    /// Name of the parent.
    pub name: String,

    /// Namespace of the parent; the route's own when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,

    /// A listener of the parent, by port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,

    /// A listener of the parent, by name.
    #[serde(rename = "sectionName")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_name: Option<String>,
}

/// Which requests match, and where they go.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRules {
    #[serde(rename = "backendRefs")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_refs: Option<Vec<HttpRouteSpecRulesBackendRefs>>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Vec<HttpRouteSpecRulesFilters>>,

    /// Conditions on requests; any one must hold.
    /// A rule without matches takes every request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<Vec<HttpRouteSpecRulesMatches>>,

    /// The name of the rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The value of `.spec.rules[].backendRefs[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Vec<HttpRouteSpecRulesBackendRefsFilters>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
}

/// One step of request processing.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFilters {
    #[serde(rename = "extensionRef")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_ref: Option<HttpRouteSpecRulesBackendRefsFiltersExtensionRef>,

    /// Changes to the headers of a request.
    #[serde(rename = "requestHeaderModifier")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_header_modifier: Option<HttpRouteSpecRulesBackendRefsFiltersRequestHeaderModifier>,

    #[serde(rename = "requestMirror")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_mirror: Option<HttpRouteSpecRulesBackendRefsFiltersRequestMirror>,

    #[serde(rename = "requestRedirect")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_redirect: Option<HttpRouteSpecRulesBackendRefsFiltersRequestRedirect>,

    /// Changes to the headers of a request.
    #[serde(rename = "responseHeaderModifier")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_header_modifier:
        Option<HttpRouteSpecRulesBackendRefsFiltersResponseHeaderModifier>,

    /// Which of the fields below applies.
    pub r#type: HttpRouteSpecRulesBackendRefsFiltersType,

    #[serde(rename = "urlRewrite")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_rewrite: Option<HttpRouteSpecRulesBackendRefsFiltersUrlRewrite>,
}

/// The value of `.spec.rules[].backendRefs[].filters[].extensionRef`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersExtensionRef {
    pub group: String,
    pub kind: String,
    pub name: String,
}

/// The value of `.spec.rules[].backendRefs[].filters[].requestHeaderModifier`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersRequestHeaderModifier {
    /// Headers to add to those present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<Vec<HttpRouteSpecRulesBackendRefsFiltersRequestHeaderModifierAdd>>,

    /// Headers to remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove: Option<Vec<String>>,

    /// Headers to set, replacing any value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<Vec<HttpRouteSpecRulesBackendRefsFiltersRequestHeaderModifierSet>>,
}

/// The value of `.spec.rules[].backendRefs[].filters[].requestHeaderModifier.add[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersRequestHeaderModifierAdd {
    /// Header name, case-insensitive.
    pub name: String,

    /// Header value.
    pub value: String,
}

/// The value of `.spec.rules[].backendRefs[].filters[].requestHeaderModifier.set[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersRequestHeaderModifierSet {
    /// Header name, case-insensitive.
    pub name: String,

    /// Header value.
    pub value: String,
}

/// The value of `.spec.rules[].backendRefs[].filters[].requestMirror`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersRequestMirror {
    #[serde(rename = "backendRef")]
    pub backend_ref: HttpRouteSpecRulesBackendRefsFiltersRequestMirrorBackendRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<i32>,
}

/// The value of `.spec.rules[].backendRefs[].filters[].requestMirror.backendRef`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersRequestMirrorBackendRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// The value of `.spec.rules[].backendRefs[].filters[].requestRedirect`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersRequestRedirect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<HttpRouteSpecRulesBackendRefsFiltersRequestRedirectScheme>,

    /// The redirect status: 301 or 302.
    #[serde(rename = "statusCode")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<i64>,
}

/// The value of `.spec.rules[].backendRefs[].filters[].requestRedirect.scheme`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesBackendRefsFiltersRequestRedirectScheme {
    #[default]
    #[serde(rename = "http")]
    Http,
    #[serde(rename = "https")]
    Https,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.rules[].backendRefs[].filters[].responseHeaderModifier`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersResponseHeaderModifier {
    /// Headers to add to those present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<Vec<HttpRouteSpecRulesBackendRefsFiltersResponseHeaderModifierAdd>>,

    /// Headers to remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove: Option<Vec<String>>,

    /// Headers to set, replacing any value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<Vec<HttpRouteSpecRulesBackendRefsFiltersResponseHeaderModifierSet>>,
}

/// The value of `.spec.rules[].backendRefs[].filters[].responseHeaderModifier.add[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersResponseHeaderModifierAdd {
    /// Header name, case-insensitive.
    pub name: String,

    /// Header value.
    pub value: String,
}

/// The value of `.spec.rules[].backendRefs[].filters[].responseHeaderModifier.set[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersResponseHeaderModifierSet {
    /// Header name, case-insensitive.
    pub name: String,

    /// Header value.
    pub value: String,
}

/// The value of `.spec.rules[].backendRefs[].filters[].type`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesBackendRefsFiltersType {
    #[default]
    RequestHeaderModifier,
    ResponseHeaderModifier,
    RequestMirror,
    RequestRedirect,
    #[serde(rename = "URLRewrite")]
    UrlRewrite,
    ExtensionRef,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.rules[].backendRefs[].filters[].urlRewrite`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersUrlRewrite {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<HttpRouteSpecRulesBackendRefsFiltersUrlRewritePath>,
}

/// The value of `.spec.rules[].backendRefs[].filters[].urlRewrite.path`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesBackendRefsFiltersUrlRewritePath {
    #[serde(rename = "replaceFullPath")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_full_path: Option<String>,
    #[serde(rename = "replacePrefixMatch")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_prefix_match: Option<String>,
    pub r#type: HttpRouteSpecRulesBackendRefsFiltersUrlRewritePathType,
}

/// The value of `.spec.rules[].backendRefs[].filters[].urlRewrite.path.type`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesBackendRefsFiltersUrlRewritePathType {
    #[default]
    ReplaceFullPath,
    ReplacePrefixMatch,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// One step of request processing.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFilters {
    #[serde(rename = "extensionRef")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_ref: Option<HttpRouteSpecRulesFiltersExtensionRef>,

    /// Changes to the headers of a request.
    #[serde(rename = "requestHeaderModifier")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_header_modifier: Option<HttpRouteSpecRulesFiltersRequestHeaderModifier>,

    #[serde(rename = "requestMirror")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_mirror: Option<HttpRouteSpecRulesFiltersRequestMirror>,

    #[serde(rename = "requestRedirect")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_redirect: Option<HttpRouteSpecRulesFiltersRequestRedirect>,

    /// Changes to the headers of a request.
    #[serde(rename = "responseHeaderModifier")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_header_modifier: Option<HttpRouteSpecRulesFiltersResponseHeaderModifier>,

    /// Which of the fields below applies.
    pub r#type: HttpRouteSpecRulesFiltersType,

    #[serde(rename = "urlRewrite")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_rewrite: Option<HttpRouteSpecRulesFiltersUrlRewrite>,
}

/// The value of `.spec.rules[].filters[].extensionRef`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersExtensionRef {
    pub group: String,
    pub kind: String,
    pub name: String,
}

/// The value of `.spec.rules[].filters[].requestHeaderModifier`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersRequestHeaderModifier {
    /// Headers to add to those present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<Vec<HttpRouteSpecRulesFiltersRequestHeaderModifierAdd>>,

    /// Headers to remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove: Option<Vec<String>>,

    /// Headers to set, replacing any value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<Vec<HttpRouteSpecRulesFiltersRequestHeaderModifierSet>>,
}

/// The value of `.spec.rules[].filters[].requestHeaderModifier.add[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersRequestHeaderModifierAdd {
    /// Header name, case-insensitive.
    pub name: String,

    /// Header value.
    pub value: String,
}

/// The value of `.spec.rules[].filters[].requestHeaderModifier.set[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersRequestHeaderModifierSet {
    /// Header name, case-insensitive.
    pub name: String,

    /// Header value.
    pub value: String,
}

/// The value of `.spec.rules[].filters[].requestMirror`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersRequestMirror {
    #[serde(rename = "backendRef")]
    pub backend_ref: HttpRouteSpecRulesFiltersRequestMirrorBackendRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<i32>,
}

/// The value of `.spec.rules[].filters[].requestMirror.backendRef`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersRequestMirrorBackendRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// The value of `.spec.rules[].filters[].requestRedirect`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersRequestRedirect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<HttpRouteSpecRulesFiltersRequestRedirectScheme>,

    /// The redirect status: 301 or 302.
    #[serde(rename = "statusCode")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<i64>,
}

/// The value of `.spec.rules[].filters[].requestRedirect.scheme`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesFiltersRequestRedirectScheme {
    #[default]
    #[serde(rename = "http")]
    Http,
    #[serde(rename = "https")]
    Https,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.rules[].filters[].responseHeaderModifier`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersResponseHeaderModifier {
    /// Headers to add to those present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<Vec<HttpRouteSpecRulesFiltersResponseHeaderModifierAdd>>,

    /// Headers to remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove: Option<Vec<String>>,

    /// Headers to set, replacing any value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<Vec<HttpRouteSpecRulesFiltersResponseHeaderModifierSet>>,
}

/// The value of `.spec.rules[].filters[].responseHeaderModifier.add[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersResponseHeaderModifierAdd {
    /// Header name, case-insensitive.
    pub name: String,

    /// Header value.
    pub value: String,
}

/// The value of `.spec.rules[].filters[].responseHeaderModifier.set[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersResponseHeaderModifierSet {
    /// Header name, case-insensitive.
    pub name: String,

    /// Header value.
    pub value: String,
}

/// The value of `.spec.rules[].filters[].type`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesFiltersType {
    #[default]
    RequestHeaderModifier,
    ResponseHeaderModifier,
    RequestMirror,
    RequestRedirect,
    #[serde(rename = "URLRewrite")]
    UrlRewrite,
    ExtensionRef,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.rules[].filters[].urlRewrite`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersUrlRewrite {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<HttpRouteSpecRulesFiltersUrlRewritePath>,
}

/// The value of `.spec.rules[].filters[].urlRewrite.path`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesFiltersUrlRewritePath {
    #[serde(rename = "replaceFullPath")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_full_path: Option<String>,
    #[serde(rename = "replacePrefixMatch")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_prefix_match: Option<String>,
    pub r#type: HttpRouteSpecRulesFiltersUrlRewritePathType,
}

/// The value of `.spec.rules[].filters[].urlRewrite.path.type`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesFiltersUrlRewritePathType {
    #[default]
    ReplaceFullPath,
    ReplacePrefixMatch,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.rules[].matches[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesMatches {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<HttpRouteSpecRulesMatchesHeaders>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<HttpRouteSpecRulesMatchesMethod>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<HttpRouteSpecRulesMatchesPath>,
    #[serde(rename = "queryParams")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_params: Option<Vec<HttpRouteSpecRulesMatchesQueryParams>>,
}

/// The value of `.spec.rules[].matches[].headers[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesMatchesHeaders {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<HttpRouteSpecRulesMatchesHeadersType>,
    pub value: String,
}

/// The value of `.spec.rules[].matches[].headers[].type`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesMatchesHeadersType {
    #[default]
    Exact,
    RegularExpression,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.rules[].matches[].method`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesMatchesMethod {
    #[default]
    #[serde(rename = "GET")]
    Get,
    #[serde(rename = "HEAD")]
    Head,
    #[serde(rename = "POST")]
    Post,
    #[serde(rename = "PUT")]
    Put,
    #[serde(rename = "DELETE")]
    Delete,
    #[serde(rename = "CONNECT")]
    Connect,
    #[serde(rename = "OPTIONS")]
    Options,
    #[serde(rename = "TRACE")]
    Trace,
    #[serde(rename = "PATCH")]
    Patch,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.rules[].matches[].path`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesMatchesPath {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<HttpRouteSpecRulesMatchesPathType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// The value of `.spec.rules[].matches[].path.type`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesMatchesPathType {
    #[default]
    Exact,
    PathPrefix,
    RegularExpression,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.rules[].matches[].queryParams[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteSpecRulesMatchesQueryParams {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<HttpRouteSpecRulesMatchesQueryParamsType>,
    pub value: String,
}

/// The value of `.spec.rules[].matches[].queryParams[].type`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteSpecRulesMatchesQueryParamsType {
    #[default]
    Exact,
    RegularExpression,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// How each parent took the route.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteStatus {
    pub parents: Vec<HttpRouteStatusParents>,
}

/// The value of `.status.parents[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteStatusParents {
    pub conditions: Vec<HttpRouteStatusParentsConditions>,

    /// The controller that wrote this entry, e.g. `example.net/gateway-controller`.
    #[serde(rename = "controllerName")]
    pub controller_name: String,

    /// A Gateway (or another parent) this route attaches to.
    #[serde(rename = "parentRef")]
    pub parent_ref: HttpRouteStatusParentsParentRef,
}

/// The value of `.status.parents[].conditions[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteStatusParentsConditions {
    #[serde(rename = "lastTransitionTime")]
    pub last_transition_time: String,
    pub message: String,
    #[serde(rename = "observedGeneration")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    pub reason: String,
    pub status: HttpRouteStatusParentsConditionsStatus,
    pub r#type: String,
}

/// The value of `.status.parents[].conditions[].status`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum HttpRouteStatusParentsConditionsStatus {
    #[default]
    True,
    False,
    Unknown,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown2(String),
}

/// The value of `.status.parents[].parentRef`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct HttpRouteStatusParentsParentRef {
    /// Group of the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,

    /// Kind of the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,

    /// Name of the parent.
    pub name: String,

    /// Namespace of the parent; the route's own when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,

    /// A listener of the parent, by port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,

    /// A listener of the parent, by name.
    #[serde(rename = "sectionName")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_name: Option<String>,
}
