//! What `toolscope eval` reads: its arguments, and where the records come from and how to
//! read them (shared with `fit` and `init`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use crate::cli::common::{EncodingArg, Inputs, parse_threshold};
use toolscope_core::diag::Diagnostic;
use toolscope_core::evidence::eval::{EvalOptions, Resolved, resolve};
use toolscope_core::evidence::otlp::OperatorNaming;
use toolscope_core::evidence::{Record, TraceFormat, load_traces};
use toolscope_core::recommend::MAX_HOPS;
use toolscope_core::recommend::ToolFilters;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TraceFormatArg {
    Jsonl,
    Otlp,
}

/// How OTLP runs are named (shared with `init`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct NamingArgs {
    /// OTLP: the span attribute naming the operator [default: gen_ai.agent.name, then
    /// agent.name, then agent_name].
    #[arg(long, value_name = "KEY")]
    pub operator_attr: Option<String>,
    /// OTLP: the operator of runs whose spans name no agent (else they are left out).
    #[arg(long, value_name = "NAME")]
    pub default_operator: Option<String>,
}

impl NamingArgs {
    pub fn naming(&self) -> OperatorNaming {
        OperatorNaming::new(
            self.operator_attr.as_deref(),
            self.default_operator.as_deref(),
        )
    }
}

/// Where the records come from and how to read them (shared with `fit`).
#[derive(Debug, Clone, clap::Args)]
pub struct TraceArgs {
    /// Trace files (repeatable): JSONL records or OTLP JSON lines.
    #[arg(long, required = true, value_name = "FILE")]
    pub traces: Vec<PathBuf>,
    /// The trace format; detected per file when not given.
    #[arg(long, value_enum)]
    pub traces_format: Option<TraceFormatArg>,
    #[command(flatten)]
    pub naming: NamingArgs,
    /// Only the records of this operator.
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String>,
    /// Threshold for every record (wins over the record and the operator).
    #[arg(long, short = 't', value_name = "T", value_parser = parse_threshold)]
    pub threshold: Option<f64>,
    /// Hops for every record (wins over the record and the operator).
    #[arg(long, value_name = "H", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_HOPS)))]
    pub hops: Option<u32>,
    /// Apply the tool filters stage (disabled and exclusive tools).
    #[arg(long)]
    pub offered: bool,
    /// A forced tool choice (repeatable); implies --offered.
    #[arg(long, value_name = "TOOL")]
    pub choose: Vec<String>,
    /// The tokenizer for the token estimates.
    #[arg(long, value_enum, default_value = "o200k_base")]
    pub encoding: EncodingArg,
}

impl TraceArgs {
    /// Reads the trace files, printing their diagnostics to stderr.
    pub fn records(&self) -> Result<Vec<Record>, ExitCode> {
        let format = self.traces_format.map(|f| match f {
            TraceFormatArg::Jsonl => TraceFormat::Jsonl,
            TraceFormatArg::Otlp => TraceFormat::Otlp,
        });
        let (records, diags) =
            load_traces(&self.traces, format, &self.naming.naming()).map_err(|e| {
                crate::cli::common::error(&e.to_string());
                ExitCode::from(1)
            })?;
        print_diags(&diags);
        Ok(records)
    }

    pub fn options(&self) -> EvalOptions {
        EvalOptions {
            threshold: self.threshold,
            hops: self.hops,
            filters: (self.offered || !self.choose.is_empty()).then(|| ToolFilters {
                chosen: self.choose.clone(),
            }),
            sweep: false,
            min_complete: None,
        }
    }

    /// Resolves the records against the toolkit, keeping those of `--operator`.
    pub fn resolve(
        &self,
        tk: &toolscope_core::model::Toolkit,
        records: &[Record],
        opts: &EvalOptions,
    ) -> Result<Vec<Resolved>, ExitCode> {
        let (mut resolved, diags) = resolve(tk, records, opts);
        print_diags(&diags);
        if let Some(name) = &self.operator {
            let Some(op) = tk.operator(name) else {
                crate::cli::common::error(&format!("no operator named `{name}`"));
                return Err(ExitCode::from(1));
            };
            resolved.retain(|r| r.group == op.name);
        }
        Ok(resolved)
    }
}

pub fn print_diags(diags: &[Diagnostic]) {
    for d in diags {
        crate::cli::common::status(&d.to_string());
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub traces: TraceArgs,
    /// Per operator, the exact steps over the threshold and the suggested parameters
    /// (with --steps: every threshold and hops 0 to the largest hops + 2).
    #[arg(long)]
    pub sweep: bool,
    /// Evaluate each call after a record's first (records with `calls` in order): is the
    /// tool called next offered from the actions that call the previous one?
    #[arg(long, conflicts_with_all = ["offered", "choose", "min_complete"])]
    pub steps: bool,
    /// With --steps: how many previous calls seed a step.
    #[arg(long, value_name = "K", default_value_t = 1, requires = "steps",
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub context: u32,
    /// With --sweep on records with their calls in order: the next-call recall the
    /// suggested setting must reach (the suggestion is the fewest tokens reaching it).
    #[arg(long, value_name = "X", default_value_t = 0.9, value_parser = parse_threshold)]
    pub target_recall: f64,
    /// With --steps --sweep: the token budget of the best point, a share of the tokens of
    /// offering everything available.
    #[arg(long, value_name = "SHARE", default_value_t = 0.3, requires = "steps", value_parser = parse_threshold)]
    pub budget: f64,
    /// Gate, with --steps: exit 1 when overall or any operator's next-call recall is below X.
    #[arg(long, value_name = "X", requires = "steps", value_parser = parse_threshold)]
    pub min_recall: Option<f64>,
    /// With --steps --format json: a `per_step` list, one entry per step of every record
    /// (step 0 included) with what seeded it, what was offered and whether it was a hit.
    #[arg(long, requires = "steps")]
    pub per_step: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Gate: exit 1 when overall or any operator is less complete than X (0 to 1).
    #[arg(long, value_name = "X", value_parser = parse_threshold)]
    pub min_complete: Option<f64>,
    /// Gate: exit 1 when overall or any operator offers more than N tokens on average (per
    /// record, or per step with --steps).
    #[arg(long, value_name = "N", value_parser = parse_tokens)]
    pub max_tokens: Option<f64>,
}

/// A token count for `--max-tokens`: a number, not negative (nan is refused: it would
/// pass every comparison).
fn parse_tokens(s: &str) -> Result<f64, String> {
    let n: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if n.is_nan() || n < 0.0 {
        return Err(format!("{s} is not a token count (a number from 0)"));
    }
    Ok(n)
}

/// The gate failure of an evaluation over no evidence (records or steps alike): a gate
/// must not pass on nothing.
pub fn no_evidence(what: &str) -> String {
    format!(
        "overall: no {what} to check (the traces hold none, or none of this operator); a gate needs evidence"
    )
}
