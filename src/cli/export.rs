//! `toolscope export`: the graph as dot, mermaid, json or svg, the recommendation highlighted
//! when seeds are given.

use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{Inputs, SeedArgs, error, out};
use crate::export::{Highlight, dot, json, mermaid, svg};
use crate::recommend::recommend;

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
    /// Write to FILE instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
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
        Target::Svg => svg::to_svg(tk, hl.as_ref()),
        Target::Json => {
            let mut v = json::toolkit_json(tk);
            if let (Some(h), Some(map)) = (&hl, v.as_object_mut()) {
                map.insert(
                    "recommended".into(),
                    json::recommendation_json(tk, h.rec, h.threshold, None),
                );
            }
            let text = serde_json::to_string_pretty(&v).unwrap_or_default();
            crate::text::json_safe(&text).into_owned() + "\n"
        }
    };
    write_out(args.output.as_deref(), &text)
}

/// Writes to a file, or to stdout when no file is given.
pub fn write_out(path: Option<&std::path::Path>, text: &str) -> ExitCode {
    match path {
        None => {
            out(text);
            ExitCode::SUCCESS
        }
        Some(p) => match std::fs::write(p, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                error(&format!("cannot write {}: {e}", p.display()));
                ExitCode::from(1)
            }
        },
    }
}
