//! `toolscope eval` over whole records: the offer scored against traces of real runs,
//! with optional gates.

use std::process::ExitCode;

use super::args::{Args, Format, no_evidence};
use crate::cli::common::print_json;
use toolscope_core::evidence::eval::{Report, evaluate};
use toolscope_core::evidence::report;
use toolscope_core::model::Toolkit;
use toolscope_core::text::for_terminal;
use toolscope_core::tokens::{Tokenizer, ToolTokens};

pub fn run(tk: &Toolkit, args: &Args) -> ExitCode {
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
        Format::Text => crate::cli::common::out(&for_terminal(&report::to_text(
            &report,
            tokenizer.encoding().as_str(),
        ))),
    }
    let mut failures = gate_failures(&report, args.min_complete, args.max_tokens);
    if (args.min_complete.is_some() || args.max_tokens.is_some()) && report.overall.records == 0 {
        failures.push(no_evidence("record"));
    }
    for f in &failures {
        crate::cli::common::status(&format!("gate: {f}"));
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
