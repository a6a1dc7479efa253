//! Ordering within layers: a fixed number of barycenter sweeps (down, up, ...). Each sweep
//! is linear in the edges plus a sort per layer, so the cost is bounded on any graph.

use petgraph::Direction;
use petgraph::stable_graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::visit::NodeIndexable;

use crate::model::Toolkit;

/// Number of sweeps; more brings little on toolkit graphs.
const SWEEPS: usize = 4;

/// Reorders each layer to reduce crossings.
pub fn sweep(tk: &Toolkit, layers: &mut [Vec<NodeIndex>], kept: &dyn Fn(NodeIndex) -> bool) {
    let bound = tk.graph.node_bound();
    let mut layer_of = vec![u32::MAX; bound];
    let mut pos = vec![0f64; bound];
    for (l, layer) in layers.iter().enumerate() {
        for (o, ix) in layer.iter().enumerate() {
            layer_of[ix.index()] = l as u32;
            pos[ix.index()] = o as f64;
        }
    }
    let near = Neighbours::of(tk, layers, &layer_of, kept);
    for s in 0..SWEEPS {
        let down = s % 2 == 0;
        let order: Vec<usize> = if down {
            (1..layers.len()).collect()
        } else {
            (0..layers.len().saturating_sub(1)).rev().collect()
        };
        for l in order {
            reorder(&mut layers[l], down, &near, &mut pos);
        }
    }
}

/// Each laid-out node's kept neighbours in earlier and in later layers, in the order the
/// graph lists its edges (so the means are summed as before). Made once for all sweeps: a
/// focus view's nodes have most of their edges to nodes not laid out, and walking those
/// in every sweep was most of a sweep's cost on a large toolkit.
struct Neighbours {
    /// Per node index: the range of its earlier-layer neighbours in `list`, then of its
    /// later-layer ones.
    at: std::collections::HashMap<NodeIndex, (u32, u32, u32)>,
    list: Vec<u32>,
}

impl Neighbours {
    fn of(
        tk: &Toolkit,
        layers: &[Vec<NodeIndex>],
        layer_of: &[u32],
        kept: &dyn Fn(NodeIndex) -> bool,
    ) -> Neighbours {
        let mut at = std::collections::HashMap::new();
        let mut list = Vec::new();
        let mut later = Vec::new();
        for (l, layer) in layers.iter().enumerate() {
            let l = l as u32;
            for &v in layer {
                let start = list.len() as u32;
                later.clear();
                for dir in [Direction::Incoming, Direction::Outgoing] {
                    for e in tk.graph.edges_directed(v, dir) {
                        let u = if dir == Direction::Incoming {
                            e.source()
                        } else {
                            e.target()
                        };
                        let lu = layer_of[u.index()];
                        if lu == u32::MAX || lu == l || !kept(u) {
                            continue;
                        }
                        if lu < l {
                            list.push(u.index() as u32);
                        } else {
                            later.push(u.index() as u32);
                        }
                    }
                }
                let mid = list.len() as u32;
                list.extend_from_slice(&later);
                at.insert(v, (start, mid, list.len() as u32));
            }
        }
        Neighbours { at, list }
    }

    /// `v`'s neighbours in earlier layers (`down`) or later ones.
    fn of_node(&self, v: NodeIndex, down: bool) -> &[u32] {
        match self.at.get(&v) {
            Some(&(a, m, _)) if down => &self.list[a as usize..m as usize],
            Some(&(_, m, b)) => &self.list[m as usize..b as usize],
            None => &[],
        }
    }
}

/// Sorts one layer by the mean position of its neighbours in earlier (`down`) or later
/// layers; nodes without such neighbours keep their place.
fn reorder(layer: &mut [NodeIndex], down: bool, near: &Neighbours, pos: &mut [f64]) {
    let mut keyed: Vec<(f64, usize, NodeIndex)> = Vec::with_capacity(layer.len());
    for (o, &v) in layer.iter().enumerate() {
        let (mut sum, mut n) = (0.0, 0u32);
        for &u in near.of_node(v, down) {
            sum += pos[u as usize];
            n += 1;
        }
        let key = if n == 0 { o as f64 } else { sum / f64::from(n) };
        keyed.push((key, o, v));
    }
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (o, (_, _, v)) in keyed.into_iter().enumerate() {
        layer[o] = v;
        pos[v.index()] = o as f64;
    }
}
