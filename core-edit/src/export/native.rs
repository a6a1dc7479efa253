//! A toolkit written in the native format (`toolscope convert --to native`).

use std::collections::HashMap;
use std::fmt::Write;

use petgraph::stable_graph::NodeIndex;

use crate::model::{EdgeKind, Node, NodeKind, Toolkit};
use crate::source::emit::{block_ok, float, literal_block, string};

/// The toolkit in the native format (what its model holds; see `export::convert` for a
/// conversion that carries what the source files say beyond the model).
pub fn to_native(tk: &Toolkit) -> String {
    to_native_with(tk, &HashMap::new())
}

/// The toolkit in the native format, each group followed by the `mcp_transport_config`
/// block `transports` gives for its name (lines already indented at six spaces).
pub fn to_native_with(tk: &Toolkit, transports: &HashMap<String, String>) -> String {
    let mut out = String::new();
    if let Some(name) = &tk.name {
        let _ = writeln!(out, "name: {}", string(name));
    }
    section(&mut out, tk, NodeKind::Tool, "tools", &tool);
    let group = |out: &mut String, tk: &Toolkit, g| group(out, tk, g, transports);
    section(&mut out, tk, NodeKind::Group, "groups", &group);
    section(&mut out, tk, NodeKind::Action, "actions", &action);
    if !tk.operators.is_empty() {
        out.push_str("operators:\n");
        for op in &tk.operators {
            let _ = writeln!(out, "  - name: {}", string(&op.name));
            let actions: Vec<String> = op.actions.iter().map(|a| string(a)).collect();
            let _ = writeln!(out, "    actions: [{}]", actions.join(", "));
            let _ = writeln!(out, "    threshold: {}", float(op.threshold));
            let _ = writeln!(out, "    hops: {}", op.hops);
        }
    }
    out
}

fn section(
    out: &mut String,
    tk: &Toolkit,
    kind: NodeKind,
    key: &str,
    write: &dyn Fn(&mut String, &Toolkit, NodeIndex),
) {
    let nodes: Vec<NodeIndex> = tk.nodes_of(kind).collect();
    if nodes.is_empty() {
        return;
    }
    let _ = writeln!(out, "{key}:");
    for ix in nodes {
        write(out, tk, ix);
    }
}

fn desc(out: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if block_ok(text) {
        let _ = writeln!(out, "    desc: {}", literal_block(text, 6, "\n"));
    } else {
        let _ = writeln!(out, "    desc: {}", string(text));
    }
}

/// A node's own declaration, without edges or members: a list item at two spaces with its
/// keys at four, as [`to_native`] writes it (used to put back a removed node).
pub fn declaration(node: &Node) -> String {
    let mut out = String::new();
    match node.kind {
        NodeKind::Action => group_props(&mut out, node),
        // Groups are read with the tool properties too.
        NodeKind::Tool | NodeKind::Group => tool_props(&mut out, node),
    }
    out
}

fn tool(out: &mut String, tk: &Toolkit, ix: NodeIndex) {
    tool_props(out, tk.node(ix));
}

fn tool_props(out: &mut String, node: &Node) {
    let _ = writeln!(out, "  - name: {}", string(&node.name));
    desc(out, &node.desc);
    let Some(m) = &node.meta else { return };
    let texts = [
        ("type", &m.ty),
        ("module_path", &m.module_path),
        ("when_to_use", &m.when_to_use),
        ("example", &m.example),
    ];
    for (k, v) in texts {
        if !v.is_empty() {
            let _ = writeln!(out, "    {k}: {}", string(v));
        }
    }
    if let Some(schema) = &m.input_schema {
        // The inputs are read back from the schema. One over the limits every schema
        // reader shares is written fitted to them, so the file loads back (TS010 else).
        let flow = if crate::source::schema::fits(schema) {
            // Integers beyond 64 bits keep their digits from the definitions' text.
            m.input_schema_text
                .as_ref()
                .and_then(|t| crate::source::schema::to_flow_exact(&t.0))
                .unwrap_or_else(|| crate::source::schema::to_flow(schema))
        } else {
            let mut fitted = schema.clone();
            crate::source::schema::fit(&mut fitted);
            crate::source::schema::to_flow(&fitted)
        };
        let _ = writeln!(out, "    input_schema: {flow}");
    } else if !m.inputs.is_empty() {
        out.push_str("    inputs:\n");
        for p in &m.inputs {
            let _ = writeln!(
                out,
                "      - {{name: {}, type: {}, required: {}, desc: {}}}",
                string(&p.name),
                string(&p.ty),
                p.required,
                string(&p.desc)
            );
        }
    }
    if let Some(r) = &m.returns {
        let _ = writeln!(
            out,
            "    returns: {{type: {}, desc: {}}}",
            string(&r.ty),
            string(&r.desc)
        );
    }
    for (k, v, default) in [
        ("enabled", m.enabled, true),
        ("exclusive", m.exclusive, false),
        ("takes_control", m.takes_control, false),
    ] {
        if v != default {
            let _ = writeln!(out, "    {k}: {v}");
        }
    }
}

/// Name, description and (for groups) type: all an action or a group declares of itself.
fn group_props(out: &mut String, node: &Node) {
    let _ = writeln!(out, "  - name: {}", string(&node.name));
    desc(out, &node.desc);
    if let Some(m) = &node.meta
        && !m.ty.is_empty()
    {
        let _ = writeln!(out, "    type: {}", string(&m.ty));
    }
}

/// A group: its tool properties (`enabled`, `exclusive`... as a tool's), its members and
/// its server's transport.
fn group(out: &mut String, tk: &Toolkit, g: NodeIndex, transports: &HashMap<String, String>) {
    tool_props(out, tk.node(g));
    let members: Vec<String> = tk
        .out_edges(g)
        .filter(|(e, _)| tk.graph[*e].kind == EdgeKind::Has)
        .map(|(_, t)| string(tk.name(t)))
        .collect();
    if !members.is_empty() {
        let _ = writeln!(out, "    tools: [{}]", members.join(", "));
    }
    if let Some(block) = transports.get(tk.name(g)) {
        out.push_str("    mcp_transport_config:\n");
        out.push_str(block);
    }
}

fn action(out: &mut String, tk: &Toolkit, a: NodeIndex) {
    group_props(out, tk.node(a));
    for (key, kind) in [("tools", EdgeKind::Call), ("next", EdgeKind::Next)] {
        let mut refs: Vec<(NodeIndex, f64)> = tk
            .out_edges(a)
            .filter(|(e, _)| tk.graph[*e].kind == kind)
            .map(|(e, v)| (v, tk.graph[e].score))
            .collect();
        if refs.is_empty() {
            continue;
        }
        refs.sort_by_key(|(v, _)| v.index());
        let _ = writeln!(out, "    {key}:");
        for (v, score) in refs {
            if score == 1.0 {
                let _ = writeln!(out, "      - {}", string(tk.name(v)));
            } else {
                let _ = writeln!(
                    out,
                    "      - {{name: {}, score: {}}}",
                    string(tk.name(v)),
                    float(score)
                );
            }
        }
    }
}
