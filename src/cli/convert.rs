//! `toolscope convert PATH --to native`: any toolkit (usually a Chat2Graph config) as a
//! native toolkit on stdout.

use std::process::ExitCode;

use clap::ValueEnum;

use super::common::Inputs;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    Native,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: Inputs,
    /// Output format.
    #[arg(long, value_enum, default_value = "native")]
    to: Target,
    /// Write to FILE instead of stdout (never over an opened toolkit file).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long, requires = "output")]
    force: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let loaded = match args.inputs.load() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let text = match args.to {
        Target::Native => toolscope_core::export::native::to_native(&loaded.toolkit),
    };
    let opened = super::export::opened(&args.inputs.paths, &loaded.toolkit.files);
    super::export::write_out(args.output.as_deref(), &text, &opened, args.force)
}
