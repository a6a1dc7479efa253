//! Mermaid flowchart: actions as rounded nodes, tools as rectangles, groups as subroutines;
//! recommended nodes and edges styled with classes and thick arrows.

use std::collections::HashMap;
use std::fmt::Write;

use petgraph::stable_graph::NodeIndex;

use super::{Highlight, sorted};
use crate::model::{NodeKind, Toolkit};

/// Escapes a label for a Mermaid double-quoted string.
fn label(s: &str) -> String {
    // Controls and bidi overrides are marked visibly (`^[`, `\u{202e}`), never passed on.
    s.chars()
        .map(|c| match c {
            c if crate::text::unsafe_char(c) => crate::text::visible(c),
            '"' => "#quot;".to_string(),
            '<' => "#lt;".to_string(),
            '>' => "#gt;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

pub fn to_mermaid(tk: &Toolkit, hl: Option<&Highlight<'_>>) -> String {
    let (nodes, edges) = sorted(tk);
    let ids: HashMap<NodeIndex, String> = nodes
        .iter()
        .enumerate()
        .map(|(i, ix)| (*ix, format!("n{i}")))
        .collect();
    let mut out = String::from("flowchart LR\n");
    for ix in &nodes {
        let name = label(tk.name(*ix));
        let id = &ids[ix];
        let shape = match tk.kind(*ix) {
            NodeKind::Action => format!("{id}(\"{name}\")"),
            NodeKind::Tool => format!("{id}[\"{name}\"]"),
            NodeKind::Group => format!("{id}[[\"{name}\"]]"),
        };
        let _ = writeln!(out, "  {shape}");
    }
    let mut recommended_links = Vec::new();
    for (i, e) in edges.iter().enumerate() {
        let Some((u, v)) = tk.graph.edge_endpoints(*e) else {
            continue;
        };
        let score = tk.graph[*e].score;
        let on = hl.is_some_and(|h| h.edge(tk, *e));
        let arrow = if on {
            "==>"
        } else if hl.is_some_and(|h| score < h.threshold) {
            "-.->"
        } else {
            "-->"
        };
        if on {
            recommended_links.push(i);
        }
        let _ = writeln!(out, "  {} {arrow}|{score}| {}", ids[&u], ids[&v]);
    }
    if let Some(h) = hl {
        out.push_str("  classDef seed fill:#ffd966,stroke:#7f6000,stroke-width:3px\n");
        out.push_str("  classDef rec fill:#b6d7a8,stroke:#274e13,stroke-width:2px\n");
        out.push_str("  classDef out fill:#eeeeee,stroke:#999999,color:#777777\n");
        for ix in &nodes {
            let class = if h.seed(*ix) {
                "seed"
            } else if h.node(*ix) {
                "rec"
            } else {
                "out"
            };
            let _ = writeln!(out, "  class {} {class}", ids[ix]);
        }
    }
    out
}
