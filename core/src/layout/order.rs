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
    for s in 0..SWEEPS {
        let down = s % 2 == 0;
        let order: Vec<usize> = if down {
            (1..layers.len()).collect()
        } else {
            (0..layers.len().saturating_sub(1)).rev().collect()
        };
        for l in order {
            reorder(
                tk,
                &mut layers[l],
                l as u32,
                down,
                &layer_of,
                &mut pos,
                kept,
            );
        }
    }
}

/// Sorts one layer by the mean position of its neighbours in earlier (`down`) or later
/// layers; nodes without such neighbours keep their place.
fn reorder(
    tk: &Toolkit,
    layer: &mut [NodeIndex],
    l: u32,
    down: bool,
    layer_of: &[u32],
    pos: &mut [f64],
    kept: &dyn Fn(NodeIndex) -> bool,
) {
    let mut keyed: Vec<(f64, usize, NodeIndex)> = Vec::with_capacity(layer.len());
    for (o, &v) in layer.iter().enumerate() {
        let (mut sum, mut n) = (0.0, 0u32);
        for dir in [Direction::Incoming, Direction::Outgoing] {
            for e in tk.graph.edges_directed(v, dir) {
                let u = if dir == Direction::Incoming {
                    e.source()
                } else {
                    e.target()
                };
                let lu = layer_of[u.index()];
                let wanted = if down {
                    lu < l
                } else {
                    lu > l && lu != u32::MAX
                };
                if wanted && kept(u) {
                    sum += pos[u.index()];
                    n += 1;
                }
            }
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
