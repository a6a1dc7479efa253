//! Tuning from a miss: the changes that would have offered a missed call, what each does
//! to every loaded run, ranked by the recall gained per token added.
//!
//! The candidates come from [`explain()`]: the threshold to lower to (the missed tool's
//! critical value), the score the blocking edges need (the threshold), the hops the path
//! needs, and, when the call needs more hops or no path reaches it at all, one edge: a
//! `Next` edge at the threshold from a seed of the step to a caller of the tool (see
//! [`links`]). Each is measured by the step evaluation over every record (every step,
//! each record's first call included, as the `per_step` list counts them) on a copy of
//! the toolkit with the change made.

use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use super::replay::ReplayStep;
use super::{StepCounter, StepOptions};
use crate::edit::Edit;
use crate::evidence::{Record, TokenCost};
use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::recommend::explain::num;
use crate::recommend::{Params, Reason, explain};

/// One change to the toolkit.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// The operator's threshold.
    Threshold { operator: String, to: f64 },
    /// The operator's hops.
    Hops { operator: String, to: u32 },
    /// An edge's score.
    Score { edge: EdgeIndex, to: f64 },
    /// A new `Next` edge.
    Link {
        from: NodeIndex,
        to: NodeIndex,
        score: f64,
    },
}

/// A candidate: changes made together (one undoable edit).
pub type Changes = Vec<Change>;

/// Step numbers over every loaded record.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Numbers {
    pub steps: u64,
    pub hits: u64,
    /// Mean tokens of the offer per step.
    pub tokens: f64,
}

impl Numbers {
    /// Share of steps whose call was offered (0 without steps).
    pub fn recall(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            self.hits as f64 / self.steps as f64
        }
    }
}

/// A candidate with its numbers before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub changes: Changes,
    pub before: Numbers,
    pub after: Numbers,
}

impl Candidate {
    /// Recall gained (negative: lost).
    pub fn gain(&self) -> f64 {
        self.after.recall() - self.before.recall()
    }

    /// Tokens per step added (negative: saved).
    pub fn added(&self) -> f64 {
        self.after.tokens - self.before.tokens
    }

    /// The edits that make the change, as `toolscope set` and the TUI make them.
    pub fn edits(&self, tk: &Toolkit) -> Vec<Edit> {
        self.changes.iter().filter_map(|c| edit(tk, c)).collect()
    }

    /// The change in words: `threshold 0.5 -> 0.31`, `ls -> cd 0.2 -> 0.5`.
    pub fn describe(&self, tk: &Toolkit) -> String {
        let parts: Vec<String> = self.changes.iter().map(|c| describe(tk, c)).collect();
        parts.join(" + ")
    }
}

fn describe(tk: &Toolkit, c: &Change) -> String {
    match c {
        Change::Threshold { to, .. } => format!("threshold -> {}", num(*to)),
        Change::Hops { to, .. } => format!("hops -> {to}"),
        Change::Score { edge, to } => match tk.graph.edge_endpoints(*edge) {
            Some((a, b)) => format!(
                "{} -> {} {} -> {}",
                tk.name(a),
                tk.name(b),
                num(tk.graph[*edge].score),
                num(*to)
            ),
            None => "an edge that is gone".to_string(),
        },
        Change::Link { from, to, score } => format!(
            "link {} -> {} at {}",
            tk.name(*from),
            tk.name(*to),
            num(*score)
        ),
    }
}

fn edit(tk: &Toolkit, c: &Change) -> Option<Edit> {
    Some(match c {
        Change::Threshold { operator, to } => Edit::SetThreshold {
            operator: operator.clone(),
            value: *to,
        },
        Change::Hops { operator, to } => Edit::SetHops {
            operator: operator.clone(),
            value: *to,
        },
        Change::Score { edge, to } => {
            let (a, b) = tk.graph.edge_endpoints(*edge)?;
            Edit::SetScore {
                from: tk.name(a).to_string(),
                to: tk.name(b).to_string(),
                to_kind: tk.kind(b),
                score: *to,
            }
        }
        Change::Link { from, to, score } => Edit::AddEdge {
            from: tk.name(*from).to_string(),
            to: tk.name(*to).to_string(),
            to_kind: tk.kind(*to),
            score: *score,
        },
    })
}

/// The changes that would have offered the call of a missed step, taken at `params` (the
/// operator's when `operator` is given: threshold and hops changes need one). None for a
/// hit, a call no tool of the toolkit, or a tool the run did not have.
pub fn candidates(
    tk: &Toolkit,
    step: &ReplayStep,
    params: Params,
    operator: Option<&str>,
    available: Option<&[NodeIndex]>,
) -> Vec<Changes> {
    let Some(target) = step.target else {
        return Vec::new();
    };
    if step.hit || !step.was_available(available) {
        return Vec::new();
    }
    let seeds = &step.offer.seeds;
    let Some(why) = explain(tk, seeds, params, target) else {
        return Vec::new();
    };
    let t = params.threshold;
    let threshold = |to: f64| {
        operator.map(|op| Change::Threshold {
            operator: op.to_string(),
            to,
        })
    };
    let hops = |to: u32| {
        operator.map(|op| Change::Hops {
            operator: op.to_string(),
            to,
        })
    };
    let raise = |blocking: &[crate::recommend::PathStep]| -> Changes {
        blocking
            .iter()
            .map(|s| Change::Score {
                edge: s.edge,
                to: t,
            })
            .collect()
    };
    let mut out: Vec<Changes> = Vec::new();
    match why.reason {
        Reason::Blocked {
            blocking,
            enter_at: Some(c),
            ..
        } => {
            out.extend(threshold(c).map(|c| vec![c]));
            out.push(raise(&blocking));
        }
        Reason::Blocked {
            blocking,
            with_more_hops: Some((c, k)),
            ..
        } => {
            if let (Some(th), Some(h)) = (threshold(c), hops(k)) {
                out.push(vec![th, h.clone()]);
                let mut scores = raise(&blocking);
                scores.push(h);
                out.push(scores);
            }
            out.extend(links(tk, seeds, target, params, operator));
        }
        Reason::NeedsHops {
            hops: k, enter_at, ..
        } => {
            out.extend(hops(k).map(|h| vec![h]));
            if let Some(c) = enter_at {
                out.extend(threshold(c).map(|c| vec![c]));
            }
            out.extend(links(tk, seeds, target, params, operator));
        }
        Reason::Unreachable => {
            let one = links(tk, seeds, target, params, operator);
            if one.is_empty() {
                out.extend(link(tk, seeds, target, params, operator));
            }
            out.extend(one);
        }
        _ => {}
    }
    out.retain(|c| !c.is_empty());
    out
}

/// The most one-edge candidates ([`links`]) offered at one miss.
pub const MOST_LINKS: usize = 5;

/// Candidates of one edge: a `Next` edge at the threshold from each seed action of the step
/// to each caller of `target` whose `Call` edge passes the threshold (best `Call` first, at
/// most [`MOST_LINKS`]), so the call comes within one hop; where such an edge exists below
/// the threshold, raising it to the threshold instead. With hops 0 each also takes hops 1.
/// On a Chat2Graph config only raises: its `Next` edges come from the `toolkit:` chains,
/// and `set link` refuses a link that would join other actions too or build an action's
/// tools twice, which a new link from a seed almost always would.
fn links(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    target: NodeIndex,
    params: Params,
    operator: Option<&str>,
) -> Vec<Changes> {
    let t = params.threshold;
    let mut callers: Vec<(f64, NodeIndex)> = tk
        .in_edges(target)
        .filter(|&(e, a)| {
            let w = &tk.graph[e];
            w.kind == EdgeKind::Call && tk.kind(a) == NodeKind::Action && w.score >= t
        })
        .map(|(e, a)| (tk.graph[e].score, a))
        .collect();
    callers.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut seeds: Vec<NodeIndex> = seeds
        .iter()
        .copied()
        .filter(|&s| tk.kind(s) == NodeKind::Action)
        .collect();
    seeds.sort_unstable();
    seeds.dedup();
    let chains = tk.sends_copies();
    let mut out = Vec::new();
    for &(_, to) in &callers {
        for &from in &seeds {
            if from == to || out.len() >= MOST_LINKS {
                continue;
            }
            let change = match tk.edge(from, to) {
                Some(e) if tk.graph[e].score < t => Change::Score { edge: e, to: t },
                Some(_) => continue,
                None if chains => continue,
                None => Change::Link { from, to, score: t },
            };
            let mut changes = vec![change];
            if params.hops == 0 {
                match operator {
                    Some(op) => changes.push(Change::Hops {
                        operator: op.to_string(),
                        to: 1,
                    }),
                    None => continue,
                }
            }
            out.push(changes);
        }
    }
    out
}

/// A `Next` edge at the threshold from the first seed to the first caller of `target`
/// (with one hop when the operator has none).
fn link(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    target: NodeIndex,
    params: Params,
    operator: Option<&str>,
) -> Option<Changes> {
    let from = seeds
        .iter()
        .copied()
        .find(|&s| tk.kind(s) == NodeKind::Action)?;
    let mut callers: Vec<NodeIndex> = tk
        .in_edges(target)
        .filter(|&(e, a)| tk.graph[e].kind == EdgeKind::Call && tk.kind(a) == NodeKind::Action)
        .map(|(_, a)| a)
        .collect();
    callers.sort_unstable();
    let to = *callers.first()?;
    if tk.edge(from, to).is_some() {
        return None;
    }
    let mut out = vec![Change::Link {
        from,
        to,
        score: params.threshold,
    }];
    if params.hops == 0 {
        out.push(Change::Hops {
            operator: operator?.to_string(),
            to: 1,
        });
    }
    Some(out)
}

/// A copy of `tk` with `changes` made.
pub fn changed(tk: &Toolkit, changes: &[Change]) -> Toolkit {
    let mut out = tk.clone();
    for c in changes {
        match c {
            Change::Threshold { operator, to } => {
                if let Some(op) = out.operator_mut(operator) {
                    op.threshold = *to;
                }
            }
            Change::Hops { operator, to } => {
                if let Some(op) = out.operator_mut(operator) {
                    op.hops = *to;
                }
            }
            Change::Score { edge, to } => {
                if let Some(e) = out.graph.edge_weight_mut(*edge) {
                    e.score = *to;
                }
            }
            Change::Link { from, to, score } => {
                out.add_edge(*from, *to, *score, None);
            }
        }
    }
    out
}

/// The step numbers of `records` on `tk`, at their own parameters.
pub fn numbers(tk: &Toolkit, records: &[Record], cost: &dyn TokenCost) -> Numbers {
    numbers_within(tk, records, cost, &AtomicBool::new(false)).unwrap_or_default()
}

/// [`numbers`] for a job off the UI thread: `None` once `stop` is set (checked between
/// records and inside the walk, see [`StepCounter::finish_within`]).
pub fn numbers_within(
    tk: &Toolkit,
    records: &[Record],
    cost: &dyn TokenCost,
    stop: &AtomicBool,
) -> Option<Numbers> {
    let mut c = StepCounter::new(tk, StepOptions::default());
    for r in records.iter().filter(|r| r.calls.is_some()) {
        if stop.load(AtomicOrdering::Relaxed) {
            return None;
        }
        c.add(r);
    }
    let o = c.finish_within(cost, stop)?.overall;
    let (s, f) = (&o.stats, &o.first);
    let steps = s.steps + f.steps;
    let tokens =
        s.tokens.unwrap_or(0.0) * s.steps as f64 + f.tokens.unwrap_or(0.0) * f.steps as f64;
    Some(Numbers {
        steps,
        hits: s.hits + f.hits,
        tokens: if steps == 0 {
            0.0
        } else {
            tokens / steps as f64
        },
    })
}

/// Each candidate measured over `records` (before on `tk` as it is), ranked by [`rank`].
pub fn measure(
    tk: &Toolkit,
    records: &[Record],
    candidates: Vec<Changes>,
    cost: &dyn TokenCost,
) -> Vec<Candidate> {
    let before = numbers(tk, records, cost);
    let mut out: Vec<Candidate> = candidates
        .into_iter()
        .map(|changes| {
            let after = numbers(&changed(tk, &changes), records, cost);
            Candidate {
                changes,
                before,
                after,
            }
        })
        .collect();
    out.sort_by(rank);
    out
}

/// The order of candidates: recall gained at no token cost first (most gained first),
/// then recall gained per token added (highest first), then the rest (most recall, then
/// fewest tokens). Ties: fewer changes first.
pub fn rank(a: &Candidate, b: &Candidate) -> Ordering {
    let class = |c: &Candidate| match (c.gain() > 0.0, c.added() <= 0.0) {
        (true, true) => 0,
        (true, false) => 1,
        (false, _) => 2,
    };
    let by = class(a).cmp(&class(b));
    let within = match class(a) {
        1 => (b.gain() / b.added()).total_cmp(&(a.gain() / a.added())),
        _ => b
            .gain()
            .total_cmp(&a.gain())
            .then(a.added().total_cmp(&b.added())),
    };
    by.then(within).then(a.changes.len().cmp(&b.changes.len()))
}
