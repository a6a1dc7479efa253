//! `toolscope lint`: diagnostics with file:line:column, severity and a stable code.

use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::json;

use super::common::{EncodingArg, InputFormat, out, print_json, status};
use toolscope_core::diag::{Diagnostic, Severity};
use toolscope_core::source::Format;
use toolscope_core::text::sanitize;

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
    /// Warn (TS080) about a tool whose own describe --style json entry is estimated at more
    /// than N tokens.
    #[arg(long, value_name = "N", default_value_t = toolscope_core::tokens::TOOL_ENTRY_LIMIT)]
    max_tool_tokens: u64,
    /// The tokenizer for the TS080 estimate.
    #[arg(long, value_enum, default_value = "o200k_base")]
    encoding: EncodingArg,
}

pub fn run(args: &Args) -> ExitCode {
    // A file that does not load is itself a diagnostic, so lint reports it like the others.
    let diags: Vec<Diagnostic> =
        match toolscope_core::load::load_paths(&args.paths, args.input_format.map(Format::from)) {
            Ok(loaded) => {
                let mut d = toolscope_core::lint::lint(&loaded);
                d.extend(token_warnings(&loaded.toolkit, args));
                d.sort_by(|a, b| {
                    (&a.file, a.line, a.column, a.code).cmp(&(&b.file, b.line, b.column, b.code))
                });
                d
            }
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

/// TS080: tools whose own entry costs more than the limit (the tokenizer loads only when
/// some entry is long enough to exceed it).
fn token_warnings(tk: &toolscope_core::model::Toolkit, args: &Args) -> Vec<Diagnostic> {
    let tokenizer = toolscope_core::tokens::Tokenizer::new(args.encoding.into());
    toolscope_core::tokens::over_limit(tk, &tokenizer, args.max_tool_tokens)
        .into_iter()
        .map(|(ix, n)| {
            let origin = tk.node(ix).origin;
            let o = origin.unwrap_or_default();
            Diagnostic {
                file: tk.file_name(origin),
                line: o.line.max(1),
                column: o.col.max(1),
                severity: Severity::Warning,
                code: toolscope_core::diag::Code::ToolEntryTokens,
                message: format!(
                    "tool `{}` costs an estimated {n} tokens in its describe entry ({}), over the limit of {}",
                    tk.name(ix),
                    tokenizer.encoding().as_str(),
                    args.max_tool_tokens
                ),
            }
        })
        .collect()
}
