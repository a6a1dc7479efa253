//! Flat out-edge lists (compressed sparse rows) of the edges the recommendation follows:
//! `Next` edges between actions and `Call` edges into tools and groups.
//!
//! Walking petgraph's linked edge lists touches one scattered edge record per step; on
//! 100k actions that cache-missing walk, not the arithmetic, dominates a whole-graph search.
//! One sequential pass over the edges builds these arrays, after which every search reads
//! contiguous memory. Build one per graph and scores (the TUI keeps it until an edit).

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

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
                EdgeKind::Call if matches!(tk.kind(v), NodeKind::Tool | NodeKind::Group) => {
                    call.push(row)
                }
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
