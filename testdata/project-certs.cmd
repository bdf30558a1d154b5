# testdata/project-certs: webhooks whose certificate the manager issues itself
# (--webhook-certs self): a kind in two versions converting through v2, which also has
# defaulting and validation. No cert-manager object or annotation in config/.
# --fetch-deps=false: no Cargo.lock, whose contents change with crates.io.
rsbuilder init --domain example.com --owner "Example Inc." --project-name project-certs --webhook-certs self --fetch-deps=false
rsbuilder create api --group ship --version v1 --kind Frigate
rsbuilder create api --group ship --version v2 --kind Frigate
rsbuilder edit --storage-version v2 --kind Frigate --group ship
rsbuilder create webhook --group ship --version v2 --kind Frigate --conversion --spoke v1
rsbuilder create webhook --group ship --version v2 --kind Frigate --defaulting --programmatic-validation
# The operator as a Helm chart too (dist/chart), made from config/ and kept in step with it.
rsbuilder edit --helm
