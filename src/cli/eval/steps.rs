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
    // What the callbacks kept so far (the reader's count): the per-step entries stop at
    // the room left under the limit.
    let mut spent = 0usize;
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
        let room = limits.memory.saturating_sub(spent);
        let kept = per.as_mut().map_or(0, |p| p.add(number, &r, room));
        let kept = kept.saturating_add(counter.add(&r));
        spent = spent.saturating_add(kept);
        kept
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
        Format::Json => match per {
            Some(p) => print_with_per_step(&report::to_json(&report), &p.finish()),
            None => print_json(&report::to_json(&report)),
        },
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

/// The report with its `per_step` list last, written entry by entry: the list is never
/// held as one JSON tree or one string (40 small records listing thousands of tools per
/// step print tens of MB). The layout is `print_json`'s (two-space indents).
fn print_with_per_step(report: &serde_json::Value, entries: &[per_step::PerStep]) {
    use std::io::Write;
    let head = match serde_json::to_string_pretty(report) {
        Ok(s) => s,
        Err(e) => return error(&e.to_string()),
    };
    // `{ ... }` without its closing brace; an empty report is `{}`.
    let open = head.trim_end().trim_end_matches('}').trim_end();
    let sep = if open.ends_with('{') { "" } else { "," };
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    put(&mut w, &format!("{open}{sep}\n  \"per_step\": ["));
    for (i, e) in entries.iter().enumerate() {
        let text = serde_json::to_string_pretty(&per_step::entry_json(e)).unwrap_or_default();
        let mut item = String::with_capacity(text.len() + 64);
        item.push_str(if i == 0 { "\n" } else { ",\n" });
        for (j, line) in text.lines().enumerate() {
            if j > 0 {
                item.push('\n');
            }
            item.push_str("    ");
            item.push_str(line);
        }
        put(&mut w, &item);
    }
    put(
        &mut w,
        if entries.is_empty() {
            "]\n}\n"
        } else {
            "\n  ]\n}\n"
        },
    );
    if let Err(e) = w.flush() {
        write_failed(&e);
    }
}

/// Writes `text` made safe for a terminal (`json_safe`, as `print_json` does).
fn put(w: &mut impl std::io::Write, text: &str) {
    if let Err(e) = w.write_all(toolscope_core::text::json_safe(text).as_bytes()) {
        write_failed(&e);
    }
}

/// stdout failed: a reader gone ends quietly with 141 (as `common::out` does).
fn write_failed(e: &std::io::Error) {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(141);
    }
    error(&format!("cannot write to stdout: {e}"));
    std::process::exit(1);
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
