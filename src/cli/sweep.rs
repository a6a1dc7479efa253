//! `toolscope sweep`: recommended counts as an exact step function of the threshold.

use crate::text::for_terminal;
use std::process::ExitCode;
use std::time::Instant;

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
    /// Print `load_ms` and `sweep_ms` (critical values and sweep) to stderr.
    #[arg(long)]
    timings: bool,
    /// Compute the sweep N times after one load; `sweep_ms` is the median.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

pub fn run(args: &Args) -> ExitCode {
    let started = Instant::now();
    let loaded = match args.inputs.load() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let load_ms = started.elapsed().as_secs_f64() * 1000.0;
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
    let mut times = Vec::with_capacity(args.repeat as usize);
    let mut sweep = None;
    for _ in 0..args.repeat {
        let t0 = Instant::now();
        sweep = Some(Critical::compute(tk, &query.seeds, query.params.hops).sweep(tk));
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    let Some(sweep) = sweep else {
        return ExitCode::from(1);
    };
    if args.timings {
        times.sort_by(f64::total_cmp);
        eprintln!("load_ms: {load_ms:.3}");
        eprintln!("sweep_ms: {:.3}", times[times.len() / 2]);
    }
    match args.format {
        Format::Json => print_json(&sweep.to_json()),
        Format::Text => print!("{}", for_terminal(&text(&sweep, &query.seed_names))),
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
