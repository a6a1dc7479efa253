//! Flat out-edge lists (compressed sparse rows) of the edges the recommendation follows:
//! `Next` edges between actions and `Call` edges into tools and groups.
//!
//! Walking petgraph's linked edge lists touches one scattered edge record per step; on
//! 100k actions that cache-missing walk, not the arithmetic, dominates a whole-graph search.
//! One sequential pass over the edges builds these arrays, after which every search reads
//! contiguous memory. Build one per graph and scores (the TUI keeps it until an edit).

use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::{EdgeRef, IntoEdgeReferences, NodeIndexable};

use super::critical::passable;
use crate::model::{EdgeKind, NodeKind, Toolkit};

/// Out-edges of one kind for every node, as rows of flat arrays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rows {
    /// Node `u`'s edges are `start[u]..start[u + 1]`.
    start: Vec<u32>,
    target: Vec<u32>,
    /// The score as the threshold sees it (NaN as `-inf`).
    score: Vec<f64>,
    edge: Vec<u32>,
}

impl Rows {
    /// Empty rows with room for `count[u]` edges out of each node `u`.
    fn with_counts(count: Vec<u32>) -> Rows {
        let mut start = count;
        start.push(0);
        let mut sum = 0u32;
        for c in start.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        let n = sum as usize;
        Rows {
            start,
            target: vec![0; n],
            score: vec![0.0; n],
            edge: vec![0; n],
        }
    }

    /// Places an edge of `u`; `fill` holds each row's next free slot.
    fn place(&mut self, fill: &mut [u32], u: usize, v: u32, score: f64, e: u32) {
        let at = fill[u] as usize;
        fill[u] += 1;
        (self.target[at], self.score[at], self.edge[at]) = (v, score, e);
    }

    /// The out-edges of `u`: (target, passable score, edge).
    pub fn of(&self, u: NodeIndex) -> impl Iterator<Item = (NodeIndex, f64, EdgeIndex)> + '_ {
        let i = u.index();
        let (lo, hi) = match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&lo), Some(&hi)) => (lo as usize, hi as usize),
            _ => (0, 0),
        };
        (lo..hi).map(move |k| {
            (
                NodeIndex::new(self.target[k] as usize),
                self.score[k],
                EdgeIndex::new(self.edge[k] as usize),
            )
        })
    }
}

/// The `Next` and tool `Call` out-edges of a toolkit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Adjacency {
    /// `Next` edges (action to action).
    pub next: Rows,
    /// `Call` edges into a Tool or a Group (the edges of step 3).
    pub call: Rows,
    bound: usize,
}

impl Adjacency {
    /// Two sequential passes over the edges: count each node's edges, then place them.
    pub fn new(tk: &Toolkit) -> Adjacency {
        let bound = tk.graph.node_bound();
        let mut tools = vec![false; bound];
        for ix in tk.graph.node_indices() {
            tools[ix.index()] = tool_like(tk, ix);
        }
        let class = |kind: EdgeKind, v: usize| match kind {
            EdgeKind::Next => Some(true),
            EdgeKind::Call if tools[v] => Some(false),
            _ => None,
        };
        let (mut n_next, mut n_call) = (vec![0u32; bound], vec![0u32; bound]);
        for e in (&tk.graph).edge_references() {
            match class(e.weight().kind, e.target().index()) {
                Some(true) => n_next[e.source().index()] += 1,
                Some(false) => n_call[e.source().index()] += 1,
                None => {}
            }
        }
        let (mut next, mut call) = (Rows::with_counts(n_next), Rows::with_counts(n_call));
        let (mut fill_next, mut fill_call) = (next.start.clone(), call.start.clone());
        for e in (&tk.graph).edge_references() {
            let (u, v) = (e.source().index(), e.target().index());
            let (score, id) = (passable(e.weight().score), e.id().index() as u32);
            match class(e.weight().kind, v) {
                Some(true) => next.place(&mut fill_next, u, v as u32, score, id),
                Some(false) => call.place(&mut fill_call, u, v as u32, score, id),
                None => {}
            }
        }
        Adjacency { next, call, bound }
    }

    /// `node_bound` of the graph it was built from.
    pub fn bound(&self) -> usize {
        self.bound
    }
}

/// The out-edges the searches follow: read from petgraph directly (no set-up, best when
/// the search stays near the seeds) or from a kept [`Adjacency`] (best for searches over
/// most of a large graph).
pub trait OutEdges {
    /// An upper bound of the node indices.
    fn bound(&self) -> usize;
    /// Calls `f(target, passable score, edge)` for each `Next` edge out of `u`.
    fn for_next(&self, u: NodeIndex, f: impl FnMut(NodeIndex, f64, EdgeIndex));
    /// Calls `f(target, passable score, edge)` for each `Call` edge out of `u` into a tool
    /// or group.
    fn for_calls(&self, u: NodeIndex, f: impl FnMut(NodeIndex, f64, EdgeIndex));
    /// Calls `f(target, passable score, edge, is_next)` for both kinds at once.
    fn for_out(&self, u: NodeIndex, mut f: impl FnMut(NodeIndex, f64, EdgeIndex, bool)) {
        self.for_next(u, |v, s, e| f(v, s, e, true));
        self.for_calls(u, |v, s, e| f(v, s, e, false));
    }
}

impl OutEdges for Adjacency {
    fn bound(&self) -> usize {
        self.bound
    }

    fn for_next(&self, u: NodeIndex, mut f: impl FnMut(NodeIndex, f64, EdgeIndex)) {
        for (v, s, e) in self.next.of(u) {
            f(v, s, e);
        }
    }

    fn for_calls(&self, u: NodeIndex, mut f: impl FnMut(NodeIndex, f64, EdgeIndex)) {
        for (v, s, e) in self.call.of(u) {
            f(v, s, e);
        }
    }
}

impl OutEdges for Toolkit {
    fn bound(&self) -> usize {
        self.graph.node_bound()
    }

    fn for_next(&self, u: NodeIndex, mut f: impl FnMut(NodeIndex, f64, EdgeIndex)) {
        for e in self.graph.edges_directed(u, Direction::Outgoing) {
            if e.weight().kind == EdgeKind::Next {
                f(e.target(), passable(e.weight().score), e.id());
            }
        }
    }

    fn for_calls(&self, u: NodeIndex, mut f: impl FnMut(NodeIndex, f64, EdgeIndex)) {
        for e in self.graph.edges_directed(u, Direction::Outgoing) {
            if e.weight().kind == EdgeKind::Call && tool_like(self, e.target()) {
                f(e.target(), passable(e.weight().score), e.id());
            }
        }
    }

    fn for_out(&self, u: NodeIndex, mut f: impl FnMut(NodeIndex, f64, EdgeIndex, bool)) {
        for e in self.graph.edges_directed(u, Direction::Outgoing) {
            let (v, w) = (e.target(), e.weight());
            match w.kind {
                EdgeKind::Next => f(v, passable(w.score), e.id(), true),
                EdgeKind::Call if tool_like(self, v) => f(v, passable(w.score), e.id(), false),
                _ => {}
            }
        }
    }
}

fn tool_like(tk: &Toolkit, ix: NodeIndex) -> bool {
    matches!(tk.kind(ix), NodeKind::Tool | NodeKind::Group)
}
