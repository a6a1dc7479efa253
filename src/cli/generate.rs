//! `toolscope gen`: a synthetic native toolkit on stdout.

use std::process::ExitCode;

use toolscope_core::synth::{GenOptions, generate, generate_chat2graph};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Number of actions.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    actions: u64,
    /// Number of tools (default: a quarter of the actions).
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    tools: Option<u64>,
    /// Random seed; the same seed gives the same toolkit.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "native")]
    format: GenFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum GenFormat {
    Native,
    Chat2graph,
}

pub fn run(args: &Args) -> ExitCode {
    let opts = GenOptions {
        actions: args.actions as usize,
        tools: args.tools.map(|t| t as usize),
        seed: args.seed,
    };
    let text = match args.format {
        GenFormat::Native => generate(opts),
        GenFormat::Chat2graph => generate_chat2graph(opts),
    };
    super::common::out(&text);
    ExitCode::SUCCESS
}
