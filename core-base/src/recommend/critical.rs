//! Critical values, fewest hops and the threshold sweep.
//!
//! For fixed seeds and hops `h`, a node is recommended at threshold `t` exactly when its
//! **critical value** is `>= t`: for an action, the best over walks of at most `h` `Next`
//! edges from a seed of the smallest score on the walk (seeds: `+inf`); for a tool (or a
//! group reached by `Call`), the best over its calling actions of the smaller of the
//! action's critical value and the `Call` score. A node that no threshold brings in has
//! `-inf`. The **sweep** is the step function of the recommended counts over the threshold
//! that these values give.
//!
//! Computation: a bounded-hop widest-path dynamic programme, `h` rounds in which only the
//! nodes whose value rose in the previous round relax their out-edges, over flat arrays
//! indexed by node index. A NaN score never passes a threshold and counts as `-inf`.
//!
//! Front ends that recompute often (the TUI) keep an [`Adjacency`] until
//! the graph or a score changes, recompute [`Critical`] and its [`Sweep`] when the seeds or
//! hops change (critical values do not depend on the threshold), [`HopCounts`] when the
//! threshold changes, and call [`explain_with`](super::explain_with) for the selected node.
//! The one-shot functions (`compute`) walk petgraph directly, which is cheapest when the
//! search stays near the seeds.

use std::collections::VecDeque;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use super::adjacency::{Adjacency, OutEdges};

use crate::model::{EdgeKind, NodeKind, Toolkit};

/// A score as the threshold comparison sees it: NaN passes no threshold.
pub(crate) fn passable(score: f64) -> f64 {
    if score.is_nan() {
        f64::NEG_INFINITY
    } else {
        score
    }
}

/// The seeds that count: existing actions, as `recommend` keeps them.
pub fn seed_actions(tk: &Toolkit, seeds: &[NodeIndex]) -> Vec<NodeIndex> {
    let mut out: Vec<NodeIndex> = seeds
        .iter()
        .copied()
        .filter(|&s| tk.graph.contains_node(s) && tk.kind(s) == NodeKind::Action)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether `e` is a `Call` edge into a tool-like node (a Tool, or a Group standing in for
/// its unknown members), the edges step 3 of `recommend` follows.
pub(crate) fn is_tool_call(tk: &Toolkit, e: EdgeIndex, target: NodeIndex) -> bool {
    tk.graph[e].kind == EdgeKind::Call && tool_like(tk, target)
}

fn tool_like(tk: &Toolkit, ix: NodeIndex) -> bool {
    matches!(tk.kind(ix), NodeKind::Tool | NodeKind::Group)
}

/// Critical values of every node for one seed set and hop count.
#[derive(Debug, Clone, PartialEq)]
pub struct Critical {
    hops: u32,
    /// By node index; `-inf`: never recommended; `+inf`: always (seeds).
    value: Vec<f64>,
    /// The nodes with a value above `-inf`, in the order they were reached.
    reached: Vec<NodeIndex>,
}

impl Critical {
    /// Computes the critical value of every node for `seeds` and `hops`. Starts on petgraph
    /// and, once a round's frontier covers a sizeable part of the graph, builds an
    /// [`Adjacency`] for the remaining rounds.
    pub fn compute(tk: &Toolkit, seeds: &[NodeIndex], hops: u32) -> Critical {
        Critical::compute_switching(tk, seeds, hops, tk.graph.node_bound() / 32)
    }

    /// [`Critical::compute`] switching to flat rows once the frontier exceeds `big` nodes.
    pub(crate) fn compute_switching(
        tk: &Toolkit,
        seeds: &[NodeIndex],
        hops: u32,
        big: usize,
    ) -> Critical {
        let mut w = Widening::new(tk, tk, seeds);
        let mut left = hops;
        while left > 0 && !w.frontier.is_empty() && w.frontier.len() <= big {
            w.round(tk);
            left -= 1;
        }
        if left > 0 && !w.frontier.is_empty() {
            let adj = Adjacency::new(tk);
            w.rounds(&adj, left);
            w.tools(&adj);
        } else {
            w.tools(tk);
        }
        w.finish(hops)
    }

    /// Like [`Critical::compute`], over the out-edges of `g`: `tk` itself, or an
    /// [`Adjacency`] built from it and kept.
    pub fn compute_in(tk: &Toolkit, g: &impl OutEdges, seeds: &[NodeIndex], hops: u32) -> Critical {
        let mut w = Widening::new(tk, g, seeds);
        w.rounds(g, hops);
        w.tools(g);
        w.finish(hops)
    }

    /// The nodes some threshold brings in, in the order they were reached.
    pub fn reached(&self) -> &[NodeIndex] {
        &self.reached
    }

    /// The hop count these values are for.
    pub fn hops(&self) -> u32 {
        self.hops
    }

    /// The highest threshold at which `ix` is recommended: `None` when no threshold brings
    /// it in, `Some(+inf)` for seeds.
    pub fn get(&self, ix: NodeIndex) -> Option<f64> {
        let v = self.raw(ix);
        (v > f64::NEG_INFINITY).then_some(v)
    }

    /// The critical value with `-inf` for "never".
    pub fn raw(&self, ix: NodeIndex) -> f64 {
        self.value
            .get(ix.index())
            .copied()
            .unwrap_or(f64::NEG_INFINITY)
    }

    /// Whether `ix` is recommended at threshold `t` (same answer as `recommend`).
    pub fn recommended_at(&self, ix: NodeIndex, t: f64) -> bool {
        self.raw(ix) >= t
    }

    /// The sweep: recommended counts as a step function of the threshold.
    pub fn sweep(&self, tk: &Toolkit) -> Sweep {
        let mut always = (0, 0);
        let mut finite: Vec<(f64, bool)> = Vec::new();
        for &ix in &self.reached {
            let v = self.raw(ix);
            let is_action = tk.kind(ix) == NodeKind::Action;
            if v == f64::INFINITY {
                bump(&mut always, is_action);
            } else {
                finite.push((v, is_action));
            }
        }
        finite.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let mut steps: Vec<Step> = Vec::new();
        let mut counts = always;
        for (v, is_action) in finite {
            bump(&mut counts, is_action);
            match steps.last_mut() {
                Some(last) if last.threshold == v => {
                    (last.actions, last.tools) = counts;
                }
                _ => steps.push(Step {
                    threshold: v,
                    actions: counts.0,
                    tools: counts.1,
                }),
            }
        }
        Sweep {
            hops: self.hops,
            always,
            steps,
        }
    }
}

fn bump(counts: &mut (usize, usize), is_action: bool) {
    if is_action {
        counts.0 += 1;
    } else {
        counts.1 += 1;
    }
}

/// The state of the widest-path programme: values by node index, the nodes reached, and the
/// frontier of nodes whose value rose in the last round, with that value.
struct Widening {
    value: Vec<f64>,
    reached: Vec<NodeIndex>,
    frontier: Vec<(NodeIndex, f64)>,
    queued: Vec<bool>,
    changed: Vec<NodeIndex>,
}

impl Widening {
    fn new(tk: &Toolkit, g: &impl OutEdges, seeds: &[NodeIndex]) -> Widening {
        let bound = tk.graph.node_bound().max(g.bound());
        let mut w = Widening {
            value: vec![f64::NEG_INFINITY; bound],
            reached: Vec::new(),
            frontier: Vec::new(),
            queued: vec![false; bound],
            changed: Vec::new(),
        };
        for s in seed_actions(tk, seeds) {
            w.value[s.index()] = f64::INFINITY;
            w.frontier.push((s, f64::INFINITY));
            w.reached.push(s);
        }
        w
    }

    /// Up to `n` rounds, stopping early when nothing rose.
    fn rounds(&mut self, g: &impl OutEdges, n: u32) {
        for _ in 0..n {
            if self.frontier.is_empty() {
                break;
            }
            self.round(g);
        }
    }

    /// One round over `Next` edges. Frontier nodes relax with the value they had at the end
    /// of the previous round, so a value never travels more than one edge per round.
    fn round(&mut self, g: &impl OutEdges) {
        let Widening {
            value,
            reached,
            frontier,
            queued,
            changed,
        } = self;
        for &(u, width) in frontier.iter() {
            g.for_next(u, |v, score, _| {
                let cand = width.min(score);
                if cand > value[v.index()] {
                    if value[v.index()] == f64::NEG_INFINITY {
                        reached.push(v);
                    }
                    value[v.index()] = cand;
                    if !queued[v.index()] {
                        queued[v.index()] = true;
                        changed.push(v);
                    }
                }
            });
        }
        frontier.clear();
        for v in changed.drain(..) {
            queued[v.index()] = false;
            frontier.push((v, value[v.index()]));
        }
    }

    /// Step 3: a tool's value is the best over reached callers of `min(caller, Call score)`.
    fn tools(&mut self, g: &impl OutEdges) {
        let actions = self.reached.len();
        for i in 0..actions {
            let a = self.reached[i];
            let width = self.value[a.index()];
            let (value, reached) = (&mut self.value, &mut self.reached);
            g.for_calls(a, |v, score, _| {
                let cand = width.min(score);
                if cand > value[v.index()] {
                    if value[v.index()] == f64::NEG_INFINITY {
                        reached.push(v);
                    }
                    value[v.index()] = cand;
                }
            });
        }
    }

    fn finish(self, hops: u32) -> Critical {
        Critical {
            hops,
            value: self.value,
            reached: self.reached,
        }
    }
}

/// One step of the sweep: the counts recommended at `threshold` (and at every threshold
/// down to the next step's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub threshold: f64,
    pub actions: usize,
    pub tools: usize,
}

/// Recommended counts as an exact step function of the threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub hops: u32,
    /// Counts recommended at every threshold: the seeds (and anything reached only over
    /// infinite scores).
    pub always: (usize, usize),
    /// One step per distinct finite critical value, thresholds descending.
    pub steps: Vec<Step>,
}

impl Sweep {
    /// Recommended (actions, tools) at threshold `t`: the counts of the smallest step
    /// threshold `>= t`, or [`Sweep::always`] above every step.
    pub fn counts_at(&self, t: f64) -> (usize, usize) {
        // Steps descend: the steps with threshold >= t form a prefix.
        let n = self.steps.partition_point(|s| s.threshold >= t);
        match n.checked_sub(1).and_then(|i| self.steps.get(i)) {
            Some(s) => (s.actions, s.tools),
            None => self.always,
        }
    }

    /// Counts sampled at `n` evenly spaced thresholds from `lo` to `hi` (both included), for
    /// a chart with one column per sample: `(threshold, actions, tools)`.
    pub fn samples(&self, lo: f64, hi: f64, n: usize) -> Vec<(f64, usize, usize)> {
        (0..n)
            .map(|i| {
                let t = if n <= 1 {
                    lo
                } else {
                    lo + (hi - lo) * i as f64 / (n - 1) as f64
                };
                let (a, tools) = self.counts_at(t);
                (t, a, tools)
            })
            .collect()
    }

    /// The largest count of recommended nodes (actions plus tools) at any threshold, to scale
    /// a chart.
    pub fn max_total(&self) -> usize {
        self.steps
            .last()
            .map_or(self.always.0 + self.always.1, |s| s.actions + s.tools)
    }

    /// The SPEC 5 JSON: `{"hops": h, "steps": [{"threshold", "actions", "tools"}]}`.
    pub fn to_json(&self) -> serde_json::Value {
        let steps: Vec<serde_json::Value> = self
            .steps
            .iter()
            .map(|s| {
                serde_json::json!({
                    "threshold": s.threshold,
                    "actions": s.actions,
                    "tools": s.tools,
                })
            })
            .collect();
        serde_json::json!({ "hops": self.hops, "steps": steps })
    }
}

/// Fewest `Next` hops from a seed per node at one threshold (no hop limit).
#[derive(Debug, Clone, PartialEq)]
pub struct HopCounts {
    threshold: f64,
    /// By node index; `u32::MAX`: not reachable at this threshold.
    dist: Vec<u32>,
    /// The edge each node was first reached by (for paths).
    via: Vec<Option<EdgeIndex>>,
}

impl HopCounts {
    /// Breadth-first search from the seeds over `Next` edges with score `>= threshold`;
    /// a tool needs the hops of its nearest caller whose `Call` edge passes (the search
    /// visits callers in order of distance, so the first such caller is the nearest).
    pub fn compute(tk: &Toolkit, seeds: &[NodeIndex], threshold: f64) -> HopCounts {
        HopCounts::compute_in(tk, tk, seeds, threshold)
    }

    /// Like [`HopCounts::compute`], over the out-edges of `g`: `tk` itself, or an
    /// [`Adjacency`] built from it and kept.
    pub fn compute_in(
        tk: &Toolkit,
        g: &impl OutEdges,
        seeds: &[NodeIndex],
        threshold: f64,
    ) -> HopCounts {
        let bound = tk.graph.node_bound().max(g.bound());
        let mut dist = vec![u32::MAX; bound];
        let mut via = vec![None; bound];
        let mut queue = VecDeque::new();
        for s in seed_actions(tk, seeds) {
            dist[s.index()] = 0;
            queue.push_back(s);
        }
        while let Some(u) = queue.pop_front() {
            let d = dist[u.index()];
            g.for_out(u, |v, score, e, is_next| {
                if score >= threshold && dist[v.index()] == u32::MAX {
                    dist[v.index()] = if is_next { d + 1 } else { d };
                    via[v.index()] = Some(e);
                    if is_next {
                        queue.push_back(v);
                    }
                }
            });
        }
        HopCounts {
            threshold,
            dist,
            via,
        }
    }

    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Fewest hops `ix` needs at this threshold; `None`: no number of hops brings it in.
    pub fn get(&self, ix: NodeIndex) -> Option<u32> {
        self.dist
            .get(ix.index())
            .copied()
            .filter(|&d| d != u32::MAX)
    }

    /// A shortest qualifying path from a seed to `ix`, as edges in walking order (for a
    /// tool, ending with its `Call` edge). Empty for seeds and unreachable nodes.
    pub fn path(&self, tk: &Toolkit, ix: NodeIndex) -> Vec<EdgeIndex> {
        let mut path = Vec::new();
        let mut at = ix;
        while let Some(e) = self.via.get(at.index()).copied().flatten() {
            path.push(e);
            match tk.graph.edge_endpoints(e) {
                Some((u, _)) => at = u,
                None => break,
            }
            if path.len() > self.via.len() {
                break;
            }
        }
        path.reverse();
        path
    }
}

/// Critical values at the current hops together with the fewest hops at the current
/// threshold: what the inspector and the parameter bar show.
#[derive(Debug, Clone, PartialEq)]
pub struct Insight {
    pub critical: Critical,
    pub hops_needed: HopCounts,
}

impl Insight {
    pub fn compute(tk: &Toolkit, seeds: &[NodeIndex], params: super::Params) -> Insight {
        Insight::compute_in(tk, tk, seeds, params)
    }

    /// Like [`Insight::compute`], over the out-edges of `g`: `tk` itself, or an
    /// [`Adjacency`] built from it and kept.
    pub fn compute_in(
        tk: &Toolkit,
        g: &impl OutEdges,
        seeds: &[NodeIndex],
        params: super::Params,
    ) -> Insight {
        Insight {
            critical: Critical::compute_in(tk, g, seeds, params.hops),
            hops_needed: HopCounts::compute_in(tk, g, seeds, params.threshold),
        }
    }
}
