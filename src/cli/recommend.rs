//! `toolscope recommend`: the SPEC 2 result as text, JSON or markdown.

use std::process::ExitCode;
use toolscope_core::text::{for_terminal, sanitize};

use clap::ValueEnum;

use super::common::{EncodingArg, Inputs, SeedArgs, load_query, out, print_json, status, timed};
use toolscope_core::export::json::recommendation_json;
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::{
    Recommendation, ToolFilters, extra_copies, functions_sent, offered_tools, recommend,
};
use toolscope_core::tokens::{Tokenizer, ToolTokens};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: Inputs,
    #[command(flatten)]
    seeds: SeedArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Apply the tool filters stage (disabled and exclusive tools) and list offered tools.
    #[arg(long)]
    offered: bool,
    /// A forced tool choice (repeatable); implies --offered.
    #[arg(long, value_name = "TOOL")]
    choose: Vec<String>,
    /// The tokenizer for the token estimate of the tools offered.
    #[arg(long, value_enum, default_value = "o200k_base")]
    encoding: EncodingArg,
    /// Leave out the token estimate (and the tokenizer's start-up time).
    #[arg(long)]
    no_tokens: bool,
    /// Print `load_ms` and `recommend_ms` to stderr.
    #[arg(long)]
    timings: bool,
    /// Run the query N times after one load; `recommend_ms` is the median.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

pub fn run(args: &Args) -> ExitCode {
    let (loaded, query, load_ms) = match load_query(&args.inputs, &args.seeds) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tk = &loaded.toolkit;
    let (rec, rec_ms) = timed(args.repeat, || recommend(tk, &query.seeds, query.params));
    if args.timings {
        status(&format!("load_ms: {load_ms:.6}"));
        status(&format!("recommend_ms: {rec_ms:.6}"));
    }
    let filters = (args.offered || !args.choose.is_empty()).then(|| ToolFilters {
        chosen: args.choose.clone(),
    });
    let offered = filters.as_ref().map(|f| offered_tools(tk, &rec, f));
    // The tokenizer takes a noticeable moment to build; --no-tokens skips it for scripts.
    let tokenizer = Tokenizer::new(args.encoding.into());
    let shown = offered.as_deref().unwrap_or(&rec.tools);
    let t = query.params.threshold;
    // Chat2Graph sends a tool once per place of its caller in the chains: counted so.
    let copies = extra_copies(tk, &rec, shown, t);
    let tokens =
        (!args.no_tokens).then(|| ToolTokens::new(tk, &tokenizer).total_sent(&rec, shown, t));
    let tokens_line = tokens.map_or_else(String::new, |n| {
        format!(
            "tokens: ~{n} (an estimate: describe --style json entries of the {} {}, {})\n",
            if offered.is_some() {
                "offered"
            } else {
                "recommended"
            },
            if copies.is_empty() {
                "tools"
            } else {
                "functions sent"
            },
            tokenizer.encoding().as_str()
        )
    });
    let sent_line = sent_line(tk, shown, &copies);
    match args.format {
        Format::Json => {
            let mut v = recommendation_json(tk, &rec, query.params.threshold, offered.as_deref());
            if let Some(map) = v.as_object_mut() {
                map.insert(
                    "functions_sent".into(),
                    functions_sent(tk, &rec, shown, t).into(),
                );
            }
            if let (Some(map), Some(n)) = (v.as_object_mut(), tokens) {
                map.insert("tokens".into(), n.into());
                map.insert(
                    "tokens_encoding".into(),
                    tokenizer.encoding().as_str().into(),
                );
            }
            print_json(&v);
        }
        Format::Text => out(&format!(
            "{}{sent_line}{tokens_line}",
            for_terminal(&text(tk, &rec, &query, offered.as_deref()))
        )),
        Format::Markdown => out(&format!(
            "{}{}{sent_line}{tokens_line}",
            for_terminal(&markdown(tk, &rec, &query, offered.as_deref())),
            if tokens.is_some() || !sent_line.is_empty() {
                "\n"
            } else {
                ""
            }
        )),
    }
    ExitCode::SUCCESS
}

/// `functions sent: 12 (...)` when Chat2Graph sends some tool more than once, else "".
fn sent_line(
    tk: &Toolkit,
    tools: &[petgraph::stable_graph::NodeIndex],
    copies: &[(petgraph::stable_graph::NodeIndex, u32)],
) -> String {
    if copies.is_empty() {
        return String::new();
    }
    let extra: usize = copies.iter().map(|(_, n)| *n as usize - 1).sum();
    let mut each: Vec<String> = copies
        .iter()
        .map(|&(t, n)| format!("{} x{n}", sanitize(tk.name(t))))
        .collect();
    each.sort();
    format!(
        "functions sent: {} ({}: Chat2Graph builds an action's tools for each place it has in the toolkit chains)\n",
        tools.len() + extra,
        each.join(", ")
    )
}

fn names(tk: &Toolkit, ixs: &[petgraph::stable_graph::NodeIndex]) -> Vec<String> {
    // Escaped whole, line breaks too: a name cannot forge a line of the output.
    let mut v: Vec<String> = ixs
        .iter()
        .map(|ix| sanitize(tk.name(*ix)).into_owned())
        .collect();
    v.sort();
    v
}

fn header(q: &super::common::Query) -> String {
    format!(
        "threshold {}, hops {}, seeds: {}",
        q.params.threshold,
        q.params.hops,
        sanitize(&q.seed_names.join(", "))
    )
}

fn text(
    tk: &Toolkit,
    rec: &Recommendation,
    q: &super::common::Query,
    offered: Option<&[petgraph::stable_graph::NodeIndex]>,
) -> String {
    let (na, nt, ng) = tk.counts();
    let mut out = format!("{}\n", header(q));
    out += &format!(
        "actions ({}/{na}): {}\n",
        rec.actions.len(),
        names(tk, &rec.actions).join(", ")
    );
    out += &format!(
        "tools ({}/{}): {}\n",
        rec.tools.len(),
        nt + ng,
        names(tk, &rec.tools).join(", ")
    );
    if let Some(off) = offered {
        out += &format!(
            "offered tools ({}): {}\n",
            off.len(),
            names(tk, off).join(", ")
        );
    }
    out += &format!("edges ({}):\n", rec.edges.len());
    for row in toolscope_core::export::json::edge_rows(tk, &rec.edges) {
        out += &format!(
            "  {} -> {}  {} {}\n",
            sanitize(&row.from),
            sanitize(&row.to),
            row.kind,
            fmt_score(row.score)
        );
    }
    out
}

/// Scores as users write them: at least one decimal, no float noise.
pub fn fmt_score(s: f64) -> String {
    let t = format!("{s}");
    if t.contains('.') || t.contains('e') || !s.is_finite() {
        t
    } else {
        format!("{t}.0")
    }
}

fn markdown(
    tk: &Toolkit,
    rec: &Recommendation,
    q: &super::common::Query,
    offered: Option<&[petgraph::stable_graph::NodeIndex]>,
) -> String {
    let mut out = format!("# Recommendation\n\n{}\n\n## Actions\n\n", header(q));
    let mut actions = rec.actions.clone();
    actions.sort_by(|a, b| tk.name(*a).cmp(tk.name(*b)));
    for a in actions {
        out += &format!(
            "- **{}**: {}\n",
            sanitize(tk.name(a)),
            one_line(&tk.node(a).desc)
        );
    }
    let tools = offered.map_or_else(|| rec.tools.clone(), <[_]>::to_vec);
    out += if offered.is_some() {
        "\n## Offered tools\n\n"
    } else {
        "\n## Tools\n\n"
    };
    let mut tools = tools;
    tools.sort_by(|a, b| tk.name(*a).cmp(tk.name(*b)));
    for t in tools {
        out += &format!(
            "- **{}**: {}\n",
            sanitize(tk.name(t)),
            one_line(&tk.node(t).desc)
        );
    }
    out += "\n## Edges\n\n| from | to | kind | score |\n|---|---|---|---|\n";
    for row in toolscope_core::export::json::edge_rows(tk, &rec.edges) {
        out += &format!(
            "| {} | {} | {} | {} |\n",
            sanitize(&row.from),
            sanitize(&row.to),
            row.kind,
            fmt_score(row.score)
        );
    }
    out
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
