//! `toolscope convert PATH --to native`: any toolkit (usually a Chat2Graph config) as a
//! native toolkit on stdout.

use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{Inputs, error, warning};

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
    /// Convert even when the native format cannot hold some fields of the source (each
    /// is named on stderr); without it such a conversion writes nothing and fails.
    #[arg(long)]
    allow_loss: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let loaded = match args.inputs.load() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let conversion = match args.to {
        Target::Native => toolscope_core::export::convert::to_native(&loaded),
    };
    let say = if args.allow_loss { warning } else { error };
    for lost in &conversion.lost {
        say(&lost.to_string());
    }
    if !conversion.lost.is_empty() && !args.allow_loss {
        error(&format!(
            "nothing written: the native format has no place for {} field(s) or entries named \
             above; --allow-loss converts without them",
            conversion.lost.len()
        ));
        return ExitCode::from(1);
    }
    let opened = super::export::opened(&args.inputs.paths, &loaded.toolkit.files, &[]);
    super::export::write_out(
        args.output.as_deref(),
        &conversion.text,
        &opened,
        args.force,
    )
}
