//! `toolscope eval --steps`: next-call recall per step, streamed from the trace files.

use std::process::ExitCode;

use super::args::{Args, Format, TraceFormatArg, no_evidence, print_diags};
use crate::cli::common::{error, print_json, status};
use toolscope_core::evidence::read::TraceLimits;
use toolscope_core::evidence::steps::per_step::{self, PerStepCounter};
use toolscope_core::evidence::steps::{StepCounter, StepOptions, StepReport, report};
use toolscope_core::evidence::stream::visit_within;
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
    if args.per_step && args.format != Format::Json {
        error("--per-step lists every step as JSON: add --format json");
        return ExitCode::from(2);
    }
    let mut counter = StepCounter::new(tk, opts);
    let mut per = args
        .per_step
        .then(|| PerStepCounter::new(tk, t.threshold, t.hops, args.context as usize));
    let mut number = 0u64;
    let format = t.traces_format.map(|f| match f {
        TraceFormatArg::Jsonl => TraceFormat::Jsonl,
        TraceFormatArg::Otlp => TraceFormat::Otlp,
    });
    let limits = match trace_limits() {
        Ok(l) => l,
        Err(e) => {
            error(&e);
            return ExitCode::from(2);
        }
    };
    let visited = visit_within(&t.traces, format, &t.naming.naming(), &limits, &mut |r| {
        let keep = only.as_ref().is_none_or(|op| match &r.target {
            Target::Operator(name) => tk.operator(name).is_some_and(|o| &o.name == op),
            Target::Seeds(_) => false,
        });
        number += 1;
        if !keep {
            return 0;
        }
        let kept = per.as_mut().map_or(0, |p| p.add(number, &r));
        kept + counter.add(&r)
    });
    match visited {
        Ok(diags) => print_diags(&diags),
        Err(e) => {
            error(&e);
            return ExitCode::from(1);
        }
    }
    print_diags(&counter.diagnostics());
    let tokenizer = Tokenizer::new(t.encoding.into());
    let cost = ToolTokens::new(tk, &tokenizer);
    let report = counter.finish(&cost);
    match args.format {
        Format::Json => {
            let mut json = report::to_json(&report);
            if let (Some(p), Some(obj)) = (per, json.as_object_mut()) {
                obj.insert("per_step".into(), per_step::to_json(&p.finish()));
            }
            print_json(&json)
        }
        Format::Text => crate::cli::common::out(&for_terminal(&report::to_text(
            &report,
            tokenizer.encoding().as_str(),
        ))),
    }
    let mut failures = gate_failures(&report, args.min_recall, args.max_tokens);
    if (args.min_recall.is_some() || args.max_tokens.is_some()) && report.overall.stats.steps == 0 {
        failures.push(no_evidence("step"));
    }
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

/// The environment variable that sets what `eval --steps` may hold of the traces (records,
/// step contexts and per-step entries), in MiB: for a machine with more memory than the
/// default 1024 MiB assumes, or a test that reaches the bound without a gigabyte of input.
pub const TRACE_MEMORY_ENV: &str = "TOOLSCOPE_TRACE_MEMORY_MIB";

/// The trace limits, with the memory bound from [`TRACE_MEMORY_ENV`] when it is set.
fn trace_limits() -> Result<TraceLimits, String> {
    let mut limits = TraceLimits::default();
    if let Some(v) = std::env::var_os(TRACE_MEMORY_ENV) {
        let mib = v
            .to_str()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .filter(|&m| (1..=1 << 20).contains(&m))
            .ok_or_else(|| {
                format!(
                    "{TRACE_MEMORY_ENV} must be a whole number of MiB from 1 to 1048576, not {}",
                    for_terminal(&v.to_string_lossy())
                )
            })?;
        limits.memory = mib << 20;
    }
    Ok(limits)
}
