//! Building a [`Doc`] from granit-parser's event stream, within the [`Limits`].
//!
//! Children arrive interleaved with their descendants, so each open collection collects its
//! children on one shared scratch stack and moves them, contiguous, into the document's
//! shared child arrays when it closes. Every array grows by a quarter at a time and only
//! after the [`Budget`] has agreed, so a load stops with a clear error before it crosses
//! the memory budget.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use granit_parser::{Event, Parser, ScalarStyle, StructureStyle};

use super::{Doc, Kind, Limits, NodeId, Packed, ParseError, Style};

/// Parses `text` into a [`Doc`]. Only the first document of a stream is read. The document
/// keeps its own copy of the text (see the module documentation); [`parse_shared`] avoids it.
pub fn parse(text: &str, limits: &Limits) -> Result<Doc, ParseError> {
    check_size(text, limits)?;
    // The caller keeps its text and the document its copy: both count.
    parse_counted(Arc::from(text), limits, 2)
}

/// [`parse`] for a text the caller already shares, which the document then holds.
pub fn parse_shared(text: Arc<str>, limits: &Limits) -> Result<Doc, ParseError> {
    check_size(&text, limits)?;
    // The plain shape of most toolkits reads fast (see `fast`).
    if let Some(doc) = super::fast::parse(&text, limits, 1) {
        return Ok(doc);
    }
    parse_granit(text, limits, 1)
}

/// The whole text on this thread with granit-parser (the reference the fast reader and
/// the two-thread parse must equal).
pub(super) fn parse_one(text: Arc<str>, limits: &Limits) -> Result<Doc, ParseError> {
    parse_granit(text, limits, 1)
}

fn check_size(text: &str, limits: &Limits) -> Result<(), ParseError> {
    super::count_parsed(text.len());
    // Positions are stored as u32, so 4 GB is a hard ceiling whatever the limits say.
    let max = limits.max_bytes.min(u32::MAX as usize);
    if text.len() > max {
        return Err(ParseError {
            line: 1,
            col: 1,
            message: format!(
                "file is {} bytes, over the limit of {} bytes",
                text.len(),
                max
            ),
        });
    }
    Ok(())
}

fn parse_counted(text: Arc<str>, limits: &Limits, copies: usize) -> Result<Doc, ParseError> {
    match super::fast::parse(&text, limits, copies) {
        Some(doc) => Ok(doc),
        None => parse_granit(text, limits, copies),
    }
}

fn parse_granit(text: Arc<str>, limits: &Limits, copies: usize) -> Result<Doc, ParseError> {
    let options = granit_parser::options! {
        emit_anchor_events: true,
        emit_comments: false,
        flow_nesting_limit: limits.max_depth,
        block_nesting_limit: limits.max_depth,
    };
    let source = Arc::clone(&text);
    let mut builder = Builder::new(text, limits, copies);
    let mut events = Parser::new_from_str_with_options(&source, options);
    for next in events.by_ref() {
        let (event, span) = next.map_err(|e| {
            let (line, col) = (e.marker().line() as u32, e.marker().col() as u32 + 1);
            ParseError {
                line,
                col,
                message: super::unclosed::explain(&source, line, e.info()),
            }
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
    let mut doc = builder.finish();
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

pub(super) struct Pos {
    pub range: Range<usize>,
    pub line: u32,
    pub col: u32,
}

/// What the tree costs, counted from the capacities of its arrays (address space, so a
/// `ulimit -v` ceiling at the budget is not hit before the budget is).
struct Budget {
    limit: usize,
    /// Bytes outside the growable arrays: the text copies, anchors, key indexes.
    fixed: usize,
}

/// Bytes a large mapping's key index costs per entry (see `Doc::index_map`).
pub(super) const INDEX_BYTES: usize = 32;

/// A collection being filled while events arrive.
struct Open {
    id: NodeId,
    /// Where its children start on the scratch stack.
    from: usize,
}

pub(super) struct Builder {
    doc: Doc,
    budget: Budget,
    stack: Vec<Open>,
    /// Children of the open collections, innermost last.
    scratch: Vec<NodeId>,
    /// Parser anchor id -> node, indexed by id.
    anchors: Vec<Option<NodeId>>,
    limits: Limits,
    documents: u32,
}

impl Builder {
    pub(super) fn new(text: Arc<str>, limits: &Limits, copies: usize) -> Builder {
        let len = text.len();
        let limit = limits.memory_budget(len);
        // Toolkit YAML has about one node per 9 to 12 bytes; start a little below that so
        // a typical file grows once or twice, never more than a quarter past its need.
        let nodes = (len / 12 + 16)
            .min(limits.max_nodes)
            .min(limit / 4 / std::mem::size_of::<Packed>());
        let mut doc = Doc {
            text,
            ..Doc::default()
        };
        doc.nodes.reserve_exact(nodes);
        doc.items.reserve_exact(nodes / 4);
        doc.entries.reserve_exact(nodes / 3);
        Builder {
            doc,
            budget: Budget {
                limit,
                fixed: len.saturating_mul(copies),
            },
            stack: Vec::new(),
            scratch: Vec::with_capacity(1024),
            anchors: Vec::new(),
            limits: *limits,
            documents: 0,
        }
    }

    pub(super) fn finish(self) -> Doc {
        let mut doc = self.doc;
        // The arrays are final: give back the growth slack.
        doc.nodes.shrink_to_fit();
        doc.items.shrink_to_fit();
        doc.entries.shrink_to_fit();
        doc.decoded.shrink_to_fit();
        doc.texts.shrink_to_fit();
        doc.lines.shrink_to_fit();
        doc
    }

    /// Everything counted so far, with `extra` more bytes.
    fn used(&self, extra: usize) -> usize {
        let d = &self.doc;
        self.budget
            .fixed
            .saturating_add(d.nodes.capacity() * std::mem::size_of::<Packed>())
            .saturating_add(d.items.capacity() * 4)
            .saturating_add(d.entries.capacity() * 8)
            .saturating_add(d.decoded.capacity())
            .saturating_add(d.texts.capacity() * 8)
            .saturating_add(d.lines.capacity() * 8)
            .saturating_add(self.scratch.capacity() * 4)
            .saturating_add(self.stack.capacity() * std::mem::size_of::<Open>())
            .saturating_add(self.anchors.capacity() * 8)
            .saturating_add(extra)
    }

    /// Agrees to `extra` more bytes, or fails with the budget error at `pos`.
    fn allow(&self, extra: usize, pos: &Pos) -> Result<(), ParseError> {
        if self.used(extra) > self.budget.limit {
            return Err(error_at(
                pos,
                format!(
                    "loading this file would use more than its memory budget of {} MB (12 times its size plus 100 MB, at most 2 GB); the resource limit was reached",
                    self.budget.limit >> 20
                ),
            ));
        }
        Ok(())
    }

    /// Room for `need` more elements in one of the document's arrays (`pick` names it):
    /// it grows by a quarter (at least `need`, at least `min`), counted before it grows.
    fn make_room<T>(
        &mut self,
        pick: fn(&mut Doc) -> &mut Vec<T>,
        need: usize,
        min: usize,
        pos: &Pos,
    ) -> Result<(), ParseError> {
        let v = pick(&mut self.doc);
        if v.capacity() - v.len() >= need {
            return Ok(());
        }
        let extra = (v.capacity() / 4).max(need).max(min);
        self.allow(extra * std::mem::size_of::<T>(), pos)?;
        pick(&mut self.doc).reserve_exact(extra);
        Ok(())
    }

    /// Handles one event; returns `false` once the first document is complete.
    pub(super) fn event(&mut self, event: Event<'_>, pos: Pos) -> Result<bool, ParseError> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
            }
            Event::DocumentEnd => return Ok(self.documents == 0),
            Event::StreamStart | Event::StreamEnd => {}
            Event::Scalar(text, style, anchor, tag) => {
                let class = tag.as_deref().map_or(super::TagClass::Resolved, tag_class);
                let id = self.scalar(text, style_of(style), class, &pos)?;
                self.remember_anchor(anchor, id);
                self.attach(id, &pos)?;
            }
            Event::Alias(anchor) => {
                let target = self
                    .anchors
                    .get(anchor)
                    .copied()
                    .flatten()
                    .ok_or_else(|| error_at(&pos, "alias to an unknown anchor".into()))?;
                let id = self.push(Packed::new(Kind::Alias, &pos, target), &pos)?;
                self.attach(id, &pos)?;
            }
            Event::Anchor(_, name) => self.anchor(name, &pos)?,
            Event::SequenceStart(style, anchor, _) => {
                self.open(Kind::Seq, style, anchor, &pos)?;
            }
            Event::MappingStart(style, anchor, _) => {
                self.open(Kind::Map, style, anchor, &pos)?;
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(&pos)?,
            Event::UnresolvedAlias(_) => {
                return Err(error_at(&pos, "alias to an unknown anchor".into()));
            }
            #[allow(unreachable_patterns)]
            _ => {}
        }
        Ok(true)
    }

    /// A scalar node: its text stays in the source when the parser lent it from there (or
    /// produced the same bytes as the node's span without its quotes); only text that
    /// differs from the source (escapes, folded lines) is copied into the side arena.
    fn scalar(
        &mut self,
        text: Cow<'_, str>,
        style: Style,
        class: super::TagClass,
        pos: &Pos,
    ) -> Result<NodeId, ParseError> {
        if text.len() > self.limits.max_scalar_bytes {
            return Err(error_at(
                pos,
                format!(
                    "a scalar of {} bytes is over the limit of {} bytes",
                    text.len(),
                    self.limits.max_scalar_bytes
                ),
            ));
        }
        let at = match self.in_source(&text, pos) {
            Some(at) => self.source_scalar(at, text.len(), pos)?,
            None => {
                let arena = &mut self.doc.decoded;
                if arena.capacity() - arena.len() < text.len() {
                    let extra = (arena.capacity() / 4).max(text.len()).max(4096);
                    self.allow(extra, pos)?;
                    self.doc.decoded.reserve_exact(extra);
                }
                let at = self.doc.decoded.len();
                if at + text.len() > u32::MAX as usize {
                    return Err(error_at(pos, "decoded text over 4 GB".into()));
                }
                self.doc.decoded.push_str(&text);
                let mut node = self.side_text(at, text.len(), pos)?;
                node.head |= super::DECODED;
                node
            }
        };
        let mut node = at.with_style(style);
        node.head |= (class as u32) << super::TAG_SHIFT;
        self.push(node, pos)
    }

    /// A scalar node whose text is the source's bytes at `at`: [`super::CENTERED`] in its
    /// span when it can be, else recorded in the side list.
    fn source_scalar(&mut self, at: usize, len: usize, pos: &Pos) -> Result<Packed, ParseError> {
        let span = &pos.range;
        let centered =
            at >= span.start && at + len <= span.end && at - span.start == span.end - (at + len);
        if centered {
            let mut node = Packed::new(Kind::Scalar, pos, at as u32);
            node.head |= super::CENTERED;
            return Ok(node);
        }
        self.side_text(at, len, pos)
    }

    /// A scalar node whose text's offset and length go in the side list.
    fn side_text(&mut self, at: usize, len: usize, pos: &Pos) -> Result<Packed, ParseError> {
        self.make_room(|d| &mut d.texts, 1, 256, pos)?;
        let index = self.doc.texts.len() as u32;
        self.doc.texts.push((at as u32, len as u32));
        Ok(Packed::new(Kind::Scalar, pos, index))
    }

    /// Where the scalar's text is in the source, if it is there unchanged: lent from the
    /// source by the parser (its bytes lie inside the text), or equal to the node's span
    /// with or without its quotes.
    fn in_source(&self, text: &str, pos: &Pos) -> Option<usize> {
        let source = self.doc.text.as_bytes();
        let base = source.as_ptr() as usize;
        if let Some(at) = (text.as_ptr() as usize).checked_sub(base)
            && at + text.len() <= source.len()
        {
            return Some(at);
        }
        let span = source.get(pos.range.clone())?;
        if span == text.as_bytes() {
            return Some(pos.range.start);
        }
        let inner = span.get(1..span.len().checked_sub(1)?)?;
        (inner == text.as_bytes()).then_some(pos.range.start + 1)
    }

    fn anchor(&mut self, name: Cow<'_, str>, pos: &Pos) -> Result<(), ParseError> {
        // Follows the node it names: the most recently created node.
        let Some(last) = self.doc.nodes.len().checked_sub(1) else {
            return Ok(());
        };
        let cost = 64 + name.len();
        self.allow(cost, pos)?;
        self.budget.fixed += cost;
        let entry = (name.into_owned(), pos.range.clone());
        self.doc.nodes[last].head |= super::ANCHORED;
        match self.doc.anchors.last_mut() {
            Some((id, old)) if *id == last as NodeId => *old = entry,
            _ => self.doc.anchors.push((last as NodeId, entry)),
        }
        Ok(())
    }

    fn push(&mut self, mut node: Packed, pos: &Pos) -> Result<NodeId, ParseError> {
        let nodes = self.doc.nodes.len();
        if nodes >= self.limits.max_nodes {
            return Err(error_at(
                pos,
                format!("more than {} YAML nodes", self.limits.max_nodes),
            ));
        }
        self.make_room(|d| &mut d.nodes, 1, 1024, pos)?;
        if self.doc.lines.last().is_none_or(|run| run.1 != pos.line) {
            self.make_room(|d| &mut d.lines, 1, 1024, pos)?;
            self.doc.lines.push((nodes as NodeId, pos.line));
        }
        if pos.col > super::COL_MAX {
            self.doc.wide_cols.push((nodes as NodeId, pos.col));
            node.head |= super::COL_MAX << super::COL_SHIFT;
        } else {
            node.head |= pos.col << super::COL_SHIFT;
        }
        self.doc.nodes.push(node);
        Ok(nodes as NodeId)
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
        kind: Kind,
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
        // No run yet: read as empty until `close` gives it one.
        let mut node = Packed::new(kind, pos, u32::MAX);
        if style == StructureStyle::Flow {
            node.head |= super::FLOW;
        }
        let id = self.push(node, pos)?;
        self.remember_anchor(anchor, id);
        self.attach(id, pos)?;
        self.stack.push(Open {
            id,
            from: self.scratch.len(),
        });
        Ok(())
    }

    /// Moves a finished collection's children from the scratch stack into the shared child
    /// arrays and settles its span.
    fn close(&mut self, pos: &Pos) -> Result<(), ParseError> {
        let Some(open) = self.stack.pop() else {
            return Ok(());
        };
        let children = self.scratch.len() - open.from;
        let node = self.doc.nodes[open.id as usize];
        // Each run starts with its count (see `Packed`).
        let (start, len) = match node.kind() {
            Kind::Seq => {
                self.make_room(|d| &mut d.items, children + 1, 1024, pos)?;
                let start = self.doc.items.len();
                self.doc.items.push(children as NodeId);
                self.doc.items.extend_from_slice(&self.scratch[open.from..]);
                (start, children)
            }
            _ => {
                let pairs = children / 2;
                self.make_room(|d| &mut d.entries, pairs + 1, 1024, pos)?;
                let start = self.doc.entries.len();
                self.doc.entries.push((pairs as NodeId, 0));
                let (chunks, _) = self.scratch[open.from..].as_chunks::<2>();
                self.doc
                    .entries
                    .extend(chunks.iter().map(|[k, v]| (*k, *v)));
                if pairs > super::INDEXED_MAP {
                    let cost = pairs * INDEX_BYTES;
                    self.allow(cost, pos)?;
                    self.budget.fixed += cost;
                }
                (start, pairs)
            }
        };
        let last = self.scratch.last().copied().filter(|_| children > 0);
        self.scratch.truncate(open.from);
        if start > u32::MAX as usize || len > u32::MAX as usize {
            return Err(error_at(pos, "too many collection entries".into()));
        }
        // Block collections end where their last child ends, not at the next token.
        let end = if node.is_flow() {
            (pos.range.end as u32).max(node.start)
        } else {
            last.map_or(node.start, |c| self.doc.nodes[c as usize].end)
        };
        let text_len = self.doc.text.len() as u32;
        let n = &mut self.doc.nodes[open.id as usize];
        n.end = end.min(text_len).max(n.start);
        n.a = start as u32;
        self.doc.index_map(open.id);
        Ok(())
    }

    /// Adds a finished node to the open collection (or makes it the root).
    fn attach(&mut self, id: NodeId, pos: &Pos) -> Result<(), ParseError> {
        if self.stack.is_empty() {
            if self.doc.root.is_none() {
                self.doc.root = Some(id);
            }
            return Ok(());
        }
        if self.scratch.len() == self.scratch.capacity() {
            let extra = (self.scratch.capacity() / 4).max(1024);
            self.allow(extra * 4, pos)?;
            self.scratch.reserve_exact(extra);
        }
        self.scratch.push(id);
        Ok(())
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

/// What a scalar's tag makes of its text (see [`super::TagClass`]).
fn tag_class(tag: &granit_parser::Tag) -> super::TagClass {
    use super::TagClass;
    if tag.is_yaml_core_schema_tag("null") {
        TagClass::Null
    } else if ["int", "float", "bool"]
        .iter()
        .any(|t| tag.is_yaml_core_schema_tag(t))
    {
        TagClass::Resolved
    } else {
        TagClass::Str
    }
}
