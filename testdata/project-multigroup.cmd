# testdata/project-multigroup: a namespaced project (Roles, one watched namespace) with a
# kind in each of two API groups, one of them named like a type the generated code uses.
# --fetch-deps=false: no Cargo.lock, whose contents change with crates.io.
rsbuilder init --domain example.org --project-name project-multigroup --namespaced --license mit --owner "Example Org" --fetch-deps=false
rsbuilder create api --group ship --version v1beta1 --kind Frigate
rsbuilder create api --group sea-creatures --version v1 --kind Kraken
# A kind named like a type the generated code uses (it names it `metav1::Condition`).
rsbuilder create api --group ship --version v1beta1 --kind Condition
# The operator as a Helm chart too (dist/chart), made from config/ and kept in step with it.
rsbuilder edit --helm
