//! `toolscope lint`: diagnostics with file:line:column, severity and a stable code.

use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::json;

use super::common::{InputFormat, out, print_json, status};
use crate::diag::{Diagnostic, Severity};
use crate::source::{self, Format};
use crate::text::sanitize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Toolkit files or directories.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<std::path::PathBuf>,
    /// Force the input format instead of detecting it.
    #[arg(long, value_enum)]
    input_format: Option<InputFormat>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutFormat,
}

pub fn run(args: &Args) -> ExitCode {
    // A file that does not load is itself a diagnostic, so lint reports it like the others.
    let diags: Vec<Diagnostic> =
        match source::load_paths(&args.paths, args.input_format.map(Format::from)) {
            Ok(loaded) => crate::lint::lint(&loaded),
            Err(e) => vec![e.to_diagnostic()],
        };
    match args.format {
        OutFormat::Json => print_json(&json!({ "diagnostics": diags })),
        OutFormat::Text => {
            // One diagnostic, one line: a name holding a line break cannot forge another.
            let mut text = String::new();
            for d in &diags {
                text.push_str(&sanitize(&d.to_string()));
                text.push('\n');
            }
            out(&text);
            let count = |s| diags.iter().filter(|d| d.severity == s).count();
            status(&format!(
                "{} errors, {} warnings, {} infos",
                count(Severity::Error),
                count(Severity::Warning),
                count(Severity::Info)
            ));
        }
    }
    if diags.iter().any(|d| d.severity == Severity::Error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
