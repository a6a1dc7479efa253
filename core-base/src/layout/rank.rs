//! Layer assignment: cycle breaking on `Next` edges, longest-path depth for actions, and
//! tools and groups one layer after their home (shallowest) caller.

use std::collections::VecDeque;

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;

use crate::model::{EdgeKind, NodeKind, Toolkit};

/// The layer of every kept node (indexed by node index).
pub struct Ranks {
    rank: Vec<Option<u32>>,
}

impl Ranks {
    /// Groups the ranked nodes by layer, in node index order within each layer.
    pub fn into_layers(self, tk: &Toolkit) -> Vec<Vec<NodeIndex>> {
        let depth = self
            .rank
            .iter()
            .flatten()
            .max()
            .map_or(0, |m| *m as usize + 1);
        let mut layers = vec![Vec::new(); depth];
        for ix in tk.graph.node_indices() {
            if let Some(r) = self.rank.get(ix.index()).copied().flatten() {
                layers[r as usize].push(ix);
            }
        }
        layers
    }
}

/// Assigns layers to the nodes for which `kept` holds.
pub fn assign(tk: &Toolkit, kept: &dyn Fn(NodeIndex) -> bool) -> Ranks {
    let bound = tk.graph.node_bound();
    let mut rank: Vec<Option<u32>> = vec![None; bound];
    let actions: Vec<NodeIndex> = tk
        .nodes_of(NodeKind::Action)
        .filter(|&ix| kept(ix))
        .collect();
    let back = back_edges(tk, &actions, kept);
    longest_path(tk, &actions, &back, kept, &mut rank);
    for kind in [NodeKind::Group, NodeKind::Tool] {
        for ix in tk.nodes_of(kind).filter(|&ix| kept(ix)) {
            let callers = tk
                .in_edges(ix)
                .filter(|&(_, u)| kept(u))
                .filter_map(|(_, u)| rank[u.index()].map(|r| (tk.kind(u), r + 1)));
            // One layer after its home, the shallowest caller; a group member after its
            // group, so `Has` edges stay short.
            let (groups, actions): (Vec<_>, Vec<_>) = callers.partition(|c| c.0 == NodeKind::Group);
            let pick = if groups.is_empty() { actions } else { groups };
            let r = pick
                .into_iter()
                .map(|c| c.1)
                .min()
                .or_else(|| {
                    (kind == NodeKind::Group)
                        .then(|| members_home(tk, ix, kept, &rank))
                        .flatten()
                })
                .unwrap_or(0);
            rank[ix.index()] = Some(r);
        }
    }
    Ranks { rank }
}

/// A group nobody calls directly (Chat2Graph's MCP servers: actions call the members) goes
/// where its first member would: one layer after the shallowest caller of a member.
fn members_home(
    tk: &Toolkit,
    group: NodeIndex,
    kept: &dyn Fn(NodeIndex) -> bool,
    rank: &[Option<u32>],
) -> Option<u32> {
    tk.out_edges(group)
        .filter(|&(_, m)| kept(m))
        .flat_map(|(_, m)| tk.in_edges(m))
        .filter(|&(_, u)| u != group && kept(u) && tk.kind(u) == NodeKind::Action)
        .filter_map(|(_, u)| rank[u.index()].map(|r| r + 1))
        .min()
}

/// Whether `u -> v` is a `Next` edge between kept actions.
fn next_edges<'a>(
    tk: &'a Toolkit,
    u: NodeIndex,
    kept: &'a dyn Fn(NodeIndex) -> bool,
) -> impl Iterator<Item = NodeIndex> + 'a {
    tk.out_edges(u)
        .filter(move |&(e, v)| tk.graph[e].kind == EdgeKind::Next && v != u && kept(v))
        .map(|(_, v)| v)
}

/// `Next` edges that close a cycle in an iterative DFS, as (from, to) index pairs, sorted.
fn back_edges(
    tk: &Toolkit,
    actions: &[NodeIndex],
    kept: &dyn Fn(NodeIndex) -> bool,
) -> Vec<(usize, usize)> {
    // 0 unvisited, 1 on stack, 2 done.
    let mut state = vec![0u8; tk.graph.node_bound()];
    let mut back = Vec::new();
    for &root in actions {
        if state[root.index()] != 0 {
            continue;
        }
        let mut stack: Vec<(NodeIndex, Vec<NodeIndex>)> =
            vec![(root, next_edges(tk, root, kept).collect())];
        state[root.index()] = 1;
        while let Some((u, children)) = stack.last_mut() {
            let u = *u;
            match children.pop() {
                Some(v) => match state[v.index()] {
                    0 => {
                        state[v.index()] = 1;
                        let c = next_edges(tk, v, kept).collect();
                        stack.push((v, c));
                    }
                    1 => back.push((u.index(), v.index())),
                    _ => {}
                },
                None => {
                    state[u.index()] = 2;
                    stack.pop();
                }
            }
        }
    }
    back.sort_unstable();
    back
}

/// Longest-path layering of the actions on the acyclic `Next` graph (back edges left out).
fn longest_path(
    tk: &Toolkit,
    actions: &[NodeIndex],
    back: &[(usize, usize)],
    kept: &dyn Fn(NodeIndex) -> bool,
    rank: &mut [Option<u32>],
) {
    let is_back = |u: NodeIndex, v: NodeIndex| back.binary_search(&(u.index(), v.index())).is_ok();
    let mut indeg = vec![0u32; tk.graph.node_bound()];
    for &u in actions {
        for v in next_edges(tk, u, kept) {
            if !is_back(u, v) {
                indeg[v.index()] += 1;
            }
        }
    }
    let mut queue: VecDeque<NodeIndex> = actions
        .iter()
        .copied()
        .filter(|ix| indeg[ix.index()] == 0)
        .collect();
    for &a in actions {
        rank[a.index()] = Some(0);
    }
    while let Some(u) = queue.pop_front() {
        let ru = rank[u.index()].unwrap_or(0);
        for v in next_edges(tk, u, kept) {
            if is_back(u, v) {
                continue;
            }
            let rv = rank[v.index()].unwrap_or(0).max(ru + 1);
            rank[v.index()] = Some(rv);
            indeg[v.index()] -= 1;
            if indeg[v.index()] == 0 {
                queue.push_back(v);
            }
        }
    }
}
