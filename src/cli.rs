//! The command line (DESIGN §1) and the mapping of outcomes to exit codes.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::commands;
use crate::context::Global;
use crate::lock::Access;
use crate::scaffold::Output;

#[derive(Debug, Parser)]
#[command(
    name = "rsbuilder",
    version,
    about = "Scaffold and grow Kubernetes operators written with kube-rs"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Run as if rsbuilder was started in DIR
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,
    /// Print the files that would change, with unified diffs, and write nothing
    #[arg(long, global = true)]
    pub dry_run: bool,
    /// Print nothing but errors
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print the cause chain of errors
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new operator project in the current (empty) directory
    #[command(
        after_help = "Example:\n  mkdir guestbook && cd guestbook\n  rsbuilder init --domain example.com --owner \"Example Inc.\""
    )]
    Init(commands::init::InitArgs),
    /// Grow the project: an API (a kind, a new version of one, a controller)
    #[command(subcommand)]
    Create(CreateCommand),
    /// Change a decision recorded in the project, such as a kind's storage version
    #[command(
        after_help = "Example:\n  rsbuilder edit --storage-version v1 --kind CronJob --group batch"
    )]
    Edit(commands::edit::EditArgs),
    /// Regenerate the files rsbuilder owns from the Rust source
    #[command(subcommand)]
    Generate(commands::generate::GenerateCommand),
    /// Review the API offline: CEL rules, samples, printer columns, versions, size, RBAC
    #[command(
        after_help = "Examples:\n  rsbuilder lint                        # in a project\n  rsbuilder lint --deny warnings --format json\n  rsbuilder lint --crds config/crd/bases --samples config/samples\n  rsbuilder lint --explain cel-invalid"
    )]
    Lint(commands::lint::LintArgs),
    /// Experimental commands
    #[command(subcommand)]
    Alpha(commands::alpha::AlphaCommand),
    /// kube-apiserver and etcd for envtest tests, as setup-envtest provides them
    #[command(subcommand)]
    Envtest(commands::envtest::EnvtestCommand),
    /// Print shell completions
    #[command(
        after_help = "Example:\n  rsbuilder completion bash > /etc/bash_completion.d/rsbuilder"
    )]
    Completion {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print rsbuilder's version and the versions of the crates it generates for
    Version,
}

#[derive(Debug, Subcommand)]
pub enum CreateCommand {
    /// Add a kind, a new version of a kind, a controller, or the types of a kind you do not
    /// own from its CRD
    #[command(
        after_help = "Examples:\n  rsbuilder create api --group batch --version v1alpha1 --kind CronJob\n  rsbuilder create api --group infra --version v1 --kind Tenant --cluster-scoped\n  rsbuilder create api --group storage --version v1 --kind Bucket --finalizer\n  rsbuilder create api --group apps --version v1 --kind Deployment --resource=false --controller\n  rsbuilder create api --from-crd cert-manager.crds.yaml --kind Certificate --controller"
    )]
    Api(commands::create::api::ApiArgs),
    /// Add defaulting, validating or conversion webhooks to a kind
    #[command(
        after_help = "Examples:\n  rsbuilder create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation\n  rsbuilder create webhook --group batch --version v1 --kind CronJob --conversion --spoke v1alpha1,v1beta1"
    )]
    Webhook(commands::create::webhook::WebhookArgs),
}

pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let printed = e.print().is_ok();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else if printed {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE // --help or --version into a full stdout
            };
        }
    };
    let out = Output::detect(cli.global.quiet, cli.global.verbose);
    // Commands read Rust, which recurses as deep as the input nests: see crate::syntax.
    let result = crate::syntax::with_big_stack(|| dispatch(cli, out)).unwrap_or_else(|e| {
        Err(anyhow::anyhow!(
            "cannot start rsbuilder's worker thread: {e}"
        ))
    });
    match result {
        // The command did its work, but what it had to say was lost: a script reading
        // its output must not take it for complete.
        Ok(()) => match crate::console::failure() {
            None => ExitCode::SUCCESS,
            Some(stream) => {
                crate::errln!("error: cannot write to {stream}; the command itself completed");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            if out.verbose {
                crate::errln!("error: {e:#}");
            } else {
                crate::errln!("error: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

fn dispatch(cli: Cli, out: Output) -> anyhow::Result<()> {
    // Like `git -C`: relative paths in arguments and messages are relative to DIR.
    if let Some(dir) = &cli.global.dir {
        std::env::set_current_dir(dir)
            .map_err(|_| anyhow::anyhow!("-C {}: no such directory", dir.display()))?;
    }
    let dir = std::env::current_dir().context("cannot determine the current directory")?;
    let global = Global {
        dir,
        dry_run: cli.global.dry_run,
        out,
    };
    let _held = match access(&cli.command, &global) {
        Some((dir, access)) => Some(commands::hold(&dir, access, &global)?),
        None => None,
    };
    execute(cli.command, &global)
}

/// The directory a command reads and writes, and whether it writes there; `None` for a
/// command that works outside any project.
fn access(command: &Command, global: &Global) -> Option<(PathBuf, Access)> {
    use commands::generate::GenerateCommand as G;
    let writes = |check: bool| {
        if check || global.dry_run {
            Access::Read
        } else {
            Access::Write
        }
    };
    let access = match command {
        Command::Init(_) | Command::Create(_) | Command::Edit(_) => writes(false),
        Command::Generate(G::Crds(args)) => writes(args.check),
        Command::Generate(G::Rbac(args)) => writes(args.check),
        Command::Generate(G::Webhooks(args)) => writes(args.check),
        Command::Generate(G::Runtime(args)) => writes(args.check),
        Command::Generate(G::Helm(args)) => writes(args.check),
        Command::Generate(G::Manifests(args)) => writes(args.check),
        // It writes only into a new directory of its own; the project is its input.
        Command::Alpha(commands::alpha::AlphaCommand::Generate(args)) => {
            let input = args.input_dir.clone().unwrap_or_else(|| ".".into());
            return Some((global.dir.join(input), Access::Read));
        }
        // It only reads; `--explain` reads nothing.
        Command::Lint(args) if args.explain.is_some() => return None,
        Command::Lint(_) => Access::Read,
        // It works in its own store, never in the project.
        Command::Envtest(_) | Command::Completion { .. } | Command::Version => return None,
    };
    Some((global.dir.clone(), access))
}

/// Runs one parsed command.
fn execute(command: Command, global: &Global) -> anyhow::Result<()> {
    match command {
        Command::Init(args) => commands::init::run(global, args),
        Command::Create(CreateCommand::Api(args)) => commands::create::api::run(global, args),
        Command::Create(CreateCommand::Webhook(args)) => {
            commands::create::webhook::run(global, args)
        }
        Command::Edit(args) => commands::edit::run(global, args),
        Command::Generate(command) => commands::generate::run(global, command),
        Command::Lint(args) => commands::lint::run(global, args),
        Command::Alpha(command) => commands::alpha::run(global, command),
        Command::Envtest(command) => commands::envtest::run(command),
        Command::Completion { shell } => {
            // Into memory first: clap_complete panics when its writer fails.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "rsbuilder", &mut script);
            crate::console::out_bytes(&script);
            Ok(())
        }
        Command::Version => {
            commands::version::run();
            Ok(())
        }
    }
}
