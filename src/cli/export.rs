//! `toolscope export`: the graph as dot, mermaid, json or svg, the recommendation highlighted
//! when seeds are given.

use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{Inputs, SeedArgs, error, out};
use toolscope_core::export::{self, ExportFormat, Highlight};
use toolscope_core::recommend::recommend;
use toolscope_core::source::save::write_output;

/// The core's export formats as `--to` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target(ExportFormat);

static TARGETS: std::sync::LazyLock<Vec<Target>> =
    std::sync::LazyLock::new(|| ExportFormat::ALL.into_iter().map(Target).collect());

impl ValueEnum for Target {
    fn value_variants<'a>() -> &'a [Self] {
        &TARGETS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let v = clap::builder::PossibleValue::new(self.0.name());
        Some(match self.0 {
            ExportFormat::Svg => v.help("an SVG image drawn by toolscope (no Graphviz needed)"),
            _ => v,
        })
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: Inputs,
    /// Output format.
    #[arg(long, value_enum)]
    to: Target,
    #[command(flatten)]
    seeds: SeedArgs,
    /// SVG with seeds: draw the whole graph with the recommendation highlighted instead of
    /// the focus view (the recommendation and the nodes one edge beyond it).
    #[arg(long)]
    whole: bool,
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
    let tk = &loaded.toolkit;
    let query = if args.seeds.any() {
        match args.seeds.resolve(tk) {
            Ok(q) => Some(q),
            Err(code) => return code,
        }
    } else {
        None
    };
    let rec = query.as_ref().map(|q| recommend(tk, &q.seeds, q.params));
    let hl = match (&query, &rec) {
        (Some(q), Some(rec)) => Some(Highlight {
            rec,
            threshold: q.params.threshold,
            seeds: &q.seeds,
        }),
        _ => None,
    };
    let title = export::Title {
        file: args
            .inputs
            .paths
            .iter()
            .map(|p| toolscope_core::text::sanitize(&p.display().to_string()).into_owned())
            .collect::<Vec<_>>()
            .join(", "),
        operator: args
            .seeds
            .operator
            .as_deref()
            .and_then(|n| tk.operator(n))
            .map(|o| o.name.clone()),
        hops: query.as_ref().map(|q| q.params.hops),
    };
    let text = args.to.0.write(tk, hl.as_ref(), args.whole, &title);
    let opened = opened(&args.inputs.paths, &loaded.toolkit.files);
    write_out(args.output.as_deref(), &text, &opened, args.force)
}

/// Every file the command read: the paths given and the toolkit files found in them.
pub fn opened(
    given: &[std::path::PathBuf],
    files: &[std::path::PathBuf],
) -> Vec<std::path::PathBuf> {
    given.iter().chain(files).cloned().collect()
}

/// Writes to a file (see [`write_output`]), or to stdout when no file is given.
pub fn write_out(
    path: Option<&std::path::Path>,
    text: &str,
    opened: &[std::path::PathBuf],
    force: bool,
) -> ExitCode {
    match path {
        None => {
            out(text);
            ExitCode::SUCCESS
        }
        Some(p) => match write_output(p, text, opened, force) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                error(&format!("cannot write {}: {e}", p.display()));
                ExitCode::from(1)
            }
        },
    }
}
