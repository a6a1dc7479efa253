//! The `Next` floors that keep `complete` from dropping when `fit` learns `Next` scores
//! (SPEC 8: fit never lowers `complete` on the fitted traces at each operator's
//! parameters). A floor `t` on an edge means its new score is at least `t`. With the Call
//! floor of [`fit`](super::fit::fit) (every Call edge of a recommended action into a called
//! tool keeps its record's threshold), a record keeps what it was offered:
//!
//! - **Without order** (`called`): every `Next` edge of the record's recommended subgraph
//!   at its threshold `t` and hops keeps `t` (`subgraph_floors`), so the record keeps the
//!   same actions and every called tool it was offered.
//! - **With order** (`calls`), the scores are learned first (with the floors above), then
//!   repaired where they would lose a record (`repairs`): for a record complete before
//!   the fit, a called tool `x` is *lost* when no action that offered it before (a Call
//!   edge of score `>= t` from an action of the recommendation) is still reached within
//!   the hops over the learned scores. For each lost tool, one path is kept: among the
//!   paths of at most `hops` `Next` edges, each of score `>= t` before the fit, from a seed
//!   to such an action, the one that needs the least raise (the sum of `t - s` over its
//!   edges whose learned score `s` is below `t`); those edges get the floor `t`. Ties: the
//!   action with the smallest name, then, from it back to the seeds, the fewest hops and
//!   the predecessor with the smallest name. Nothing is raised where the learned scores
//!   keep the record complete, and each lost tool gets the least raise that brings it back
//!   (per tool: no cheaper joint repair of several tools is searched for).
//!
//! Both work once per distinct (seeds, threshold, hops) and, with order, called set, so a
//! million records cost what their distinct contexts cost. The benchmark's Python
//! reference (`benches/bfcl/model.py`) computes the same repairs.

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use super::eval::Resolved;
use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::recommend::{Params, recommend};

/// A record's context: seeds, threshold bits, hops.
type Context = (Vec<NodeIndex>, u64, u32);

fn context(r: &Resolved) -> Context {
    (r.seeds.clone(), r.params.threshold.to_bits(), r.params.hops)
}

fn raise(floors: &mut HashMap<EdgeIndex, f64>, e: EdgeIndex, t: f64) {
    let f = floors.entry(e).or_default();
    *f = f.max(t);
}

/// The `Next` edges of the recommended subgraphs of the records without order, each with
/// the highest threshold a record used it at.
pub(crate) fn subgraph_floors(tk: &Toolkit, records: &[Resolved]) -> HashMap<EdgeIndex, f64> {
    let mut out = HashMap::new();
    let mut seen = HashSet::new();
    for r in records
        .iter()
        .filter(|r| r.ordered.is_none() && !r.called.is_empty())
    {
        if !seen.insert(context(r)) {
            continue;
        }
        for e in recommend(tk, &r.seeds, r.params).edges {
            if tk.graph[e].kind == EdgeKind::Next {
                raise(&mut out, e, r.params.threshold);
            }
        }
    }
    out
}

/// The floors that repair the records with order that `fitted` (the toolkit with the
/// learned scores) would make lose completeness, against `before` (the same edges as
/// written; `fitted` may have more).
pub(crate) fn repairs(
    before: &Toolkit,
    fitted: &Toolkit,
    records: &[Resolved],
) -> HashMap<EdgeIndex, f64> {
    let mut out = HashMap::new();
    let mut reach: HashMap<Context, (Layers, Layers)> = HashMap::new();
    let mut seen: HashSet<(Context, Vec<NodeIndex>)> = HashSet::new();
    for r in records
        .iter()
        .filter(|r| r.ordered.is_some() && !r.called.is_empty())
    {
        if !seen.insert((context(r), r.called.clone())) {
            continue;
        }
        let (was, is) = reach.entry(context(r)).or_insert_with(|| {
            (
                Layers::new(before, &r.seeds, r.params),
                Layers::new(fitted, &r.seeds, r.params),
            )
        });
        let offering: Vec<Vec<NodeIndex>> =
            r.called.iter().map(|&x| was.offering(before, x)).collect();
        if offering.iter().any(Vec::is_empty) {
            continue; // not complete before the fit: nothing to keep
        }
        for targets in offering {
            if targets.iter().any(|&a| is.reached(a)) {
                continue;
            }
            for e in was.cheapest_path(before, fitted, &targets) {
                raise(&mut out, e, r.params.threshold);
            }
        }
    }
    out
}

/// The actions a recommendation reaches, by hops from the seeds (Chat2Graph's rounds:
/// `Next` edges of score `>= t`).
struct Layers {
    params: Params,
    /// Hops from the seeds by node index (`u32::MAX`: not reached).
    hops: Vec<u32>,
    /// The nodes first reached at each hop count (`by_hops[0]`: the seeds).
    by_hops: Vec<Vec<NodeIndex>>,
}

const FAR: u32 = u32::MAX;

impl Layers {
    /// The same walk as [`recommend`]'s step 2, keeping each action's hop count.
    fn new(tk: &Toolkit, seeds: &[NodeIndex], params: Params) -> Layers {
        let mut hops = vec![FAR; tk.graph.node_bound()];
        let mut first = Vec::new();
        for &s in seeds {
            if tk.graph.contains_node(s) && tk.kind(s) == NodeKind::Action && hops[s.index()] != 0 {
                hops[s.index()] = 0;
                first.push(s);
            }
        }
        let mut by_hops = vec![first];
        for k in 1..=params.hops {
            let mut next = Vec::new();
            for &u in &by_hops[by_hops.len() - 1] {
                for (_, v) in usable(tk, u, params.threshold) {
                    if hops[v.index()] == FAR {
                        hops[v.index()] = k;
                        next.push(v);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            by_hops.push(next);
        }
        Layers {
            params,
            hops,
            by_hops,
        }
    }

    fn reached(&self, ix: NodeIndex) -> bool {
        self.hops.get(ix.index()).is_some_and(|&k| k != FAR)
    }

    /// The reached actions offering `x` (a Call edge of score `>= t`).
    fn offering(&self, tk: &Toolkit, x: NodeIndex) -> Vec<NodeIndex> {
        tk.in_edges(x)
            .filter(|&(e, a)| {
                let edge = &tk.graph[e];
                edge.kind == EdgeKind::Call
                    && edge.score >= self.params.threshold
                    && self.reached(a)
            })
            .map(|(_, a)| a)
            .collect()
    }

    /// The edges to raise for the path of the module's rule: within these layers (the
    /// graph before the fit), from a seed to one of `targets` (reached), the least total
    /// raise `t - s` over the edges whose `fitted` score `s` is below `t`.
    fn cheapest_path(
        &self,
        before: &Toolkit,
        fitted: &Toolkit,
        targets: &[NodeIndex],
    ) -> Vec<EdgeIndex> {
        let t = self.params.threshold;
        let nodes: Vec<NodeIndex> = self.by_hops.iter().flatten().copied().collect();
        let local: HashMap<NodeIndex, usize> =
            nodes.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        // Per node, its usable in-edges from reached nodes: (source, edge, raise).
        let mut into: Vec<Vec<(usize, EdgeIndex, f64)>> = vec![Vec::new(); nodes.len()];
        for (i, &u) in nodes.iter().enumerate() {
            for (e, v) in usable(before, u, t) {
                if let Some(&j) = local.get(&v) {
                    let s = fitted.graph.edge_weight(e).map_or(0.0, |w| w.score);
                    into[j].push((i, e, (t - s).max(0.0)));
                }
            }
        }
        // cost[k][v]: the least total raise from a seed to v within k hops.
        let seeds = nodes.iter().map(|&v| match self.hops[v.index()] {
            0 => 0.0,
            _ => f64::INFINITY,
        });
        let mut cost: Vec<Vec<f64>> = vec![seeds.collect()];
        for _ in 0..self.params.hops {
            let prev = &cost[cost.len() - 1];
            let mut next = prev.clone();
            for (j, edges) in into.iter().enumerate() {
                for &(i, _, c) in edges {
                    next[j] = next[j].min(prev[i] + c);
                }
            }
            if &next == prev {
                break;
            }
            cost.push(next);
        }
        let last = &cost[cost.len() - 1];
        let name = |i: usize| before.name(nodes[i]);
        let Some(mut v) = targets
            .iter()
            .filter_map(|a| local.get(a).copied())
            .min_by(|&a, &b| last[a].total_cmp(&last[b]).then(name(a).cmp(name(b))))
        else {
            return Vec::new();
        };
        let mut need = last[v];
        let mut k = cost.len() - 1;
        let mut out = Vec::new();
        loop {
            // The fewest hops at which v costs `need`.
            while k > 0 && cost[k - 1][v] == need {
                k -= 1;
            }
            if k == 0 || !need.is_finite() {
                return out;
            }
            // cost[k][v] came from such an edge; among them, the smallest name.
            let Some(&(u, e, c)) = into[v]
                .iter()
                .filter(|&&(u, _, c)| cost[k - 1][u] + c == need)
                .min_by(|a, b| (name(a.0), a.1).cmp(&(name(b.0), b.1)))
            else {
                return out;
            };
            if c > 0.0 {
                out.push(e);
            }
            need = cost[k - 1][u];
            v = u;
            k -= 1;
        }
    }
}

/// The `Next` edges out of `u` a recommendation at threshold `t` follows.
fn usable(tk: &Toolkit, u: NodeIndex, t: f64) -> impl Iterator<Item = (EdgeIndex, NodeIndex)> + '_ {
    tk.out_edges(u).filter(move |&(e, _)| {
        let edge = &tk.graph[e];
        edge.kind == EdgeKind::Next && edge.score >= t
    })
}

#[cfg(test)]
mod tests;
