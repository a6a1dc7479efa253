//! Diffs: the structural diff of two toolkits, and the recommendation diff against a pinned
//! baseline.
//!
//! Nodes are matched by kind and name and edges by their endpoints, never by index, so the
//! two sides may be different toolkits (two files, or the same file before and after a
//! reload). A [`Baseline`] owns its names, so it survives reloads and edits.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use serde_json::{Value, json};

use crate::model::{EdgeKind, NodeKind, Operator, ToolMeta, Toolkit};
use crate::recommend::explain::num;
use crate::recommend::{Params, Recommendation};

/// A node by kind and name, valid across toolkits. Orders by name, then kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeKey {
    pub name: String,
    pub kind: NodeKind,
}

impl NodeKey {
    pub fn of(tk: &Toolkit, ix: NodeIndex) -> NodeKey {
        NodeKey {
            name: tk.name(ix).to_string(),
            kind: tk.kind(ix),
        }
    }

    /// The node in `tk`, if it has one of this kind and name.
    pub fn find(&self, tk: &Toolkit) -> Option<NodeIndex> {
        tk.find(self.kind, &self.name)
    }

    fn to_json(&self) -> Value {
        json!({"kind": self.kind.as_str(), "name": self.name})
    }

    fn text(&self) -> String {
        format!("{} {}", self.kind.as_str(), self.name)
    }
}

/// An edge by its endpoints, valid across toolkits. Orders by source, then target.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EdgeKey {
    pub from: NodeKey,
    pub to: NodeKey,
    pub kind: EdgeKind,
}

impl EdgeKey {
    pub fn of(tk: &Toolkit, e: EdgeIndex) -> Option<EdgeKey> {
        let (u, v) = tk.graph.edge_endpoints(e)?;
        Some(EdgeKey {
            from: NodeKey::of(tk, u),
            to: NodeKey::of(tk, v),
            kind: tk.graph[e].kind,
        })
    }

    /// The edge in `tk`, if both ends exist and are joined.
    pub fn find(&self, tk: &Toolkit) -> Option<EdgeIndex> {
        tk.edge(self.from.find(tk)?, self.to.find(tk)?)
    }

    fn to_json(&self) -> Value {
        json!({"from": self.from.name, "to": self.to.name, "kind": self.kind.as_str()})
    }

    fn text(&self) -> String {
        format!(
            "{} -> {} ({})",
            self.from.name,
            self.to.name,
            self.kind.as_str()
        )
    }
}

/// An edge present on one side only, with its score there.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredEdge {
    pub edge: EdgeKey,
    pub score: f64,
}

/// An edge on both sides whose score differs.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreChange {
    pub edge: EdgeKey,
    pub old: f64,
    pub new: f64,
}

/// A node on both sides whose description differs.
#[derive(Debug, Clone, PartialEq)]
pub struct DescChange {
    pub node: NodeKey,
    pub old: String,
    pub new: String,
}

/// A tool or group on both sides whose properties differ, with the names of the fields.
#[derive(Debug, Clone, PartialEq)]
pub struct PropsChange {
    pub node: NodeKey,
    pub fields: Vec<&'static str>,
}

/// An operator added (`old` is `None`), removed (`new` is `None`) or changed.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorChange {
    pub name: String,
    pub old: Option<Operator>,
    pub new: Option<Operator>,
}

/// What differs between two toolkits.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StructuralDiff {
    pub nodes_added: Vec<NodeKey>,
    pub nodes_removed: Vec<NodeKey>,
    pub edges_added: Vec<ScoredEdge>,
    pub edges_removed: Vec<ScoredEdge>,
    pub scores_changed: Vec<ScoreChange>,
    pub descriptions_changed: Vec<DescChange>,
    pub properties_changed: Vec<PropsChange>,
    /// Sorted by name.
    pub operators: Vec<OperatorChange>,
}

/// Scores compare by value, and two NaNs are the same (unchanged) score.
fn same_score(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn node_map(tk: &Toolkit) -> BTreeMap<NodeKey, NodeIndex> {
    tk.graph
        .node_indices()
        .map(|ix| (NodeKey::of(tk, ix), ix))
        .collect()
}

fn edge_map(tk: &Toolkit) -> BTreeMap<EdgeKey, f64> {
    tk.graph
        .edge_indices()
        .filter_map(|e| Some((EdgeKey::of(tk, e)?, tk.graph[e].score)))
        .collect()
}

/// The structural diff from `old` to `new`.
pub fn structural_diff(old: &Toolkit, new: &Toolkit) -> StructuralDiff {
    let mut d = StructuralDiff::default();
    diff_nodes(old, new, &mut d);
    diff_edges(old, new, &mut d);
    d.operators = diff_operators(old, new);
    d
}

fn diff_nodes(old: &Toolkit, new: &Toolkit, d: &mut StructuralDiff) {
    let (a, b) = (node_map(old), node_map(new));
    d.nodes_removed = a.keys().filter(|k| !b.contains_key(*k)).cloned().collect();
    d.nodes_added = b.keys().filter(|k| !a.contains_key(*k)).cloned().collect();
    for (key, &i) in &a {
        let Some(&j) = b.get(key) else { continue };
        let (n, m) = (old.node(i), new.node(j));
        if n.desc != m.desc {
            d.descriptions_changed.push(DescChange {
                node: key.clone(),
                old: n.desc.clone(),
                new: m.desc.clone(),
            });
        }
        let fields = meta_fields(n.meta.as_deref(), m.meta.as_deref());
        if !fields.is_empty() {
            d.properties_changed.push(PropsChange {
                node: key.clone(),
                fields,
            });
        }
    }
}

/// Names of the tool properties that differ.
fn meta_fields(a: Option<&ToolMeta>, b: Option<&ToolMeta>) -> Vec<&'static str> {
    let default = ToolMeta::default();
    let (a, b) = match (a, b) {
        (None, None) => return Vec::new(),
        (a, b) => (a.unwrap_or(&default), b.unwrap_or(&default)),
    };
    let checks: [(&'static str, bool); 10] = [
        ("type", a.ty != b.ty),
        ("module_path", a.module_path != b.module_path),
        ("when_to_use", a.when_to_use != b.when_to_use),
        ("inputs", a.inputs != b.inputs),
        ("returns", a.returns != b.returns),
        ("example", a.example != b.example),
        ("enabled", a.enabled != b.enabled),
        ("exclusive", a.exclusive != b.exclusive),
        ("takes_control", a.takes_control != b.takes_control),
        ("input_schema", a.input_schema != b.input_schema),
    ];
    checks.iter().filter(|c| c.1).map(|c| c.0).collect()
}

fn diff_edges(old: &Toolkit, new: &Toolkit, d: &mut StructuralDiff) {
    let (a, b) = (edge_map(old), edge_map(new));
    for (key, &s) in &a {
        match b.get(key) {
            None => d.edges_removed.push(ScoredEdge {
                edge: key.clone(),
                score: s,
            }),
            Some(&t) if !same_score(s, t) => d.scores_changed.push(ScoreChange {
                edge: key.clone(),
                old: s,
                new: t,
            }),
            Some(_) => {}
        }
    }
    for (key, &s) in &b {
        if !a.contains_key(key) {
            d.edges_added.push(ScoredEdge {
                edge: key.clone(),
                score: s,
            });
        }
    }
}

fn same_operator(a: &Operator, b: &Operator) -> bool {
    a.actions == b.actions && same_score(a.threshold, b.threshold) && a.hops == b.hops
}

fn diff_operators(old: &Toolkit, new: &Toolkit) -> Vec<OperatorChange> {
    let by_name = |tk: &Toolkit| -> BTreeMap<String, Operator> {
        tk.operators
            .iter()
            .map(|o| (o.name.clone(), o.clone()))
            .collect()
    };
    let (a, b) = (by_name(old), by_name(new));
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter_map(|name| {
            let (o, n) = (a.get(name), b.get(name));
            if let (Some(o), Some(n)) = (o, n)
                && same_operator(o, n)
            {
                return None;
            }
            Some(OperatorChange {
                name: name.clone(),
                old: o.cloned(),
                new: n.cloned(),
            })
        })
        .collect()
}

fn operator_json(o: &Operator) -> Value {
    json!({"name": o.name, "actions": o.actions, "threshold": o.threshold, "hops": o.hops})
}

fn operator_text(o: &Operator) -> String {
    format!(
        "[{}] threshold {} hops {}",
        o.actions.join(", "),
        num(o.threshold),
        o.hops
    )
}

impl StructuralDiff {
    pub fn is_empty(&self) -> bool {
        *self == StructuralDiff::default()
    }

    /// `{"nodes": {"added", "removed"}, "edges": {"added", "removed", "changed"},
    /// "descriptions": [...], "properties": [...], "operators": {"added", "removed",
    /// "changed"}}`, every list sorted.
    pub fn to_json(&self) -> Value {
        let nodes = |v: &[NodeKey]| -> Vec<Value> { v.iter().map(NodeKey::to_json).collect() };
        let scored = |v: &[ScoredEdge]| -> Vec<Value> {
            v.iter()
                .map(|s| with(s.edge.to_json(), "score", json!(s.score)))
                .collect()
        };
        let changed: Vec<Value> = self
            .scores_changed
            .iter()
            .map(|c| {
                with(
                    with(c.edge.to_json(), "old", json!(c.old)),
                    "new",
                    json!(c.new),
                )
            })
            .collect();
        let descs: Vec<Value> = self
            .descriptions_changed
            .iter()
            .map(|c| {
                with(
                    with(c.node.to_json(), "old", json!(c.old)),
                    "new",
                    json!(c.new),
                )
            })
            .collect();
        let props: Vec<Value> = self
            .properties_changed
            .iter()
            .map(|c| with(c.node.to_json(), "fields", json!(c.fields)))
            .collect();
        json!({
            "nodes": {"added": nodes(&self.nodes_added), "removed": nodes(&self.nodes_removed)},
            "edges": {
                "added": scored(&self.edges_added),
                "removed": scored(&self.edges_removed),
                "changed": changed,
            },
            "descriptions": descs,
            "properties": props,
            "operators": self.operators_json(),
        })
    }

    fn operators_json(&self) -> Value {
        let (mut added, mut removed, mut changed) = (vec![], vec![], vec![]);
        for c in &self.operators {
            match (&c.old, &c.new) {
                (None, Some(n)) => added.push(operator_json(n)),
                (Some(o), None) => removed.push(operator_json(o)),
                (Some(o), Some(n)) => changed.push(json!({
                    "name": c.name, "old": operator_json(o), "new": operator_json(n)
                })),
                (None, None) => {}
            }
        }
        json!({"added": added, "removed": removed, "changed": changed})
    }

    /// One line per change: `+` added, `-` removed, `~` changed.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        out.extend(self.nodes_added.iter().map(|k| format!("+ {}", k.text())));
        out.extend(self.nodes_removed.iter().map(|k| format!("- {}", k.text())));
        out.extend(
            self.edges_added
                .iter()
                .map(|s| format!("+ edge {} score {}", s.edge.text(), num(s.score))),
        );
        out.extend(
            self.edges_removed
                .iter()
                .map(|s| format!("- edge {} score {}", s.edge.text(), num(s.score))),
        );
        out.extend(self.scores_changed.iter().map(|c| {
            format!(
                "~ score {}: {} -> {}",
                c.edge.text(),
                num(c.old),
                num(c.new)
            )
        }));
        out.extend(
            self.descriptions_changed
                .iter()
                .map(|c| format!("~ description of {}", c.node.text())),
        );
        out.extend(
            self.properties_changed
                .iter()
                .map(|c| format!("~ properties of {}: {}", c.node.text(), c.fields.join(", "))),
        );
        for c in &self.operators {
            out.push(match (&c.old, &c.new) {
                (None, Some(n)) => format!("+ operator {} {}", c.name, operator_text(n)),
                (Some(o), None) => format!("- operator {} {}", c.name, operator_text(o)),
                (Some(o), Some(n)) => format!(
                    "~ operator {}: {} -> {}",
                    c.name,
                    operator_text(o),
                    operator_text(n)
                ),
                (None, None) => continue,
            });
        }
        out
    }
}

fn with(mut v: Value, key: &str, x: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.insert(key.to_string(), x);
    }
    v
}

/// A pinned recommendation, by names: compare later results against it.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    pub params: Params,
    pub nodes: BTreeSet<NodeKey>,
    pub edges: BTreeSet<EdgeKey>,
    /// Recommended (actions, tools).
    pub counts: (usize, usize),
}

impl Baseline {
    /// Pins `rec`, computed on `tk` with `params`.
    pub fn pin(tk: &Toolkit, rec: &Recommendation, params: Params) -> Baseline {
        Baseline {
            params,
            nodes: rec_nodes(tk, rec),
            edges: rec
                .edges
                .iter()
                .filter_map(|&e| EdgeKey::of(tk, e))
                .collect(),
            counts: (rec.actions.len(), rec.tools.len()),
        }
    }

    /// What entered and left between the baseline and `rec` (on `tk`, with `params`).
    pub fn compare(&self, tk: &Toolkit, rec: &Recommendation, params: Params) -> RecDiff {
        let now = Baseline::pin(tk, rec, params);
        RecDiff {
            entered: now.nodes.difference(&self.nodes).cloned().collect(),
            left: self.nodes.difference(&now.nodes).cloned().collect(),
            edges_entered: now.edges.difference(&self.edges).cloned().collect(),
            edges_left: self.edges.difference(&now.edges).cloned().collect(),
            before: (self.params, self.counts),
            after: (params, now.counts),
        }
    }
}

fn rec_nodes(tk: &Toolkit, rec: &Recommendation) -> BTreeSet<NodeKey> {
    rec.actions
        .iter()
        .chain(rec.tools.iter())
        .map(|&ix| NodeKey::of(tk, ix))
        .collect()
}

/// Nodes and edges that entered or left the recommendation.
#[derive(Debug, Clone, PartialEq)]
pub struct RecDiff {
    pub entered: Vec<NodeKey>,
    pub left: Vec<NodeKey>,
    pub edges_entered: Vec<EdgeKey>,
    pub edges_left: Vec<EdgeKey>,
    /// Parameters and (actions, tools) counts of the baseline.
    pub before: (Params, (usize, usize)),
    /// Parameters and counts now.
    pub after: (Params, (usize, usize)),
}

/// The recommendation diff of two recommendations, possibly on different toolkits.
pub fn recommendation_diff(
    old: (&Toolkit, &Recommendation, Params),
    new: (&Toolkit, &Recommendation, Params),
) -> RecDiff {
    Baseline::pin(old.0, old.1, old.2).compare(new.0, new.1, new.2)
}

fn side_json((p, (a, t)): (Params, (usize, usize))) -> Value {
    json!({"threshold": p.threshold, "hops": p.hops, "actions": a, "tools": t})
}

impl RecDiff {
    pub fn is_empty(&self) -> bool {
        self.entered.is_empty()
            && self.left.is_empty()
            && self.edges_entered.is_empty()
            && self.edges_left.is_empty()
    }

    /// Entered nodes as indices of `tk` (the toolkit of the newer side), for highlighting.
    pub fn entered_in(&self, tk: &Toolkit) -> Vec<NodeIndex> {
        self.entered.iter().filter_map(|k| k.find(tk)).collect()
    }

    /// Left nodes that still exist in `tk` (they may have been removed).
    pub fn left_in(&self, tk: &Toolkit) -> Vec<NodeIndex> {
        self.left.iter().filter_map(|k| k.find(tk)).collect()
    }

    pub fn edges_entered_in(&self, tk: &Toolkit) -> Vec<EdgeIndex> {
        self.edges_entered
            .iter()
            .filter_map(|k| k.find(tk))
            .collect()
    }

    pub fn edges_left_in(&self, tk: &Toolkit) -> Vec<EdgeIndex> {
        self.edges_left.iter().filter_map(|k| k.find(tk)).collect()
    }

    /// `{"before": {threshold, hops, actions, tools}, "after": {...}, "entered": {"nodes",
    /// "edges"}, "left": {"nodes", "edges"}}`.
    pub fn to_json(&self) -> Value {
        let nodes = |v: &[NodeKey]| -> Vec<Value> { v.iter().map(NodeKey::to_json).collect() };
        let edges = |v: &[EdgeKey]| -> Vec<Value> { v.iter().map(EdgeKey::to_json).collect() };
        json!({
            "before": side_json(self.before),
            "after": side_json(self.after),
            "entered": {"nodes": nodes(&self.entered), "edges": edges(&self.edges_entered)},
            "left": {"nodes": nodes(&self.left), "edges": edges(&self.edges_left)},
        })
    }

    /// A summary line, then `+`/`-` lines for nodes and edges.
    pub fn lines(&self) -> Vec<String> {
        let side = |(p, (a, t)): (Params, (usize, usize))| {
            format!(
                "{a} actions, {t} tools at threshold {} hops {}",
                p.threshold, p.hops
            )
        };
        let mut out = vec![format!(
            "recommendation: {} -> {}",
            side(self.before),
            side(self.after)
        )];
        out.extend(self.entered.iter().map(|k| format!("+ {}", k.text())));
        out.extend(self.left.iter().map(|k| format!("- {}", k.text())));
        out.extend(
            self.edges_entered
                .iter()
                .map(|k| format!("+ edge {}", k.text())),
        );
        out.extend(
            self.edges_left
                .iter()
                .map(|k| format!("- edge {}", k.text())),
        );
        out
    }
}

#[cfg(test)]
mod tests;
