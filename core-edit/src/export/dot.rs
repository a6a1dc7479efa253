//! Graphviz dot: actions as rounded boxes, tools as boxes, groups as folders; the
//! recommendation (when given) bold and filled, edges below the threshold dashed and grey.

use crate::text::{unsafe_char, visible};
use std::fmt::Write;

use super::{Highlight, sorted};
use crate::model::{EdgeKind, NodeKind, Toolkit};

/// Escapes a string for a double-quoted dot ID.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            // Other controls and bidi overrides are marked, not dropped or passed through:
            // `\u{202e}` is written as the visible text `\u{202e}`.
            c if unsafe_char(c) => out.push_str(&visible(c).replace('\\', "\\\\")),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub fn to_dot(tk: &Toolkit, hl: Option<&Highlight<'_>>) -> String {
    let (nodes, edges) = sorted(tk);
    let mut out =
        String::from("digraph toolkit {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n");
    for ix in nodes {
        let node = tk.node(ix);
        let shape = match node.kind {
            NodeKind::Action | NodeKind::Tool => "box",
            NodeKind::Group => "folder",
        };
        // One `style` attribute per node: Graphviz keeps only the last of several.
        let mut style: Vec<&str> = Vec::new();
        if node.kind == NodeKind::Action {
            style.push("rounded");
        }
        let mut extra = "";
        if let Some(h) = hl {
            if h.seed(ix) {
                style.extend(["filled", "bold"]);
                extra = ", penwidth=3, fillcolor=\"#ffd966\"";
            } else if h.node(ix) {
                style.extend(["filled", "bold"]);
                extra = ", fillcolor=\"#b6d7a8\"";
            } else {
                extra = ", color=grey60, fontcolor=grey50";
            }
        }
        let mut attrs = format!("shape={shape}");
        match style.as_slice() {
            [] => {}
            [one] => attrs += &format!(", style={one}"),
            many => attrs += &format!(", style=\"{}\"", many.join(",")),
        }
        attrs += extra;
        let _ = writeln!(out, "  {} [{attrs}];", quote(&id(tk, ix)));
    }
    for e in edges {
        let Some((u, v)) = tk.graph.edge_endpoints(e) else {
            continue;
        };
        let edge = &tk.graph[e];
        let mut attrs = format!("label={}", quote(&format!("{}", edge.score)));
        if edge.kind == EdgeKind::Has {
            attrs += ", arrowhead=odiamond";
        }
        if let Some(h) = hl {
            if h.edge(tk, e) {
                attrs += ", penwidth=2.5";
            } else if edge.score < h.threshold {
                attrs += ", style=dashed, color=grey60";
            }
        }
        let _ = writeln!(
            out,
            "  {} -> {} [{attrs}];",
            quote(&id(tk, u)),
            quote(&id(tk, v))
        );
    }
    out.push_str("}\n");
    out
}

/// A node's dot ID: its name, prefixed by its kind when another kind uses the name too.
fn id(tk: &Toolkit, ix: petgraph::stable_graph::NodeIndex) -> String {
    let name = tk.name(ix);
    if tk.kinds_of(name) > 1 {
        format!("{}:{name}", tk.kind(ix).as_str())
    } else {
        name.to_string()
    }
}
