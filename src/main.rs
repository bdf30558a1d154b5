use std::process::ExitCode;

fn main() -> ExitCode {
    rsbuilder::cli::run(std::env::args_os())
}
