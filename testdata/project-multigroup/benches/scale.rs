// Copyright Example Org
// SPDX-License-Identifier: MIT

//! The manager at scale, against a real API server: `make bench-scale N=1000 BENCH_KIND=<Kind>`
//! runs it as its own process, creates N objects of the kind and prints the time to all
//! Ready beside a plain client's floor, the writes counted by the API server, the
//! manager's memory over the objects' size, its startup with N objects, and the conversion
//! of N objects a page at a time. What each figure means: `rsbuilder_runtime::testing::scale`.

fn main() -> std::process::ExitCode {
    rsbuilder_runtime::testing::scale::main(
        env!("CARGO_MANIFEST_DIR"),
        env!("CARGO_BIN_EXE_manager"),
        project_multigroup::LEADER_ELECTION_LEASE,
    )
}
