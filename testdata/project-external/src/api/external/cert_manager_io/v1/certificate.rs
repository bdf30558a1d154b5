// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Certificate (cert-manager.io/v1), a kind this project uses but does not own, as the
//! CustomResourceDefinition kept in `config/external-crds/cert-manager.io_certificates.yaml`
//! describes it. rsbuilder generated this file from that CRD; it is yours to edit, and `rsbuilder
//! create api --from-crd <CRD> --force` generates it again.

use std::collections::BTreeMap;

use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// What certificate to issue, and where to keep it.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "cert-manager.io",
    version = "v1",
    kind = "Certificate",
    plural = "certificates",
    namespaced,
    status = "CertificateStatus",
    shortname = "cert",
    shortname = "certs",
    category = "cert-manager",
    printcolumn = r#"{"jsonPath":".status.conditions[?(@.type==\"Ready\")].status","name":"Ready","type":"string"}"#,
    printcolumn = r#"{"jsonPath":".spec.secretName","name":"Secret","type":"string"}"#,
    printcolumn = r#"{"jsonPath":".spec.issuerRef.name","name":"Issuer","priority":1,"type":"string"}"#,
    printcolumn = r#"{"jsonPath":".status.conditions[?(@.type==\"Ready\")].message","name":"Status","priority":1,"type":"string"}"#,
    printcolumn = r#"{"description":"When the object was created.","jsonPath":".metadata.creationTimestamp","name":"Age","type":"date"}"#,
    schema = "disabled",
    derive = "Default",
    derive = "PartialEq"
)]
pub struct CertificateSpec {
    /// The subject's common name.
    /// See RFC 5280, section 4.1.2.6:
    /// clients ignore it when a subject alternative name is set
    ///
    /// At most 64 characters.
    #[serde(rename = "commonName")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_name: Option<String>,

    /// DNS names the certificate is valid for.
    #[serde(rename = "dnsNames")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_names: Option<Vec<String>>,

    /// How long the certificate is valid, as a Go duration:
    /// - `2160h` (the default)
    /// - at least `1h`
    ///
    /// The issuer may ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,

    /// IP addresses the certificate is valid for.
    #[serde(rename = "ipAddresses")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_addresses: Option<Vec<String>>,

    /// Whether the certificate may sign others; `true` adds the `cert sign` usage.
    #[serde(rename = "isCA")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_ca: Option<bool>,

    /// The issuer that signs the certificate: one in the same namespace, or a
    /// cluster-scoped one.
    #[serde(rename = "issuerRef")]
    pub issuer_ref: CertificateSpecIssuerRef,

    /// Keystores to write into the Secret as well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keystores: Option<CertificateSpecKeystores>,

    /// How the private key is made, encoded and rotated.
    #[serde(rename = "privateKey")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<CertificateSpecPrivateKey>,

    /// How long before expiry to renew, as a Go duration.
    #[serde(rename = "renewBefore")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_before: Option<String>,

    /// How many CertificateRequests to keep; at least 1.
    #[serde(rename = "revisionHistoryLimit")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i32>,

    /// The Secret that receives the key and the certificate, in the Certificate's namespace.
    #[serde(rename = "secretName")]
    pub secret_name: String,

    /// Labels and annotations to copy onto the Secret.
    #[serde(rename = "secretTemplate")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_template: Option<CertificateSpecSecretTemplate>,

    /// Other subject attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<CertificateSpecSubject>,

    /// Key usages and extended key usages to request.
    /// Defaults: `digital signature`, `key encipherment`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usages: Option<Vec<CertificateSpecUsages>>,
}

/// The value of `.spec.issuerRef`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateSpecIssuerRef {
    /// Group of the referenced resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,

    /// Kind of the referenced resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,

    /// Name of the referenced resource.
    pub name: String,
}

/// The value of `.spec.keystores`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateSpecKeystores {
    /// A Java keystore in the Secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jks: Option<CertificateSpecKeystoresJks>,

    /// A PKCS#12 keystore in the Secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pkcs12: Option<CertificateSpecKeystoresPkcs12>,
}

/// The value of `.spec.keystores.jks`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateSpecKeystoresJks {
    /// The key's alias in the keystore (default: `certificate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,

    /// Whether to write the keystore.
    pub create: bool,

    /// The Secret key that holds the keystore's password.
    #[serde(rename = "passwordSecretRef")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_secret_ref: Option<CertificateSpecKeystoresJksPasswordSecretRef>,
}

/// The value of `.spec.keystores.jks.passwordSecretRef`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateSpecKeystoresJksPasswordSecretRef {
    /// The key in the Secret's `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,

    /// Name of the referenced resource.
    pub name: String,
}

/// The value of `.spec.keystores.pkcs12`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateSpecKeystoresPkcs12 {
    /// Whether to write the keystore.
    pub create: bool,

    /// The algorithms of the keystore:
    ///
    /// * `LegacyRC2`: the old default
    /// * `LegacyDES`: for old readers
    /// * `Modern2023`: for new ones
    ///
    /// For example:
    /// ```text
    /// pkcs12:
    ///   create: true
    ///   profile: Modern2023
    /// ```
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<CertificateSpecKeystoresPkcs12Profile>,
}

/// The value of `.spec.keystores.pkcs12.profile`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum CertificateSpecKeystoresPkcs12Profile {
    #[default]
    #[serde(rename = "LegacyRC2")]
    LegacyRc2,
    #[serde(rename = "LegacyDES")]
    LegacyDes,
    Modern2023,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.privateKey`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateSpecPrivateKey {
    /// The key algorithm.
    /// > RSA keys default to 2048 bits,
    ///
    /// ECDSA keys to 256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<CertificateSpecPrivateKeyAlgorithm>,

    /// The PKCS encoding of the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<CertificateSpecPrivateKeyEncoding>,

    /// Whether a new key is made at each issuance (`Always`) or only when none exists (`Never`).
    #[serde(rename = "rotationPolicy")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation_policy: Option<CertificateSpecPrivateKeyRotationPolicy>,

    /// The key size in bits; ignored for Ed25519.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
}

/// The value of `.spec.privateKey.algorithm`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum CertificateSpecPrivateKeyAlgorithm {
    #[default]
    #[serde(rename = "RSA")]
    Rsa,
    #[serde(rename = "ECDSA")]
    Ecdsa,
    Ed25519,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.privateKey.encoding`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum CertificateSpecPrivateKeyEncoding {
    #[default]
    #[serde(rename = "PKCS1")]
    Pkcs1,
    #[serde(rename = "PKCS8")]
    Pkcs8,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.privateKey.rotationPolicy`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum CertificateSpecPrivateKeyRotationPolicy {
    #[default]
    Never,
    Always,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.secretTemplate`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateSpecSecretTemplate {
    /// Annotations of the Secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,

    /// Labels of the Secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
}

/// The value of `.spec.subject`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateSpecSubject {
    /// Country names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub countries: Option<Vec<String>>,

    /// Organizational unit names.
    #[serde(rename = "organizationalUnits")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organizational_units: Option<Vec<String>>,

    /// Organization names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organizations: Option<Vec<String>>,

    /// The subject's serial number.
    #[serde(rename = "serialNumber")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_number: Option<String>,
}

/// One key usage.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum CertificateSpecUsages {
    #[default]
    #[serde(rename = "signing")]
    Signing,
    #[serde(rename = "digital signature")]
    DigitalSignature,
    #[serde(rename = "content commitment")]
    ContentCommitment,
    #[serde(rename = "key encipherment")]
    KeyEncipherment,
    #[serde(rename = "key agreement")]
    KeyAgreement,
    #[serde(rename = "data encipherment")]
    DataEncipherment,
    #[serde(rename = "cert sign")]
    CertSign,
    #[serde(rename = "crl sign")]
    CrlSign,
    #[serde(rename = "encipher only")]
    EncipherOnly,
    #[serde(rename = "decipher only")]
    DecipherOnly,
    #[serde(rename = "any")]
    Any,
    #[serde(rename = "server auth")]
    ServerAuth,
    #[serde(rename = "client auth")]
    ClientAuth,
    #[serde(rename = "code signing")]
    CodeSigning,
    #[serde(rename = "email protection")]
    EmailProtection,
    #[serde(rename = "s/mime")]
    SMime,
    #[serde(rename = "ipsec end system")]
    IpsecEndSystem,
    #[serde(rename = "ipsec tunnel")]
    IpsecTunnel,
    #[serde(rename = "ipsec user")]
    IpsecUser,
    #[serde(rename = "timestamping")]
    Timestamping,
    #[serde(rename = "ocsp signing")]
    OcspSigning,
    #[serde(rename = "microsoft sgc")]
    MicrosoftSgc,
    #[serde(rename = "netscape sgc")]
    NetscapeSgc,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// What the issuer last did. Written by the issuer, read-only for others.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateStatus {
    /// The conditions of the certificate: `Ready`, `Issuing`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<CertificateStatusConditions>>,

    /// Failed issuances in a row; the next try waits 2^(n-1) hours.
    #[serde(rename = "failedIssuanceAttempts")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_issuance_attempts: Option<i64>,

    /// When the last issuance failed.
    #[serde(rename = "lastFailureTime")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure_time: Option<String>,

    /// The Secret of the key of the next issuance.
    #[serde(rename = "nextPrivateKeySecretName")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_private_key_secret_name: Option<String>,

    /// When the certificate expires.
    #[serde(rename = "notAfter")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_after: Option<String>,

    /// When the certificate becomes valid.
    #[serde(rename = "notBefore")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<String>,

    /// When the certificate is renewed next.
    #[serde(rename = "renewalTime")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renewal_time: Option<String>,

    /// The revision of the certificate issued last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
}

/// One condition of the certificate.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct CertificateStatusConditions {
    /// When the condition last changed.
    #[serde(rename = "lastTransitionTime")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,

    /// Details of the last change, for humans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,

    /// The `.metadata.generation` the condition was computed from.
    #[serde(rename = "observedGeneration")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,

    /// Why the condition last changed, for machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,

    /// The condition's status.
    pub status: CertificateStatusConditionsStatus,

    /// The condition's type.
    pub r#type: String,
}

/// The value of `.status.conditions[].status`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum CertificateStatusConditionsStatus {
    #[default]
    True,
    False,
    Unknown,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown2(String),
}
