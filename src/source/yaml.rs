//! A YAML document tree that remembers where every node came from.
//!
//! Built from granit-parser's event stream (the parser inside serde-saphyr) rather than a
//! typed deserializer, because toolscope needs two things a typed loader throws away: the
//! line and column of every node (for diagnostics) and its byte range, style and anchor (for
//! lossless write-back, which splices bytes at these positions).
//!
//! Aliases are kept as references to their anchored node and are never expanded, so an
//! "alias bomb" costs one node per alias. Building the tree uses an explicit stack, never
//! recursion, and every resource is bounded by [`Limits`]; see the README's Reliability
//! section.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::ops::Range;

use granit_parser::{Event, Parser, ScalarStyle, StructureStyle};

/// Index of a node in [`Doc::nodes`].
pub type NodeId = u32;

/// Resource bounds applied while parsing. Hostile input fails fast with a clear error.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest file accepted, in bytes.
    pub max_bytes: usize,
    /// Largest single scalar, in bytes.
    pub max_scalar_bytes: usize,
    /// Deepest nesting of collections (block or flow).
    pub max_depth: usize,
    /// Most nodes (scalars, collections and aliases) in one document.
    pub max_nodes: usize,
    /// The most memory a load may use, whatever the input: the budget is 12 times the input
    /// size plus 100 MB, and never more than this (README, Reliability).
    pub max_memory: usize,
}

impl Limits {
    /// The memory budget for an input of `bytes`: 12 times its size plus 100 MB, capped by
    /// [`Limits::max_memory`].
    pub fn memory_budget(&self, bytes: usize) -> usize {
        bytes
            .saturating_mul(12)
            .saturating_add(100 << 20)
            .min(self.max_memory)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 128 * 1024 * 1024,
            max_scalar_bytes: 1024 * 1024,
            max_depth: 128,
            max_nodes: 20_000_000,
            max_memory: 2 << 30,
        }
    }
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Scalar {
        text: Cow<'a, str>,
        style: Style,
    },
    Seq(Vec<NodeId>),
    /// Key/value pairs in source order (duplicate keys kept; lookups take the last).
    Map(Vec<(NodeId, NodeId)>),
    /// An alias: the node it refers to (never itself an alias).
    Alias(NodeId),
}

/// The source notation of a scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// One node with its source position.
#[derive(Debug, Clone, PartialEq)]
pub struct Node<'a> {
    pub value: Value<'a>,
    /// Byte range of the node's content in the source (for collections, from the first
    /// to the last byte of the collection as the parser reports it).
    pub span: Range<usize>,
    /// 1-based line of the node's start.
    pub line: u32,
    /// 1-based column (in characters) of the node's start.
    pub col: u32,
    /// `true` for flow collections (`[..]`, `{..}`).
    pub flow: bool,
    /// Anchor name and the byte range of the `&name` token (boxed: few nodes have one).
    pub anchor: Option<Box<(String, Range<usize>)>>,
}

/// A parsed YAML document.
#[derive(Debug, Clone, Default)]
pub struct Doc<'a> {
    pub nodes: Vec<Node<'a>>,
    pub root: Option<NodeId>,
    /// Key indexes of the large mappings, so that a lookup stays O(1) when a mapping has
    /// 100k keys or is aliased 100k times (a scan would make loading quadratic).
    index: HashMap<NodeId, MapIndex>,
    hasher: RandomState,
    /// Documents after the first (only the first is read): how many, and where the second
    /// starts (line, column).
    pub more_documents: Option<(usize, u32, u32)>,
}

/// Mappings with more entries than this get a [`MapIndex`]; smaller ones are scanned.
const INDEXED_MAP: usize = 16;

/// Where a large mapping's keys are: key hash to the last entry with that key (a colliding
/// hash falls back to a scan), and the positions of its `<<` merge keys.
#[derive(Debug, Clone, Default)]
struct MapIndex {
    keys: HashMap<u64, u32>,
    merges: Vec<u32>,
}

/// A parse failure with its 1-based position.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// A collection being filled while events arrive.
struct Open {
    id: NodeId,
    /// For mappings: the key waiting for its value.
    pending_key: Option<NodeId>,
}

/// Parses `text` into a [`Doc`]. Only the first document of a stream is read.
pub fn parse<'a>(text: &'a str, limits: &Limits) -> Result<Doc<'a>, ParseError> {
    if text.len() > limits.max_bytes {
        return Err(ParseError {
            line: 1,
            col: 1,
            message: format!(
                "file is {} bytes, over the limit of {} bytes",
                text.len(),
                limits.max_bytes
            ),
        });
    }
    let options = granit_parser::options! {
        emit_anchor_events: true,
        emit_comments: false,
        flow_nesting_limit: limits.max_depth,
        block_nesting_limit: limits.max_depth,
    };
    // Typical toolkit YAML has one node per 6 to 8 bytes; reserving avoids regrowth. The
    // reservation is only address space until nodes are written.
    let mut builder = Builder {
        doc: Doc {
            nodes: Vec::with_capacity(
                (text.len() / 6)
                    .min(limits.max_nodes)
                    .min(limits.memory_budget(text.len()) / 2 / std::mem::size_of::<Node>()),
            ),
            ..Doc::default()
        },
        budget: Budget {
            limit: limits.memory_budget(text.len()),
            used: text.len(),
        },
        stack: Vec::new(),
        anchors: Vec::new(),
        limits: *limits,
        text,
        documents: 0,
    };
    let mut events = Parser::new_from_str_with_options(text, options);
    for next in events.by_ref() {
        let (event, span) = next.map_err(|e| ParseError {
            line: e.marker().line() as u32,
            col: e.marker().col() as u32 + 1,
            message: e.info(),
        })?;
        let start = span.start.byte_offset().unwrap_or(0);
        let end = span.end.byte_offset().unwrap_or(start);
        let pos = Pos {
            range: start..end,
            line: span.start.line() as u32,
            col: span.start.col() as u32 + 1,
        };
        if !builder.event(event, pos)? {
            break;
        }
    }
    let mut doc = builder.doc;
    // Later documents are not built, only counted, so they are reported rather than
    // silently dropped; a syntax error in them ends the count.
    for next in events {
        let Ok((event, span)) = next else { break };
        if let Event::DocumentStart(..) = event {
            let (line, col) = (span.start.line() as u32, span.start.col() as u32 + 1);
            let more = doc.more_documents.get_or_insert((0, line, col));
            more.0 += 1;
        }
    }
    Ok(doc)
}

struct Pos {
    range: Range<usize>,
    line: u32,
    col: u32,
}

/// What the tree built so far costs, counted as it is built (the node array, child lists,
/// decoded strings), so a load fails with a clear error before it crosses the memory
/// budget instead of being killed or thrashing.
struct Budget {
    limit: usize,
    /// Bytes counted, besides the node array (the input text, lists, strings).
    used: usize,
}

impl Budget {
    fn check(&self, nodes_bytes: usize, pos: &Pos) -> Result<(), ParseError> {
        if self.used.saturating_add(nodes_bytes) > self.limit {
            return Err(error_at(
                pos,
                format!(
                    "loading this file would use more than its memory budget of {} MB (12 times its size plus 100 MB, at most 2 GB); the resource limit was reached",
                    self.limit >> 20
                ),
            ));
        }
        Ok(())
    }
}

/// Bytes one child entry costs in its parent's list (lists are shrunk to fit when closed).
const CHILD_BYTES: usize = 4;
/// Bytes a collection's own list costs besides its entries (allocation and slack).
const LIST_BYTES: usize = 24;

struct Builder<'t> {
    budget: Budget,
    doc: Doc<'t>,
    stack: Vec<Open>,
    /// Parser anchor id -> node, indexed by id.
    anchors: Vec<Option<NodeId>>,
    limits: Limits,
    text: &'t str,
    documents: u32,
}

impl<'t> Builder<'t> {
    /// Handles one event; returns `false` once the first document is complete.
    fn event(&mut self, event: Event<'t>, pos: Pos) -> Result<bool, ParseError> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
            }
            Event::DocumentEnd => return Ok(self.documents == 0),
            Event::StreamStart | Event::StreamEnd => {}
            Event::Scalar(text, style, anchor, _) => {
                if text.len() > self.limits.max_scalar_bytes {
                    return Err(error_at(
                        &pos,
                        format!(
                            "a scalar of {} bytes is over the limit of {} bytes",
                            text.len(),
                            self.limits.max_scalar_bytes
                        ),
                    ));
                }
                if let Cow::Owned(s) = &text {
                    self.budget.used += s.capacity();
                }
                let value = Value::Scalar {
                    text,
                    style: style_of(style),
                };
                let id = self.push(value, &pos, false)?;
                self.remember_anchor(anchor, id);
                self.attach(id);
            }
            Event::Alias(anchor) => {
                let target = self
                    .anchors
                    .get(anchor)
                    .copied()
                    .flatten()
                    .ok_or_else(|| error_at(&pos, "alias to an unknown anchor".into()))?;
                let id = self.push(Value::Alias(target), &pos, false)?;
                self.attach(id);
            }
            Event::Anchor(_, name) => {
                // Follows the node it names: the most recently created node.
                if let Some(last) = self.doc.nodes.last_mut() {
                    last.anchor = Some(Box::new((name.into_owned(), pos.range.clone())));
                }
            }
            Event::SequenceStart(style, anchor, _) => {
                self.open(Value::Seq(Vec::new()), style, anchor, &pos)?;
            }
            Event::MappingStart(style, anchor, _) => {
                self.open(Value::Map(Vec::new()), style, anchor, &pos)?;
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(&pos),
            Event::UnresolvedAlias(_) => {
                return Err(error_at(&pos, "alias to an unknown anchor".into()));
            }
            #[allow(unreachable_patterns)]
            _ => {}
        }
        Ok(true)
    }

    fn push(&mut self, value: Value<'t>, pos: &Pos, flow: bool) -> Result<NodeId, ParseError> {
        if self.doc.nodes.len() >= self.limits.max_nodes {
            return Err(error_at(
                pos,
                format!("more than {} YAML nodes", self.limits.max_nodes),
            ));
        }
        let nodes = &mut self.doc.nodes;
        if nodes.len() == nodes.capacity() {
            // Grow by a quarter, not double, and only within the budget (counted as address
            // space, so a `ulimit -v` ceiling at the budget is never hit first).
            let extra = (nodes.capacity() / 4).max(1024);
            let node = std::mem::size_of::<Node>();
            self.budget.check((nodes.capacity() + extra) * node, pos)?;
            nodes.reserve_exact(extra);
        }
        // A child entry in its parent's list, and the list itself for a collection.
        self.budget.used += CHILD_BYTES
            + if matches!(value, Value::Seq(_) | Value::Map(_)) {
                LIST_BYTES
            } else {
                0
            };
        self.budget.check(
            (self.doc.nodes.len() + 1) * std::mem::size_of::<Node>(),
            pos,
        )?;
        let id = self.doc.nodes.len() as NodeId;
        self.doc.nodes.push(Node {
            value,
            span: pos.range.clone(),
            line: pos.line,
            col: pos.col,
            flow,
            anchor: None,
        });
        Ok(id)
    }

    fn remember_anchor(&mut self, anchor: usize, id: NodeId) {
        if anchor == 0 {
            return;
        }
        if self.anchors.len() <= anchor {
            self.anchors.resize(anchor + 1, None);
        }
        self.anchors[anchor] = Some(id);
    }

    fn open(
        &mut self,
        value: Value<'t>,
        style: StructureStyle,
        anchor: usize,
        pos: &Pos,
    ) -> Result<(), ParseError> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(error_at(
                pos,
                format!("nesting deeper than {} levels", self.limits.max_depth),
            ));
        }
        let id = self.push(value, pos, style == StructureStyle::Flow)?;
        self.remember_anchor(anchor, id);
        self.attach(id);
        self.stack.push(Open {
            id,
            pending_key: None,
        });
        Ok(())
    }

    fn close(&mut self, pos: &Pos) {
        if let Some(open) = self.stack.pop() {
            let node = &self.doc.nodes[open.id as usize];
            // Block collections end where their last child ends, not at the next token.
            let end = match &node.value {
                Value::Seq(items) => items.last().copied(),
                Value::Map(entries) => entries.last().map(|(_, v)| *v),
                _ => None,
            };
            let end = if node.flow {
                pos.range.end.max(node.span.start)
            } else {
                end.map(|c| self.doc.nodes[c as usize].span.end)
                    .unwrap_or(node.span.start)
            };
            let node = &mut self.doc.nodes[open.id as usize];
            node.span.end = end.min(self.text.len()).max(node.span.start);
            // Lists are final now: give back the growth slack. A large mapping's key index
            // costs about 32 bytes an entry.
            match &mut node.value {
                Value::Seq(items) => items.shrink_to_fit(),
                Value::Map(entries) => {
                    entries.shrink_to_fit();
                    if entries.len() > INDEXED_MAP {
                        self.budget.used += entries.len() * 32;
                    }
                }
                _ => {}
            }
            self.doc.index_map(open.id);
        }
    }

    /// Adds a finished node to the open collection (or makes it the root).
    fn attach(&mut self, id: NodeId) {
        let Some(top) = self.stack.last_mut() else {
            if self.doc.root.is_none() {
                self.doc.root = Some(id);
            }
            return;
        };
        match &mut self.doc.nodes[top.id as usize].value {
            Value::Seq(items) => items.push(id),
            Value::Map(entries) => match top.pending_key.take() {
                None => top.pending_key = Some(id),
                Some(key) => entries.push((key, id)),
            },
            _ => {}
        }
    }
}

fn style_of(style: ScalarStyle) -> Style {
    match style {
        ScalarStyle::Plain => Style::Plain,
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        _ => Style::Folded,
    }
}

fn error_at(pos: &Pos, message: String) -> ParseError {
    ParseError {
        line: pos.line,
        col: pos.col,
        message,
    }
}

/// A scalar read with YAML's core-schema rules (plus the YAML 1.1 booleans PyYAML accepts).
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
}

impl<'a> Doc<'a> {
    /// Builds the key index of a finished mapping when it is large.
    fn index_map(&mut self, map: NodeId) {
        let Value::Map(entries) = &self.nodes[map as usize].value else {
            return;
        };
        if entries.len() <= INDEXED_MAP {
            return;
        }
        let mut index = MapIndex::default();
        for (i, (k, _)) in entries.iter().enumerate() {
            if self.is_merge_key(*k) {
                index.merges.push(i as u32);
            } else if let Some(key) = self.str(*k) {
                index.keys.insert(self.hasher.hash_one(key), i as u32);
            }
        }
        self.index.insert(map, index);
    }

    /// The last direct (not merged) entry for `key` in the mapping `map` (resolved).
    fn direct_entry(&self, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        let entries = self.map(map)?;
        let scan = || {
            entries
                .iter()
                .rev()
                .find(|(k, _)| self.str(*k) == Some(key) && !self.is_merge_key(*k))
                .copied()
        };
        let Some(index) = self.index.get(&map) else {
            return scan();
        };
        let at = *index.keys.get(&self.hasher.hash_one(key))?;
        let found = entries[at as usize];
        if self.str(found.0) == Some(key) {
            Some(found)
        } else {
            scan()
        }
    }

    /// The node, following an alias to its anchored node.
    pub fn resolve(&self, id: NodeId) -> NodeId {
        match self.nodes[id as usize].value {
            Value::Alias(target) => target,
            _ => id,
        }
    }

    pub fn node(&self, id: NodeId) -> &Node<'a> {
        &self.nodes[id as usize]
    }

    /// Items of a sequence (after following an alias), or `None` if not a sequence.
    pub fn seq(&self, id: NodeId) -> Option<&[NodeId]> {
        match &self.node(self.resolve(id)).value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// Entries of a mapping (after following an alias), or `None` if not a mapping.
    pub fn map(&self, id: NodeId) -> Option<&[(NodeId, NodeId)]> {
        match &self.node(self.resolve(id)).value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// Text of a scalar (after following an alias).
    pub fn str(&self, id: NodeId) -> Option<&str> {
        match &self.node(self.resolve(id)).value {
            Value::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The entry for `key` in a mapping: the last one written, then `<<` merge keys.
    pub fn entry(&self, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        let map = self.resolve(map);
        let entries = self.map(map)?;
        if let Some(found) = self.direct_entry(map, key) {
            return Some(found);
        }
        // Merge keys (`<<: *base` or `<<: [*a, *b]`); one level, which covers real configs
        // and cannot loop. A large mapping lists its merge keys in its index.
        let merges: Vec<(NodeId, NodeId)> = match self.index.get(&map) {
            Some(index) => index.merges.iter().map(|&i| entries[i as usize]).collect(),
            None => entries
                .iter()
                .filter(|(k, _)| self.is_merge_key(*k))
                .copied()
                .collect(),
        };
        for (_, v) in merges {
            let sources: Vec<NodeId> = match self.seq(v) {
                Some(items) => items.to_vec(),
                None => vec![v],
            };
            for src in sources {
                if let Some(found) = self.direct_entry(self.resolve(src), key) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// The value for `key` in a mapping.
    pub fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        self.entry(map, key).map(|(_, v)| v)
    }

    fn is_merge_key(&self, key: NodeId) -> bool {
        matches!(&self.node(key).value, Value::Scalar { text, style: Style::Plain } if text == "<<")
    }

    /// The scalar's value under the core schema.
    pub fn scalar(&self, id: NodeId) -> Option<Scalar<'_>> {
        let Value::Scalar { text, style } = &self.node(self.resolve(id)).value else {
            return None;
        };
        if *style != Style::Plain {
            return Some(Scalar::Str(text));
        }
        Some(plain_scalar(text))
    }

    /// Anchor name of the node `id` resolves to, if it has one.
    pub fn anchor_name(&self, id: NodeId) -> Option<&str> {
        self.node(self.resolve(id))
            .anchor
            .as_ref()
            .map(|a| a.0.as_str())
    }
}

/// Reads a plain scalar: null, booleans (YAML 1.1 spellings too), integers, floats.
pub fn plain_scalar(text: &str) -> Scalar<'_> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Scalar::Null,
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
            return Scalar::Bool(true);
        }
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
            return Scalar::Bool(false);
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Scalar::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Scalar::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Scalar::Float(f64::NAN),
        _ => {}
    }
    let looks_numeric = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'_'))
        && text.bytes().any(|b| b.is_ascii_digit());
    if looks_numeric {
        let cleaned: String = text.chars().filter(|c| *c != '_').collect();
        if let Ok(i) = cleaned.parse::<i64>() {
            return Scalar::Int(i);
        }
        if let Ok(f) = cleaned.parse::<f64>() {
            return Scalar::Float(f);
        }
    }
    Scalar::Str(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Doc<'_> {
        parse(text, &Limits::default()).expect("parses")
    }

    #[test]
    fn keeps_positions_and_spans() {
        let text = "a: 1\nb:\n  - x\n  - {name: y, score: 0.5}\n";
        let d = doc(text);
        let root = d.root.unwrap();
        let b = d.get(root, "b").unwrap();
        let items = d.seq(b).unwrap();
        assert_eq!(items.len(), 2);
        let second = d.node(items[1]);
        assert!(second.flow);
        assert_eq!(second.line, 4);
        assert_eq!(second.col, 5);
        assert_eq!(&text[second.span.clone()], "{name: y, score: 0.5}");
        let score = d.get(items[1], "score").unwrap();
        assert_eq!(d.scalar(score), Some(Scalar::Float(0.5)));
        assert_eq!(&text[d.node(score).span.clone()], "0.5");
    }

    #[test]
    fn aliases_point_at_anchors_without_copying() {
        let d = doc("t: &tool {name: X}\nuse: [*tool, *tool]\n");
        let root = d.root.unwrap();
        let uses = d.seq(d.get(root, "use").unwrap()).unwrap();
        assert_eq!(d.resolve(uses[0]), d.get(root, "t").unwrap());
        assert_eq!(d.anchor_name(uses[1]), Some("tool"));
        assert_eq!(d.str(d.get(uses[0], "name").unwrap()), Some("X"));
    }

    #[test]
    fn merge_keys_and_last_duplicate_win() {
        let d = doc("base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n  y: 4\n");
        let m = d.get(d.root.unwrap(), "m").unwrap();
        assert_eq!(d.scalar(d.get(m, "x").unwrap()), Some(Scalar::Int(1)));
        assert_eq!(d.scalar(d.get(m, "y").unwrap()), Some(Scalar::Int(4)));
    }

    #[test]
    fn quoted_numbers_stay_strings() {
        let d = doc("a: '0.5'\nb: .inf\nc: yes\nd: ~\n");
        let r = d.root.unwrap();
        assert_eq!(d.scalar(d.get(r, "a").unwrap()), Some(Scalar::Str("0.5")));
        assert_eq!(
            d.scalar(d.get(r, "b").unwrap()),
            Some(Scalar::Float(f64::INFINITY))
        );
        assert_eq!(d.scalar(d.get(r, "c").unwrap()), Some(Scalar::Bool(true)));
        assert_eq!(d.scalar(d.get(r, "d").unwrap()), Some(Scalar::Null));
    }

    #[test]
    fn errors_carry_line_and_column() {
        let err = parse("a: [1, 2\nb: 3\n", &Limits::default()).unwrap_err();
        assert!(err.line >= 1, "{err}");
        assert!(!err.message.is_empty());
    }

    #[test]
    fn deep_nesting_is_refused_quickly() {
        let text = "[".repeat(100_000);
        let err = parse(&text, &Limits::default()).unwrap_err();
        assert!(
            err.message.contains("recursion") || err.message.contains("deep"),
            "{err}"
        );
        let text = "{a: ".repeat(100_000);
        assert!(parse(&text, &Limits::default()).is_err());
        let text = "- ".repeat(100_000);
        assert!(parse(&text, &Limits::default()).is_err());
    }

    #[test]
    fn alias_bombs_cost_one_node_per_alias() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 9].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let d = doc(&text);
        assert!(d.nodes.len() < 200);
    }
}
