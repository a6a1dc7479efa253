//! The fit pipeline `toolscope fit` and the TUI's `:fit` both run: the records kept (one
//! operator's, if asked), a fixed hold-out split, the records resolved against the toolkit,
//! the fitted scores ([`Changes`]), and, when asked, the evaluation before and after on
//! both sides of the split with the settings the one criterion suggests after the fit
//! ([`crate::evidence::criterion`]). The scoring rules are the evidence layer's
//! ([`crate::evidence::fit`], [`crate::evidence::learn`]); this layer adds what they cannot
//! see from there: token counts and the workspace the fitted scores are written to.
//!
//! What a fit prints is the front end's; the suggestion and smoothing paragraphs both
//! print the same way are in [`report`].

pub mod report;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use crate::edit::{Edit, Transaction};
use crate::evidence::eval::{EvalOptions, Report, Resolved, evaluate, resolve};
use crate::evidence::fit::{Changes, HOLDOUT_SEED, holdout_mask};
use crate::evidence::steps::{StepCounter, StepOptions, StepReport};
use crate::evidence::{Record, Target};
use crate::model::Toolkit;
use crate::tokens::{Encoding, Tokenizer, ToolTokens};
use crate::workspace::Workspace;

pub use report::Suggestions;

/// How to fit.
#[derive(Debug, Clone, Default)]
pub struct FitOptions {
    /// How records are resolved and evaluated (their filters are the caller's to clear).
    pub eval: EvalOptions,
    /// Fit only the records of this operator (by name, as the toolkit resolves it).
    pub operator: Option<String>,
    /// Hold out this share of the records (a fixed split): fit on the rest.
    pub holdout: Option<f64>,
    /// Also add the Next edges the runs show and the graph lacks.
    pub add_edges: bool,
    /// Evaluate before and after the fit (the CLI's report); `None` fits only.
    pub evaluate: Option<Evaluate>,
}

/// What the evaluation before and after a fit counts with.
#[derive(Debug, Clone, Copy)]
pub struct Evaluate {
    /// The tokenizer the tool definitions are counted with.
    pub encoding: Encoding,
    /// The step evaluation's threshold and hops (`None`: each record's own).
    pub threshold: Option<f64>,
    /// See `threshold`.
    pub hops: Option<u32>,
}

/// What a fit found.
#[derive(Debug)]
pub struct Fit {
    /// The fitted scores (and the Next edges added).
    pub changes: Changes,
    /// How many records the scores were fitted on, resolved (the held-out ones left out).
    pub fitted: usize,
    /// The evaluation before and after, when [`FitOptions::evaluate`] asked for it.
    pub evals: Option<Evals>,
}

/// The evaluation before and after a fit: each pair is (before, after).
#[derive(Debug)]
pub struct Evals {
    /// The settings suggested for the fitted toolkit, by the one criterion.
    pub suggestions: Suggestions,
    /// The records the scores were fitted on.
    pub fitted: (Report, Report),
    /// The held-out records, with a hold-out.
    pub held: Option<(Report, Report)>,
    /// The fitted records' steps, when some record has its calls in order.
    pub steps_fitted: Option<(StepReport, StepReport)>,
    /// The held-out records' steps, likewise.
    pub steps_held: Option<(StepReport, StepReport)>,
}

/// Fits `tk`'s scores to `records` as `opts` says. `stopped` is asked between the phases;
/// when it says yes the fit ends there and gives `None`.
pub fn fit(
    tk: &Toolkit,
    records: &[Record],
    opts: &FitOptions,
    stopped: &dyn Fn() -> bool,
) -> Option<Fit> {
    let (used_recs, held_recs) = split(tk, records, opts);
    let used: Vec<Resolved> = resolve(tk, &used_recs, &opts.eval).0;
    if stopped() {
        return None;
    }
    let changes = Changes::new(tk, &used, opts.add_edges);
    if stopped() {
        return None;
    }
    let evals = opts.evaluate.map(|how| {
        let held: Vec<Resolved> = resolve(tk, &held_recs, &opts.eval).0;
        evals(
            tk,
            &changes,
            opts,
            how,
            (&used_recs, &used),
            (&held_recs, &held),
        )
    });
    Some(Fit {
        fitted: used.len(),
        changes,
        evals,
    })
}

/// The records fitted on and the ones held out: `opts.operator`'s records only, split by
/// the fixed hold-out mask. Without either, the records as they are.
fn split<'r>(
    tk: &Toolkit,
    records: &'r [Record],
    opts: &FitOptions,
) -> (Cow<'r, [Record]>, Cow<'r, [Record]>) {
    if opts.operator.is_none() && opts.holdout.is_none() {
        return (Cow::Borrowed(records), Cow::Borrowed(&[]));
    }
    let keep = |r: &&Record| match &opts.operator {
        None => true,
        Some(name) => match (&r.target, tk.operator(name)) {
            (Target::Operator(n), Some(op)) => tk.operator(n).is_some_and(|o| o.name == op.name),
            _ => false,
        },
    };
    let kept: Vec<&Record> = records.iter().filter(keep).collect();
    let mask = holdout_mask(kept.len(), opts.holdout.unwrap_or(0.0), HOLDOUT_SEED);
    let side = |held_out: bool| -> Vec<Record> {
        kept.iter()
            .zip(&mask)
            .filter(|(_, h)| **h == held_out)
            .map(|(r, _)| (*r).clone())
            .collect()
    };
    (Cow::Owned(side(false)), Cow::Owned(side(true)))
}

/// The evaluation before and after `changes`, on the fitted and the held-out records.
fn evals(
    before: &Toolkit,
    changes: &Changes,
    opts: &FitOptions,
    how: Evaluate,
    (used_recs, used): (&[Record], &[Resolved]),
    (held_recs, held): (&[Record], &[Resolved]),
) -> Evals {
    let after = changes.applied(before);
    let tokenizer = Tokenizer::new(how.encoding);
    let cost = ToolTokens::new(before, &tokenizer);
    let pair = |rs: &[Resolved]| {
        (
            evaluate(before, rs, &opts.eval, &cost),
            evaluate(&after, rs, &opts.eval, &cost),
        )
    };
    let step_pair = |rs: &[Record]| {
        let ordered = rs.iter().any(|r| r.calls.is_some());
        ordered.then(|| {
            (
                steps(before, rs, how, &cost, false),
                steps(&after, rs, how, &cost, true),
            )
        })
    };
    // The setting to use after the fit, by the one criterion (evidence::criterion): step
    // recall on records with their calls in order (the after side of the fitted steps,
    // swept), completeness otherwise, as `eval --sweep` and the TUI suggest it.
    let steps_fitted = step_pair(used_recs);
    let suggestions = match &steps_fitted {
        Some((_, a)) => Suggestions::Steps(Box::new(a.clone())),
        None => Suggestions::Records(Box::new(evaluate(
            &after,
            used,
            &EvalOptions {
                sweep: true,
                ..opts.eval.clone()
            },
            &cost,
        ))),
    };
    Evals {
        suggestions,
        fitted: pair(used),
        held: opts.holdout.map(|_| pair(held)),
        steps_fitted,
        steps_held: opts.holdout.and_then(|_| step_pair(held_recs)),
    }
}

/// The step evaluation of `records` on `tk` at `how`'s parameters.
fn steps(
    tk: &Toolkit,
    records: &[Record],
    how: Evaluate,
    cost: &ToolTokens,
    sweep: bool,
) -> StepReport {
    let mut c = StepCounter::new(
        tk,
        StepOptions {
            threshold: how.threshold,
            hops: how.hops,
            sweep,
            ..StepOptions::default()
        },
    );
    for r in records {
        c.add(r);
    }
    c.finish(cost)
}

/// One operator's threshold and hops set to the setting suggested after the fit
/// (`fit --set-params`): the values before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamChange {
    pub operator: String,
    pub threshold: (f64, f64),
    pub hops: (u32, u32),
}

/// The suggested settings as edits (`set threshold`, `set hops`), one per value that
/// differs from the operator's; and a note for each group whose suggestion is not made:
/// none reaches the criterion, or the group is hand-picked seeds (`seeds:...`), no operator.
pub fn param_changes(tk: &Toolkit, s: &Suggestions) -> (Vec<ParamChange>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for (group, setting) in s.settings() {
        let shown = crate::text::for_terminal(group);
        let Some(op) = tk.operator(group) else {
            notes.push(format!(
                "{shown}: runs seeded by hand name no operator; its suggestion is not set"
            ));
            continue;
        };
        let Some((threshold, hops)) = setting else {
            notes.push(format!(
                "{shown}: no setting reaches the criterion; its threshold and hops are kept"
            ));
            continue;
        };
        if op.threshold == threshold && op.hops == hops {
            continue;
        }
        out.push(ParamChange {
            operator: op.name.clone(),
            threshold: (op.threshold, threshold),
            hops: (op.hops, hops),
        });
    }
    (out, notes)
}

impl ParamChange {
    /// The edits that make it: only the values that change.
    pub fn edits(&self) -> Vec<Edit> {
        let mut out = Vec::new();
        if self.threshold.0 != self.threshold.1 {
            out.push(Edit::SetThreshold {
                operator: self.operator.clone(),
                value: self.threshold.1,
            });
        }
        if self.hops.0 != self.hops.1 {
            out.push(Edit::SetHops {
                operator: self.operator.clone(),
                value: self.hops.1,
            });
        }
        out
    }
}

/// The fitted scores as edits (`set score`, and `add edge` for the Next edges added), then
/// `more` (the suggested settings, with `fit --set-params`), applied as one transaction
/// per file, each applied edit's notes passed to `note`; the unified diff of every changed
/// file.
pub fn apply_by_file(
    ws: &mut Workspace,
    tk: &Toolkit,
    changes: &Changes,
    more: Vec<Edit>,
    note: &mut dyn FnMut(&str),
) -> Result<String, String> {
    let mut by_file: Vec<(usize, Vec<Edit>)> = Vec::new();
    for edit in changes.edits(tk).into_iter().chain(more) {
        let probe = Transaction::from(edit.clone());
        let file = ws.target_file(&probe).map_err(|e| e.to_string())?;
        match by_file.iter_mut().find(|(f, _)| *f == file) {
            Some((_, v)) => v.push(edit),
            None => by_file.push((file, vec![edit])),
        }
    }
    let mut files = Vec::new();
    for (_, edits) in by_file {
        let applied = ws
            .apply(Transaction::from(edits))
            .map_err(|e| e.to_string())?;
        for n in &applied.notes {
            note(n);
        }
        files.push(applied.file);
    }
    files.sort_unstable();
    files.dedup();
    Ok(files.iter().map(|&i| ws.diff(i)).collect())
}
