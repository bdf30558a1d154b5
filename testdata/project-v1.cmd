# testdata/project-v1: one kind in three versions (v1 stored) whose controller keeps a
# finalizer, a cluster-scoped kind without one, and a controller for a built-in kind.
# --fetch-deps=false: no Cargo.lock, whose contents change with crates.io.
rsbuilder init --domain example.com --owner "Example Inc." --project-name project-v1 --fetch-deps=false
rsbuilder create api --group batch --version v1alpha1 --kind CronJob --finalizer
rsbuilder create api --group batch --version v1beta1 --kind CronJob
rsbuilder create api --group batch --version v1 --kind CronJob
rsbuilder edit --storage-version v1 --kind CronJob --group batch
rsbuilder create api --group infra --version v1 --kind Tenant --cluster-scoped
rsbuilder create api --group apps --version v1 --kind Deployment --resource=false --controller
# CronJob converts between its versions through v1, and v1 has defaulting and validation.
rsbuilder create webhook --group batch --version v1 --kind CronJob --conversion --spoke v1alpha1,v1beta1
rsbuilder create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation
# The operator as a Helm chart too (dist/chart), made from config/ and kept in step with it.
rsbuilder edit --helm
