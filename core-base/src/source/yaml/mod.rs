//! A YAML document tree that remembers where every node came from.
//!
//! Built from granit-parser's event stream (the parser inside serde-saphyr) rather than a
//! typed deserializer, because toolscope needs two things a typed loader throws away: the
//! line and column of every node (for diagnostics) and its byte range, style and anchor (for
//! lossless write-back, which splices bytes at these positions).
//!
//! Most toolkit files have a plain shape (block collections, one-line scalars and flow
//! collections, literal and folded blocks); `fast` reads that shape in one pass and feeds
//! the builder the events granit-parser would, at the same positions, so the tree is the
//! same node for node. Any other text, and any error, goes to granit-parser (`build`).
//!
//! Aliases are kept as references to their anchored node and are never expanded, so an
//! "alias bomb" costs one node per alias. The builder uses an explicit stack; the fast
//! reader recurses, but gives up past the depth limit, so its stack stays within 128
//! levels. Every resource is bounded by [`Limits`]; see docs/reliability.md.
//!
//! # Layout
//!
//! A 100k-action file has about four million nodes, so the tree is built for size:
//!
//! - Nodes live in one arena of 16-byte records: byte span as two `u32`s, one word packing
//!   kind, scalar style, flow, anchor and text-place flags with the column, and one word of
//!   payload. Columns past 8 million (lines longer than 8 MB) go to a side table. The
//!   column is stored rather than recounted from the text on demand: recounting costs the
//!   length of the line, which on a one-line flow file would make reporting every node's
//!   position quadratic.
//! - Lines are not in the records: most lines hold several nodes, so they are kept as runs
//!   (first node, line), found by binary search behind a hint that makes the graph build's
//!   in-order lookups constant time. At 100k actions that is 451k runs for 4.2M nodes.
//! - The children of every sequence sit in one shared array and the entries of every
//!   mapping in another (key and value ids side by side); a collection holds where its run
//!   starts, and the run's first element holds its length. Two arrays rather than one so
//!   that [`Doc::map`] can hand out `&[(key, value)]` without unsafe casts; the cost is the
//!   same four bytes per id.
//! - A scalar's text is not copied when the parser took it straight from the source (plain
//!   and quoted scalars without escapes or line folding). When the text is the node's span,
//!   or the span less its quotes, the node keeps only where the text starts; otherwise its
//!   offset and length go in a side list. Text that differs from the source (escapes,
//!   folded lines, block scalars) is copied once into a side arena.
//! - Anchors (name and `&name` range) are in a side table sorted by node, found by binary
//!   search behind a flag bit; few nodes have one.
//!
//! # Ownership
//!
//! A [`Doc`] does not borrow the text: it holds it as an `Arc<str>`, so the workspace can
//! keep a parsed document beside its text across edits, and [`Doc::str`] and [`Doc::node`]
//! still hand out text without the caller passing it back in. An `Arc` rather than methods
//! taking the text because a document read against the wrong text would silently return
//! wrong slices; sharing the one text makes that impossible. [`parse`] copies the text once
//! (a memcpy, counted in the memory budget); [`parse_shared`] takes a text already shared.

mod build;
mod fast;
mod unclosed;

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::ops::Range;
use std::sync::Arc;

pub use build::{parse, parse_shared};

thread_local! {
    /// Bytes [`parse`] and [`parse_shared`] were given on this thread (see [`parsed_bytes`]).
    static PARSED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many bytes of YAML this thread has parsed so far: tests that a batch of edits
/// costs one parse of the file however many edits it holds (issue 35), by growth
/// rather than by wall time.
#[doc(hidden)]
pub fn parsed_bytes() -> u64 {
    PARSED.with(std::cell::Cell::get)
}

fn count_parsed(bytes: usize) {
    PARSED.with(|p| p.set(p.get().saturating_add(bytes as u64)));
}

/// Whether the fast reader (module `fast`), when it reads `text`, builds the tree
/// granit-parser's events build; for the fuzz target `yaml_fast_reader`.
#[doc(hidden)]
pub fn fast_reader_agrees(text: &str) -> bool {
    fast::agrees_with_granit(text)
}

/// `None` when the fast reader gives `text` up, else whether it builds granit-parser's
/// tree; for tests of texts made above this crate (toolscope-edit's generated kits).
#[doc(hidden)]
pub fn fast_reader_reads(text: &str) -> Option<bool> {
    fast::reads_as_granit(text)
}

/// Index of a node in the document.
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
    /// size plus 100 MB, and never more than this (docs/reliability.md).
    pub max_memory: usize,
    /// Files up to this size are checked whole on every edit (a refused edit changes
    /// nothing, and the bytes outside the edit are proven unchanged at once); larger ones
    /// are patched in the edited item's lines and verified before writing.
    pub verify_each_edit_bytes: usize,
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
            verify_each_edit_bytes: 1 << 20,
        }
    }
}
/// What a node holds (a view into the document).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'d> {
    Scalar {
        text: &'d str,
        style: Style,
    },
    Seq(&'d [NodeId]),
    /// Key/value pairs in source order (duplicate keys kept; lookups take the last).
    Map(&'d [(NodeId, NodeId)]),
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

const STYLES: [Style; 5] = [
    Style::Plain,
    Style::SingleQuoted,
    Style::DoubleQuoted,
    Style::Literal,
    Style::Folded,
];

/// An anchor's name and the byte range of its `&name` token.
pub type Anchor = (String, Range<usize>);

/// One node with its source position, as [`Doc::node`] returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node<'d> {
    pub value: Value<'d>,
    /// Byte range of the node's content in the source (for collections, from the first
    /// to the last byte of the collection as the parser reports it).
    pub span: Range<usize>,
    /// 1-based line of the node's start.
    pub line: u32,
    /// 1-based column (in characters) of the node's start.
    pub col: u32,
    /// `true` for flow collections (`[..]`, `{..}`).
    pub flow: bool,
    /// Anchor name and the byte range of the `&name` token.
    pub anchor: Option<&'d Anchor>,
}

/// The kind of a stored node (the low two bits of [`Packed::head`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scalar = 0,
    Seq = 1,
    Map = 2,
    Alias = 3,
}

const KIND_MASK: u32 = 0b11;
const STYLE_SHIFT: u32 = 2;
const STYLE_MASK: u32 = 0b111 << STYLE_SHIFT;
const FLOW: u32 = 1 << 5;
const ANCHORED: u32 = 1 << 6;
/// The scalar's text is in [`Doc::decoded`], not in the source.
const DECODED: u32 = 1 << 7;
/// The scalar's text lies in its own span, as far from the span's end as `a` is from its
/// start (a plain scalar, or a quoted one without escapes); else `a` indexes
/// [`Doc::texts`].
const CENTERED: u32 = 1 << 8;
/// A scalar's tag overrides what its text would resolve to (see [`TagClass`]).
const TAG_SHIFT: u32 = 9;
const TAG_MASK: u32 = 0b11 << TAG_SHIFT;
const COL_SHIFT: u32 = 11;
/// Columns from here on are in [`Doc::wide_cols`].
const COL_MAX: u32 = (1 << 21) - 1;

/// What a scalar's tag makes of it, as PyYAML (Chat2Graph's reader) reads it: `!!str`, the
/// non-specific `!` and any tag outside the core schema (`!!binary`, `!foo`) keep the text
/// a string, never a number; `!!null` is null whatever the text. No tag, and the core
/// number and boolean tags, leave the text to resolve as it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TagClass {
    Resolved = 0,
    Str = 1,
    Null = 2,
}

/// A stored node: 16 bytes (a 100k-action file has four million of them).
///
/// Payload `a`: a [`CENTERED`] scalar's text offset in the source, another scalar's index
/// in [`Doc::texts`]; a collection's run in [`Doc::items`] or [`Doc::entries`], whose
/// first element holds the count and the children follow; an alias's target. The node's
/// line is kept apart, in [`Doc::lines`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Packed {
    start: u32,
    end: u32,
    head: u32,
    a: u32,
}

impl Packed {
    fn new(kind: Kind, pos: &build::Pos, a: u32) -> Packed {
        Packed {
            start: pos.range.start as u32,
            end: pos.range.end as u32,
            head: kind as u32,
            a,
        }
    }

    fn with_style(mut self, style: Style) -> Packed {
        self.head |= (style as u32) << STYLE_SHIFT;
        self
    }

    fn kind(&self) -> Kind {
        match self.head & KIND_MASK {
            0 => Kind::Scalar,
            1 => Kind::Seq,
            2 => Kind::Map,
            _ => Kind::Alias,
        }
    }

    fn style(&self) -> Style {
        STYLES[((self.head & STYLE_MASK) >> STYLE_SHIFT) as usize % STYLES.len()]
    }

    fn is_flow(&self) -> bool {
        self.head & FLOW != 0
    }

    fn tag_class(&self) -> TagClass {
        match (self.head & TAG_MASK) >> TAG_SHIFT {
            1 => TagClass::Str,
            2 => TagClass::Null,
            _ => TagClass::Resolved,
        }
    }
}

/// A parsed YAML document.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    /// The text parsed (shared, never copied again).
    text: Arc<str>,
    nodes: Vec<Packed>,
    /// Children of all sequences, each sequence's run contiguous.
    items: Vec<NodeId>,
    /// Entries of all mappings, each mapping's run contiguous.
    entries: Vec<(NodeId, NodeId)>,
    /// Scalar texts that differ from their source bytes, back to back.
    decoded: String,
    /// Anchored nodes, sorted by node id.
    anchors: Vec<(NodeId, Anchor)>,
    /// Columns too large for the packed word, sorted by node id.
    wide_cols: Vec<(NodeId, u32)>,
    /// Where scalars that are not [`CENTERED`] keep their text: offset and length, in the
    /// source or (when [`DECODED`]) in `decoded`.
    texts: Vec<(u32, u32)>,
    /// Node lines, run-length coded: each run's first node and its line, in id order.
    lines: Vec<(NodeId, u32)>,
    /// The run last looked up: origins are asked for in id order, so the next answer is
    /// almost always in this run or the next.
    line_hint: LineHint,
    pub root: Option<NodeId>,
    /// Key indexes of the large mappings, so that a lookup stays O(1) when a mapping has
    /// 100k keys or is aliased 100k times (a scan would make loading quadratic).
    index: HashMap<NodeId, MapIndex>,
    hasher: RandomState,
    /// Documents after the first (only the first is read): how many, and where the second
    /// starts (line, column).
    pub more_documents: Option<(usize, u32, u32)>,
}

/// The line run last looked up (relaxed atomic, so a shared document stays `Sync`).
#[derive(Debug, Default)]
struct LineHint(std::sync::atomic::AtomicUsize);

impl LineHint {
    fn get(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set(&self, run: usize) {
        self.0.store(run, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for LineHint {
    fn clone(&self) -> LineHint {
        LineHint(self.get().into())
    }
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

/// A scalar read with YAML's core-schema rules (plus the YAML 1.1 booleans PyYAML accepts).
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
}

impl Doc {
    /// Whether two documents hold the same tree, node for node (the key indexes follow
    /// from it).
    pub(crate) fn same_tree(&self, other: &Doc) -> bool {
        self.text == other.text
            && self.nodes == other.nodes
            && self.items == other.items
            && self.entries == other.entries
            && self.decoded == other.decoded
            && self.anchors == other.anchors
            && self.wide_cols == other.wide_cols
            && self.texts == other.texts
            && self.lines == other.lines
            && self.root == other.root
            && self.more_documents == other.more_documents
            && self.index_shape() == other.index_shape()
    }

    /// The large mappings' key indexes: each mapping, its key count and merge entries
    /// (the hashes depend on the document's hasher, so they are left out).
    fn index_shape(&self) -> Vec<(NodeId, usize, &[u32])> {
        let mut shape: Vec<_> = self
            .index
            .iter()
            .map(|(&id, i)| (id, i.keys.len(), i.merges.as_slice()))
            .collect();
        shape.sort_unstable();
        shape
    }

    /// The text this document was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The shared text, for keeping beside the document without a copy.
    pub fn shared_text(&self) -> Arc<str> {
        Arc::clone(&self.text)
    }

    /// Bytes this document holds (its text included), counted the way the parser counts
    /// them against the memory budget.
    pub fn memory_bytes(&self) -> usize {
        let anchors: usize = self.anchors.iter().map(|(_, a)| 64 + a.0.len()).sum();
        let index: usize = self
            .index
            .values()
            .map(|i| (i.keys.len() + i.merges.len()) * build::INDEX_BYTES)
            .sum();
        self.text.len()
            + self.nodes.capacity() * std::mem::size_of::<Packed>()
            + self.items.capacity() * 4
            + self.entries.capacity() * 8
            + self.decoded.capacity()
            + self.wide_cols.capacity() * 8
            + self.texts.capacity() * 8
            + self.lines.capacity() * 8
            + anchors
            + index
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node in id order (ids are `0..len()`).
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = Node<'_>> + '_ {
        (0..self.nodes.len() as NodeId).map(|id| self.node(id))
    }

    /// The node `id` with its value and position.
    pub fn node(&self, id: NodeId) -> Node<'_> {
        let p = &self.nodes[id as usize];
        Node {
            value: self.value_of(p),
            span: p.start as usize..p.end as usize,
            line: self.line_of(id),
            col: self.col_of(id, p),
            flow: p.is_flow(),
            anchor: self.anchor_of(id, p),
        }
    }

    /// The 1-based line and column of the node `id` (what [`Doc::node`] gives, without
    /// reading its value: the graph build asks this for every node and edge).
    pub fn position(&self, id: NodeId) -> (u32, u32) {
        (self.line_of(id), self.col_of(id, &self.nodes[id as usize]))
    }

    /// What the node `id` holds (without following an alias).
    pub fn value(&self, id: NodeId) -> Value<'_> {
        self.value_of(&self.nodes[id as usize])
    }

    /// Byte range of the node `id` in the source.
    pub fn span(&self, id: NodeId) -> Range<usize> {
        let p = &self.nodes[id as usize];
        p.start as usize..p.end as usize
    }

    fn value_of(&self, p: &Packed) -> Value<'_> {
        match p.kind() {
            Kind::Scalar => Value::Scalar {
                text: self.text_of(p),
                style: p.style(),
            },
            Kind::Seq => Value::Seq(self.items_of(p)),
            Kind::Map => Value::Map(self.entries_of(p)),
            Kind::Alias => Value::Alias(p.a),
        }
    }

    fn text_of(&self, p: &Packed) -> &str {
        let (at, end) = if p.head & CENTERED != 0 {
            (p.a, p.end - (p.a - p.start))
        } else {
            let (at, len) = self.texts[p.a as usize];
            (at, at + len)
        };
        let range = at as usize..end as usize;
        if p.head & DECODED != 0 {
            &self.decoded[range]
        } else {
            &self.text[range]
        }
    }

    /// A sequence's children: the run at `a`, after its count (none while it is open).
    fn items_of(&self, p: &Packed) -> &[NodeId] {
        let at = p.a as usize;
        let count = self.items.get(at).map_or(0, |&n| n as usize);
        self.items.get(at + 1..at + 1 + count).unwrap_or_default()
    }

    /// A mapping's entries: the run at `a`, after its count (none while it is open).
    fn entries_of(&self, p: &Packed) -> &[(NodeId, NodeId)] {
        let at = p.a as usize;
        let count = self.entries.get(at).map_or(0, |e| e.0 as usize);
        self.entries.get(at + 1..at + 1 + count).unwrap_or_default()
    }

    /// The 1-based line of the node `id`.
    fn line_of(&self, id: NodeId) -> u32 {
        let runs = &self.lines;
        let covers = |i: usize| {
            runs.get(i).is_some_and(|r| r.0 <= id) && runs.get(i + 1).is_none_or(|r| r.0 > id)
        };
        let hint = self.line_hint.get();
        let run = if covers(hint) {
            hint
        } else if covers(hint + 1) {
            hint + 1
        } else {
            runs.partition_point(|r| r.0 <= id).saturating_sub(1)
        };
        self.line_hint.set(run);
        runs.get(run).map_or(1, |r| r.1)
    }

    fn col_of(&self, id: NodeId, p: &Packed) -> u32 {
        let col = p.head >> COL_SHIFT;
        if col < COL_MAX {
            return col;
        }
        match self.wide_cols.binary_search_by_key(&id, |(n, _)| *n) {
            Ok(i) => self.wide_cols[i].1,
            Err(_) => col,
        }
    }

    fn anchor_of(&self, id: NodeId, p: &Packed) -> Option<&Anchor> {
        if p.head & ANCHORED == 0 {
            return None;
        }
        let i = self.anchors.binary_search_by_key(&id, |(n, _)| *n).ok()?;
        Some(&self.anchors[i].1)
    }

    /// The stored node `id` resolves to.
    fn packed(&self, id: NodeId) -> &Packed {
        &self.nodes[self.resolve(id) as usize]
    }

    /// Builds the key index of a finished mapping when it is large.
    fn index_map(&mut self, map: NodeId) {
        let Some(entries) = self.map(map) else {
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
        let p = &self.nodes[id as usize];
        match p.kind() {
            Kind::Alias => p.a,
            _ => id,
        }
    }

    /// Items of a sequence (after following an alias), or `None` if not a sequence.
    pub fn seq(&self, id: NodeId) -> Option<&[NodeId]> {
        let p = self.packed(id);
        (p.kind() == Kind::Seq).then(|| self.items_of(p))
    }

    /// Entries of a mapping (after following an alias), or `None` if not a mapping.
    pub fn map(&self, id: NodeId) -> Option<&[(NodeId, NodeId)]> {
        let p = self.packed(id);
        (p.kind() == Kind::Map).then(|| self.entries_of(p))
    }

    /// Text of a scalar (after following an alias).
    pub fn str(&self, id: NodeId) -> Option<&str> {
        let p = self.packed(id);
        (p.kind() == Kind::Scalar).then(|| self.text_of(p))
    }

    /// Text of a scalar (after following an alias) unless it is null (plain empty, `~` or
    /// `null`): [`Doc::scalar`]'s answer to "is it text?" without classifying the rest.
    pub fn text_or_null(&self, id: NodeId) -> Option<&str> {
        let p = self.packed(id);
        if p.kind() != Kind::Scalar {
            return None;
        }
        let text = self.text_of(p);
        let null = match p.tag_class() {
            TagClass::Null => true,
            TagClass::Str => false,
            TagClass::Resolved => p.style() == Style::Plain && plain_scalar_null(text),
        };
        (!null).then_some(text)
    }

    /// Style of a scalar (after following an alias).
    pub fn style(&self, id: NodeId) -> Option<Style> {
        let p = self.packed(id);
        (p.kind() == Kind::Scalar).then(|| p.style())
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
        let p = &self.nodes[key as usize];
        p.kind() == Kind::Scalar && p.style() == Style::Plain && self.text_of(p) == "<<"
    }

    /// The scalar's value under the core schema.
    pub fn scalar(&self, id: NodeId) -> Option<Scalar<'_>> {
        let p = self.packed(id);
        if p.kind() != Kind::Scalar {
            return None;
        }
        let text = self.text_of(p);
        match p.tag_class() {
            TagClass::Null => return Some(Scalar::Null),
            TagClass::Str => return Some(Scalar::Str(text)),
            TagClass::Resolved => {}
        }
        if p.style() != Style::Plain {
            return Some(Scalar::Str(text));
        }
        Some(plain_scalar(text))
    }

    /// Anchor name of the node `id` resolves to, if it has one.
    pub fn anchor_name(&self, id: NodeId) -> Option<&str> {
        let id = self.resolve(id);
        self.anchor_of(id, &self.nodes[id as usize])
            .map(|a| a.0.as_str())
    }
}

/// Reads a plain scalar: null, booleans (YAML 1.1 spellings too), integers, floats.
/// Whether a plain scalar's text is null under the core schema.
fn plain_scalar_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

pub fn plain_scalar(text: &str) -> Scalar<'_> {
    match text {
        _ if plain_scalar_null(text) => return Scalar::Null,
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
        // Scores are read by the hundred thousand: copy only when there is `_` to drop.
        let cleaned: std::borrow::Cow<'_, str> = if text.contains('_') {
            text.chars()
                .filter(|c| *c != '_')
                .collect::<String>()
                .into()
        } else {
            text.into()
        };
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

    /// Tags mean what PyYAML makes of them (issue 46 item 3): `!!str` and tags outside the
    /// core schema keep a string, `!!null` is null, the number tags resolve the text.
    #[test]
    fn tags_decide_what_a_scalar_is() {
        let text = "a: !!str 0.4\nb: !!null 0.4\nc: !!float 0.4\nd: !foo 1\ne: ! 2\nf: !!str\ng: 0.4\nh: !<tag:yaml.org,2002:str> 3\n";
        let doc = build::parse(text, &Limits::default()).expect("parses");
        let root = doc.root.expect("root");
        let at = |k: &str| doc.scalar(doc.get(root, k).expect("key")).expect("scalar");
        assert_eq!(at("a"), Scalar::Str("0.4"));
        assert_eq!(at("b"), Scalar::Null);
        assert_eq!(at("c"), Scalar::Float(0.4));
        assert_eq!(at("d"), Scalar::Str("1"));
        assert_eq!(at("e"), Scalar::Str("2"));
        assert_eq!(at("f"), Scalar::Str(""));
        assert_eq!(at("g"), Scalar::Float(0.4));
        assert_eq!(at("h"), Scalar::Str("3"));
        assert_eq!(doc.text_or_null(doc.get(root, "b").expect("b")), None);
        assert_eq!(doc.text_or_null(doc.get(root, "f").expect("f")), Some(""));
    }

    fn doc(text: &str) -> Doc {
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
        assert!(d.len() < 200);
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    #[test]
    fn text_or_null_agrees_with_the_core_schema() {
        let d = parse(
            "a: ~\nb: null\nc: 'null'\nd: 0.5\ne: [x]\nf: &t tool\ng: *t\nh:\ni: \"\"\nj: 1_000\n",
            &Limits::default(),
        )
        .expect("parses");
        let r = d.root.expect("root");
        for key in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
            let v = d.get(r, key).expect("key");
            let want = match d.scalar(v) {
                Some(Scalar::Null) | None => None,
                Some(_) => d.str(v),
            };
            assert_eq!(d.text_or_null(v), want, "{key}");
        }
        assert_eq!(d.text_or_null(d.get(r, "c").unwrap()), Some("null"));
        assert_eq!(d.scalar(d.get(r, "j").unwrap()), Some(Scalar::Int(1000)));
        assert_eq!(d.scalar(d.get(r, "d").unwrap()), Some(Scalar::Float(0.5)));
    }

    #[test]
    fn nodes_are_small() {
        assert!(std::mem::size_of::<Packed>() <= 16);
    }

    /// Lines are kept apart from the nodes, run-length coded with a lookup hint: every
    /// node reports its own line whichever order they are asked in.
    #[test]
    fn lines_read_back_in_any_order() {
        let mut text = String::from("list:\n");
        for i in 0..300 {
            // Some lines hold several nodes, some one; a blank line now and then.
            text.push_str(&format!("  - {{k{i}: v{i}, w: 'q{i}'}}\n"));
            if i % 7 == 0 {
                text.push('\n');
            }
        }
        let d = parse(&text, &Limits::default()).expect("parses");
        let want: Vec<u32> = (0..d.len() as NodeId)
            .map(|id| {
                let at = d.span(id).start;
                1 + text[..at].matches('\n').count() as u32
            })
            .collect();
        let ids: Vec<NodeId> = (0..d.len() as NodeId).collect();
        let shuffled = ids.iter().map(|i| (i * 7919) % ids.len() as NodeId);
        for id in ids
            .iter()
            .rev()
            .copied()
            .chain(ids.iter().copied())
            .chain(shuffled)
        {
            assert_eq!(d.position(id).0, want[id as usize], "node {id}");
            assert_eq!(d.node(id).line, want[id as usize], "node {id}");
        }
    }

    /// Empty collections and collections beside each other keep their own children (each
    /// run starts with its count).
    #[test]
    fn collection_runs_hold_their_own_children() {
        let d = parse(
            "a: []\nb: {}\nc: [1, [2, 3], {}]\nd: {x: [], y: {z: 1}}\n",
            &Limits::default(),
        )
        .expect("parses");
        let r = d.root.expect("root");
        assert_eq!(d.seq(d.get(r, "a").unwrap()).map(<[_]>::len), Some(0));
        assert_eq!(d.map(d.get(r, "b").unwrap()).map(<[_]>::len), Some(0));
        let c = d.seq(d.get(r, "c").unwrap()).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(d.str(c[0]), Some("1"));
        assert_eq!(
            d.seq(c[1])
                .map(|s| s.iter().map(|&i| d.str(i).unwrap()).collect::<Vec<_>>()),
            Some(vec!["2", "3"])
        );
        let dm = d.get(r, "d").unwrap();
        assert_eq!(d.map(dm).map(<[_]>::len), Some(2));
        let y = d.get(dm, "y").unwrap();
        assert_eq!(d.get(y, "z").and_then(|z| d.str(z)), Some("1"));
    }

    #[test]
    fn decoded_and_borrowed_scalars_read_back() {
        let text = "a: plain\nb: 'it''s'\nc: \"x\\ty\"\nd: |\n  one\n  two\ne: 'quoted'\nf: multi\n  line\n";
        let d = parse(text, &Limits::default()).expect("parses");
        let r = d.root.unwrap();
        let get = |k| d.str(d.get(r, k).unwrap()).unwrap().to_string();
        assert_eq!(get("a"), "plain");
        assert_eq!(get("b"), "it's");
        assert_eq!(get("c"), "x\ty");
        assert_eq!(get("d"), "one\ntwo\n");
        assert_eq!(get("e"), "quoted");
        assert_eq!(get("f"), "multi line");
        // Only the texts that differ from their source bytes are copied.
        assert_eq!(d.decoded, "it'sx\tyone\ntwo\nmulti line");
        assert_eq!(d.style(d.get(r, "e").unwrap()), Some(Style::SingleQuoted));
    }

    #[test]
    fn positions_anchors_and_wide_columns() {
        let mut text = String::from("k: [");
        text.push_str(&"x, ".repeat(20));
        text.push_str("&a y]\nz: *a\n");
        let d = parse(&text, &Limits::default()).expect("parses");
        let r = d.root.unwrap();
        let k = d.seq(d.get(r, "k").unwrap()).unwrap();
        let y = d.node(k[20]);
        assert_eq!((y.line, y.col), (1, 68));
        assert_eq!(y.anchor.map(|a| a.0.as_str()), Some("a"));
        assert_eq!(&text[y.anchor.unwrap().1.clone()], "&a");
        assert_eq!(d.resolve(d.get(r, "z").unwrap()), k[20]);
        assert!(d.node(k[19]).anchor.is_none());
        // A column past the packed word's range comes from the side table.
        let wide = format!("[a,{}{{x: 1}}]", " ".repeat(17_000_000));
        let limits = Limits {
            max_bytes: 64 << 20,
            ..Limits::default()
        };
        let d = parse(&wide, &limits).expect("parses");
        let items = d.seq(d.root.unwrap()).unwrap();
        let last = d.node(*items.last().unwrap());
        assert_eq!(last.col, 17_000_004);
        assert_eq!(d.node(items[0]).col, 2);
        assert_eq!(d.str(*items.last().unwrap()), None);
    }
}
