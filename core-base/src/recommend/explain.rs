//! explain(node): why a node is, or is not, in the recommendation.
//!
//! A recommended node gets a shortest qualifying path from a seed with every score on it.
//! A node left out gets the precise reason: nothing reaches it at any threshold; it is
//! blocked by edges below the threshold (named, with the highest threshold at which it
//! would enter); or at this threshold it needs more hops than allowed. Nothing here changes
//! the recommendation: membership is decided by the same rule `recommend` applies (fewest
//! hops at the threshold `<=` hops), which the property tests check against `recommend`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use super::Params;
use super::adjacency::OutEdges;
use super::critical::{HopCounts, Insight, is_tool_call, passable, seed_actions};
use crate::model::{EdgeKind, NodeKind, Toolkit};

/// One edge of an explanation path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathStep {
    pub edge: EdgeIndex,
    pub from: NodeIndex,
    pub to: NodeIndex,
    pub kind: EdgeKind,
    pub score: f64,
}

/// Why a node is or is not recommended.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// A seed: always recommended.
    Seed,
    /// Recommended; `path` is a shortest qualifying path from a seed (for a tool, ending
    /// with the `Call` edge).
    Recommended { path: Vec<PathStep> },
    /// A group with no `Call` edge: groups enter only as stand-ins for unknown members,
    /// so this one never does (its member tools are recommended on their own).
    GroupNotCalled,
    /// No path from a seed at any threshold and any number of hops.
    Unreachable,
    /// No path from a seed at this threshold, at any number of hops.
    Blocked {
        /// A best path to open up: the shortest among the widest paths within the current
        /// hops, or, when there is none within them, among all widest paths.
        path: Vec<PathStep>,
        /// The edges of `path` below the threshold, lowest score first.
        blocking: Vec<PathStep>,
        /// The highest threshold at which the node enters at the current hops; `None` when
        /// the current hops are too few at every threshold.
        enter_at: Option<f64>,
        /// When `enter_at` is `None`: the highest threshold at which it enters with more
        /// hops, and the hops it then needs.
        with_more_hops: Option<(f64, u32)>,
    },
    /// Reachable at this threshold, but only with `hops` > the current hops.
    NeedsHops {
        hops: u32,
        /// A shortest path at this threshold (`hops` `Next` edges).
        path: Vec<PathStep>,
        /// The highest threshold at which it enters at the current hops, if any.
        enter_at: Option<f64>,
    },
}

/// A note for the filters stage: the tool is recommended but would not be offered as is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterNote {
    /// `enabled: false`: dropped by the filters.
    Disabled,
    /// `exclusive: true`: dropped unless chosen, and alone when chosen.
    Exclusive,
}

impl FilterNote {
    pub fn as_str(self) -> &'static str {
        match self {
            FilterNote::Disabled => "disabled",
            FilterNote::Exclusive => "exclusive",
        }
    }
}

/// The explanation of one node for one seed set and parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub node: NodeIndex,
    pub params: Params,
    pub reason: Reason,
    /// Highest threshold at which the node is recommended at the current hops (`+inf` for
    /// seeds); `None`: at no threshold.
    pub critical: Option<f64>,
    /// Fewest hops the node needs at the current threshold; `None`: no hop count suffices.
    pub fewest_hops: Option<u32>,
    /// Filter-stage notes (tools only).
    pub filters: Vec<FilterNote>,
}

impl Explanation {
    pub fn is_recommended(&self) -> bool {
        matches!(self.reason, Reason::Seed | Reason::Recommended { .. })
    }
}

/// Explains `node` for `seeds` and `params`; `None` when the node is not in the graph.
pub fn explain(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    params: Params,
    node: NodeIndex,
) -> Option<Explanation> {
    let insight = Insight::compute(tk, seeds, params);
    explain_with(tk, tk, seeds, params, &insight, node)
}

/// Like [`explain`], over the out-edges of `g` (`tk` itself, or an
/// [`Adjacency`](super::Adjacency) of it kept until the graph or a score changes), reusing
/// an [`Insight`] computed for the same seeds and parameters (kept until they change).
pub fn explain_with(
    tk: &Toolkit,
    g: &impl OutEdges,
    seeds: &[NodeIndex],
    params: Params,
    insight: &Insight,
    node: NodeIndex,
) -> Option<Explanation> {
    if !tk.graph.contains_node(node) {
        return None;
    }
    let fewest_hops = insight.hops_needed.get(node);
    let reason = reason(tk, g, seeds, params, insight, node);
    let recommended = matches!(reason, Reason::Seed | Reason::Recommended { .. });
    Some(Explanation {
        node,
        params,
        critical: insight.critical.get(node),
        fewest_hops,
        filters: if recommended {
            filter_notes(tk, node)
        } else {
            Vec::new()
        },
        reason,
    })
}

fn reason(
    tk: &Toolkit,
    g: &impl OutEdges,
    seeds: &[NodeIndex],
    params: Params,
    insight: &Insight,
    node: NodeIndex,
) -> Reason {
    if seed_actions(tk, seeds).contains(&node) {
        return Reason::Seed;
    }
    let hc = &insight.hops_needed;
    match hc.get(node) {
        Some(k) if k <= params.hops => Reason::Recommended {
            path: steps(tk, &hc.path(tk, node)),
        },
        Some(k) => Reason::NeedsHops {
            hops: k,
            path: steps(tk, &hc.path(tk, node)),
            enter_at: insight.critical.get(node),
        },
        None => left_out(tk, g, seeds, params, insight, node),
    }
}

/// A node not reachable at the threshold: unreachable, a group nobody calls, or blocked.
fn left_out(
    tk: &Toolkit,
    g: &impl OutEdges,
    seeds: &[NodeIndex],
    params: Params,
    insight: &Insight,
    node: NodeIndex,
) -> Reason {
    if tk.kind(node) == NodeKind::Group
        && !tk.in_edges(node).any(|(e, _)| is_tool_call(tk, e, node))
    {
        return Reason::GroupNotCalled;
    }
    let (width, more_hops) = match insight.critical.get(node) {
        Some(c) => (c, false),
        None => match widest(tk, g, seeds, node) {
            f64::NEG_INFINITY => return Reason::Unreachable,
            w => (w, true),
        },
    };
    let at_width = HopCounts::compute_in(tk, g, seeds, width);
    let with_more_hops = more_hops.then(|| (width, at_width.get(node).unwrap_or(u32::MAX)));
    let path = steps(tk, &at_width.path(tk, node));
    let mut blocking: Vec<PathStep> = path
        .iter()
        .copied()
        .filter(|s| passable(s.score) < params.threshold)
        .collect();
    blocking.sort_by(|a, b| passable(a.score).total_cmp(&passable(b.score)));
    Reason::Blocked {
        path,
        blocking,
        enter_at: with_more_hops.is_none().then_some(width),
        with_more_hops,
    }
}

fn steps(tk: &Toolkit, edges: &[EdgeIndex]) -> Vec<PathStep> {
    edges
        .iter()
        .filter_map(|&e| {
            let (from, to) = tk.graph.edge_endpoints(e)?;
            let edge = &tk.graph[e];
            Some(PathStep {
                edge: e,
                from,
                to,
                kind: edge.kind,
                score: edge.score,
            })
        })
        .collect()
}

fn filter_notes(tk: &Toolkit, node: NodeIndex) -> Vec<FilterNote> {
    let n = tk.node(node);
    if n.kind == NodeKind::Action {
        return Vec::new();
    }
    let mut notes = Vec::new();
    if !n.enabled() {
        notes.push(FilterNote::Disabled);
    }
    if n.exclusive() {
        notes.push(FilterNote::Exclusive);
    }
    notes
}

/// Max-heap entry of the widest-path search.
struct Width(f64, NodeIndex);

impl PartialEq for Width {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Width {}
impl PartialOrd for Width {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Width {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// The best threshold at which `node` is recommended with unlimited hops (`-inf`: never):
/// a widest-path search from the seeds over `Next` edges, then the node's `Call` edge.
fn widest(tk: &Toolkit, g: &impl OutEdges, seeds: &[NodeIndex], node: NodeIndex) -> f64 {
    let mut best = vec![f64::NEG_INFINITY; tk.graph.node_bound().max(g.bound())];
    let mut heap = BinaryHeap::new();
    for s in seed_actions(tk, seeds) {
        best[s.index()] = f64::INFINITY;
        heap.push(Width(f64::INFINITY, s));
    }
    while let Some(Width(w, u)) = heap.pop() {
        if w < best[u.index()] {
            continue;
        }
        g.for_next(u, |v, score, _| {
            let cand = w.min(score);
            if cand > best[v.index()] {
                best[v.index()] = cand;
                heap.push(Width(cand, v));
            }
        });
    }
    if tk.kind(node) == NodeKind::Action {
        return best[node.index()];
    }
    tk.in_edges(node)
        .filter(|&(e, _)| is_tool_call(tk, e, node))
        .map(|(e, a)| best[a.index()].min(passable(tk.graph[e].score)))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// A score or threshold as users write it: at least one decimal (`1.0`, `0.75`).
pub fn num(x: f64) -> String {
    let s = format!("{x}");
    if x.is_finite() && !s.contains('.') && !s.contains('e') {
        s + ".0"
    } else {
        s
    }
}

/// A threshold for people: `+inf` as "always".
fn fmt_threshold(t: f64) -> String {
    if t == f64::INFINITY {
        "always".to_string()
    } else {
        num(t)
    }
}

/// How many blocking edges the text names (the lowest first); JSON lists them all.
const SHOWN_BLOCKING: usize = 5;

/// `1 hop`, `3 hops`.
fn hops_text(n: usize) -> String {
    if n == 1 {
        "1 hop".to_string()
    } else {
        format!("{n} hops")
    }
}

/// A path as `a -[0.9]-> b -[call 0.8]-> T`.
pub fn path_text(tk: &Toolkit, path: &[PathStep]) -> String {
    let Some(first) = path.first() else {
        return String::new();
    };
    let mut s = tk.name(first.from).to_string();
    for step in path {
        let kind = if step.kind == EdgeKind::Next {
            ""
        } else {
            "call "
        };
        s.push_str(&format!(
            " -[{kind}{}]-> {}",
            num(step.score),
            tk.name(step.to)
        ));
    }
    s
}

fn edge_text(tk: &Toolkit, s: &PathStep) -> String {
    format!(
        "{} -> {} ({})",
        tk.name(s.from),
        tk.name(s.to),
        num(s.score)
    )
}

fn next_hops(path: &[PathStep]) -> usize {
    path.iter().filter(|s| s.kind == EdgeKind::Next).count()
}

impl Explanation {
    /// The explanation as lines of plain text (the inspector and `toolscope explain`).
    pub fn lines(&self, tk: &Toolkit) -> Vec<String> {
        let name = tk.name(self.node);
        let kind = tk.kind(self.node).as_str();
        let Params {
            threshold: t,
            hops: h,
        } = self.params;
        let mut out = Vec::new();
        match &self.reason {
            Reason::Seed => out.push(format!("{name} ({kind}) is a seed: always recommended.")),
            Reason::Recommended { path } => {
                out.push(format!("{name} ({kind}) is recommended at threshold {t}, hops {h}."));
                out.push(format!("path ({}): {}", hops_text(next_hops(path)), path_text(tk, path)));
            }
            Reason::GroupNotCalled => out.push(format!(
                "{name} ({kind}) is never recommended: no action calls the group itself, and a group \
                 enters only as a stand-in for unknown member tools; its members are recommended on their own."
            )),
            Reason::Unreachable => out.push(format!(
                "{name} ({kind}) is not recommended: no path from the seeds reaches it at any threshold or hop count."
            )),
            Reason::Blocked { path, blocking, enter_at, with_more_hops } => {
                let mut names: Vec<String> = blocking
                    .iter()
                    .take(SHOWN_BLOCKING)
                    .map(|s| edge_text(tk, s))
                    .collect();
                if blocking.len() > SHOWN_BLOCKING {
                    names.push(format!("{} more", blocking.len() - SHOWN_BLOCKING));
                }
                out.push(format!(
                    "{name} ({kind}) is not recommended: blocked at threshold {t} by {}.",
                    names.join(", ")
                ));
                match (enter_at, with_more_hops) {
                    (Some(c), _) => out.push(format!("it would enter at threshold {} with hops {h}.", num(*c))),
                    (None, Some((c, k))) => out.push(format!(
                        "hops {h} are too few at any threshold; it would enter at threshold {} with hops {k}.",
                        num(*c)
                    )),
                    (None, None) => {}
                }
                out.push(format!("path ({}): {}", hops_text(next_hops(path)), path_text(tk, path)));
            }
            Reason::NeedsHops { hops, path, enter_at } => {
                out.push(format!(
                    "{name} ({kind}) is not recommended: at threshold {t} it needs {} (hops is {h}).",
                    hops_text(*hops as usize)
                ));
                out.push(format!("path ({}): {}", hops_text(*hops as usize), path_text(tk, path)));
                if let Some(c) = enter_at {
                    out.push(format!("with hops {h} it would enter at threshold {}.", num(*c)));
                }
            }
        }
        if let (Some(c), Reason::Recommended { .. }) = (self.critical, &self.reason) {
            out.push(format!(
                "stays recommended up to threshold {} at hops {h}.",
                fmt_threshold(c)
            ));
        }
        for note in &self.filters {
            out.push(match note {
                FilterNote::Disabled => {
                    "filters: disabled, so it is not offered to the model.".to_string()
                }
                FilterNote::Exclusive => {
                    "filters: exclusive, so it is offered only when chosen, and then alone."
                        .to_string()
                }
            });
        }
        out
    }

    /// The explanation as JSON: `node`, `kind`, `threshold`, `hops`, `recommended`,
    /// `reason` (`seed`, `recommended`, `group_not_called`, `unreachable`, `blocked`,
    /// `needs_hops`), `path` and `blocking` (edges `{from, to, kind, score}`), `enter_at`,
    /// `hops_needed`, `critical` (a number, `"always"` for seeds, or null), `filters`, `text`.
    pub fn to_json(&self, tk: &Toolkit) -> serde_json::Value {
        use serde_json::{Value, json};
        let edges = |p: &[PathStep]| -> Value {
            p.iter()
                .map(|s| {
                    json!({"from": tk.name(s.from), "to": tk.name(s.to), "kind": s.kind.as_str(), "score": s.score})
                })
                .collect()
        };
        let (reason, path, blocking, enter_at) = match &self.reason {
            Reason::Seed => ("seed", Value::Array(vec![]), Value::Array(vec![]), None),
            Reason::Recommended { path } => ("recommended", edges(path), json!([]), None),
            Reason::GroupNotCalled => ("group_not_called", json!([]), json!([]), None),
            Reason::Unreachable => ("unreachable", json!([]), json!([]), None),
            Reason::Blocked {
                path,
                blocking,
                enter_at,
                with_more_hops,
            } => (
                "blocked",
                edges(path),
                edges(blocking),
                enter_at.or(with_more_hops.map(|(c, _)| c)),
            ),
            Reason::NeedsHops { path, enter_at, .. } => {
                ("needs_hops", edges(path), json!([]), *enter_at)
            }
        };
        let hops_needed = match &self.reason {
            Reason::Blocked {
                with_more_hops: Some((_, k)),
                ..
            } => Some(*k),
            Reason::Blocked { .. } => None,
            _ => self.fewest_hops,
        };
        let critical = match self.critical {
            Some(c) if c == f64::INFINITY => json!("always"),
            Some(c) => json!(c),
            None => Value::Null,
        };
        json!({
            "node": tk.name(self.node),
            "kind": tk.kind(self.node).as_str(),
            "threshold": self.params.threshold,
            "hops": self.params.hops,
            "recommended": self.is_recommended(),
            "reason": reason,
            "path": path,
            "blocking": blocking,
            "enter_at": enter_at,
            "hops_needed": hops_needed,
            "critical": critical,
            "filters": self.filters.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
            "text": self.lines(tk).join("\n"),
        })
    }
}
