# testdata/project-init: a fresh project, no API yet.
# --fetch-deps=false: no Cargo.lock, whose contents change with crates.io.
rsbuilder init --domain example.com --owner "Example Inc." --project-name project-init --fetch-deps=false
