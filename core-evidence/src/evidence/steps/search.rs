//! Walks over every loaded run, made by jobs off the TUI's thread: the next (or previous)
//! miss across runs, how each run went (`R`'s list), the step numbers of tuning
//! candidates, and where a run stands among all of them.
//!
//! Each takes a stop flag, checked before every step (or every set of step contexts) is
//! walked, so a cancelled job ends within one walk of the graph however long a record is,
//! and a [`WalkBudget`] of steps: a job walks at most that many and says where it stopped,
//! rather than walking every step of a gigabyte of traces. `None` from a function here
//! means the stop flag was set.

use std::sync::atomic::{AtomicBool, Ordering};

use petgraph::visit::NodeIndexable;

use super::StepOptions;
use super::figures::{Basis, Figures, figures_within};
use super::reach::Reach;
use super::replay::{Replayed, replay};
use super::tune::{Candidate, Changes, changed, rank};
use crate::evidence::{Record, TokenCost};
use crate::model::Toolkit;
use crate::recommend::{Adjacency, Params};

/// The steps one job walks at most (each is one walk of the graph; a chosen bound, its
/// time not measured: it grows with the kit and the hops, and Esc cancels sooner). It
/// replaces a cap of 2,000 runs, which did not bound one long run.
pub const MOST_STEPS: u64 = 1_000_000;

/// Steps a job may still walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkBudget {
    left: u64,
    spent: u64,
}

impl Default for WalkBudget {
    fn default() -> WalkBudget {
        WalkBudget::new(MOST_STEPS)
    }
}

impl WalkBudget {
    pub fn new(steps: u64) -> WalkBudget {
        WalkBudget {
            left: steps,
            spent: 0,
        }
    }

    /// Takes `n` steps; `false` (and nothing taken) when fewer are left.
    pub fn take(&mut self, n: u64) -> bool {
        if n > self.left {
            return false;
        }
        self.left -= n;
        self.spent += n;
        true
    }

    /// The steps taken so far.
    pub fn spent(&self) -> u64 {
        self.spent
    }
}

/// The parameters a record is walked at in a view of `active` operator at `params`: the
/// view's when the record's operator is the active one (what the user is trying), else
/// the record's own.
pub fn view_params(played: &Replayed, view: Option<(&str, Params)>) -> Params {
    match (&played.operator, view) {
        (Some(op), Some((active, params))) if op == active => params,
        _ => played.params,
    }
}

/// Record `r` to walk as the view walks it ([`view_params`]).
pub fn replay_in_view(
    tk: &Toolkit,
    r: &Record,
    view: Option<(&str, Params)>,
) -> Result<Replayed, String> {
    let probe = replay(tk, r, None, 1)?;
    let params = view_params(&probe, view);
    if params == probe.params {
        Ok(probe)
    } else {
        replay(tk, r, Some(params), 1)
    }
}

/// What a search for a miss found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The miss: its record and step.
    Miss { record: usize, step: usize },
    /// No miss that way; `runs` runs were searched.
    Nothing { runs: usize },
    /// The budget ran out in run `record` (from 0), after `runs` runs.
    OverBudget { record: usize, runs: usize },
}

/// The next miss after `from` (record, step) across `records` (`forward`), or the one
/// before it, each run walked as the view walks it. Runs that do not resolve or have no
/// calls in order are passed over. Stops at the first miss: each run's steps are walked in
/// the search's direction, one walk a step.
pub fn next_miss(
    tk: &Toolkit,
    records: &[Record],
    view: Option<(&str, Params)>,
    from: (usize, usize),
    forward: bool,
    stop: &AtomicBool,
    budget: &mut WalkBudget,
) -> Option<Found> {
    let n = records.len();
    let order: Vec<usize> = if forward {
        (from.0..n).collect()
    } else {
        (0..=from.0.min(n.saturating_sub(1))).rev().collect()
    };
    let adj = Adjacency::new(tk);
    let mut reach = Reach::new(tk.graph.node_bound());
    let mut runs = 0;
    for i in order {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let Some(r) = records.get(i) else { continue };
        let Ok(played) = replay_in_view(tk, r, view) else {
            continue;
        };
        runs += 1;
        let len = played.len();
        let steps: Box<dyn Iterator<Item = usize>> = match (forward, i == from.0) {
            (true, true) => Box::new(from.1.saturating_add(1)..len),
            (true, false) => Box::new(0..len),
            (false, true) => Box::new((0..from.1.min(len)).rev()),
            (false, false) => Box::new((0..len).rev()),
        };
        let walk = played.walk();
        for k in steps {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            if !budget.take(1) {
                return Some(Found::OverBudget { record: i, runs });
            }
            if !walk.hit_at(tk, &adj, &mut reach, k) {
                return Some(Found::Miss { record: i, step: k });
            }
        }
    }
    Some(Found::Nothing { runs })
}

/// How each run went at its own parameters (as `eval --steps` walks it): hits and steps
/// (`None`: no calls in order, or past the budget). The second value says how many runs
/// were walked before the budget ran out (all of them when it did not).
pub type Summaries = (Vec<Option<(usize, usize)>>, usize);

/// Each record's hits and steps ([`Summaries`]).
pub fn summaries(
    tk: &Toolkit,
    records: &[Record],
    stop: &AtomicBool,
    budget: &mut WalkBudget,
) -> Option<Summaries> {
    let mut out = Vec::with_capacity(records.len());
    let mut walked = records.len();
    for (i, r) in records.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let played = match replay(tk, r, None, 1) {
            Ok(p) if !p.is_empty() => p,
            _ => {
                out.push(None);
                continue;
            }
        };
        if walked == records.len() && !budget.take(played.len() as u64) {
            walked = i;
        }
        if walked < records.len() {
            out.push(None);
            continue;
        }
        let hits = played.walk().hits(tk, played.len() - 1, stop)?;
        out.push(Some((hits.iter().filter(|&&h| h).count(), hits.len())));
    }
    Some((out, walked))
}

/// The steps a step evaluation of `records` walks at most: every call of the ordered ones
/// (it walks each distinct context once, so usually far fewer).
fn steps_of(records: &[Record]) -> u64 {
    records
        .iter()
        .filter_map(|r| r.calls.as_ref())
        .map(|c| c.len() as u64)
        .sum()
}

/// Tuning candidates measured ([`super::tune::measure`]) off the UI thread: ranked, and
/// how many were left unmeasured when the budget ran out (each measure walks every
/// record's steps on a copy of the toolkit).
pub fn measure_within(
    tk: &Toolkit,
    records: &[Record],
    candidates: Vec<Changes>,
    cost: &dyn TokenCost,
    basis: Basis,
    stop: &AtomicBool,
    budget: &mut WalkBudget,
) -> Option<(Vec<Candidate>, usize)> {
    let each = steps_of(records);
    let total = candidates.len();
    if !budget.take(each) {
        return Some((Vec::new(), total));
    }
    let before = figures_within(tk, records, StepOptions::default(), cost, stop)?;
    let mut out = Vec::with_capacity(total);
    for changes in candidates {
        if !budget.take(each) {
            break;
        }
        let after = figures_within(
            &changed(tk, &changes),
            records,
            StepOptions::default(),
            cost,
            stop,
        )?;
        out.push(Candidate {
            changes,
            before,
            after,
            basis,
        });
    }
    let unmeasured = total - out.len();
    out.sort_by(rank);
    Some((out, unmeasured))
}

/// `tk` with `operator`'s threshold and hops set to `params`: the graph as a view at that
/// setting has it (what `t` measures "before" on).
pub fn at_setting(tk: &Toolkit, operator: Option<&str>, params: Params) -> Toolkit {
    let mut out = tk.clone();
    if let Some(op) = operator.and_then(|o| out.operator_mut(o)) {
        op.threshold = params.threshold;
        op.hops = params.hops;
    }
    out
}

/// Where run `run` stands: the step numbers over every record and over that record alone,
/// at the view's setting ([`at_setting`] of the active operator, as `t` measures
/// "before"), from the core's tally ([`figures_within`]). Tokens are not counted
/// (`recall()` is what is shown). `None` for either past the budget.
pub fn standing(
    tk: &Toolkit,
    records: &[Record],
    run: usize,
    view: Option<(&str, Params)>,
    stop: &AtomicBool,
    budget: &mut WalkBudget,
) -> Option<(Option<Figures>, Option<Figures>)> {
    let tk = match view {
        Some((op, params)) => &at_setting(tk, Some(op), params),
        None => tk,
    };
    let free = crate::evidence::CostFn(|_| 0);
    let one = records.get(run).map(std::slice::from_ref).unwrap_or(&[]);
    let this = if budget.take(steps_of(one)) {
        Some(figures_within(
            tk,
            one,
            StepOptions::default(),
            &free,
            stop,
        )?)
    } else {
        None
    };
    let all = if budget.take(steps_of(records)) {
        Some(figures_within(
            tk,
            records,
            StepOptions::default(),
            &free,
            stop,
        )?)
    } else {
        None
    };
    Some((all, this))
}
