# testdata/project-external: kinds the project uses but does not own, typed from their
# CRDs (testdata/external-crds, written for these tests): a controller for a kind with a
# status subresource and printer columns, for a non-storage version of a CRD with several,
# and for a cluster-scoped kind; the types alone of a kind with a scale subresource; and a
# kind of its own, whose CRD is generated while the external ones are not.
# $TESTDATA is the testdata directory (the golden tests expand it).
# --fetch-deps=false: no Cargo.lock, whose contents change with crates.io.
rsbuilder init --domain example.com --owner "Example Inc." --project-name project-external --fetch-deps=false
rsbuilder create api --from-crd $TESTDATA/external-crds/certificate.yaml --controller
rsbuilder create api --from-crd $TESTDATA/external-crds/gateway-api.yaml --kind HTTPRoute --version v1beta1 --controller
rsbuilder create api --from-crd $TESTDATA/external-crds/servicemonitor.yaml --controller
rsbuilder create api --from-crd $TESTDATA/external-crds/rollout.yaml
rsbuilder create api --group web --version v1 --kind Site --controller=false
