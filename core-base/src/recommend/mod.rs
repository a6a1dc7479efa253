//! Chat2Graph's `ToolkitService.recommend_subgraph`, exactly, and the tool filters stage.
//!
//! 1. keep = the seeds that are actions;
//! 2. `hops` rounds of following `Next` edges with score `>= t` from the frontier;
//! 3. every Tool (or member-less group) reached from a kept action by a `Call` edge with
//!    score `>= t`;
//! 4. the induced subgraph without edges below `t`.

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use crate::model::{EdgeKind, NodeKind, Toolkit};

/// The most hops an operator, a command or a trace record may ask for: far beyond any real
/// toolkit's depth, and a bound on the work one query can ask for.
pub const MAX_HOPS: u32 = 1000;

/// Parameters of one recommendation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub threshold: f64,
    pub hops: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            threshold: 0.5,
            hops: 0,
        }
    }
}

/// The recommended subgraph.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recommendation {
    /// Recommended actions (seeds included), in index order.
    pub actions: Vec<NodeIndex>,
    /// Recommended tools and member-less groups, in index order.
    pub tools: Vec<NodeIndex>,
    /// Edges of the induced subgraph with score `>= t`.
    pub edges: Vec<EdgeIndex>,
    /// Membership by node index (`node_bound` long).
    member: Vec<bool>,
}

impl Recommendation {
    pub fn contains(&self, ix: NodeIndex) -> bool {
        self.member.get(ix.index()).copied().unwrap_or(false)
    }

    pub fn len(&self) -> usize {
        self.actions.len() + self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps only the tools `keep` accepts (a replayed run's cut to what it had): the others
    /// leave the subgraph with their edges.
    pub fn retain_tools(&mut self, tk: &Toolkit, keep: impl Fn(NodeIndex) -> bool) {
        let member = &mut self.member;
        self.tools.retain(|&x| {
            let k = keep(x);
            if !k && let Some(m) = member.get_mut(x.index()) {
                *m = false;
            }
            k
        });
        let member = &self.member;
        self.edges.retain(|&e| {
            tk.graph.edge_endpoints(e).is_some_and(|(u, v)| {
                member.get(u.index()).copied().unwrap_or(false)
                    && member.get(v.index()).copied().unwrap_or(false)
            })
        });
    }

    /// Whether an edge is part of the recommended subgraph.
    pub fn has_edge(&self, tk: &Toolkit, e: EdgeIndex, threshold: f64) -> bool {
        match tk.graph.edge_endpoints(e) {
            Some((u, v)) => self.contains(u) && self.contains(v) && tk.graph[e].score >= threshold,
            None => false,
        }
    }
}

/// Seeds given by name: the action indices, and the names that are no action.
pub fn resolve_seeds<S: AsRef<str>>(tk: &Toolkit, names: &[S]) -> (Vec<NodeIndex>, Vec<String>) {
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        match tk.action(name.as_ref()) {
            Some(ix) => found.push(ix),
            None => unknown.push(name.as_ref().to_string()),
        }
    }
    (found, unknown)
}

/// Whether a node counts as a tool for step 3: a Tool, or a ToolGroup reached by `Call`.
fn is_tool_like(tk: &Toolkit, ix: NodeIndex) -> bool {
    matches!(tk.kind(ix), NodeKind::Tool | NodeKind::Group)
}

/// The recommendation for `seeds` (action indices; others are ignored as Chat2Graph does).
pub fn recommend(tk: &Toolkit, seeds: &[NodeIndex], params: Params) -> Recommendation {
    let t = params.threshold;
    let bound = tk.graph.node_bound();
    let mut member = vec![false; bound];
    let mut actions = Vec::new();
    let mut frontier = Vec::new();
    for &s in seeds {
        if tk.graph.contains_node(s) && tk.kind(s) == NodeKind::Action && !member[s.index()] {
            member[s.index()] = true;
            actions.push(s);
            frontier.push(s);
        }
    }
    // Step 2. Chat2Graph's frontier holds every action reached by a walk of exactly k steps;
    // following only newly reached actions gives the same union (distance <= hops).
    let mut next = Vec::new();
    for _ in 0..params.hops {
        for &u in &frontier {
            for (e, v) in tk.out_edges(u) {
                let edge = &tk.graph[e];
                if edge.kind == EdgeKind::Next && edge.score >= t && !member[v.index()] {
                    member[v.index()] = true;
                    actions.push(v);
                    next.push(v);
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
        if frontier.is_empty() {
            break;
        }
    }
    // Step 3.
    let mut tools = Vec::new();
    for &a in &actions {
        for (e, v) in tk.out_edges(a) {
            let edge = &tk.graph[e];
            if edge.kind == EdgeKind::Call
                && edge.score >= t
                && is_tool_like(tk, v)
                && !member[v.index()]
            {
                member[v.index()] = true;
                tools.push(v);
            }
        }
    }
    actions.sort();
    tools.sort();
    // Step 4: the induced subgraph, edges below t removed.
    let mut edges = Vec::new();
    for &u in actions.iter().chain(tools.iter()) {
        for (e, v) in tk.out_edges(u) {
            if member[v.index()] && tk.graph[e].score >= t {
                edges.push(e);
            }
        }
    }
    edges.sort();
    Recommendation {
        actions,
        tools,
        edges,
        member,
    }
}

/// Tool filters from tool-manager practice, applied after the recommendation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolFilters {
    /// Forced tool choices, by name. Empty: no forced choice.
    pub chosen: Vec<String>,
}

/// The tools the model would be offered: disabled tools dropped; exclusive tools dropped
/// unless chosen; with chosen tools, only those stay, and a chosen exclusive tool (the first
/// by name) stands alone.
pub fn offered_tools(tk: &Toolkit, rec: &Recommendation, filters: &ToolFilters) -> Vec<NodeIndex> {
    filter_tools(tk, &rec.tools, filters)
}

/// The filters stage of [`offered_tools`] over any set of recommended tools (for callers
/// that know the recommended tools without a [`Recommendation`], such as a sweep).
pub fn filter_tools(tk: &Toolkit, tools: &[NodeIndex], filters: &ToolFilters) -> Vec<NodeIndex> {
    let chosen = |ix: NodeIndex| filters.chosen.iter().any(|c| c == tk.name(ix));
    let mut out: Vec<NodeIndex> = tools
        .iter()
        .copied()
        .filter(|&ix| tk.node(ix).enabled())
        .filter(|&ix| !tk.node(ix).exclusive() || chosen(ix))
        .filter(|&ix| filters.chosen.is_empty() || chosen(ix))
        .collect();
    out.sort_by(|a, b| tk.name(*a).cmp(tk.name(*b)));
    if let Some(solo) = out.iter().copied().find(|&ix| tk.node(ix).exclusive()) {
        out = vec![solo];
    }
    out
}

/// How many functions the model is sent for each of `tools` (tools of `rec`, found at
/// `threshold`), where more than one: Chat2Graph builds an action's tools anew for each
/// place the action has in the `toolkit:` chains and offers every copy
/// ([`Toolkit::copies_sent`]). Empty for other toolkits.
pub fn extra_copies(
    tk: &Toolkit,
    rec: &Recommendation,
    tools: &[NodeIndex],
    threshold: f64,
) -> Vec<(NodeIndex, u32)> {
    if tk.chain_places.is_none() {
        return Vec::new();
    }
    tools
        .iter()
        .map(|&t| (t, tk.copies_sent(t, &rec.actions, threshold)))
        .filter(|(_, n)| *n > 1)
        .collect()
}

/// Why the model is sent recommended tool `t` more than once, or `None`: `sent 2 times:
/// Chat2Graph builds the tools of `A` for each of its 2 places in the toolkit chains`.
pub fn copies_note(
    tk: &Toolkit,
    rec: &Recommendation,
    t: NodeIndex,
    threshold: f64,
) -> Option<String> {
    let places = tk.chain_places.as_ref()?;
    if !rec.contains(t) {
        return None;
    }
    let n = tk.copies_sent(t, &rec.actions, threshold);
    if n < 2 {
        return None;
    }
    let mut why: Vec<String> = tk
        .in_edges(t)
        .filter(|(e, a)| {
            tk.graph[*e].kind == EdgeKind::Call
                && tk.graph[*e].score >= threshold
                && rec.contains(*a)
        })
        .map(
            |(_, a)| match places.get(tk.name(a)).copied().unwrap_or(1) {
                1 => format!("`{}` calls it", tk.name(a)),
                p => format!("`{}` has {p} places in the toolkit chains", tk.name(a)),
            },
        )
        .collect();
    why.sort();
    Some(format!(
        "sent {n} times: Chat2Graph builds an action's tools for each action and each place it has in the toolkit chains, and offers every copy ({})",
        why.join("; ")
    ))
}

/// The number of functions the model is sent for `tools`: one per tool, plus the
/// [`extra_copies`].
pub fn functions_sent(
    tk: &Toolkit,
    rec: &Recommendation,
    tools: &[NodeIndex],
    threshold: f64,
) -> usize {
    let extra: usize = extra_copies(tk, rec, tools, threshold)
        .iter()
        .map(|(_, n)| *n as usize - 1)
        .sum();
    tools.len() + extra
}

#[cfg(test)]
mod tests;

pub mod adjacency;
pub mod critical;
pub mod explain;
pub mod sent;

pub use adjacency::{Adjacency, OutEdges};
pub use critical::{Critical, HopCounts, Insight, Step, Sweep};
pub use explain::{Explanation, FilterNote, PathStep, Reason, explain, explain_with};

#[cfg(test)]
mod insight_tests;
