//! `toolscope explain`: why a node is, or is not, recommended.

use std::process::ExitCode;
use toolscope_core::text::sanitize;

use clap::ValueEnum;

use super::common::Kind;
use super::common::{InputFormat, Inputs, SeedArgs, error, out, print_json};
use toolscope_core::model::NodeKind;
use toolscope_core::recommend::{Adjacency, Insight, explain_with};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
#[command(
    override_usage = "toolscope explain [OPTIONS] PATH... (--seeds A,B | --operator NAME) NODE"
)]
pub struct Args {
    /// Toolkit files or directories (merged in order), then the node to explain (an
    /// action, tool or group name).
    #[arg(required = true, num_args = 1.., value_name = "PATH")]
    operands: Vec<String>,
    /// Force the input format instead of detecting it.
    #[arg(long, value_enum)]
    input_format: Option<InputFormat>,
    #[command(flatten)]
    seeds: SeedArgs,
    /// Only the node of this kind (by default every node with that name is explained).
    #[arg(long, value_enum)]
    kind: Option<Kind>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl Args {
    /// The paths and the node: the last operand is the node.
    fn split(&self) -> (Inputs, &str) {
        let (node, paths) = match self.operands.split_last() {
            Some((node, paths)) => (node.as_str(), paths),
            None => ("", &[][..]),
        };
        let inputs = Inputs {
            paths: paths.iter().map(std::path::PathBuf::from).collect(),
            input_format: self.input_format,
        };
        (inputs, node)
    }
}

pub fn run(args: &Args) -> ExitCode {
    if args.operands.len() < 2 {
        error("give the toolkit PATH... and then the NODE to explain");
        return ExitCode::from(2);
    }
    let (inputs, node) = args.split();
    let (loaded, query, _) = match super::common::load_query(&inputs, &args.seeds) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tk = &loaded.toolkit;
    let nodes: Vec<_> = tk
        .named(node)
        .filter(|&ix| args.kind.is_none_or(|k| tk.kind(ix) == NodeKind::from(k)))
        .collect();
    if nodes.is_empty() {
        error(&format!("no node named `{node}`"));
        return ExitCode::from(1);
    }
    let adj = Adjacency::new(tk);
    let insight = Insight::compute_in(tk, &adj, &query.seeds, query.params);
    let explanations: Vec<_> = nodes
        .iter()
        .filter_map(|&ix| explain_with(tk, &adj, &query.seeds, query.params, &insight, ix))
        .collect();
    match args.format {
        Format::Json => {
            let items: Vec<_> = explanations.iter().map(|e| e.to_json(tk)).collect();
            print_json(&match items.as_slice() {
                [one] => one.clone(),
                _ => serde_json::Value::Array(items),
            });
        }
        Format::Text => {
            let blocks: Vec<String> = explanations
                .iter()
                .map(|e| {
                    // Each line escaped whole: a line break in a name cannot forge a line.
                    let lines: Vec<String> = e
                        .lines(tk)
                        .iter()
                        .map(|l| sanitize(l).into_owned())
                        .collect();
                    lines.join("\n") + "\n"
                })
                .collect();
            out(&blocks.join("\n"));
        }
    }
    ExitCode::SUCCESS
}
