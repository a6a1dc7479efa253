//! A step drawn as the reasons for its offer: the seeds, each offered action and tool with
//! the one path that puts it in the offer (its best path from a seed within the hops, the
//! path `explain` gives a recommended node), and the called tool with the path that would
//! bring it in and the one edge or hop that keeps it out. The paths of the offered nodes
//! form a tree (each node keeps only the edge it was first reached by), so a drawing of
//! them has about one edge per node; the other edges among the drawn nodes say nothing
//! about why the step offers what it does, and are counted on their nodes instead.
//!
//! Used by the TUI's step view (and the focus view of a learned kit, whose recommended
//! nodes have more edges among them than there are nodes) and by the SVG of a replayed
//! step, so both draw the same picture.

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use super::focus::{self, Blocked};
use crate::model::{EdgeKind, Toolkit};
use crate::recommend::critical::seed_actions;
use crate::recommend::{HopCounts, Params, PathStep, Reason, Recommendation, explain};

/// The most frontier nodes drawn (the best-scored ones): the frontier of a learned kit's
/// step is most of the graph.
pub const MOST_FRONTIER: usize = 5;

/// What keeps the called tool out of the offer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Keeping {
    /// The edge: the lowest-scored one below the threshold on its path, or the first
    /// `Next` edge beyond the hops.
    pub step: PathStep,
    /// The hops ran out there (the edge's score passes the threshold).
    pub by_hops: bool,
}

/// The called tool of a replayed step and the path that brings it in (or would).
#[derive(Debug, Clone, PartialEq)]
pub struct CalledPath {
    pub node: NodeIndex,
    /// From a seed, as `explain` gives it; empty when nothing reaches it.
    pub path: Vec<PathStep>,
    /// `None`: it is recommended (a hit, or a tool the run lacked), or nothing reaches it.
    pub keeping: Option<Keeping>,
}

/// Why a step offers what it offers (see the module comment).
#[derive(Debug, Clone, PartialEq)]
pub struct Reasons {
    /// The seed actions.
    pub seeds: Vec<NodeIndex>,
    /// The offered tools by rank: the smallest score on the path that offers each (highest
    /// first), then fewer edges, then index. The score is what the threshold may rise to
    /// with the tool still offered along that path.
    pub ranked: Vec<(NodeIndex, f64)>,
    pub called: Option<CalledPath>,
    /// The edge by which each recommended node is reached on its best path (the tree).
    via: HashMap<NodeIndex, EdgeIndex>,
    /// Nodes each ranked tool brings in: its path's nodes not drawn before it, then itself.
    adds: Vec<Vec<NodeIndex>>,
    /// The seeds, then the called tool's path.
    first: Vec<NodeIndex>,
    /// Recommended actions on no ranked tool's path, with their own paths.
    rest: Vec<NodeIndex>,
}

/// What a drawing of the step holds when `most` offered tools are drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    /// Nodes in the order they are wanted: seeds, the called tool's path, each offered tool
    /// (by rank) with its path, then (when every tool is drawn) the other offered actions.
    pub nodes: Vec<NodeIndex>,
    /// The capped frontier: the best-scored nodes one edge beyond the drawn members.
    pub frontier: Vec<Blocked>,
    /// Edges drawn: the tree, the called tool's path, one edge into each frontier node.
    pub edges: Vec<EdgeIndex>,
    /// Offered tools not drawn.
    pub untold: usize,
}

impl Reasons {
    /// The reasons for `rec` (the step's offer, cut to what the run had) from `seeds`, and
    /// the path of `called` (the tool the run called next) as `explain` gives it.
    pub fn of(
        tk: &Toolkit,
        seeds: &[NodeIndex],
        params: Params,
        rec: &Recommendation,
        called: Option<NodeIndex>,
    ) -> Reasons {
        let hc = HopCounts::compute(tk, seeds, params.threshold);
        let seeds = seed_actions(tk, seeds);
        let mut via = HashMap::new();
        for &m in rec.actions.iter().chain(&rec.tools) {
            if let Some(e) = hc.path(tk, m).last() {
                via.insert(m, *e);
            }
        }
        let called = called.map(|node| called_path(tk, &seeds, params, &hc, node));
        let mut first: Vec<NodeIndex> = seeds.clone();
        if let Some(c) = &called {
            first.extend(c.path.iter().map(|s| s.to));
            first.push(c.node);
        }
        let mut seen: HashSet<NodeIndex> = first.iter().copied().collect();
        first.retain({
            let mut once = HashSet::new();
            move |ix| once.insert(*ix)
        });
        let mut ranked: Vec<(NodeIndex, f64, usize)> = rec
            .tools
            .iter()
            .map(|&t| {
                let p = hc.path(tk, t);
                let width = p
                    .iter()
                    .map(|&e| tk.graph[e].score)
                    .fold(f64::INFINITY, f64::min);
                (t, width, p.len())
            })
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
        let mut adds = Vec::with_capacity(ranked.len());
        for &(t, _, _) in &ranked {
            let mut add = Vec::new();
            for e in hc.path(tk, t) {
                if let Some((_, v)) = tk.graph.edge_endpoints(e)
                    && seen.insert(v)
                {
                    add.push(v);
                }
            }
            if seen.insert(t) {
                add.push(t);
            }
            adds.push(add);
        }
        let mut rest = Vec::new();
        for &a in &rec.actions {
            for e in hc.path(tk, a) {
                if let Some((_, v)) = tk.graph.edge_endpoints(e)
                    && seen.insert(v)
                {
                    rest.push(v);
                }
            }
            if seen.insert(a) {
                rest.push(a);
            }
        }
        Reasons {
            seeds,
            ranked: ranked.into_iter().map(|(t, w, _)| (t, w)).collect(),
            called,
            via,
            adds,
            first,
            rest,
        }
    }

    /// The drawing with at most `most` offered tools (all of them: `usize::MAX`).
    pub fn drawn(&self, tk: &Toolkit, rec: &Recommendation, most: usize) -> Drawn {
        let shown = most.min(self.adds.len());
        let mut nodes = self.first.clone();
        for add in &self.adds[..shown] {
            nodes.extend(add);
        }
        if shown == self.adds.len() {
            nodes.extend(&self.rest);
        }
        let mut on = vec![false; tk.graph.node_bound()];
        for &n in &nodes {
            on[n.index()] = true;
        }
        let drawn_members: Vec<NodeIndex> =
            nodes.iter().copied().filter(|&n| rec.contains(n)).collect();
        let mut frontier = focus::frontier(tk, &drawn_members, &|ix| on[ix.index()]);
        frontier.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
        frontier.truncate(MOST_FRONTIER);
        let mut edges: Vec<EdgeIndex> = nodes
            .iter()
            .filter_map(|n| self.via.get(n).copied())
            .collect();
        if let Some(c) = &self.called {
            edges.extend(c.path.iter().map(|s| s.edge));
        }
        edges.extend(frontier.iter().map(|b| b.edge));
        edges.sort();
        edges.dedup();
        Drawn {
            nodes,
            frontier,
            edges,
            untold: self.adds.len() - shown,
        }
    }

    /// The step's best-path edge into `ix` (none for seeds and nodes outside the offer).
    pub fn via(&self, ix: NodeIndex) -> Option<EdgeIndex> {
        self.via.get(&ix).copied()
    }
}

/// The called tool's path and what keeps it out, from `explain`'s reason.
fn called_path(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    params: Params,
    hc: &HopCounts,
    node: NodeIndex,
) -> CalledPath {
    let empty = CalledPath {
        node,
        path: Vec::new(),
        keeping: None,
    };
    if hc.get(node).is_some_and(|k| k <= params.hops) {
        // Recommended: the same shortest path `explain` gives, without its other work.
        let path = hc
            .path(tk, node)
            .into_iter()
            .filter_map(|e| path_step(tk, e))
            .collect();
        return CalledPath { path, ..empty };
    }
    let Some(ex) = explain(tk, seeds, params, node) else {
        return empty;
    };
    match ex.reason {
        Reason::Recommended { path } => CalledPath { path, ..empty },
        Reason::NeedsHops { path, .. } => {
            let beyond = path
                .iter()
                .filter(|s| s.kind == EdgeKind::Next)
                .nth(params.hops as usize)
                .copied();
            CalledPath {
                keeping: beyond.map(|step| Keeping {
                    step,
                    by_hops: true,
                }),
                path,
                node,
            }
        }
        Reason::Blocked { path, blocking, .. } => CalledPath {
            keeping: blocking.first().map(|&step| Keeping {
                step,
                by_hops: false,
            }),
            path,
            node,
        },
        _ => empty,
    }
}

fn path_step(tk: &Toolkit, e: EdgeIndex) -> Option<PathStep> {
    let (from, to) = tk.graph.edge_endpoints(e)?;
    let w = &tk.graph[e];
    Some(PathStep {
        edge: e,
        from,
        to,
        kind: w.kind,
        score: w.score,
    })
}

/// Edges per recommended node beyond which the focus view is a knot.
pub const KNOT: usize = 2;

/// Whether the edges among the recommended nodes outnumber them [`KNOT`] times over: the
/// focus view of such a set (a learned kit's, where every action has a `Next` edge to
/// most others: three to fifteen edges a node) is drawn as its reasons, while a
/// hand-made kit's (Chat2Graph's own, about one edge a node) keeps every edge. Stops
/// counting as soon as it knows.
pub fn is_knotted(tk: &Toolkit, rec: &Recommendation) -> bool {
    let n = rec.len() * KNOT;
    let mut edges = 0;
    for &u in rec.actions.iter().chain(&rec.tools) {
        for (_, v) in tk.out_edges(u) {
            if v != u && rec.contains(v) {
                edges += 1;
                if edges > n {
                    return true;
                }
            }
        }
    }
    false
}
