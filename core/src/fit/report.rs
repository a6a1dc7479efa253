//! A fit's suggestions and smoothing in words and in JSON, as `toolscope fit` prints
//! them (moved here with the pipeline; the rest of the printing is the CLI's).

use serde_json::{Value, json};

use crate::evidence::criterion::Criterion;
use crate::evidence::eval::Report;
use crate::evidence::fit::Fitted;
use crate::evidence::learn::{NextFit, Smoothing};
use crate::evidence::steps::StepReport;
use crate::fit::ParamChange;
use crate::model::Toolkit;
use crate::recommend::explain::num;
use crate::text::for_terminal;

/// What the cross-validation of the Next scores measures.
pub const CV_MEASURE: &str = "mean next-call recall over offers of 1 to 15 tools (each step's row ranking, cut to the tools the run had; a tool of score 0 never offered) on held-out runs";

/// How far the Next scores trust the runs, as JSON.
pub fn smoothing_json(tk: &Toolkit, s: &Smoothing) -> Value {
    json!({
        "weight": s.weight, "runs": s.runs, "folds": s.folds, "steps": s.steps,
        "measure": CV_MEASURE,
        "scores": s.scores.iter().map(|(m, v)| json!({"weight": m, "score": v})).collect::<Vec<_>>(),
        "rows": s.rows,
        "plain_rows": s.plain_rows.iter().map(|&a| tk.name(a)).collect::<Vec<_>>(),
        "chosen_score": s.chosen_score,
    })
}

/// How far the Next scores trust the runs, and why, in a few lines.
pub fn smoothing_text(tk: &Toolkit, s: &Smoothing) -> String {
    if s.folds == 0 {
        return format!(
            "Next scores: prior weight {} (fixed: {} distinct run(s) with their calls in order, fewer than {} to cross-validate)\n",
            num(s.weight),
            s.runs,
            crate::evidence::learn::FOLDS
        );
    }
    let scores: Vec<String> = s
        .scores
        .iter()
        .map(|(m, v)| format!("{} {v:.4}", num(*m)))
        .collect();
    let mut out = format!(
        "Next scores: prior weight {} chosen by {}-fold cross-validation over {} distinct runs ({} held-out steps)\n  measure: {CV_MEASURE}\n  by prior weight (0 = the plain transition counts): {}\n",
        num(s.weight),
        s.folds,
        s.runs,
        s.steps,
        scores.join(", ")
    );
    let names: Vec<String> = s
        .plain_rows
        .iter()
        .map(|&a| for_terminal(tk.name(a)).into_owned())
        .collect();
    out += &format!(
        "  {} of {} rows keep the plain counts (they score higher on their held-out steps){}{}; with them {}\n",
        s.plain_rows.len(),
        s.rows,
        if names.is_empty() { "" } else { ": " },
        names.join(", "),
        s.chosen_score
            .map_or_else(|| "-".into(), |v| format!("{v:.4}"))
    );
    out
}

/// The settings suggested for the fitted toolkit, per operator, by the one criterion.
#[derive(Debug)]
pub enum Suggestions {
    /// Records with their calls in order: the step sweep after the fit.
    Steps(Box<StepReport>),
    /// Records without order: the record evaluation after the fit, swept.
    Records(Box<Report>),
}

impl Suggestions {
    /// The criterion the suggestions are chosen by.
    pub fn criterion(&self) -> Criterion {
        match self {
            Suggestions::Steps(r) => crate::evidence::steps::report::criterion(r),
            Suggestions::Records(r) => r.criterion,
        }
    }

    /// Per group (operator, or `seeds:...`), the suggested threshold and hops, `None` when
    /// no setting reaches the criterion.
    pub fn settings(&self) -> Vec<(&str, Option<(f64, u32)>)> {
        match self {
            Suggestions::Steps(r) => r
                .operators
                .iter()
                .map(|g| {
                    let p = g.suggested.as_ref().map(|p| (p.threshold, p.hops));
                    (g.operator.as_str(), p)
                })
                .collect(),
            Suggestions::Records(r) => r
                .operators
                .iter()
                .map(|g| {
                    let p = g.suggested.as_ref().map(|s| (s.threshold, s.hops));
                    (g.operator.as_str(), p)
                })
                .collect(),
        }
    }

    /// The suggestions as JSON, one point per operator that reaches the criterion.
    pub fn to_json(&self) -> Value {
        let point = |operator: &str, t: f64, h: u32, measure: f64, tokens: f64| {
            json!({"operator": operator, "threshold": t, "hops": h,
                   self.criterion().key(): measure, "tokens": tokens})
        };
        // The steps' suggestions say the first calls there too (the second figure).
        let with_first = |mut v: Value, first: Option<f64>| {
            v["first_calls"] = json!(first);
            v
        };
        match self {
            Suggestions::Steps(r) => r
                .operators
                .iter()
                .filter_map(|g| {
                    let p = g.suggested.as_ref()?;
                    let v = point(&g.operator, p.threshold, p.hops, p.recall, p.tokens);
                    Some(with_first(v, p.first_recall))
                })
                .collect(),
            Suggestions::Records(r) => r
                .operators
                .iter()
                .filter_map(|g| {
                    let s = g.suggested.as_ref()?;
                    Some(point(
                        &g.operator,
                        s.threshold,
                        s.hops,
                        s.complete,
                        s.tokens,
                    ))
                })
                .collect(),
        }
    }

    /// `suggested after the fit (fewest tokens reaching step recall 0.90):` and a line per
    /// operator.
    pub fn text(&self) -> String {
        let mut out = format!(
            "suggested after the fit ({}), per operator:\n",
            self.criterion().describe()
        );
        let none = |op: &str| format!("  {}: none reaches it\n", for_terminal(op));
        match self {
            Suggestions::Steps(r) => {
                for g in &r.operators {
                    out += &match &g.suggested {
                        Some(p) => format!(
                            "  {}: threshold {}, hops {} (step recall {:.3}, ~{:.0} tokens per step; first calls {})\n",
                            for_terminal(&g.operator),
                            num(p.threshold),
                            p.hops,
                            p.recall,
                            p.tokens,
                            crate::evidence::steps::figures::fmt3(p.first_recall)
                        ),
                        None => none(&g.operator),
                    };
                }
            }
            Suggestions::Records(r) => {
                for g in &r.operators {
                    out += &match &g.suggested {
                        Some(s) => format!(
                            "  {}: threshold {}, hops {} (complete {:.3}, ~{:.0} tokens)\n",
                            for_terminal(&g.operator),
                            num(s.threshold),
                            s.hops,
                            s.complete,
                            s.tokens
                        ),
                        None => none(&g.operator),
                    };
                }
            }
        }
        out
    }
}

/// A fitted Next score as JSON.
pub fn next_json(tk: &Toolkit, f: &NextFit) -> Value {
    json!({
        "from": tk.name(f.from), "to": tk.name(f.to), "old": f.old, "new": f.new,
        "added": f.edge.is_none(), "steps": f.steps, "row_steps": f.row_steps, "floor": f.floor,
    })
}

/// A step evaluation before and after, as JSON.
pub fn step_pair_json((before, after): &(StepReport, StepReport)) -> Value {
    use crate::evidence::steps::report::to_json;
    json!({"steps": before.overall.stats.steps, "before": to_json(before), "after": to_json(after)})
}

/// A fitted Call score as JSON.
pub fn edge_json(tk: &Toolkit, f: &Fitted) -> Value {
    json!({
        "from": tk.name(f.from), "to": tk.name(f.to), "old": f.old, "new": f.new,
        "present": f.present, "called": f.called, "floor": f.floor,
    })
}

/// A record evaluation before and after, as JSON.
pub fn pair_json((before, after): &(Report, Report)) -> Value {
    json!({"records": before.overall.records, "before": crate::evidence::report::to_json(before), "after": crate::evidence::report::to_json(after)})
}

/// `fitted steps (n): next-call recall b -> a, ~tokens per step b -> a; first calls (m)
/// b -> a, ~tokens b -> a`: the one set of figures (steps, then first calls) before and
/// after.
pub fn step_line(what: &str, (b, a): &(StepReport, StepReport)) -> String {
    use crate::evidence::steps::figures::{Figures, fmt3};
    let (b, a) = (Figures::of(&b.overall), Figures::of(&a.overall));
    format!(
        "{what} steps ({}): next-call recall {} -> {}, ~tokens per step {:.0} -> {:.0}; first calls ({}) {} -> {}, ~tokens {:.0} -> {:.0}\n",
        b.steps.calls,
        fmt3(b.steps.recall()),
        fmt3(a.steps.recall()),
        b.steps.tokens,
        a.steps.tokens,
        b.first.calls,
        fmt3(b.first.recall()),
        fmt3(a.first.recall()),
        b.first.tokens,
        a.first.tokens,
    )
}

/// `fitted (n records): complete b -> a, ...`: the record evaluation before and after.
pub fn line(what: &str, (b, a): &(Report, Report)) -> String {
    let f = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.3}"));
    let t = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.0}"));
    format!(
        "{what} ({} records): complete {} -> {}, recall {} -> {}, precision {} -> {}, ~tokens {} -> {}\n",
        b.overall.records,
        f(b.overall.complete),
        f(a.overall.complete),
        f(b.overall.recall),
        f(a.overall.recall),
        f(b.overall.precision),
        f(a.overall.precision),
        t(b.overall.tokens),
        t(a.overall.tokens),
    )
}

/// A suggested setting set with `--set-params`, as JSON.
pub fn param_json(p: &ParamChange) -> Value {
    json!({
        "operator": p.operator,
        "threshold": {"old": p.threshold.0, "new": p.threshold.1},
        "hops": {"old": p.hops.0, "new": p.hops.1},
    })
}

/// A suggested setting set with `--set-params`, in one line: each value changed or kept.
pub fn param_line(p: &ParamChange) -> String {
    let threshold = match p.threshold.0 == p.threshold.1 {
        true => format!("threshold {} kept", num(p.threshold.0)),
        false => format!("threshold {} -> {}", num(p.threshold.0), num(p.threshold.1)),
    };
    let hops = match p.hops.0 == p.hops.1 {
        true => format!("hops {} kept", p.hops.0),
        false => format!("hops {} -> {}", p.hops.0, p.hops.1),
    };
    format!(
        "  {}: {threshold}, {hops} (the suggestion below)\n",
        for_terminal(&p.operator)
    )
}

/// One fitted Call score: `from -> to: old -> new (called in n/m records)`.
pub fn call_line(tk: &Toolkit, f: &Fitted) -> String {
    format!(
        "{} -> {}: {} -> {} (called in {}/{} records)",
        tk.name(f.from),
        tk.name(f.to),
        num(f.old),
        num(f.new),
        f.called,
        f.present
    )
}

/// The fitted Call scores, a line each, and the Next edges added, a line each (Next rows
/// can be long, a prior row per action: the changed scores are counted, not listed).
pub fn score_lines(tk: &Toolkit, fitted: &[Fitted], next: &[NextFit]) -> String {
    let mut out = String::new();
    for f in fitted {
        out += &format!("  {}\n", call_line(tk, f));
    }
    for f in next.iter().filter(|f| f.edge.is_none()) {
        out += &format!(
            "  added: {} -> {}: {} ({} of {} steps)\n",
            tk.name(f.from),
            tk.name(f.to),
            num(f.new),
            f.steps,
            f.row_steps
        );
    }
    out
}
