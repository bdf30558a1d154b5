// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The project's webhook server, as the control plane of the tests runs it: the
//! manager's own (`webhooks::serve`), on a port and with a certificate of the tests.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use project_certs::server::Health;
use project_certs::shutdown::Shutdown;
use project_certs::webhooks;

/// Serves the webhooks until the test binary ends.
pub fn serve(
    port: u16,
    cert_dir: PathBuf,
) -> Pin<Box<dyn Future<Output = anyhow::Result<()>> + Send>> {
    let (trigger, shutdown) = Shutdown::channel();
    // Never fired: the server stops with the test binary.
    std::mem::forget(trigger);
    let ready = Health::default().part("webhook-server");
    Box::pin(webhooks::serve(
        port,
        cert_dir,
        webhooks::CONVERSION_BODY_LIMIT,
        ready,
        shutdown,
    ))
}
