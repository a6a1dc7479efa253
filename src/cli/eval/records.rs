//! `toolscope eval` over whole records: the offer scored against traces of real runs,
//! with optional gates.

use std::process::ExitCode;

use super::args::{Args, Format, no_evidence};
use crate::cli::common::print_json;
use toolscope_core::evidence::criterion::Criterion;
use toolscope_core::evidence::eval::{Report, evaluate, suggest_by_steps};
use toolscope_core::evidence::report;
use toolscope_core::evidence::steps::{StepCounter, StepOptions};
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
    let mut report = evaluate(tk, &resolved, &opts, &cost);
    // One criterion (core::evidence::criterion): records with their calls in order are
    // judged by next-call recall, as `eval --steps --sweep` judges them, unless a
    // completeness was asked for (or the filters stage is on, which steps do not model).
    let ordered = records.iter().any(|r| r.calls.is_some());
    if args.sweep
        && opts.filters.is_none()
        && matches!(
            Criterion::auto(ordered, args.target_recall, args.min_complete),
            Criterion::StepRecall(_)
        )
    {
        let mut counter = StepCounter::new(
            tk,
            StepOptions {
                threshold: opts.threshold,
                hops: opts.hops,
                sweep: true,
                target_recall: args.target_recall,
                ..StepOptions::default()
            },
        );
        for r in records.iter().filter(|r| r.calls.is_some()) {
            counter.add(r);
        }
        let steps = counter.finish(&cost);
        suggest_by_steps(tk, &mut report, &resolved, &steps, &cost);
    }
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
