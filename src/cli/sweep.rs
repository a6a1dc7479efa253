//! `toolscope sweep`: recommended counts as an exact step function of the threshold.

use std::process::ExitCode;
use toolscope_core::text::for_terminal;

use clap::ValueEnum;

use super::common::{EncodingArg, Inputs, SeedArgs, load_query, out, print_json, status, timed};
use petgraph::stable_graph::NodeIndex;
use toolscope_core::evidence::TokenCost;
use toolscope_core::model::{NodeKind, Toolkit};
use toolscope_core::recommend::explain::num;
use toolscope_core::recommend::{Critical, Sweep};
use toolscope_core::tokens::{Tokenizer, ToolTokens};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
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
    /// The tokenizer for the token estimate per step.
    #[arg(long, value_enum, default_value = "o200k_base")]
    encoding: EncodingArg,
    /// Print `load_ms` and `sweep_ms` (critical values and sweep) to stderr.
    #[arg(long)]
    timings: bool,
    /// Compute the sweep N times after one load; `sweep_ms` is the median.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

pub fn run(args: &Args) -> ExitCode {
    if args.seeds.threshold.is_some() {
        super::common::warning("sweep covers every threshold; --threshold is ignored");
    }
    let (loaded, query, load_ms) = match load_query(&args.inputs, &args.seeds) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tk = &loaded.toolkit;
    let (sweep, sweep_ms) = timed(args.repeat, || {
        Critical::compute(tk, &query.seeds, query.params.hops).sweep(tk)
    });
    if args.timings {
        status(&format!("load_ms: {load_ms:.3}"));
        status(&format!("sweep_ms: {sweep_ms:.3}"));
    }
    let tokenizer = Tokenizer::new(args.encoding.into());
    let (always, per_step) =
        step_tokens(tk, &query.seeds, &sweep, &ToolTokens::new(tk, &tokenizer));
    match args.format {
        Format::Json => {
            let mut v = sweep.to_json();
            if let Some(steps) = v.get_mut("steps").and_then(|s| s.as_array_mut()) {
                for (step, n) in steps.iter_mut().zip(&per_step) {
                    if let Some(obj) = step.as_object_mut() {
                        obj.insert("tokens".into(), (*n).into());
                    }
                }
            }
            if let Some(obj) = v.as_object_mut() {
                obj.insert(
                    "tokens_encoding".into(),
                    tokenizer.encoding().as_str().into(),
                );
            }
            print_json(&v);
        }
        Format::Text => {
            let enc = tokenizer.encoding().as_str();
            let table = text(&sweep, &query.seed_names, always, &per_step, enc);
            out(&for_terminal(&table));
        }
    }
    ExitCode::SUCCESS
}

/// Estimated tokens of the tools recommended above every step and at each step: the
/// tools whose critical value is at least the step's threshold.
fn step_tokens(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    sweep: &Sweep,
    cost: &ToolTokens<'_>,
) -> (u64, Vec<u64>) {
    let crit = Critical::compute(tk, seeds, sweep.hops);
    let mut tools: Vec<(f64, NodeIndex)> = crit
        .reached()
        .iter()
        .filter(|&&ix| tk.kind(ix) != NodeKind::Action)
        .map(|&ix| (crit.raw(ix), ix))
        .collect();
    tools.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut i = 0;
    let mut total = 0;
    let mut take = |t: f64, total: &mut u64| {
        while i < tools.len() && tools[i].0 >= t {
            *total += cost.tool_tokens(tools[i].1);
            i += 1;
        }
        *total
    };
    let always = take(f64::INFINITY, &mut total);
    let per_step = sweep
        .steps
        .iter()
        .map(|s| take(s.threshold, &mut total))
        .collect();
    if tk.chain_places.is_none() {
        return (always, per_step);
    }
    // Chat2Graph sends a tool once per place its caller has in the chains, and which
    // callers are recommended depends on the threshold: each step counted on its own.
    let per_step = sweep
        .steps
        .iter()
        .map(|s| {
            let params = toolscope_core::recommend::Params {
                threshold: s.threshold,
                hops: sweep.hops,
            };
            let rec = toolscope_core::recommend::recommend(tk, seeds, params);
            cost.total_sent(&rec, &rec.tools, s.threshold)
        })
        .collect();
    (always, per_step)
}

/// A table: one row per critical threshold with the counts recommended from it up to the
/// row above; a first row for thresholds above every step.
/// `~tokens` is the estimate for the tools recommended at the row's threshold.
fn text(sweep: &Sweep, seeds: &[String], always: u64, tokens: &[u64], enc: &str) -> String {
    let mut out = format!(
        "hops {}, seeds: {} (~tokens: an estimate, {enc})\n",
        sweep.hops,
        // Names escaped whole (line breaks too): a seed name cannot forge a line.
        seeds
            .iter()
            .map(|s| toolscope_core::text::sanitize(s).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    );
    out += &format!(
        "{:>12}  {:>7}  {:>7}  {:>8}\n",
        "threshold", "actions", "tools", "~tokens"
    );
    let top = sweep
        .steps
        .first()
        .map_or_else(|| "any".to_string(), |s| format!("> {}", num(s.threshold)));
    out += &format!(
        "{top:>12}  {:>7}  {:>7}  {always:>8}\n",
        sweep.always.0, sweep.always.1
    );
    for (s, n) in sweep.steps.iter().zip(tokens) {
        out += &format!(
            "{:>12}  {:>7}  {:>7}  {n:>8}\n",
            num(s.threshold),
            s.actions,
            s.tools
        );
    }
    out
}
