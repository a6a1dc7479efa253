//! `toolscope sweep`: recommended counts as an exact step function of the threshold.

use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{Inputs, SeedArgs, print_json};
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
}

pub fn run(args: &Args) -> ExitCode {
    let loaded = match args.inputs.load() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tk = &loaded.toolkit;
    if !args.seeds.any() {
        eprintln!("error: give seeds with --seeds a,b, --seed NAME or --operator NAME");
        return ExitCode::from(2);
    }
    if args.seeds.threshold.is_some() {
        eprintln!("warning: sweep covers every threshold; --threshold is ignored");
    }
    let query = match args.seeds.resolve(tk) {
        Ok(q) => q,
        Err(code) => return code,
    };
    let sweep = Critical::compute(tk, &query.seeds, query.params.hops).sweep(tk);
    match args.format {
        Format::Json => print_json(&sweep.to_json()),
        Format::Text => print!("{}", text(&sweep, &query.seed_names)),
    }
    ExitCode::SUCCESS
}

/// A table: one row per critical threshold with the counts recommended from it up to the
/// row above; a first row for thresholds above every step.
fn text(sweep: &Sweep, seeds: &[String]) -> String {
    let mut out = format!("hops {}, seeds: {}\n", sweep.hops, seeds.join(", "));
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
