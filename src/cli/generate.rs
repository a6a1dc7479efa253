//! `toolscope gen`: a synthetic native toolkit on stdout.

use std::process::ExitCode;

use toolscope_core::generate::{GenOptions, generate, generate_chat2graph};

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
    /// Instead of the toolkit, print ordered runs of it (JSONL records with `calls`)
    /// adding up to STEPS steps, for `eval --steps` and `fit` at scale (the same --actions,
    /// --tools, --seed and --format give the matching toolkit).
    #[arg(long, value_name = "STEPS", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    runs: Option<u64>,
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
    if let Some(steps) = args.runs {
        return runs(text, opts.seed, steps as usize);
    }
    super::common::out(&text);
    ExitCode::SUCCESS
}

/// The runs of the generated toolkit `text`, streamed to stdout.
fn runs(text: String, seed: u64, steps: usize) -> ExitCode {
    let limits = toolscope_core::source::Limits::default();
    let path = std::path::Path::new("generated.yaml");
    let tk = match toolscope_core::load::load_text(path, text, None, &limits) {
        Ok(f) => f.toolkit,
        Err(e) => {
            super::common::error(&e.to_string());
            return ExitCode::from(1);
        }
    };
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let written = toolscope_core::generate::runs::write_runs(&tk, steps, seed, &mut w)
        .and_then(|()| std::io::Write::flush(&mut w));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(141),
        Err(e) => {
            super::common::error(&format!("cannot write to stdout: {e}"));
            ExitCode::from(1)
        }
    }
}
