use std::process::ExitCode;

// Reading Rust sources and building schemas makes and drops millions of small values
// (tokens, syntax trees, JSON nodes). On a kopium-style CRD, glibc's malloc and free took
// about a third of `generate crds`; mimalloc takes a tenth, and the run 40 % less time
// (bench/README, "generate crds").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    rsbuilder::cli::run(std::env::args_os())
}
