//! Flat out-edge lists (compressed sparse rows) of the edges the recommendation follows:
//! `Next` edges between actions and `Call` edges into tools and groups.
//!
//! Walking petgraph's linked edge lists touches one scattered edge record per step; on
//! 100k actions that cache-missing walk, not the arithmetic, dominates a whole-graph search.
//! One sequential pass over the edges builds these arrays, after which every search reads
//! contiguous memory. Build one per graph and scores (the TUI keeps it until an edit).

use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::{EdgeRef, NodeIndexable};

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
    fn build(bound: usize, edges: &[(u32, u32, f64, u32)]) -> Rows {
        let mut start = vec![0u32; bound + 1];
        for &(u, ..) in edges {
            start[u as usize + 1] += 1;
        }
        for i in 0..bound {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let n = edges.len();
        let (mut target, mut score, mut edge) = (vec![0; n], vec![0.0; n], vec![0; n]);
        for &(u, v, s, e) in edges {
            let at = fill[u as usize] as usize;
            fill[u as usize] += 1;
            (target[at], score[at], edge[at]) = (v, s, e);
        }
        Rows {
            start,
            target,
            score,
            edge,
        }
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
    pub fn new(tk: &Toolkit) -> Adjacency {
        let bound = tk.graph.node_bound();
        let mut tools = vec![false; bound];
        for ix in tk.graph.node_indices() {
            tools[ix.index()] = tool_like(tk, ix);
        }
        let (mut next, mut call) = (Vec::new(), Vec::new());
        for e in tk.graph.edge_indices() {
            let Some((u, v)) = tk.graph.edge_endpoints(e) else {
                continue;
            };
            let edge = &tk.graph[e];
            let row = (
                u.index() as u32,
                v.index() as u32,
                passable(edge.score),
                e.index() as u32,
            );
            match edge.kind {
                EdgeKind::Next => next.push(row),
                EdgeKind::Call if tools[v.index()] => call.push(row),
                _ => {}
            }
        }
        Adjacency {
            next: Rows::build(bound, &next),
            call: Rows::build(bound, &call),
            bound,
        }
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
}

fn tool_like(tk: &Toolkit, ix: NodeIndex) -> bool {
    matches!(tk.kind(ix), NodeKind::Tool | NodeKind::Group)
}
