//! The headless CLI: one file per subcommand, each a thin layer over the core.
//!
//! Exit codes: 0 success, 1 when lint finds errors or a command fails, 2 on usage errors
//! (clap's own exit code).

pub mod common;
mod convert;
mod describe;
mod diff;
mod eval;
mod explain;
mod export;
mod fit;
mod generate;
mod init;
mod lint;
#[cfg(feature = "mcp")]
mod mcp;
mod recommend;
mod set;
mod sweep;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Explore, tune and edit the toolkit graphs LLM agents use to pick their next action and
/// tool. With no subcommand, opens the terminal UI on PATH... (or on a bundled example).
#[derive(Debug, Parser)]
#[command(name = "toolscope", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    tui: TuiArgs,
    /// Ignore MCP sidecar caches (FILE.mcp.json written by `mcp discover`): MCP groups
    /// stand for their unknown member tools again.
    #[arg(long, global = true)]
    no_mcp_cache: bool,
}

/// Arguments of the terminal UI.
#[derive(Debug, Clone, clap::Args)]
pub struct TuiArgs {
    /// Toolkit files or directories; none opens the bundled example.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Force the input format instead of detecting it.
    #[arg(long, value_enum)]
    pub input_format: Option<common::InputFormat>,
    /// Draw without colour (also when NO_COLOR is set).
    #[arg(long)]
    pub no_color: bool,
    /// Draw with ASCII characters only.
    #[arg(long)]
    pub ascii: bool,
    /// Trace files (repeatable; JSONL or OTLP JSON, detected per file) for the evidence
    /// panel (`V`), the inspector's offered/called counts and `:fit`.
    #[arg(long, value_name = "FILE")]
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub naming: eval::NamingArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Open the terminal UI (the default).
    Tui(TuiArgs),
    /// Print the recommended subgraph for seeds, a threshold and hops.
    Recommend(recommend::Args),
    /// Report problems with stable codes and positions.
    Lint(lint::Args),
    /// Write the graph (or the recommendation highlighted) in one of the export formats.
    Export(export::Args),
    /// Print a synthetic native toolkit, for benchmarks and demos.
    Gen(generate::Args),
    /// Convert a Chat2Graph config into a native toolkit.
    Convert(convert::Args),
    /// Make one lossless edit to a toolkit file (the summary names every edit of the
    /// registry: `set::summary`).
    #[command(about = set::summary())]
    Set(set::Args),
    /// Explain why a node is, or is not, recommended.
    Explain(explain::Args),
    /// Recommended counts at every threshold: the exact step function.
    Sweep(sweep::Args),
    /// Structural diff of two toolkits and, with seeds, the recommendation diff.
    Diff(diff::Args),
    /// Tool descriptions for a prompt (markdown, short or function-calling JSON).
    Describe(describe::Args),
    /// Score the offer against traces of real runs: recall, completeness, token estimates.
    Eval(eval::Args),
    /// Suggest Call and Next scores from traces: a lossless diff, written with --write.
    Fit(fit::Args),
    /// Write a native toolkit from tool definitions (OpenAI, MCP) and, with --traces, the
    /// Next prior and operators learned from runs.
    Init(init::Args),
    /// MCP servers: `mcp discover` starts the declared servers (only when asked) and
    /// records their tools.
    #[cfg(feature = "mcp")]
    Mcp(mcp::Args),
}

/// What the command line asks for: the terminal UI, or a command this module runs.
pub enum Parsed {
    Tui(TuiArgs),
    Command(Box<dyn FnOnce() -> ExitCode>),
}

/// Parses the command line (exiting with clap's message and code 2 on a usage error).
pub fn parse() -> Parsed {
    let cli = Cli::parse();
    toolscope_core::mcp::cache::set_enabled(!cli.no_mcp_cache);
    match cli.command {
        None => Parsed::Tui(cli.tui),
        Some(Command::Tui(args)) => Parsed::Tui(args),
        Some(command) => Parsed::Command(Box::new(move || run(command))),
    }
}

fn run(command: Command) -> ExitCode {
    match command {
        // `parse` hands the TUI to `main`; nothing else reaches here with it.
        Command::Tui(_) => ExitCode::from(2),
        Command::Recommend(args) => recommend::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Gen(args) => generate::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Set(args) => set::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Sweep(args) => sweep::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Describe(args) => describe::run(&args),
        Command::Eval(args) => eval::run(&args),
        Command::Fit(args) => fit::run(&args),
        Command::Init(args) => init::run(&args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => mcp::run(&args),
    }
}
