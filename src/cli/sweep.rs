//! `toolscope sweep`: recommended counts as an exact step function of the threshold.

use crate::text::for_terminal;
use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{Inputs, SeedArgs, load_query, out, print_json, status, timed};
use crate::recommend::explain::num;
use crate::recommend::{Critical, Sweep};

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
    match args.format {
        Format::Json => print_json(&sweep.to_json()),
        Format::Text => out(&for_terminal(&text(&sweep, &query.seed_names))),
    }
    ExitCode::SUCCESS
}

/// A table: one row per critical threshold with the counts recommended from it up to the
/// row above; a first row for thresholds above every step.
fn text(sweep: &Sweep, seeds: &[String]) -> String {
    let mut out = format!(
        "hops {}, seeds: {}\n",
        sweep.hops,
        crate::text::sanitize(&seeds.join(", "))
    );
    out += &format!("{:>12}  {:>7}  {:>7}\n", "threshold", "actions", "tools");
    let top = sweep
        .steps
        .first()
        .map_or_else(|| "any".to_string(), |s| format!("> {}", num(s.threshold)));
    out += &format!("{top:>12}  {:>7}  {:>7}\n", sweep.always.0, sweep.always.1);
    for s in &sweep.steps {
        out += &format!(
            "{:>12}  {:>7}  {:>7}\n",
            num(s.threshold),
            s.actions,
            s.tools
        );
    }
    out
}
