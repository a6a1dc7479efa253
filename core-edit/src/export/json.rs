//! The JSON shapes of SPEC 5 (`recommend --format json`, `export --to json`).

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use serde::Serialize;
use serde_json::{Value, json};

use crate::model::{NodeKind, Toolkit};
use crate::recommend::Recommendation;

/// One edge as JSON shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EdgeRow {
    pub from: String,
    pub to: String,
    pub kind: &'static str,
    pub score: f64,
}

/// Edges as rows sorted by (from, to).
pub fn edge_rows(tk: &Toolkit, edges: &[EdgeIndex]) -> Vec<EdgeRow> {
    let mut rows: Vec<EdgeRow> = edges
        .iter()
        .filter_map(|e| {
            let (u, v) = tk.graph.edge_endpoints(*e)?;
            let edge = &tk.graph[*e];
            Some(EdgeRow {
                from: tk.name(u).to_string(),
                to: tk.name(v).to_string(),
                kind: edge.kind.as_str(),
                score: edge.score,
            })
        })
        .collect();
    rows.sort_by(|a, b| (&a.from, &a.to).cmp(&(&b.from, &b.to)));
    rows
}

fn sorted_names(tk: &Toolkit, ixs: &[NodeIndex]) -> Vec<String> {
    let mut v: Vec<String> = ixs.iter().map(|ix| tk.name(*ix).to_string()).collect();
    v.sort();
    v
}

/// `{"actions", "tools", "edges"}` plus `"offered_tools"` when filters are active.
pub fn recommendation_json(
    tk: &Toolkit,
    rec: &Recommendation,
    _threshold: f64,
    offered: Option<&[NodeIndex]>,
) -> Value {
    let mut out = json!({
        "actions": sorted_names(tk, &rec.actions),
        "tools": sorted_names(tk, &rec.tools),
        "edges": edge_rows(tk, &rec.edges),
    });
    if let (Some(off), Some(map)) = (offered, out.as_object_mut()) {
        map.insert("offered_tools".into(), json!(sorted_names(tk, off)));
    }
    out
}

/// The whole graph: actions, tools, groups, edges and operators, each sorted.
pub fn toolkit_json(tk: &Toolkit) -> Value {
    let line = |ix: NodeIndex| tk.node(ix).origin.map_or(0, |o| o.line);
    let file = |ix: NodeIndex| tk.file_name(tk.node(ix).origin);
    let by_name = |kind: NodeKind| {
        let mut v: Vec<NodeIndex> = tk.nodes_of(kind).collect();
        v.sort_by(|a, b| tk.name(*a).cmp(tk.name(*b)));
        v
    };
    let actions: Vec<Value> = by_name(NodeKind::Action)
        .into_iter()
        .map(|ix| json!({"name": tk.name(ix), "desc": tk.node(ix).desc, "file": file(ix), "line": line(ix)}))
        .collect();
    let tools: Vec<Value> = by_name(NodeKind::Tool)
        .into_iter()
        .map(|ix| {
            let meta = tk.node(ix).meta.as_ref();
            let ty = meta.map_or("", |m| m.ty.as_str());
            let mut v = json!({"name": tk.name(ix), "desc": tk.node(ix).desc, "type": ty, "file": file(ix), "line": line(ix)});
            // Chat2Graph's tools name the module their class is imported from.
            if let (Some(m), Some(map)) = (meta.filter(|m| !m.module_path.is_empty()), v.as_object_mut()) {
                map.insert("module_path".into(), json!(m.module_path));
            }
            v
        })
        .collect();
    let groups: Vec<Value> = by_name(NodeKind::Group)
        .into_iter()
        .map(|g| {
            let mut members: Vec<String> = tk
                .out_edges(g)
                .filter(|(e, _)| tk.graph[*e].kind == crate::model::EdgeKind::Has)
                .map(|(_, t)| tk.name(t).to_string())
                .collect();
            members.sort();
            json!({"name": tk.name(g), "tools": members})
        })
        .collect();
    let edges: Vec<EdgeIndex> = tk.graph.edge_indices().collect();
    let mut ops: Vec<&crate::model::Operator> = tk.operators.iter().collect();
    ops.sort_by(|a, b| a.name.cmp(&b.name));
    let operators: Vec<Value> = ops
        .into_iter()
        .map(|o| json!({"name": o.name, "actions": o.actions, "threshold": o.threshold, "hops": o.hops}))
        .collect();
    json!({
        "actions": actions,
        "tools": tools,
        "groups": groups,
        "edges": edge_rows(tk, &edges),
        "operators": operators,
    })
}
