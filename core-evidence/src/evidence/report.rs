//! The `eval` report as JSON (the shape SPEC 8 fixes) and as text tables.

use serde_json::{Value, json};

use super::criterion::Criterion;
use super::eval::{GroupReport, Report, Stats, StepStats, Suggested};
use crate::recommend::explain::num;

/// `{"operators": [...], "overall": {...}}`.
pub fn to_json(report: &Report) -> Value {
    json!({
        "operators": report.operators.iter().map(group_json).collect::<Vec<_>>(),
        "overall": stats_json(&report.overall, json!({})),
    })
}

fn group_json(g: &GroupReport) -> Value {
    let head = json!({"operator": g.operator, "threshold": g.threshold, "hops": g.hops});
    let mut v = stats_json(&g.stats, head);
    if let (Some(steps), Some(obj)) = (&g.steps, v.as_object_mut()) {
        obj.insert("steps".into(), steps.iter().map(step_json).collect());
        obj.insert(
            "suggested".into(),
            g.suggested.as_ref().map_or(Value::Null, suggested_json),
        );
    }
    v
}

fn stats_json(s: &Stats, head: Value) -> Value {
    let mut v = head;
    if let Some(obj) = v.as_object_mut() {
        for (k, x) in [
            ("records", json!(s.records)),
            ("with_calls", json!(s.with_calls)),
            ("recall", json!(s.recall)),
            ("complete", json!(s.complete)),
            ("precision", json!(s.precision)),
            ("offered_tools", json!(s.offered_tools)),
            ("tokens", json!(s.tokens)),
            ("unknown_calls", json!(s.unknown_calls)),
            ("never_called", json!(s.never_called)),
            ("called_not_offered", json!(s.called_not_offered)),
        ] {
            obj.insert(k.into(), x);
        }
    }
    v
}

fn step_json(s: &StepStats) -> Value {
    json!({
        "threshold": s.threshold,
        "recall": s.recall,
        "complete": s.complete,
        "offered_tools": s.offered_tools,
        "tokens": s.tokens,
    })
}

fn suggested_json(s: &Suggested) -> Value {
    json!({
        "threshold": s.threshold, "hops": s.hops, "complete": s.complete, "tokens": s.tokens,
        "criterion": s.criterion.describe(), "criterion_key": s.criterion.key(),
        "criterion_target": s.criterion.target(),
        "step_recall": s.step_recall, "step_tokens": s.step_tokens,
    })
}

/// The suggestion in one line: `suggested (fewest tokens keeping complete 1.00):
/// threshold 0.4, hops 2 (complete 1.000, ~70 tokens)`.
pub fn suggested_text(s: &Suggested) -> String {
    let at = match (s.step_recall, s.step_tokens) {
        (Some(r), Some(t)) => format!(
            "step recall {r:.3}, ~{t:.0} tokens per step; complete {:.3}, ~{:.0} tokens per record",
            s.complete, s.tokens
        ),
        _ => format!("complete {:.3}, ~{:.0} tokens", s.complete, s.tokens),
    };
    format!(
        "suggested ({}): threshold {}, hops {} ({at})",
        s.criterion.describe(),
        num(s.threshold),
        s.hops
    )
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"))
}

/// Text: a table of the numbers per operator and overall, then per operator the tools
/// never called and called while not offered, the steps and the suggestion.
pub fn to_text(report: &Report, encoding: &str) -> String {
    let mut out = format!(
        "{:<28} {:>9} {:>4} {:>7} {:>5} {:>6} {:>8} {:>9} {:>7} {:>8} {:>7}\n",
        "operator",
        "threshold",
        "hops",
        "records",
        "calls",
        "recall",
        "complete",
        "precision",
        "offered",
        "~tokens",
        "unknown"
    );
    let row = |name: &str, t: Option<f64>, h: Option<u32>, s: &Stats| {
        format!(
            "{:<28} {:>9} {:>4} {:>7} {:>5} {:>6} {:>8} {:>9} {:>7} {:>8} {:>7}\n",
            // Names escaped whole (line breaks too): a name cannot forge a row.
            crate::text::sanitize(name),
            t.map_or_else(|| "-".into(), num),
            h.map_or_else(|| "-".into(), |h| h.to_string()),
            s.records,
            s.with_calls,
            opt(s.recall),
            opt(s.complete),
            opt(s.precision),
            s.offered_tools
                .map_or_else(|| "-".into(), |x| format!("{x:.1}")),
            s.tokens.map_or_else(|| "-".into(), |x| format!("{x:.0}")),
            s.unknown_calls
        )
    };
    for g in &report.operators {
        out += &row(&g.operator, g.threshold, g.hops, &g.stats);
    }
    out += &row("(overall)", None, None, &report.overall);
    out += &format!(
        "records: runs of the operator; calls: runs that called a tool of the toolkit; recall: \
         share of a run's called tools offered (mean over runs); complete: share of runs with \
         every called tool offered; precision: share of the offered tools called (mean); \
         offered: tools offered per run; ~tokens: an estimate ({encoding}) of the \
         describe --style json entries offered, per run; unknown: called names that are no \
         tool of the toolkit\n"
    );
    for g in &report.operators {
        out += &details(g, report.criterion);
    }
    out
}

fn details(g: &GroupReport, criterion: Criterion) -> String {
    let mut out = String::new();
    let list = |v: &[String]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.iter()
                .map(|n| crate::text::sanitize(n).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    out += &format!(
        "\n{}\n  never called: {}\n",
        crate::text::sanitize(&g.operator),
        list(&g.stats.never_called)
    );
    out += &format!(
        "  called, not offered: {}\n",
        list(&g.stats.called_not_offered)
    );
    if let Some(steps) = &g.steps {
        out += &format!(
            "  {:>10} {:>6} {:>8} {:>7} {:>8}\n",
            "threshold", "recall", "complete", "offered", "~tokens"
        );
        for s in steps {
            out += &format!(
                "  {:>10} {:>6} {:>8} {:>7.1} {:>8.0}\n",
                num(s.threshold),
                opt(s.recall),
                opt(s.complete),
                s.offered_tools,
                s.tokens
            );
        }
        out += &match &g.suggested {
            Some(s) => format!("  {}\n", suggested_text(s)),
            None => format!("  suggested ({}): none reaches it\n", criterion.describe()),
        };
    }
    out
}
