//! An allocator that counts the bytes allocated now and at the peak, for the tests that
//! measure memory. Each such test binary includes this file and installs it:
//!
//! ```ignore
//! #[path = "support/allocations.rs"]
//! mod allocations;
//!
//! #[global_allocator]
//! static ALLOCATOR: allocations::Counting = allocations::Counting;
//! ```
//!
//! The counts are the whole process's: a binary that measures holds one test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system's allocator, counting.
pub struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = ALLOCATED.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    ALLOCATED.fetch_sub(bytes, Ordering::Relaxed);
}

// SAFETY: every call goes to `System` unchanged; only the counts are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees, passed on.
        let allocated = unsafe { System.alloc(layout) };
        if !allocated.is_null() {
            grew(layout.size());
        }
        allocated
    }

    unsafe fn dealloc(&self, allocated: *mut u8, layout: Layout) {
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.dealloc(allocated, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, allocated: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        // SAFETY: the caller's guarantees, passed on.
        let moved = unsafe { System.realloc(allocated, layout, size) };
        if !moved.is_null() {
            if size > layout.size() {
                grew(size - layout.size());
            } else {
                shrank(layout.size() - size);
            }
        }
        moved
    }
}

/// The bytes allocated now, and not freed.
#[allow(dead_code)] // each test binary that includes this file uses what it needs
pub fn allocated() -> usize {
    ALLOCATED.load(Ordering::Relaxed)
}

/// A measurement of the peak, from when it starts.
#[allow(dead_code)]
pub struct Peak {
    before: usize,
}

#[allow(dead_code)]
impl Peak {
    pub fn start() -> Self {
        let before = ALLOCATED.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        Self { before }
    }

    /// The most bytes allocated at once since the start, beyond what was then.
    pub fn bytes(&self) -> usize {
        PEAK.load(Ordering::Relaxed).saturating_sub(self.before)
    }
}
