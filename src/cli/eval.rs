//! `toolscope eval`: the offer scored against traces of real runs, with optional gates.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{EncodingArg, Inputs, parse_threshold, print_json};
use toolscope_core::diag::Diagnostic;
use toolscope_core::evidence::eval::{EvalOptions, Report, Resolved, evaluate, resolve};
use toolscope_core::evidence::{Record, TraceFormat, load_traces, otlp, report};
use toolscope_core::recommend::MAX_HOPS;
use toolscope_core::recommend::ToolFilters;
use toolscope_core::text::for_terminal;
use toolscope_core::tokens::{Tokenizer, ToolTokens};

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

/// Where the records come from and how to read them (shared with `fit`).
#[derive(Debug, Clone, clap::Args)]
pub struct TraceArgs {
    /// Trace files (repeatable): JSONL records or OTLP JSON lines.
    #[arg(long, required = true, value_name = "FILE")]
    pub traces: Vec<PathBuf>,
    /// The trace format; detected per file when not given.
    #[arg(long, value_enum)]
    pub traces_format: Option<TraceFormatArg>,
    /// OTLP: the span attribute naming the operator.
    #[arg(long, value_name = "KEY", default_value = otlp::AGENT_ATTR)]
    pub operator_attr: String,
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
            load_traces(&self.traces, format, &self.operator_attr).map_err(|e| {
                super::common::error(&e.to_string());
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
                super::common::error(&format!("no operator named `{name}`"));
                return Err(ExitCode::from(1));
            };
            resolved.retain(|r| r.group == op.name);
        }
        Ok(resolved)
    }
}

pub fn print_diags(diags: &[Diagnostic]) {
    for d in diags {
        super::common::status(&d.to_string());
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: Inputs,
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
    /// With --steps --sweep: the recall the suggested setting must reach.
    #[arg(long, value_name = "X", default_value_t = 0.9, requires = "steps", value_parser = parse_threshold)]
    pub target_recall: f64,
    /// With --steps --sweep: the token budget of the best point, a share of the tokens of
    /// offering everything available.
    #[arg(long, value_name = "SHARE", default_value_t = 0.3, requires = "steps", value_parser = parse_threshold)]
    pub budget: f64,
    /// Gate, with --steps: exit 1 when overall or any operator's next-call recall is below X.
    #[arg(long, value_name = "X", requires = "steps", value_parser = parse_threshold)]
    pub min_recall: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Gate: exit 1 when overall or any operator is less complete than X (0 to 1).
    #[arg(long, value_name = "X", value_parser = parse_threshold)]
    min_complete: Option<f64>,
    /// Gate: exit 1 when overall or any operator offers more than N tokens on average (per
    /// record, or per step with --steps).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<f64>,
}

pub fn run(args: &Args) -> ExitCode {
    let loaded = match args.inputs.load() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tk = &loaded.toolkit;
    if args.steps {
        return super::eval_steps::run(tk, args);
    }
    let records = match args.traces.records() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut opts = args.traces.options();
    opts.sweep = args.sweep;
    opts.min_complete = args.min_complete;
    let resolved = match args.traces.resolve(tk, &records, &opts) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let tokenizer = Tokenizer::new(args.traces.encoding.into());
    let cost = ToolTokens::new(tk, &tokenizer);
    let report = evaluate(tk, &resolved, &opts, &cost);
    match args.format {
        Format::Json => print_json(&report::to_json(&report)),
        Format::Text => super::common::out(&for_terminal(&report::to_text(
            &report,
            tokenizer.encoding().as_str(),
        ))),
    }
    let failures = gate_failures(&report, args.min_complete, args.max_tokens);
    for f in &failures {
        super::common::status(&format!("gate: {f}"));
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Which of overall and the operators fall short of the gates, as messages.
pub fn gate_failures(
    report: &Report,
    min_complete: Option<f64>,
    max_tokens: Option<f64>,
) -> Vec<String> {
    let mut out = Vec::new();
    let groups = std::iter::once(("overall", &report.overall)).chain(
        report
            .operators
            .iter()
            .map(|g| (g.operator.as_str(), &g.stats)),
    );
    for (name, s) in groups {
        if let (Some(min), Some(c)) = (min_complete, s.complete)
            && c < min
        {
            out.push(format!("{name}: complete {c:.3} < {min}"));
        }
        if let (Some(max), Some(t)) = (max_tokens, s.tokens)
            && t > max
        {
            out.push(format!("{name}: ~{t:.0} tokens > {max}"));
        }
    }
    out
}
