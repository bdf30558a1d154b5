//! kube's structural rewrite panics on shapes it rejects; `generate crds` catches the panic
//! and reports it as a diagnostic, without printing it. That quiet must hold for the
//! rewriting thread only: a panic anywhere else still reaches the panic hook, while schemas
//! are being rewritten on other threads and after they are done. (Swapping the
//! process-wide hook around each rewrite lost those panics, and kept the silent hook for
//! good when two rewrites overlapped.) Its own test binary: the panic hook is the
//! process's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rsbuilder::crd::transforms::{apply, generator};
use schemars::Schema;
use serde_json::json;

static REPORTED: AtomicUsize = AtomicUsize::new(0);

/// A schema kube's rewriter panics on: two variants give `a` different types.
fn conflicting() -> Schema {
    serde_json::from_value(json!({"oneOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"a": {"type": "integer"}}}
    ]}))
    .unwrap()
}

#[test]
fn panics_elsewhere_reach_the_hook_while_schemas_are_rewritten() {
    std::panic::set_hook(Box::new(|_| {
        REPORTED.fetch_add(1, Ordering::SeqCst);
    }));
    let done = Arc::new(AtomicBool::new(false));
    let rewriters: Vec<_> = (0..4)
        .map(|_| {
            let done = done.clone();
            std::thread::spawn(move || {
                let mut rewrites = 0;
                while !done.load(Ordering::SeqCst) || rewrites == 0 {
                    assert!(apply(&mut generator(), &mut conflicting()).is_err());
                    rewrites += 1;
                }
            })
        })
        .collect();
    let elsewhere = 200;
    for _ in 0..elsewhere {
        assert!(std::thread::spawn(|| panic!("elsewhere")).join().is_err());
    }
    done.store(true, Ordering::SeqCst);
    for rewriter in rewriters {
        rewriter.join().unwrap();
    }
    assert!(std::thread::spawn(|| panic!("afterwards")).join().is_err());
    // The default hook again, so that a failure below is printed.
    drop(std::panic::take_hook());
    // The rewriters' own panics are quiet; every other one was reported.
    assert_eq!(REPORTED.load(Ordering::SeqCst), elsewhere + 1);
}
