//! What both loaders share: the document, the toolkit being built, diagnostics, and readers
//! for the constructs both formats use (names, references, scores, tool properties).

use std::collections::HashMap;

use petgraph::stable_graph::NodeIndex;

use crate::diag::{Code, Diagnostic, Severity};
use crate::model::{Node, NodeKind, Origin, Returns, ToolInput, ToolMeta, Toolkit};
use crate::recommend::MAX_HOPS;

use crate::mcp::cache::{self as mcp_cache, CachedTool};

use crate::source::yaml::{Doc, NodeId, Scalar};

pub struct Ctx<'d> {
    pub doc: &'d Doc,
    pub file: String,
    pub toolkit: Toolkit,
    pub diags: Vec<Diagnostic>,
    /// Mappings already checked for duplicate keys: an aliased mapping is checked once,
    /// however often it is used.
    keys_checked: std::collections::HashSet<NodeId>,
    /// Most edges the toolkit may get from this file: a Chat2Graph group expands into an
    /// edge per member for every action calling it, so a small file could otherwise build
    /// billions of edges. Two per YAML node plus a million stays inside the memory budget.
    edge_cap: usize,
    edge_cap_reported: bool,
    /// `next` references naming no action of this file (another opened file may define it).
    pub unresolved: Vec<crate::source::Unresolved>,
    /// Member tools of MCP groups known from the sidecar cache, by group name.
    pub mcp_members: HashMap<String, Vec<CachedTool>>,
    /// Bytes the toolkit may still take within the file's memory budget once the tree is
    /// built (see [`Ctx::charge`]); unbounded unless the loader sets it.
    pub toolkit_room: usize,
    /// Where the toolkit would have crossed the memory budget: the load then fails (TS002).
    pub over_budget: Option<NodeId>,
}

/// What one toolkit node costs besides its texts: the graph slot, the name index entry,
/// edge list heads, allocation overhead (measured on `gen --actions 100000`, rounded up).
const NODE_BYTES: usize = std::mem::size_of::<Node>() + 160;
/// What one edge costs: the graph's edge record and the edge index.
const EDGE_BYTES: usize = 64;

/// What a heap allocation of `len` bytes takes from the allocator: glibc's smallest chunk
/// is 32 bytes, and chunks carry 8 bytes and round to 16 (a 3-byte name takes 32, not 3).
pub fn heap_bytes(len: usize) -> usize {
    match len {
        0 => 0,
        n => (n + 8).next_multiple_of(16).max(32),
    }
}

/// What one more name in a growing list of names takes: the `String` (twice, for the
/// vector's doubling) and its text's allocation.
pub fn listed_name_bytes(len: usize) -> usize {
    2 * std::mem::size_of::<String>() + heap_bytes(len)
}

/// Mappings up to this many entries are checked by a look at each entry rather than through
/// a set or the key index: cheaper for the handful of keys a declaration has.
const SMALL_MAP: usize = 16;

/// A reference to a node by name: a bare name, `{name: X, score: S}`, or an alias of either.
pub struct Ref<'d> {
    /// The name as written (borrowed from the document: a large file has hundreds of
    /// thousands of references).
    pub name: &'d str,
    pub score: Option<f64>,
    /// The list item itself (for positions).
    pub item: NodeId,
}

/// What is wrong with a reference item (reported by [`Ctx::reference`]).
pub enum RefFault {
    NoName,
    NotAReference,
}

/// What is wrong with a score (reported by [`Ctx::score`]).
pub enum ScoreFault {
    /// A number outside [0, 1]: loaded as written, and reported.
    OutOfRange(f64),
    /// Anything else but null: loaded as 1.0, and reported.
    NotNumber,
}

/// The readers below report nothing: the loader's second thread resolves references with
/// them and leaves anything they refuse to [`Ctx`]'s reporting versions, built on them.
///
/// The items of the list under `key` (none when it is absent or null), or the value that is
/// not a list.
pub fn list_items<'d>(doc: &'d Doc, parent: NodeId, key: &str) -> Result<&'d [NodeId], NodeId> {
    let Some(v) = doc.get(parent, key) else {
        return Ok(&[]);
    };
    match doc.seq(v) {
        Some(items) => Ok(items),
        // `key: !!str` is the empty string to PyYAML, which Chat2Graph iterates as nothing.
        None if matches!(doc.scalar(v), Some(Scalar::Null | Scalar::Str(""))) => Ok(&[]),
        None => Err(v),
    }
}

/// A reference item's name, and its `score` value if it has one.
pub fn read_ref(doc: &Doc, item: NodeId) -> Result<(&str, Option<NodeId>), RefFault> {
    if doc.map(item).is_some() {
        let name = doc
            .get(item, "name")
            .and_then(|n| doc.text_or_null(n))
            .ok_or(RefFault::NoName)?;
        return Ok((name, doc.get(item, "score")));
    }
    doc.text_or_null(item)
        .map(|name| (name, None))
        .ok_or(RefFault::NotAReference)
}

/// A score's value: a number in [0, 1], or 1.0 for null.
pub fn score_value(doc: &Doc, v: NodeId) -> Result<f64, ScoreFault> {
    let s = match doc.scalar(v) {
        Some(Scalar::Int(i)) => i as f64,
        Some(Scalar::Float(f)) => f,
        Some(Scalar::Null) => return Ok(1.0),
        _ => return Err(ScoreFault::NotNumber),
    };
    if (0.0..=1.0).contains(&s) {
        Ok(s)
    } else {
        Err(ScoreFault::OutOfRange(s))
    }
}

impl<'d> Ctx<'d> {
    pub fn new(doc: &'d Doc, file: String) -> Self {
        Ctx {
            doc,
            file,
            toolkit: Toolkit::new(),
            diags: Vec::new(),
            keys_checked: std::collections::HashSet::new(),
            edge_cap: doc.len().saturating_mul(2).saturating_add(1_000_000),
            edge_cap_reported: false,
            unresolved: Vec::new(),
            mcp_members: HashMap::new(),
            toolkit_room: usize::MAX,
            over_budget: None,
        }
    }

    /// Counts `bytes` more of toolkit against the memory budget; `false` (and the load
    /// fails with TS002 at `at`) once they no longer fit. Past that nothing more is built.
    pub fn charge(&mut self, at: NodeId, bytes: usize) -> bool {
        if self.over_budget.is_some() {
            return false;
        }
        match self.toolkit_room.checked_sub(bytes) {
            Some(left) => {
                self.toolkit_room = left;
                true
            }
            None => {
                self.over_budget = Some(at);
                false
            }
        }
    }

    /// [`Ctx::charge`] for a node about to be added.
    pub fn charge_node(&mut self, at: NodeId, node: &Node) -> bool {
        let meta = node.meta.as_ref().map_or(0, |m| {
            std::mem::size_of::<ToolMeta>()
                + m.ty.len()
                + m.module_path.len()
                + m.when_to_use.len()
                + m.example.len()
                + m.inputs.len() * (std::mem::size_of::<ToolInput>() + 32)
        });
        self.charge(
            at,
            NODE_BYTES + node.name.len() * 2 + node.desc.len() + meta,
        )
    }

    /// [`Ctx::charge`] for an edge about to be added.
    pub fn charge_edge(&mut self, at: NodeId) -> bool {
        self.charge(at, EDGE_BYTES)
    }

    /// The member tools the MCP cache lists for `group`; `None` when the cache has no
    /// entry for it (an entry may list no tools: the server offered none).
    /// Taken, not copied: a group is declared once.
    pub fn cached_members(&mut self, group: &str) -> Option<Vec<CachedTool>> {
        self.mcp_members.remove(group)
    }

    /// The tool node of a cached MCP member, created with the description and inputs the
    /// server listed; `origin` is the group's entry (members have no YAML of their own).
    /// The schema moves into the node (a cache's cost counts one copy of it, see
    /// `mcp::cache::json_cost`); the entry keeps its name and description.
    pub fn cached_member(&mut self, tool: &mut CachedTool, origin: Origin) -> NodeIndex {
        if let Some(t) = self.toolkit.find(NodeKind::Tool, &tool.name) {
            return t;
        }
        let mut node = Node::new(NodeKind::Tool, tool.name.clone());
        node.desc = tool.description.clone();
        let schema = std::mem::take(&mut tool.input_schema);
        node.meta = Some(Box::new(ToolMeta {
            ty: "MCP".into(),
            inputs: mcp_cache::params(&schema),
            input_schema: Some(schema),
            ..ToolMeta::default()
        }));
        node.origin = Some(origin);
        self.toolkit.add_node(node)
    }

    pub fn finish(self) -> (Toolkit, Vec<Diagnostic>, Vec<crate::source::Unresolved>) {
        (self.toolkit, self.diags, self.unresolved)
    }

    pub fn origin(&self, id: NodeId) -> Origin {
        let (line, col) = self.doc.position(id);
        Origin { file: 0, line, col }
    }

    /// Reports a problem at `id`. Counted in the memory budget: through aliases one list
    /// item can be reported once per use (an operator naming no action, 20,000 times).
    pub fn diag(&mut self, id: NodeId, severity: Severity, code: Code, message: String) {
        let bytes = 2 * std::mem::size_of::<Diagnostic>()
            + heap_bytes(self.file.len())
            + heap_bytes(message.len());
        if self.over_budget.is_none() {
            self.charge(id, bytes);
        }
        let n = self.doc.node(id);
        self.diags.push(Diagnostic {
            file: self.file.clone(),
            line: n.line,
            column: n.col,
            severity,
            code,
            message,
        });
    }

    /// The root mapping's value for `key`.
    pub fn top(&self, key: &str) -> Option<NodeId> {
        self.doc.root.and_then(|r| self.doc.get(r, key))
    }

    /// Items of a list under `key`; a present non-list value is a shape error.
    pub fn list(&mut self, parent: NodeId, key: &str) -> Vec<NodeId> {
        match list_items(self.doc, parent, key) {
            Ok(items) => items.to_vec(),
            Err(v) => {
                self.diag(
                    v,
                    Severity::Error,
                    Code::Shape,
                    format!("`{key}` must be a list"),
                );
                Vec::new()
            }
        }
    }

    /// A string property (scalars of any type are read as their text).
    pub fn text(&self, map: NodeId, key: &str) -> Option<String> {
        self.text_ref(map, key).map(str::to_string)
    }

    /// [`Ctx::text`] borrowed from the document.
    pub fn text_ref(&self, map: NodeId, key: &str) -> Option<&'d str> {
        let doc: &'d Doc = self.doc;
        doc.text_or_null(doc.get(map, key)?)
    }

    pub fn flag(&mut self, map: NodeId, key: &str, default: bool) -> bool {
        let Some(v) = self.doc.get(map, key) else {
            return default;
        };
        match self.doc.scalar(v) {
            Some(Scalar::Bool(b)) => b,
            Some(Scalar::Null) => default,
            _ => {
                self.diag(
                    v,
                    Severity::Warning,
                    Code::Shape,
                    format!("`{key}` must be true or false; using {default}"),
                );
                default
            }
        }
    }

    /// Reads a score value, reporting strings and out-of-range numbers. Out-of-range numbers
    /// load as written so the user can see and fix them; non-numbers become 1.0.
    /// `what` names the scored thing in a diagnostic; it is built only for one.
    pub fn score(&mut self, v: NodeId, what: impl Fn() -> String) -> f64 {
        match score_value(self.doc, v) {
            Ok(s) => s,
            Err(ScoreFault::OutOfRange(s)) => {
                self.diag(
                    v,
                    Severity::Error,
                    Code::ScoreOutOfRange,
                    format!("score of {} is {s}, outside [0, 1]", what()),
                );
                s
            }
            Err(ScoreFault::NotNumber) => {
                let shown = self.doc.str(v).unwrap_or("a collection").to_string();
                self.diag(
                    v,
                    Severity::Error,
                    Code::ScoreNotNumber,
                    format!("score of {} is not a number: {shown:?}; using 1.0", what()),
                );
                1.0
            }
        }
    }

    /// Reads a reference list item. Reports and skips items without a usable name.
    pub fn reference(&mut self, item: NodeId, scored: bool) -> Option<Ref<'d>> {
        match read_ref(self.doc, item) {
            Ok((name, score)) => {
                let score = match score {
                    Some(v) if scored => Some(self.score(v, || format!("`{name}`"))),
                    _ => None,
                };
                Some(Ref { name, score, item })
            }
            Err(fault) => {
                let message = match fault {
                    RefFault::NoName => "reference without a `name`",
                    RefFault::NotAReference => {
                        "a reference must be a name or a mapping with `name`"
                    }
                };
                self.diag(item, Severity::Error, Code::Shape, message.into());
                None
            }
        }
    }

    /// Reports text properties given as a list or mapping (also through an alias): they
    /// would otherwise read as empty without a word.
    pub fn check_text_fields(&mut self, map: NodeId) {
        const TEXT: [&str; 6] = [
            "name",
            "desc",
            "when_to_use",
            "example",
            "type",
            "module_path",
        ];
        // Only a list or mapping under one of these keys (or a merge key, which may bring
        // one in) can be reported: a small declaration without one is passed over in one
        // look at its entries. A large mapping (which may be aliased many times) keeps the
        // six indexed lookups, so the check stays constant per declaration.
        let doc = self.doc;
        let Some(entries) = doc.map(map) else {
            return;
        };
        let suspect = entries.len() > SMALL_MAP
            || entries.iter().any(|&(k, v)| {
                (doc.seq(v).is_some() || doc.map(v).is_some())
                    && doc.str(k).is_some_and(|k| k == "<<" || TEXT.contains(&k))
            });
        if !suspect {
            return;
        }
        for key in TEXT {
            let Some(v) = self.doc.get(map, key) else {
                continue;
            };
            let what = if self.doc.seq(v).is_some() {
                "a list"
            } else if self.doc.map(v).is_some() {
                "a mapping"
            } else {
                continue;
            };
            self.diag(
                v,
                Severity::Error,
                Code::Shape,
                format!("`{key}` must be text, not {what}; read as empty"),
            );
        }
    }

    /// Room for `nodes` nodes and `edges` edges reserved up front, never more than the
    /// edge cap and the memory budget allow (the charges made as they are added still
    /// decide; a hostile file gets no large reservation).
    pub fn reserve(&mut self, nodes: usize, edges: usize) {
        let room = self.toolkit_room;
        let nodes = nodes.min(room / NODE_BYTES);
        let edges = edges.min(self.edge_cap).min(room / EDGE_BYTES);
        self.toolkit.reserve(nodes, edges);
    }

    /// Whether the toolkit may get another edge; past the cap, reports TS002 once at `at`.
    pub fn edge_allowed(&mut self, at: NodeId) -> bool {
        if self.toolkit.graph.edge_count() < self.edge_cap {
            return self.charge_edge(at);
        }
        if !self.edge_cap_reported {
            self.edge_cap_reported = true;
            let cap = self.edge_cap;
            self.diag(
                at,
                Severity::Error,
                Code::Limit,
                format!("more than {cap} edges (groups expanded for every caller); the rest are left out to stay within the memory budget"),
            );
        }
        false
    }

    /// Warns about keys written twice in a mapping. Linear: a mapping may hold 100k keys.
    pub fn duplicate_keys(&mut self, map: NodeId) {
        let map = self.doc.resolve(map);
        let Some(entries) = self.doc.map(map) else {
            return;
        };
        // Only an anchored mapping can be reached twice (through its aliases).
        if self.doc.anchor_name(map).is_some() && !self.keys_checked.insert(map) {
            return;
        }
        let doc = self.doc;
        // Most mappings have a handful of keys: comparing them pairwise needs no set.
        let mut seen = (entries.len() > SMALL_MAP)
            .then(|| std::collections::HashSet::with_capacity(entries.len()));
        for (i, (k, _)) in entries.iter().enumerate() {
            let Some(key) = doc.str(*k) else { continue };
            let twice = match &mut seen {
                Some(seen) => !seen.insert(key),
                None => entries[..i].iter().any(|(p, _)| doc.str(*p) == Some(key)),
            };
            if twice {
                self.diag(
                    *k,
                    Severity::Warning,
                    Code::DuplicateKey,
                    format!("key `{key}` is written twice; the last one wins"),
                );
            }
        }
    }

    /// Tool properties of a tool or group declaration.
    pub fn tool_meta(&mut self, map: NodeId, default_type: &str) -> ToolMeta {
        let mut meta = ToolMeta {
            ty: self
                .text(map, "type")
                .unwrap_or_else(|| default_type.to_string()),
            module_path: self.text(map, "module_path").unwrap_or_default(),
            when_to_use: self.text(map, "when_to_use").unwrap_or_default(),
            example: self.text(map, "example").unwrap_or_default(),
            ..ToolMeta::default()
        };
        meta.enabled = self.flag(map, "enabled", true);
        meta.exclusive = self.flag(map, "exclusive", false);
        meta.takes_control = self.flag(map, "takes_control", false);
        for item in self.list(map, "inputs") {
            if self.doc.map(item).is_none() {
                continue;
            }
            let required = self.flag(item, "required", false);
            meta.inputs.push(ToolInput {
                name: self.text(item, "name").unwrap_or_default(),
                ty: self.text(item, "type").unwrap_or_default(),
                required,
                desc: self.text(item, "desc").unwrap_or_default(),
            });
        }
        if let Some(r) = self.doc.get(map, "returns")
            && self.doc.map(r).is_some()
        {
            meta.returns = Some(Returns {
                ty: self.text(r, "type").unwrap_or_default(),
                desc: self.text(r, "desc").unwrap_or_default(),
            });
        }
        self.input_schema(map, &mut meta);
        meta
    }

    /// `input_schema`: the arguments' whole JSON Schema (a mapping), which `describe
    /// --style json` prints as is; the inputs are read from it when `inputs` is not given.
    fn input_schema(&mut self, map: NodeId, meta: &mut ToolMeta) {
        let Some(v) = self.doc.get(map, "input_schema") else {
            return;
        };
        if self.doc.map(self.doc.resolve(v)).is_none() {
            if !matches!(self.doc.scalar(v), Some(Scalar::Null)) {
                let msg = "`input_schema` must be a mapping (a JSON Schema); ignored".into();
                self.diag(v, Severity::Error, Code::Shape, msg);
            }
            return;
        }
        match crate::source::schema::to_json(self.doc, v) {
            Ok(schema) => {
                if meta.inputs.is_empty() {
                    meta.inputs = crate::mcp::cache::params(&schema);
                }
                meta.input_schema = Some(schema);
            }
            Err(why) => {
                let msg = format!("`input_schema` {why}; ignored");
                self.diag(v, Severity::Error, Code::Shape, msg);
            }
        }
    }

    /// Reads an operator's `threshold` and `hops`, reporting bad values and keeping defaults.
    pub fn tuning(&mut self, map: NodeId) -> (f64, u32) {
        let mut threshold = crate::model::Operator::DEFAULT_THRESHOLD;
        let mut hops = crate::model::Operator::DEFAULT_HOPS;
        if let Some(v) = self.doc.get(map, "threshold") {
            match self.doc.scalar(v) {
                Some(Scalar::Int(i)) if (0..=1).contains(&i) => threshold = i as f64,
                Some(Scalar::Float(f)) if (0.0..=1.0).contains(&f) => threshold = f,
                Some(Scalar::Null) => {}
                _ => self.diag(
                    v,
                    Severity::Error,
                    Code::BadThreshold,
                    format!(
                        "threshold must be a number in [0, 1], not {:?}; using {threshold}",
                        self.doc.str(v).unwrap_or("a collection")
                    ),
                ),
            }
        }
        if let Some(v) = self.doc.get(map, "hops") {
            match self.doc.scalar(v) {
                Some(Scalar::Int(i)) if (0..=i64::from(MAX_HOPS)).contains(&i) => hops = i as u32,
                Some(Scalar::Null) => {}
                _ => self.diag(
                    v,
                    Severity::Error,
                    Code::BadHops,
                    format!(
                        "hops must be a whole number from 0 to {MAX_HOPS}, not {:?}; using {hops}",
                        self.doc.str(v).unwrap_or("a collection")
                    ),
                ),
            }
        }
        (threshold, hops)
    }
}
