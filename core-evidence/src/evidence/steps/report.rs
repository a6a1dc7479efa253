//! The step evaluation as JSON and as text tables.
//!
//! JSON: `{"context", "target_recall", "budget", "operators": [group], "overall": group}`,
//! a group being `{"operator", "threshold", "hops", "records", "unordered", "steps",
//! "hits", "recall", "offered_tools", "tokens", "token_ratio", "baseline": {"recall",
//! "offered_tools", "tokens"}, "unknown_targets", "first": {...}}` plus, with the sweep,
//! `"sweep": [point]`, `"suggested"` and `"best"` (a point or `null`), a point being
//! `{"threshold", "hops", "recall", "offered_tools", "tokens", "token_ratio",
//! "first_recall", "first_tokens"}` (the first calls at that setting: the second figure);
//! `"criterion"` and `"best_criterion"` at the top say in words what `suggested` and
//! `best` optimise.

use serde_json::{Map, Value, json};

use super::{StepGroup, StepReport, StepStats, SweepPoint};
use crate::recommend::explain::num;

pub fn to_json(r: &StepReport) -> Value {
    json!({
        "context": r.context,
        "target_recall": r.target_recall,
        "criterion": criterion(r).describe(),
        "best_criterion": format!("highest step recall within {} of the tokens", pct(Some(r.budget))),
        "budget": r.budget,
        "operators": r.operators.iter().map(group_json).collect::<Vec<_>>(),
        "overall": group_json(&r.overall),
    })
}

fn group_json(g: &StepGroup) -> Value {
    let mut m = Map::new();
    m.insert("operator".into(), json!(g.operator));
    m.insert("threshold".into(), json!(g.threshold));
    m.insert("hops".into(), json!(g.hops));
    m.insert("records".into(), json!(g.records));
    m.insert("unordered".into(), json!(g.unordered));
    stats_into(&mut m, &g.stats);
    let mut first = Map::new();
    stats_into(&mut first, &g.first);
    first.remove("unknown_targets");
    m.insert("first".into(), Value::Object(first));
    if let Some(sweep) = &g.sweep {
        m.insert("sweep".into(), sweep.iter().map(point_json).collect());
        m.insert(
            "suggested".into(),
            g.suggested.as_ref().map_or(Value::Null, point_json),
        );
        m.insert(
            "best".into(),
            g.best.as_ref().map_or(Value::Null, point_json),
        );
    }
    Value::Object(m)
}

fn stats_into(m: &mut Map<String, Value>, s: &StepStats) {
    for (k, v) in [
        ("steps", json!(s.steps)),
        ("hits", json!(s.hits)),
        ("recall", json!(s.recall)),
        ("offered_tools", json!(s.offered_tools)),
        ("tokens", json!(s.tokens)),
        ("token_ratio", json!(s.token_ratio)),
        (
            "baseline",
            json!({
                "recall": s.baseline.recall,
                "offered_tools": s.baseline.offered_tools,
                "tokens": s.baseline.tokens,
            }),
        ),
        ("unknown_targets", json!(s.unknown_targets)),
    ] {
        m.insert(k.into(), v);
    }
}

fn point_json(p: &SweepPoint) -> Value {
    json!({
        "threshold": p.threshold,
        "hops": p.hops,
        "recall": p.recall,
        "offered_tools": p.offered_tools,
        "tokens": p.tokens,
        "token_ratio": p.token_ratio,
        "first_recall": p.first_recall,
        "first_tokens": p.first_tokens,
    })
}

/// What the step report's suggestions optimise.
pub fn criterion(r: &StepReport) -> crate::evidence::criterion::Criterion {
    crate::evidence::criterion::Criterion::StepRecall(r.target_recall)
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", v * 100.0))
}

/// Text: one row per operator and overall (steps at their parameters, the baseline and the
/// first calls), then with the sweep the points no other point beats on both recall and
/// tokens, the suggestion and the best point within the budget.
pub fn to_text(r: &StepReport, encoding: &str) -> String {
    let head = format!(
        "{:<28} {:>9} {:>4} {:>7} {:>6} {:>6} {:>7} {:>8} {:>6} {:>9} {:>11}\n",
        "operator",
        "threshold",
        "hops",
        "records",
        "steps",
        "recall",
        "offered",
        "~tokens",
        "share",
        "base ~tok",
        "first recall"
    );
    let mut out = head;
    for g in r.operators.iter().chain(std::iter::once(&r.overall)) {
        let name = if std::ptr::eq(g, &r.overall) {
            "(overall)".to_string()
        } else {
            crate::text::sanitize(&g.operator).into_owned()
        };
        out += &format!(
            "{:<28} {:>9} {:>4} {:>7} {:>6} {:>6} {:>7} {:>8} {:>6} {:>9} {:>11}\n",
            name,
            g.threshold.map_or_else(|| "-".into(), num),
            g.hops.map_or_else(|| "-".into(), |h| h.to_string()),
            g.records,
            g.stats.steps,
            opt(g.stats.recall, 3),
            opt(g.stats.offered_tools, 1),
            opt(g.stats.tokens, 0),
            pct(g.stats.token_ratio),
            opt(g.stats.baseline.tokens, 0),
            opt(g.first.recall, 3),
        );
    }
    out += &format!(
        "steps: the calls after each record's first; seeds = the actions calling the last {} \
         call(s); recall: share of steps whose call was offered (next-call recall); offered: \
         tools offered per step; ~tokens: their estimated prompt tokens per step ({encoding}); \
         base ~tok: tokens per step of offering everything the run had available; share = \
         ~tokens over base ~tok; first recall: share of records whose first call the \
         operator's own offer (its seeds) held\n",
        r.context
    );
    let unordered = r.overall.unordered;
    if unordered > 0 {
        out += &format!("{unordered} record(s) without `calls` give no steps\n");
    }
    for g in r.operators.iter().chain(std::iter::once(&r.overall)) {
        if let Some(sweep) = &g.sweep {
            out += &sweep_text(g, sweep, r);
        }
    }
    out
}

fn sweep_text(g: &StepGroup, sweep: &[SweepPoint], r: &StepReport) -> String {
    let mut out = format!(
        "\n{} sweep (points no other beats on recall and tokens)\n  {:>10} {:>4} {:>6} {:>7} {:>8} {:>6} {:>11}\n",
        crate::text::sanitize(&g.operator),
        "threshold",
        "hops",
        "recall",
        "offered",
        "~tokens",
        "share",
        "first calls"
    );
    for p in frontier(sweep) {
        out += &format!(
            "  {:>10} {:>4} {:>6.3} {:>7.1} {:>8.0} {:>6} {:>11}\n",
            num(p.threshold),
            p.hops,
            p.recall,
            p.offered_tools,
            p.tokens,
            pct(p.token_ratio),
            opt(p.first_recall, 3)
        );
    }
    let line = |what: String, p: &Option<SweepPoint>| match p {
        Some(p) => format!(
            "  {what}: threshold {}, hops {} (recall {:.3}, ~{:.0} tokens, {} of the baseline; first calls {})\n",
            num(p.threshold),
            p.hops,
            p.recall,
            p.tokens,
            pct(p.token_ratio),
            opt(p.first_recall, 3)
        ),
        None => format!("  {what}: none\n"),
    };
    out += &line(
        format!("suggested ({})", criterion(r).describe()),
        &g.suggested,
    );
    out += &line(
        format!(
            "best (highest step recall within {} of the tokens)",
            pct(Some(r.budget))
        ),
        &g.best,
    );
    out
}

/// The points on the recall/tokens frontier, cheapest first: each has a higher recall than
/// every cheaper point.
pub fn frontier(points: &[SweepPoint]) -> Vec<&SweepPoint> {
    let mut sorted: Vec<&SweepPoint> = points.iter().collect();
    sorted.sort_by(|a, b| {
        a.tokens
            .total_cmp(&b.tokens)
            .then(b.recall.total_cmp(&a.recall))
    });
    let mut out: Vec<&SweepPoint> = Vec::new();
    for p in sorted {
        if out.last().is_none_or(|q| p.recall > q.recall) {
            out.push(p);
        }
    }
    out
}
