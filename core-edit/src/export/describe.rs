//! Tool descriptions for a prompt: what the model would be offered.
//!
//! Three styles: `markdown` (a heading per tool with its description, when to use it, its
//! inputs and what it returns), `short` (`name: description` lines) and `json` (OpenAI-style
//! function-calling schemas built from the declared inputs). Tools come out sorted by name.

use crate::text::sanitize;
use petgraph::stable_graph::NodeIndex;
use serde_json::{Map, Value, json};

use crate::model::{NodeKind, ToolInput, Toolkit};
use crate::recommend::{Params, ToolFilters, offered_tools, recommend};

/// How to write the descriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Markdown,
    Short,
    Json,
}

/// The tools to describe: with seeds, the recommended tools after the filters stage;
/// without, every tool and every member-less group (an MCP server whose tools are unknown
/// offline), unfiltered. Sorted by name.
pub fn tools_to_describe(
    tk: &Toolkit,
    seeds: Option<(&[NodeIndex], Params)>,
    filters: &ToolFilters,
) -> Vec<NodeIndex> {
    let mut tools = match seeds {
        Some((seeds, params)) => offered_tools(tk, &recommend(tk, seeds, params), filters),
        None => tk
            .graph
            .node_indices()
            .filter(|&ix| match tk.kind(ix) {
                NodeKind::Tool => true,
                NodeKind::Group => tk.out_edges(ix).next().is_none(),
                NodeKind::Action => false,
            })
            .collect(),
    };
    tools.sort_by(|a, b| (tk.name(*a), tk.kind(*a)).cmp(&(tk.name(*b), tk.kind(*b))));
    tools
}

/// The descriptions of `tools` in one style, as text (JSON pretty-printed).
pub fn describe(tk: &Toolkit, tools: &[NodeIndex], style: Style) -> String {
    match style {
        Style::Markdown => markdown(tk, tools),
        Style::Short => short(tk, tools),
        Style::Json => {
            let mut s = serde_json::to_string_pretty(&schemas(tk, tools)).unwrap_or_default();
            s.push('\n');
            s
        }
    }
}

/// Whitespace (newlines included) collapsed to single spaces.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `name: description` lines.
pub fn short(tk: &Toolkit, tools: &[NodeIndex]) -> String {
    tools
        .iter()
        .map(|&ix| {
            let desc = one_line(&tk.node(ix).desc);
            if desc.is_empty() {
                format!("{}\n", sanitize(tk.name(ix)))
            } else {
                format!("{}: {desc}\n", sanitize(tk.name(ix)))
            }
        })
        .collect()
}

/// Markdown: per tool a heading, description, when to use, inputs and returns.
pub fn markdown(tk: &Toolkit, tools: &[NodeIndex]) -> String {
    let sections: Vec<String> = tools.iter().map(|&ix| tool_markdown(tk, ix)).collect();
    if sections.is_empty() {
        return "_No tools._\n".to_string();
    }
    sections.join("\n")
}

fn tool_markdown(tk: &Toolkit, ix: NodeIndex) -> String {
    let node = tk.node(ix);
    // Names and one-line fields are escaped whole (a line break in a name would forge a
    // heading); the description keeps its lines.
    let mut out = format!("## {}\n\n", sanitize(&node.name));
    let desc = node.desc.trim();
    out += if desc.is_empty() {
        "_No description._"
    } else {
        desc
    };
    out += "\n";
    let Some(meta) = node.meta.as_deref() else {
        return out;
    };
    if !meta.when_to_use.trim().is_empty() {
        out += &format!("\n**When to use:** {}\n", one_line(&meta.when_to_use));
    }
    if !meta.inputs.is_empty() {
        out += "\n**Inputs:**\n\n";
        for p in &meta.inputs {
            out += &input_markdown(p);
        }
    }
    if let Some(r) = &meta.returns {
        let ty = if r.ty.is_empty() {
            String::new()
        } else {
            format!("`{}`", sanitize(&r.ty))
        };
        let sep = if ty.is_empty() || r.desc.is_empty() {
            ""
        } else {
            ": "
        };
        out += &format!("\n**Returns:** {ty}{sep}{}\n", one_line(&r.desc));
    }
    out
}

fn input_markdown(p: &ToolInput) -> String {
    let need = if p.required { "required" } else { "optional" };
    let ty = if p.ty.is_empty() {
        String::new()
    } else {
        format!("{}, ", sanitize(&p.ty))
    };
    let desc = one_line(&p.desc);
    let sep = if desc.is_empty() { "" } else { ": " };
    format!("- `{}` ({ty}{need}){sep}{desc}\n", sanitize(&p.name))
}

/// A declared input type as a JSON Schema type; `None` for types it has no name for (the
/// property then accepts any value).
fn schema_type(ty: &str) -> Option<&'static str> {
    match ty.trim().to_ascii_lowercase().as_str() {
        "string" | "str" | "text" => Some("string"),
        "integer" | "int" => Some("integer"),
        "number" | "float" | "double" => Some("number"),
        "boolean" | "bool" => Some("boolean"),
        "array" | "list" => Some("array"),
        "object" | "dict" | "map" => Some("object"),
        _ => None,
    }
}

/// Function-calling schemas: `[{"type": "function", "function": {"name", "description",
/// "parameters": {"type": "object", "properties", "required"}}}]`. The description is the
/// tool's description followed by its "when to use" note.
pub fn schemas(tk: &Toolkit, tools: &[NodeIndex]) -> Value {
    Value::Array(tools.iter().map(|&ix| schema(tk, ix)).collect())
}

fn schema(tk: &Toolkit, ix: NodeIndex) -> Value {
    let node = tk.node(ix);
    let mut description = one_line(&node.desc);
    let mut properties = Map::new();
    let mut required = Vec::new();
    if let Some(meta) = node.meta.as_deref() {
        let when = one_line(&meta.when_to_use);
        if !when.is_empty() {
            if !description.is_empty() {
                description.push(' ');
            }
            description += &format!("When to use: {when}");
        }
        for p in &meta.inputs {
            let mut prop = Map::new();
            if let Some(t) = schema_type(&p.ty) {
                prop.insert("type".into(), json!(t));
            }
            if !p.desc.trim().is_empty() {
                prop.insert("description".into(), json!(one_line(&p.desc)));
            }
            properties.insert(p.name.clone(), Value::Object(prop));
            if p.required {
                required.push(json!(p.name));
            }
        }
    }
    // A tool an MCP server listed carries its own JSON Schema: print it as the server sent it.
    let parameters = match node.meta.as_deref().and_then(|m| m.input_schema.clone()) {
        Some(schema) => schema,
        None => json!({"type": "object", "properties": properties, "required": required}),
    };
    json!({
        "type": "function",
        "function": {
            "name": node.name,
            "description": description,
            "parameters": parameters,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, Returns, ToolMeta};

    fn tk() -> Toolkit {
        let mut tk = Toolkit::new();
        tk.add_action(Node::new(NodeKind::Action, "a"), &[], &[]);
        let mut t = Node::new(NodeKind::Tool, "Search").with_desc("Finds\n  pages.");
        t.meta = Some(Box::new(ToolMeta {
            when_to_use: "When unsure.".into(),
            inputs: vec![
                ToolInput {
                    name: "q".into(),
                    ty: "str".into(),
                    required: true,
                    desc: "Query".into(),
                },
                ToolInput {
                    name: "n".into(),
                    ty: "weird".into(),
                    required: false,
                    desc: String::new(),
                },
            ],
            returns: Some(Returns {
                ty: "array".into(),
                desc: "Hits".into(),
            }),
            ..ToolMeta::default()
        }));
        tk.add_tool(t, &[("a", 0.9)]);
        tk.add_tool(Node::new(NodeKind::Tool, "Off"), &[("a", 0.9)]);
        let off = tk.find(NodeKind::Tool, "Off").unwrap();
        tk.node_mut(off).meta.as_mut().unwrap().enabled = false;
        tk
    }

    #[test]
    fn markdown_has_every_part() {
        let tk = tk();
        let tools = tools_to_describe(&tk, None, &ToolFilters::default());
        let md = markdown(&tk, &tools);
        assert!(md.starts_with("## Off\n"), "{md}");
        assert!(md.contains("## Search\n\nFinds\n  pages.\n"), "{md}");
        assert!(md.contains("**When to use:** When unsure."));
        assert!(md.contains("- `q` (str, required): Query\n"));
        assert!(md.contains("- `n` (weird, optional)\n"));
        assert!(md.contains("**Returns:** `array`: Hits"));
    }

    #[test]
    fn filters_apply_with_seeds_only() {
        let tk = tk();
        let seeds = vec![tk.action("a").unwrap()];
        let p = Params {
            threshold: 0.5,
            hops: 0,
        };
        let with = tools_to_describe(&tk, Some((&seeds, p)), &ToolFilters::default());
        assert_eq!(short(&tk, &with), "Search: Finds pages.\n");
        let all = tools_to_describe(&tk, None, &ToolFilters::default());
        assert_eq!(all.len(), 2);
    }

    #[test]
    fn schemas_follow_the_inputs() {
        let tk = tk();
        let s = tk.find(NodeKind::Tool, "Search").unwrap();
        let v = schemas(&tk, &[s]);
        let f = &v[0]["function"];
        assert_eq!(v[0]["type"], "function");
        assert_eq!(f["description"], "Finds pages. When to use: When unsure.");
        assert_eq!(
            f["parameters"]["properties"]["q"],
            json!({"type": "string", "description": "Query"})
        );
        assert_eq!(f["parameters"]["properties"]["n"], json!({}));
        assert_eq!(f["parameters"]["required"], json!(["q"]));
    }
}
