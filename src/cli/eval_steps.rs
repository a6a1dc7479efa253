//! `toolscope eval --steps`: next-call recall per step, streamed from the trace files.

use std::process::ExitCode;

use super::common::{error, print_json, status};
use super::eval::{Args, Format, TraceFormatArg, print_diags};
use toolscope_core::evidence::steps::{StepCounter, StepOptions, StepReport, report};
use toolscope_core::evidence::stream::visit_traces;
use toolscope_core::evidence::{Target, TraceFormat};
use toolscope_core::model::Toolkit;
use toolscope_core::text::for_terminal;
use toolscope_core::tokens::{Tokenizer, ToolTokens};

pub fn run(tk: &Toolkit, args: &Args) -> ExitCode {
    let t = &args.traces;
    let only = match &t.operator {
        None => None,
        Some(name) => match tk.operator(name) {
            Some(op) => Some(op.name.clone()),
            None => {
                error(&format!("no operator named `{name}`"));
                return ExitCode::from(1);
            }
        },
    };
    let opts = StepOptions {
        threshold: t.threshold,
        hops: t.hops,
        context: args.context as usize,
        sweep: args.sweep,
        target_recall: args.target_recall,
        budget: args.budget,
    };
    let mut counter = StepCounter::new(tk, opts);
    let format = t.traces_format.map(|f| match f {
        TraceFormatArg::Jsonl => TraceFormat::Jsonl,
        TraceFormatArg::Otlp => TraceFormat::Otlp,
    });
    let visited = visit_traces(&t.traces, format, &t.operator_attr, &mut |r| {
        let keep = only.as_ref().is_none_or(|op| match &r.target {
            Target::Operator(name) => tk.operator(name).is_some_and(|o| &o.name == op),
            Target::Seeds(_) => false,
        });
        if keep {
            counter.add(&r);
        }
    });
    match visited {
        Ok(diags) => print_diags(&diags),
        Err(e) => {
            error(&e);
            return ExitCode::from(1);
        }
    }
    print_diags(counter.diagnostics());
    let tokenizer = Tokenizer::new(t.encoding.into());
    let cost = ToolTokens::new(tk, &tokenizer);
    let report = counter.finish(&cost);
    match args.format {
        Format::Json => print_json(&report::to_json(&report)),
        Format::Text => super::common::out(&for_terminal(&report::to_text(
            &report,
            tokenizer.encoding().as_str(),
        ))),
    }
    let failures = gate_failures(&report, args.min_recall, args.max_tokens);
    for f in &failures {
        status(&format!("gate: {f}"));
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Which of overall and the operators fall short of the gates, as messages. A group with
/// no steps has no recall and passes the recall gate.
pub fn gate_failures(
    report: &StepReport,
    min_recall: Option<f64>,
    max_tokens: Option<f64>,
) -> Vec<String> {
    let mut out = Vec::new();
    let groups = std::iter::once(&report.overall).chain(report.operators.iter());
    for g in groups {
        let s = &g.stats;
        if let (Some(min), Some(r)) = (min_recall, s.recall)
            && r < min
        {
            out.push(format!("{}: next-call recall {r:.3} < {min}", g.operator));
        }
        if let (Some(max), Some(t)) = (max_tokens, s.tokens)
            && t > max
        {
            out.push(format!("{}: ~{t:.0} tokens per step > {max}", g.operator));
        }
    }
    out
}
