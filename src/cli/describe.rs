//! `toolscope describe`: tool descriptions for a prompt.

use std::process::ExitCode;
use toolscope_core::text::for_terminal;

use clap::ValueEnum;

use super::common::{EncodingArg, Inputs, SeedArgs};
use toolscope_core::export::describe::{Style, describe, tools_to_describe};
use toolscope_core::recommend::ToolFilters;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StyleArg {
    Markdown,
    Short,
    Json,
}

impl From<StyleArg> for Style {
    fn from(s: StyleArg) -> Style {
        match s {
            StyleArg::Markdown => Style::Markdown,
            StyleArg::Short => Style::Short,
            StyleArg::Json => Style::Json,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: Inputs,
    /// With seeds: the recommended tools after the filters stage; without: every tool.
    #[command(flatten)]
    seeds: SeedArgs,
    /// A forced tool choice (repeatable), for the filters stage.
    #[arg(long, value_name = "TOOL")]
    choose: Vec<String>,
    /// Output style.
    #[arg(long, value_enum, default_value = "markdown")]
    style: StyleArg,
    /// Print the estimated tokens of the described tools' JSON entries to stderr.
    #[arg(long)]
    tokens: bool,
    /// The tokenizer for --tokens.
    #[arg(long, value_enum, default_value = "o200k_base")]
    encoding: EncodingArg,
}

pub fn run(args: &Args) -> ExitCode {
    let loaded = match args.inputs.load() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tk = &loaded.toolkit;
    let filters = ToolFilters {
        chosen: args.choose.clone(),
    };
    let tools = if args.seeds.any() {
        let query = match args.seeds.resolve(tk) {
            Ok(q) => q,
            Err(code) => return code,
        };
        tools_to_describe(tk, Some((&query.seeds, query.params)), &filters)
    } else {
        if !args.choose.is_empty() {
            super::common::warning("--choose applies only with seeds; describing every tool");
        }
        tools_to_describe(tk, None, &filters)
    };
    super::common::out(&for_terminal(&describe(tk, &tools, args.style.into())));
    if args.tokens {
        let tokenizer = toolscope_core::tokens::Tokenizer::new(args.encoding.into());
        let n = toolscope_core::tokens::ToolTokens::new(tk, &tokenizer).total(&tools);
        super::common::status(&format!(
            "tokens: ~{n} for {} tools (an estimate: their describe --style json entries, {})",
            tools.len(),
            tokenizer.encoding().as_str()
        ));
    }
    ExitCode::SUCCESS
}
