# testdata/project-init: a fresh project, no API yet.
rsbuilder init --domain example.com --owner "Example Inc." --project-name project-init
