//! Writing a toolkit out: JSON, Graphviz dot, Mermaid, SVG (drawn by toolscope), and the
//! native YAML format.

pub mod convert;
pub mod describe;
pub mod dot;
pub mod json;
pub mod mermaid;
pub mod native;
pub mod svg;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use crate::model::Toolkit;
use crate::recommend::Recommendation;

/// What to highlight when exporting: a recommendation and its threshold.
pub struct Highlight<'r> {
    pub rec: &'r Recommendation,
    pub threshold: f64,
    pub seeds: &'r [NodeIndex],
}

impl Highlight<'_> {
    pub fn node(&self, ix: NodeIndex) -> bool {
        self.rec.contains(ix)
    }

    pub fn seed(&self, ix: NodeIndex) -> bool {
        self.seeds.contains(&ix)
    }

    pub fn edge(&self, tk: &Toolkit, e: EdgeIndex) -> bool {
        self.rec.has_edge(tk, e, self.threshold)
    }
}

/// Nodes sorted by (kind, name) and edges sorted by (from, to): stable output order.
pub fn sorted(tk: &Toolkit) -> (Vec<NodeIndex>, Vec<EdgeIndex>) {
    let mut nodes: Vec<NodeIndex> = tk.graph.node_indices().collect();
    nodes.sort_by(|a, b| (tk.kind(*a), tk.name(*a)).cmp(&(tk.kind(*b), tk.name(*b))));
    let mut edges: Vec<EdgeIndex> = tk.graph.edge_indices().collect();
    edges.sort_by_key(|e| {
        tk.graph
            .edge_endpoints(*e)
            .map(|(u, v)| (tk.name(u).to_string(), tk.name(v).to_string()))
    });
    (nodes, edges)
}
