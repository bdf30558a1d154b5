//! Standard output and error that may not be writable (`>/dev/full`, a closed pipe).
//! `println!` and `eprintln!` panic there (exit 101); every line rsbuilder prints goes
//! through [`outln!`](crate::outln) / [`errln!`](crate::errln) instead, which remember the
//! failure so that `cli::run` exits 1 once the command has finished what it was doing.
//! clippy.toml forbids the panicking macros.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes to stdout; a failure is remembered, not raised.
pub fn out(args: fmt::Arguments<'_>) {
    if io::stdout().lock().write_fmt(args).is_err() {
        STDOUT_FAILED.store(true, Ordering::Relaxed);
    }
}

/// Writes to stderr; a failure is remembered, not raised.
pub fn err(args: fmt::Arguments<'_>) {
    if io::stderr().lock().write_fmt(args).is_err() {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

/// Writes `bytes` to stdout, flushed; a failure is remembered.
pub fn out_bytes(bytes: &[u8]) {
    let mut stdout = io::stdout().lock();
    if stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .is_err()
    {
        STDOUT_FAILED.store(true, Ordering::Relaxed);
    }
}

/// What could not be written, for the exit code: `None` when everything was.
pub fn failure() -> Option<&'static str> {
    // Stdout is line-buffered only on a terminal: flush what is left to find out.
    if io::stdout().lock().flush().is_err() {
        STDOUT_FAILED.store(true, Ordering::Relaxed);
    }
    if STDOUT_FAILED.load(Ordering::Relaxed) {
        Some("standard output")
    } else if STDERR_FAILED.load(Ordering::Relaxed) {
        Some("standard error")
    } else {
        None
    }
}

/// `println!` that never panics: see [`console`](crate::console).
#[macro_export]
macro_rules! outln {
    () => { $crate::console::out(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::console::out(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` that never panics.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::console::out(format_args!($($arg)*)) };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => { $crate::console::err(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `eprint!` that never panics.
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => { $crate::console::err(format_args!($($arg)*)) };
}
