//! `fit`: Call edge scores suggested from trace records.
//!
//! Call edge scores, by this deterministic rule:
//!
//! - **Presence.** A record's action set is its recommendation at its own hops and
//!   threshold 0 (every action its operator could reach). For each such action `a` and each
//!   `Call` edge `a -> x`, the record counts as one *presence* of the edge, and as one
//!   *call* when `x` is among the record's called tools.
//! - **Smoothed rate.** The new score is `(calls + k * s0) / (presences + k)` with `s0` the
//!   current score and `k = 2`: a Beta prior centred on the score the author wrote, worth
//!   two records (ToolNet's transition frequencies with additive smoothing, with the prior
//!   taken from the toolkit instead of uniform). Little evidence moves a score little;
//!   much evidence makes it the observed rate. Edges with no presence are left alone.
//!   Scores are rounded to two decimals, as authors write them.
//! - **Floor (completeness never drops).** When a record at its own threshold `t` and hops
//!   was offered a tool it called through an edge `a -> x` with score `>= t`, the new score
//!   of that edge is at least `t` (records with or without order alike). The learned
//!   `Next` scores keep the record reaching such actions ([`floor`](super::floor)): a
//!   record without order keeps its recommended subgraph, a complete record with order is
//!   repaired wherever the learned scores would stop offering a called tool. So at each
//!   operator's own threshold and hops, no fitted record loses completeness.
//!
//! A record with its calls in order (`calls`) counts by calls instead: each call of a tool
//! `x` is one presence of every Call edge of each action calling `x`, and one call of the
//! edge into `x` itself, so a score becomes the share of the calls into the action's tools
//! that went to that tool (an action with one tool keeps 1.0). `Next` scores are learned
//! from the same records' steps in [`learn`](super::learn).

use std::collections::HashMap;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use super::eval::Resolved;
use super::learn::{NextFit, Smoothing, choose_smoothing, fit_next_with};
use crate::edit::Edit;
use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::recommend::{Params, recommend};

/// The prior's weight in records.
pub const PRIOR_WEIGHT: f64 = 2.0;

/// One fitted Call edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub edge: EdgeIndex,
    pub from: NodeIndex,
    pub to: NodeIndex,
    pub old: f64,
    pub new: f64,
    /// Records whose threshold-0 recommendation held the calling action.
    pub present: usize,
    /// Of those, the records that called the tool.
    pub called: usize,
    /// The floor that keeps completeness (0 when none).
    pub floor: f64,
}

#[derive(Default, Clone, Copy)]
struct Counts {
    present: usize,
    called: usize,
    floor: f64,
}

/// Fits every Call edge with evidence; edges sorted by (from, to) name. Includes edges
/// whose score does not change.
pub fn fit(tk: &Toolkit, records: &[Resolved]) -> Vec<Fitted> {
    let mut counts: HashMap<EdgeIndex, Counts> = HashMap::new();
    let mut reach: HashMap<(Vec<NodeIndex>, u64, u32), Vec<NodeIndex>> = HashMap::new();
    let mut actions = |seeds: &[NodeIndex], p: Params| -> Vec<NodeIndex> {
        reach
            .entry((seeds.to_vec(), p.threshold.to_bits(), p.hops))
            .or_insert_with(|| recommend(tk, seeds, p).actions)
            .clone()
    };
    for r in records {
        match &r.ordered {
            Some(ordered) => step_counts(tk, ordered, &mut counts),
            None => {
                let wide = Params {
                    threshold: 0.0,
                    hops: r.params.hops,
                };
                for a in actions(&r.seeds, wide) {
                    for (e, x) in calls(tk, a) {
                        let c = counts.entry(e).or_default();
                        c.present += 1;
                        if r.called.binary_search(&x).is_ok() {
                            c.called += 1;
                        }
                    }
                }
            }
        }
        let t = r.params.threshold;
        for a in actions(&r.seeds, r.params) {
            for (e, x) in calls(tk, a) {
                if tk.graph[e].score >= t && r.called.binary_search(&x).is_ok() {
                    let c = counts.entry(e).or_default();
                    c.floor = c.floor.max(t);
                }
            }
        }
    }
    let mut out: Vec<Fitted> = counts
        .into_iter()
        .filter(|(_, c)| c.present > 0)
        .filter_map(|(e, c)| {
            let (from, to) = tk.graph.edge_endpoints(e)?;
            let old = tk.graph[e].score;
            Some(Fitted {
                edge: e,
                from,
                to,
                old,
                new: smoothed(old, c),
                present: c.present,
                called: c.called,
                floor: c.floor,
            })
        })
        .collect();
    out.sort_by(|a, b| (tk.name(a.from), tk.name(a.to)).cmp(&(tk.name(b.from), tk.name(b.to))));
    out
}

/// A record with its calls in order: each call of a tool `x` is a presence of every Call
/// edge of each action calling `x`, and a call of the edge `a -> x` itself. An action's
/// Call score is then the share of the calls into its tools that went to that tool (1.0
/// stays 1.0 for an action with one tool).
fn step_counts(
    tk: &Toolkit,
    ordered: &[Option<NodeIndex>],
    counts: &mut HashMap<EdgeIndex, Counts>,
) {
    for &x in ordered.iter().flatten() {
        for (e_in, a) in tk.in_edges(x) {
            if tk.graph[e_in].kind != EdgeKind::Call || tk.kind(a) != NodeKind::Action {
                continue;
            }
            for (e, y) in calls(tk, a) {
                let c = counts.entry(e).or_default();
                c.present += 1;
                if y == x {
                    c.called += 1;
                }
            }
        }
    }
}

/// The Call edges out of `a` into tools (or member-less groups standing in for them).
fn calls(tk: &Toolkit, a: NodeIndex) -> impl Iterator<Item = (EdgeIndex, NodeIndex)> + '_ {
    tk.out_edges(a).filter(move |&(e, x)| {
        tk.graph[e].kind == EdgeKind::Call && matches!(tk.kind(x), NodeKind::Tool | NodeKind::Group)
    })
}

fn smoothed(old: f64, c: Counts) -> f64 {
    let prior = if (0.0..=1.0).contains(&old) { old } else { 0.5 };
    let rate = (c.called as f64 + PRIOR_WEIGHT * prior) / (c.present as f64 + PRIOR_WEIGHT);
    let rounded = (rate * 100.0).round() / 100.0;
    rounded.clamp(0.0, 1.0).max(c.floor)
}

/// What a fit changes: the Call and Next scores whose fitted value differs from the
/// written one, and the Next edges to add. `toolscope fit` and the TUI's `:fit` both make
/// their edits from it.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    pub calls: Vec<Fitted>,
    pub next: Vec<NextFit>,
    /// How far the Next scores trust the runs, and why ([`Smoothing`]).
    pub smoothing: Smoothing,
}

impl Changes {
    /// Fits `records` on `tk`; `add_edges` also adds the Next edges the steps show and the
    /// graph lacks (callers pass `false` for Chat2Graph files, whose chains fix the edges).
    pub fn new(tk: &Toolkit, records: &[Resolved], add_edges: bool) -> Changes {
        let smoothing = choose_smoothing(tk, records, add_edges);
        Changes {
            calls: fit(tk, records)
                .into_iter()
                .filter(|f| f.new != f.old)
                .collect(),
            next: fit_next_with(tk, records, add_edges, &smoothing)
                .into_iter()
                .filter(|f| f.old != Some(f.new))
                .collect(),
            smoothing,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty() && self.next.is_empty()
    }

    /// A copy of `tk` with every change made, to measure before writing.
    pub fn applied(&self, tk: &Toolkit) -> Toolkit {
        let mut after = tk.clone();
        apply(&mut after, &self.calls);
        super::learn::apply(&mut after, &self.next);
        after
    }

    /// The changes as edits on `tk` (the toolkit they were fitted on): the score edits
    /// first, in one run a score batch can take, then the added edges.
    pub fn edits(&self, tk: &Toolkit) -> Vec<Edit> {
        let score = |from: NodeIndex, to: NodeIndex, score: f64| Edit::SetScore {
            from: tk.name(from).to_string(),
            to: tk.name(to).to_string(),
            to_kind: tk.kind(to),
            score,
        };
        let mut edits: Vec<Edit> = self
            .calls
            .iter()
            .map(|f| score(f.from, f.to, f.new))
            .collect();
        let (scored, added): (Vec<&NextFit>, Vec<&NextFit>) =
            self.next.iter().partition(|f| f.edge.is_some());
        edits.extend(scored.iter().map(|f| score(f.from, f.to, f.new)));
        edits.extend(added.iter().map(|f| Edit::AddEdge {
            from: tk.name(f.from).to_string(),
            to: tk.name(f.to).to_string(),
            to_kind: NodeKind::Action,
            score: f.new,
        }));
        edits
    }
}

/// The fitted scores applied to a copy of the toolkit's graph.
pub fn apply(tk: &mut Toolkit, fitted: &[Fitted]) {
    for f in fitted {
        if let Some(edge) = tk.graph.edge_weight_mut(f.edge) {
            edge.score = f.new;
        }
    }
}

/// A fixed split: `true` for the records held out (about `share` of them), decided per
/// record index by a seeded hash so the same traces always split the same way.
pub fn holdout_mask(n: usize, share: f64, seed: u64) -> Vec<bool> {
    (0..n)
        .map(|i| {
            let mut z = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            ((z % 1_000_000) as f64) < share * 1_000_000.0
        })
        .collect()
}

/// The seed of the `--holdout` split.
pub const HOLDOUT_SEED: u64 = 0x7001_5c09e;

#[cfg(test)]
mod tests;
