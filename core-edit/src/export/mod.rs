//! Writing a toolkit out: JSON, Graphviz dot, Mermaid, SVG (drawn by toolscope), and the
//! native YAML format.

pub mod convert;
pub mod describe;
pub mod dot;
pub mod json;
pub mod mermaid;
pub mod native;
pub mod svg;

pub use svg::{Called, Title};

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use crate::model::Toolkit;
use crate::recommend::Recommendation;

/// What to highlight when exporting: a recommendation and its threshold.
pub struct Highlight<'r> {
    pub rec: &'r Recommendation,
    pub threshold: f64,
    pub seeds: &'r [NodeIndex],
}

impl Highlight<'_> {
    pub fn node(&self, ix: NodeIndex) -> bool {
        self.rec.contains(ix)
    }

    pub fn seed(&self, ix: NodeIndex) -> bool {
        self.seeds.contains(&ix)
    }

    pub fn edge(&self, tk: &Toolkit, e: EdgeIndex) -> bool {
        self.rec.has_edge(tk, e, self.threshold)
    }
}

/// The formats the graph is exported in: one list for `toolscope export --to`, the TUI's
/// `:export` and its completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Dot,
    Mermaid,
    Json,
    Svg,
}

impl ExportFormat {
    pub const ALL: [ExportFormat; 4] = [
        ExportFormat::Dot,
        ExportFormat::Mermaid,
        ExportFormat::Json,
        ExportFormat::Svg,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Dot => "dot",
            ExportFormat::Mermaid => "mermaid",
            ExportFormat::Json => "json",
            ExportFormat::Svg => "svg",
        }
    }

    /// The format called `name`, or why none is.
    pub fn parse(name: &str) -> Result<ExportFormat, String> {
        ExportFormat::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = ExportFormat::ALL.iter().map(|f| f.name()).collect();
                format!("unknown export format `{name}`: {}", names.join(", "))
            })
    }

    /// `tk` in this format, the recommendation highlighted when given; `whole` folds an
    /// SVG of the whole graph to the page, and `title` heads an SVG. Text from the YAML is
    /// made safe for a terminal in JSON as everywhere (`text::json_safe`).
    pub fn write(self, tk: &Toolkit, hl: Option<&Highlight>, whole: bool, title: &Title) -> String {
        match self {
            ExportFormat::Dot => dot::to_dot(tk, hl),
            ExportFormat::Mermaid => mermaid::to_mermaid(tk, hl),
            ExportFormat::Svg => svg::to_svg_titled(tk, hl, whole, title),
            ExportFormat::Json => {
                let mut v = json::toolkit_json(tk);
                if let (Some(h), Some(map)) = (hl, v.as_object_mut()) {
                    map.insert(
                        "recommended".into(),
                        json::recommendation_json(tk, h.rec, h.threshold, None),
                    );
                }
                let text = serde_json::to_string_pretty(&v).unwrap_or_default();
                crate::text::json_safe(&text).into_owned() + "\n"
            }
        }
    }
}

/// Nodes sorted by (kind, name) and edges sorted by (from, to): stable output order.
pub fn sorted(tk: &Toolkit) -> (Vec<NodeIndex>, Vec<EdgeIndex>) {
    let mut nodes: Vec<NodeIndex> = tk.graph.node_indices().collect();
    nodes.sort_by(|a, b| (tk.kind(*a), tk.name(*a)).cmp(&(tk.kind(*b), tk.name(*b))));
    let mut edges: Vec<EdgeIndex> = tk.graph.edge_indices().collect();
    edges.sort_by_key(|e| {
        tk.graph
            .edge_endpoints(*e)
            .map(|(u, v)| (tk.name(u).to_string(), tk.name(v).to_string()))
    });
    (nodes, edges)
}
