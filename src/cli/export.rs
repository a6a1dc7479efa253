//! `toolscope export`: the graph as dot, mermaid, json or svg, the recommendation highlighted
//! when seeds are given.

use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{Inputs, SeedArgs, error, out};
use toolscope_core::export::{Highlight, dot, json, mermaid, svg};
use toolscope_core::recommend::recommend;
use toolscope_core::source::save::write_output;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    Dot,
    Mermaid,
    Json,
    /// An SVG image drawn by toolscope (no Graphviz needed).
    Svg,
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
    let text = match args.to {
        Target::Dot => dot::to_dot(tk, hl.as_ref()),
        Target::Mermaid => mermaid::to_mermaid(tk, hl.as_ref()),
        Target::Svg => {
            let title = svg::Title {
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
            svg::to_svg_titled(tk, hl.as_ref(), args.whole, &title)
        }
        Target::Json => {
            let mut v = json::toolkit_json(tk);
            if let (Some(h), Some(map)) = (&hl, v.as_object_mut()) {
                map.insert(
                    "recommended".into(),
                    json::recommendation_json(tk, h.rec, h.threshold, None),
                );
            }
            let text = serde_json::to_string_pretty(&v).unwrap_or_default();
            toolscope_core::text::json_safe(&text).into_owned() + "\n"
        }
    };
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
