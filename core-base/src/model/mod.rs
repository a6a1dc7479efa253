//! The toolkit graph: Actions, Tools and ToolGroups joined by `Next`, `Call` and `Has` edges.
//!
//! A `petgraph` `StableDiGraph` holds the structure so that node and edge indices stay valid
//! across removals (the TUI and the edit history keep indices). Names are unique within a
//! kind; a name index maps each name to its action, tool and group. The graph operations of
//! Chat2Graph's `Toolkit`/`ToolkitService` live in [`ops`].

mod names;
pub use names::Names;
pub mod mcp;
pub mod ops;
mod pairs;
pub use mcp::CachedServer;

use std::path::PathBuf;

use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;

/// The three kinds of node.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum NodeKind {
    Action,
    Tool,
    Group,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Action => "action",
            NodeKind::Tool => "tool",
            NodeKind::Group => "group",
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// The three kinds of edge (Chat2Graph's names; `Has` is `Group_Has_Tool`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    Next,
    Call,
    Has,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Next => "next",
            EdgeKind::Call => "call",
            EdgeKind::Has => "has",
        }
    }

    /// The kind of edge Chat2Graph draws between these node kinds, if any.
    pub fn between(from: NodeKind, to: NodeKind) -> Option<EdgeKind> {
        match (from, to) {
            (NodeKind::Action, NodeKind::Action) => Some(EdgeKind::Next),
            (NodeKind::Action, NodeKind::Tool | NodeKind::Group) => Some(EdgeKind::Call),
            (NodeKind::Group, NodeKind::Tool) => Some(EdgeKind::Has),
            _ => None,
        }
    }
}

/// Where a node, edge or operator was written: a file of [`Toolkit::files`] and a 1-based
/// line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Origin {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// One declared tool input.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ToolInput {
    pub name: String,
    pub ty: String,
    pub required: bool,
    pub desc: String,
}

/// What a tool returns.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Returns {
    pub ty: String,
    pub desc: String,
}

/// Properties only tools and groups carry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolMeta {
    /// `LOCAL_TOOL`, `MCP`, ...
    pub ty: String,
    pub module_path: String,
    pub when_to_use: String,
    pub inputs: Vec<ToolInput>,
    pub returns: Option<Returns>,
    pub example: String,
    pub enabled: bool,
    pub exclusive: bool,
    pub takes_control: bool,
    /// The JSON Schema of the arguments, for tools an MCP server listed (`inputs` is read
    /// from it; `describe --style json` prints it as is).
    pub input_schema: Option<serde_json::Value>,
    /// `input_schema` as its definitions file wrote it, kept only when the value cannot
    /// hold it exactly (an integer beyond 64 bits): the native writer copies its digits.
    #[serde(skip)]
    pub input_schema_text: Option<SchemaText>,
}

/// A schema's JSON text as written in its definitions file (see
/// [`ToolMeta::input_schema_text`]). Two are always equal: tools compare by their
/// `input_schema` value, and the text is how the writer spells it.
#[derive(Debug, Clone)]
pub struct SchemaText(pub std::sync::Arc<str>);

impl PartialEq for SchemaText {
    fn eq(&self, _: &SchemaText) -> bool {
        true
    }
}

impl Default for ToolMeta {
    fn default() -> Self {
        ToolMeta {
            ty: String::new(),
            module_path: String::new(),
            when_to_use: String::new(),
            inputs: Vec::new(),
            returns: None,
            example: String::new(),
            enabled: true,
            exclusive: false,
            takes_control: false,
            input_schema: None,
            input_schema_text: None,
        }
    }
}

/// A vertex of the toolkit graph.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Node {
    pub kind: NodeKind,
    pub name: String,
    pub desc: String,
    /// Tool properties (tools and groups only).
    pub meta: Option<Box<ToolMeta>>,
    /// Created because something referred to it, not declared (empty description).
    pub implicit: bool,
    pub origin: Option<Origin>,
}

impl Node {
    pub fn new(kind: NodeKind, name: impl Into<String>) -> Node {
        Node {
            kind,
            name: name.into(),
            desc: String::new(),
            meta: (kind != NodeKind::Action).then(Box::default),
            implicit: false,
            origin: None,
        }
    }

    pub fn with_desc(mut self, desc: impl Into<String>) -> Node {
        self.desc = desc.into();
        self
    }

    /// `enabled` flag of a tool or group (actions are always enabled).
    pub fn enabled(&self) -> bool {
        self.meta.as_ref().is_none_or(|m| m.enabled)
    }

    pub fn exclusive(&self) -> bool {
        self.meta.as_ref().is_some_and(|m| m.exclusive)
    }
}

/// A weighted edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub kind: EdgeKind,
    /// Score in [0, 1] when valid; out-of-range values load so lint can report them.
    pub score: f64,
    pub origin: Option<Origin>,
}

/// A named seed set with its own threshold and hops (Chat2Graph's `OperatorConfig`).
#[derive(Debug, Clone, PartialEq)]
pub struct Operator {
    pub name: String,
    /// Anchor name of the operator's definition, in Chat2Graph files.
    pub anchor: Option<String>,
    pub actions: Vec<String>,
    pub threshold: f64,
    pub hops: u32,
    pub origin: Option<Origin>,
}

impl Operator {
    pub const DEFAULT_THRESHOLD: f64 = 0.5;
    pub const DEFAULT_HOPS: u32 = 0;

    pub fn new(name: impl Into<String>, actions: Vec<String>) -> Operator {
        Operator {
            name: name.into(),
            anchor: None,
            actions,
            threshold: Self::DEFAULT_THRESHOLD,
            hops: Self::DEFAULT_HOPS,
            origin: None,
        }
    }

    /// The name with the anchor, as shown to users: `Query Expert/1 (&query_design_operator)`.
    pub fn label(&self) -> String {
        match &self.anchor {
            Some(a) => format!("{} (&{a})", self.name),
            None => self.name.clone(),
        }
    }
}

/// The toolkit graph with its operators and the files it was read from.
#[derive(Debug, Clone, Default)]
pub struct Toolkit {
    pub name: Option<String>,
    pub graph: StableDiGraph<Node, Edge>,
    /// Name -> node of each kind; see [`Names`].
    names: Names,
    /// (from, to) -> edge, for lookups between well-connected nodes; see [`pairs`].
    pairs: pairs::Pairs,
    pub operators: Vec<Operator>,
    /// Files the graph came from; [`Origin::file`] indexes this list.
    pub files: Vec<PathBuf>,
    /// MCP servers whose members were read from a sidecar cache (what lint checks a cache
    /// against: its age and the members it lists).
    pub mcp_cached: Vec<CachedServer>,
    /// For a Chat2Graph config, how many places an action has in the `toolkit:` chains,
    /// where more than one (one otherwise): Chat2Graph builds an action's tools anew for
    /// each place and sends every copy (see [`Toolkit::copies_sent`]). `None` for other
    /// toolkits, where a tool is sent once.
    pub chain_places: Option<std::collections::HashMap<String, u32>>,
}

impl Toolkit {
    pub fn new() -> Toolkit {
        Toolkit::default()
    }

    /// The node of `kind` called `name`.
    pub fn find(&self, kind: NodeKind, name: &str) -> Option<NodeIndex> {
        self.names.find(kind, name)
    }

    /// The name index, shared (see [`Names`]).
    pub fn names(&self) -> &Names {
        &self.names
    }

    pub fn action(&self, name: &str) -> Option<NodeIndex> {
        self.find(NodeKind::Action, name)
    }

    /// Every node called `name`, whatever its kind; when no node is, the MCP member a
    /// qualified name `SERVER/TOOL` means (see [`mcp`]).
    pub fn named(&self, name: &str) -> impl Iterator<Item = NodeIndex> + '_ {
        let slots = self.names.get(name);
        let member = match slots {
            None => self.member_named(name),
            Some(_) => None,
        };
        slots
            .into_iter()
            .flat_map(|slots| (0..3).filter_map(|i| slots.get(i)))
            .chain(member)
    }

    /// Whether a name is used by more than one kind.
    pub fn kinds_of(&self, name: &str) -> usize {
        self.named(name).count()
    }

    pub fn node(&self, ix: NodeIndex) -> &Node {
        &self.graph[ix]
    }

    pub fn node_mut(&mut self, ix: NodeIndex) -> &mut Node {
        &mut self.graph[ix]
    }

    pub fn name(&self, ix: NodeIndex) -> &str {
        &self.graph[ix].name
    }

    pub fn kind(&self, ix: NodeIndex) -> NodeKind {
        self.graph[ix].kind
    }

    /// Adds a node, or returns the existing node of that kind and name unchanged.
    pub fn add_node(&mut self, node: Node) -> NodeIndex {
        if let Some(ix) = self.find(node.kind, &node.name) {
            return ix;
        }
        self.add_new_node(node)
    }

    /// [`Toolkit::add_node`] for a caller that has just seen that no node of that kind and
    /// name exists (one name lookup fewer).
    pub fn add_new_node(&mut self, node: Node) -> NodeIndex {
        debug_assert!(self.find(node.kind, &node.name).is_none());
        let slot = node.kind.slot();
        let ix = self.graph.add_node(node);
        self.names
            .index_mut()
            .insert(&self.graph[ix].name, slot, ix);
        ix
    }

    /// Room for `nodes` more nodes and `edges` more edges, reserved exactly (a large
    /// file's arrays are then not copied as they double, nor left up to twice their size).
    pub fn reserve(&mut self, nodes: usize, edges: usize) {
        self.graph.reserve_exact_nodes(nodes);
        self.graph.reserve_exact_edges(edges);
        // Edge room alone leaves the index as it is: while it is lent (see `Names`),
        // touching it would copy it.
        if nodes > 0 {
            self.names.index_mut().reserve(nodes);
        }
    }

    /// Removes one node (no cascade; see [`Toolkit::remove`] for Chat2Graph's cascade).
    pub fn remove_node(&mut self, ix: NodeIndex) -> Option<Node> {
        let node = self.graph.remove_node(ix)?;
        self.names
            .index_mut()
            .remove(&node.name, node.kind.slot(), ix);
        Some(node)
    }

    /// Renames are not offered; this rebuilds the index after bulk changes to `graph`.
    pub fn reindex(&mut self) {
        self.pairs.clear();
        self.names.index_mut().clear();
        for ix in self.graph.node_indices() {
            let n = &self.graph[ix];
            self.names.index_mut().insert(&n.name, n.kind.slot(), ix);
        }
    }

    /// The edge from `u` to `v`, if any (at most one exists per ordered pair).
    pub fn edge(&self, u: NodeIndex, v: NodeIndex) -> Option<EdgeIndex> {
        // Walks u's out-edges and v's in-edges together, so a lookup costs the smaller
        // degree: adding 100k edges from one hub stays linear, where `find_edge` (u's list
        // only) made it quadratic. Between two well-connected nodes (most pairs of actions
        // joined, as `fit --add-edges` leaves them) the smaller degree is large too: past a
        // few steps the pair index answers.
        let mut out = self.graph.edges_directed(u, Direction::Outgoing);
        let mut inc = self.graph.edges_directed(v, Direction::Incoming);
        for _ in 0..pairs::WALK {
            let (Some(a), Some(b)) = (out.next(), inc.next()) else {
                return None;
            };
            if a.target() == v {
                return Some(a.id());
            }
            if b.source() == u {
                return Some(b.id());
            }
        }
        let found = self.pairs.find(&self.graph, u, v);
        debug_assert_eq!(
            found.is_some(),
            self.graph.find_edge(u, v).is_some(),
            "the pair index disagrees with the graph (an edge added around `add_new_edge`?)"
        );
        found
    }

    /// Adds the edge `u -> v` with the kind implied by the node kinds, or returns the
    /// existing edge unchanged (its score kept). `None` if the kinds cannot be joined.
    pub fn add_edge(
        &mut self,
        u: NodeIndex,
        v: NodeIndex,
        score: f64,
        origin: Option<Origin>,
    ) -> Option<EdgeIndex> {
        if let Some(e) = self.edge(u, v) {
            return Some(e);
        }
        self.add_new_edge(u, v, score, origin)
    }

    /// [`Toolkit::add_edge`] for a caller that has just seen that `u -> v` does not exist.
    pub fn add_new_edge(
        &mut self,
        u: NodeIndex,
        v: NodeIndex,
        score: f64,
        origin: Option<Origin>,
    ) -> Option<EdgeIndex> {
        // Checked only where it is cheap: the callers that use this on large hubs do so
        // because walking their edge lists would make loading quadratic.
        debug_assert!(
            self.graph.edges(u).nth(64).is_some() || self.edge(u, v).is_none(),
            "the edge exists"
        );
        let kind = EdgeKind::between(self.kind(u), self.kind(v))?;
        let score = if kind == EdgeKind::Has { 1.0 } else { score };
        let e = self.graph.add_edge(
            u,
            v,
            Edge {
                kind,
                score,
                origin,
            },
        );
        self.pairs.added(u, v, e);
        Some(e)
    }

    /// Chat2Graph's `get_score`: the edge's score, 1.0 when there is no edge.
    pub fn get_score(&self, u: NodeIndex, v: NodeIndex) -> f64 {
        self.edge(u, v).map_or(1.0, |e| self.graph[e].score)
    }

    /// Chat2Graph's `set_score`; returns `false` when there is no such edge.
    pub fn set_score(&mut self, u: NodeIndex, v: NodeIndex, score: f64) -> bool {
        match self.edge(u, v) {
            Some(e) => {
                self.graph[e].score = score;
                true
            }
            None => false,
        }
    }

    /// Nodes of one kind, in index order.
    pub fn nodes_of(&self, kind: NodeKind) -> impl Iterator<Item = NodeIndex> + '_ {
        self.graph
            .node_indices()
            .filter(move |ix| self.graph[*ix].kind == kind)
    }

    /// Outgoing edges of `ix` as (edge, target).
    pub fn out_edges(&self, ix: NodeIndex) -> impl Iterator<Item = (EdgeIndex, NodeIndex)> + '_ {
        self.graph
            .edges_directed(ix, Direction::Outgoing)
            .map(|e| (e.id(), e.target()))
    }

    /// Incoming edges of `ix` as (edge, source).
    pub fn in_edges(&self, ix: NodeIndex) -> impl Iterator<Item = (EdgeIndex, NodeIndex)> + '_ {
        self.graph
            .edges_directed(ix, Direction::Incoming)
            .map(|e| (e.id(), e.source()))
    }

    /// The one operator `name` names (see [`Toolkit::operators_named`]).
    pub fn operator(&self, name: &str) -> Option<&Operator> {
        match self.operators_named(name).as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The operators `name` can mean: the one with exactly that name; otherwise every one
    /// whose anchor (with or without its `&`, as the navigator shows it) or label it is,
    /// or which is `name @ FILE` (operators of one name in several opened files, see
    /// `source::join`). More than one is ambiguous. The one resolver of `:operator`,
    /// `--operator` and trace records.
    pub fn operators_named(&self, name: &str) -> Vec<&Operator> {
        // Exactly as written first (an operator may be named `x `), then trimmed (as typed).
        if let Some(op) = self.operators.iter().find(|o| o.name == name) {
            return vec![op];
        }
        let name = name.trim();
        if let Some(op) = self.operators.iter().find(|o| o.name == name) {
            return vec![op];
        }
        let anchor = name.strip_prefix('&').unwrap_or(name);
        let shared = format!("{name} @ ");
        self.operators
            .iter()
            .filter(|o| {
                o.anchor.as_deref() == Some(anchor)
                    || o.label() == name
                    || o.name.starts_with(&shared)
            })
            .collect()
    }

    /// The one operator `name` means, or why it means none or several (the one message
    /// every front end shows for it).
    pub fn one_operator(&self, name: &str) -> Result<&Operator, OperatorLookup> {
        match self.operators_named(name).as_slice() {
            [one] => Ok(one),
            [] => Err(OperatorLookup::Unknown {
                name: name.into(),
                known: self.operators.iter().map(|o| o.name.clone()).collect(),
            }),
            many => Err(OperatorLookup::Ambiguous {
                name: name.into(),
                labels: many.iter().map(|o| o.label()).collect(),
            }),
        }
    }

    pub fn operator_mut(&mut self, name: &str) -> Option<&mut Operator> {
        let i = self
            .operators
            .iter()
            .position(|o| o.name == name || o.anchor.as_deref() == Some(name))?;
        self.operators.get_mut(i)
    }

    /// Display path of the file an origin points into.
    pub fn file_name(&self, origin: Option<Origin>) -> String {
        origin
            .and_then(|o| self.files.get(o.file as usize))
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    }

    /// Number of nodes of each kind: (actions, tools, groups).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for ix in self.graph.node_indices() {
            match self.graph[ix].kind {
                NodeKind::Action => c.0 += 1,
                NodeKind::Tool => c.1 += 1,
                NodeKind::Group => c.2 += 1,
            }
        }
        c
    }

    /// Edge endpoints as names, for messages: `from -> to`.
    pub fn edge_label(&self, e: EdgeIndex) -> String {
        match self.graph.edge_endpoints(e) {
            Some((u, v)) => format!("{} -> {}", self.name(u), self.name(v)),
            None => String::from("(removed edge)"),
        }
    }
}

/// Why a name does not pick exactly one operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperatorLookup {
    Unknown {
        name: String,
        known: Vec<String>,
    },
    /// Operators of one name in several opened files (`NAME @ FILE`), or an anchor several
    /// share: a usage error, answered by naming one of `labels`.
    Ambiguous {
        name: String,
        labels: Vec<String>,
    },
}

impl std::fmt::Display for OperatorLookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OperatorLookup::Unknown { name, known } if known.is_empty() => {
                write!(f, "no operator named `{name}`; this toolkit has none")
            }
            OperatorLookup::Unknown { name, known } => {
                write!(
                    f,
                    "no operator named `{name}`; operators: {}",
                    known.join(", ")
                )
            }
            OperatorLookup::Ambiguous { name, labels } => write!(
                f,
                "`{name}` names {} operators; pass one of: {}",
                labels.len(),
                labels.join(", ")
            ),
        }
    }
}

#[cfg(test)]
mod edge_lookup_tests {
    use super::*;

    #[test]
    fn edge_lookup_finds_edges_from_either_end() {
        let mut tk = Toolkit::new();
        let node = |name: &str, kind| Node::new(kind, name);
        let hub = tk.add_node(node("hub", NodeKind::Action));
        let leaves: Vec<NodeIndex> = (0..50)
            .map(|i| tk.add_node(node(&format!("a{i}"), NodeKind::Action)))
            .collect();
        for &l in &leaves {
            assert!(tk.add_edge(hub, l, 0.5, None).is_some());
            assert!(tk.add_edge(l, hub, 0.5, None).is_some());
        }
        assert!(tk.add_edge(hub, hub, 1.0, None).is_some());
        for &l in &leaves {
            let e = tk.edge(hub, l).expect("hub -> leaf");
            assert_eq!(tk.graph.edge_endpoints(e), Some((hub, l)));
            let e = tk.edge(l, hub).expect("leaf -> hub");
            assert_eq!(tk.graph.edge_endpoints(e), Some((l, hub)));
            assert_eq!(tk.edge(l, l), None);
        }
        assert!(tk.edge(hub, hub).is_some());
        assert_eq!(tk.edge(leaves[0], leaves[1]), None);
        assert_eq!(tk.graph.edge_count(), 101);
    }
}

#[cfg(test)]
mod lent_names_tests {
    use super::*;

    #[test]
    fn edge_room_leaves_a_lent_name_index_uncopied_and_a_new_node_copies_it() {
        let mut tk = Toolkit::new();
        tk.add_node(Node::new(NodeKind::Tool, "t"));
        let lent = tk.names().clone();
        tk.reserve(0, 1000);
        assert!(tk.names().is(&lent), "edge room copied the index");
        tk.add_node(Node::new(NodeKind::Tool, "u"));
        assert!(!tk.names().is(&lent));
        assert!(lent.find(NodeKind::Tool, "u").is_none());
        assert!(tk.find(NodeKind::Tool, "u").is_some());
    }
}
