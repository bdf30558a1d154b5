use std::alloc::{GlobalAlloc, Layout};
use std::process::ExitCode;

use libmimalloc_sys as mi;

// Reading Rust sources and building schemas makes and drops millions of small values
// (tokens, syntax trees, JSON nodes). On a kopium-style CRD, glibc's malloc and free took
// about a third of `generate crds`; mimalloc takes a tenth, and the run 40 % less time
// (bench/README, "generate crds").
#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// mimalloc, through its plain entry points where they give the alignment asked for.
/// The `mimalloc` crate calls the aligned ones for every allocation, and those cost about
/// a third more on `generate crds`' millions of small ones; a layout aligned beyond a word
/// (which every mimalloc block is) still goes to them.
struct Allocator;

const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: each call forwards to the mimalloc function of the same contract; blocks of
// both kinds are freed and resized by the same `mi_free` / `mi_realloc` family.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { mi::mi_malloc(layout.size()).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { mi::mi_zalloc(layout.size()).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { mi::mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

fn main() -> ExitCode {
    rsbuilder::cli::run(std::env::args_os())
}
