//! Logging: human-readable text locally, JSON in the cluster; `RUST_LOG` filters.

use clap::ValueEnum;
use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LogFormat {
    /// For people: one readable line per event.
    Text,
    /// For log collectors: one JSON object per line.
    Json,
}

/// Installs the process's logger, in `format`, filtered by `RUST_LOG` (default `info`).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}
