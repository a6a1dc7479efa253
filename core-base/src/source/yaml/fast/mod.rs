//! A fast reader for the plain shape most toolkit files have: block mappings and lists,
//! one-line scalars (plain, or quoted without backslashes) and one-line flow collections,
//! with comments and blank lines between. granit-parser's scanner is most of a load's time
//! (docs/performance.md); this reader does the same work for that shape in one pass over
//! the bytes, and feeds the same [`Builder`] the same events at the same positions, so the
//! tree is the one granit-parser's events build, node for node.
//!
//! Anything outside that shape gives up (returns `None`) and the caller parses the file
//! with granit-parser, which also reports any error with its exact position. Giving up is
//! the answer for: anchors, aliases, tags, block scalars, multi-line scalars or flow
//! collections, backslash escapes, explicit keys (`? `), a list item that opens another
//! list on its line (`- - a`), an indentless list (items at their key's column), document
//! markers and directives, tabs, carriage returns, a byte-order mark or any other
//! character YAML treats specially (controls, NEL, the Unicode line separators), any text
//! the builder refuses (limits), and anything this reader does not recognise. The tests
//! compare its tree with granit-parser's on generated toolkits, on a list of awkward
//! inputs, and on random YAML-like text (also a fuzz target).

use std::borrow::Cow;
use std::sync::Arc;

use granit_parser::{Event, ScalarStyle, StructureStyle};

use super::build::{Builder, Pos};
use super::{Doc, Limits};

/// The text is outside the shape this reader handles (or the builder refused it).
struct GiveUp;

type Read<T> = Result<T, GiveUp>;

/// Whether the fast reader, when it reads `text`, builds granit-parser's tree (for the
/// fuzz target; the tests below check the same).
pub(super) fn agrees_with_granit(text: &str) -> bool {
    reads_as_granit(text).unwrap_or(true)
}

/// `None` when the fast reader gives `text` up, else whether the tree it builds is
/// granit-parser's.
pub(super) fn reads_as_granit(text: &str) -> Option<bool> {
    let limits = Limits::default();
    let text: Arc<str> = Arc::from(text);
    let fast = parse(&text, &limits, 1)?;
    Some(
        super::build::parse_one(Arc::clone(&text), &limits)
            .is_ok_and(|granit| fast.same_tree(&granit)),
    )
}

/// The tree of `text` when the whole text has the plain shape; `copies` as for
/// [`Builder::new`].
pub(super) fn parse(text: &Arc<str>, limits: &Limits, copies: usize) -> Option<Doc> {
    let ascii = plain_bytes(text.as_bytes())?;
    let mut builder = Builder::new(Arc::clone(text), limits, copies);
    let mut reader = Reader {
        s: text.as_bytes(),
        text,
        b: &mut builder,
        ascii,
        line: 1,
        ls: 0,
        col_cache: (0, 0),
        depth: 0,
        max_depth: limits.max_depth,
    };
    reader.document().ok()?;
    Some(builder.finish())
}

/// Whether every byte is one this reader handles; `Some(true)` when the text is ASCII.
/// Refused: controls other than the newline (tabs and carriage returns among them), DEL,
/// C1 controls (NEL is a line break in YAML 1.1), the byte-order mark, the Unicode line
/// and paragraph separators, and the noncharacters U+FFFE and U+FFFF.
fn plain_bytes(s: &[u8]) -> Option<bool> {
    let mut ascii = true;
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if (0x20..0x7F).contains(&b) || b == b'\n' {
            i += 1;
            continue;
        }
        match b {
            0xC2 if s.get(i + 1).is_some_and(|&n| n < 0xA0) => return None,
            0xE2 if s.get(i + 1) == Some(&0x80) && matches!(s.get(i + 2), Some(0xA8 | 0xA9)) => {
                return None;
            }
            0xEF if matches!(
                (s.get(i + 1), s.get(i + 2)),
                (Some(0xBB), Some(0xBF)) | (Some(0xBF), Some(0xBE | 0xBF))
            ) =>
            {
                return None;
            }
            0x80.. => ascii = false,
            _ => return None,
        }
        i += 1;
    }
    Some(ascii)
}

/// What follows an entry of a flow collection: where the next one starts, or where the
/// closing bracket is.
enum Next {
    Entry(usize),
    Close(usize),
}

/// A line holding content (not blank, not only a comment).
#[derive(Clone, Copy)]
struct Line {
    /// Byte offset of the line's start, and of its first non-space byte.
    start: usize,
    content: usize,
    /// Spaces before the content.
    indent: usize,
    /// 1-based line number.
    number: u32,
}

/// A scalar read from the text, not yet given to the builder.
struct Scalar<'t> {
    text: Cow<'t, str>,
    style: ScalarStyle,
    /// Its span: the text, or the text with its quotes.
    start: usize,
    end: usize,
    /// Where reading stopped after it (spaces after a plain scalar are not skipped).
    after: usize,
}

struct Reader<'t, 'b> {
    s: &'t [u8],
    text: &'t str,
    b: &'b mut Builder,
    /// The text is ASCII, so a column is a byte offset in its line.
    ascii: bool,
    /// The line being read: its number and where it starts.
    line: u32,
    ls: usize,
    /// A byte offset in the current line and its column in characters (0-based), so
    /// columns along a long line are counted once.
    col_cache: (usize, u32),
    depth: usize,
    max_depth: usize,
}

impl<'t> Reader<'t, '_> {
    fn document(&mut self) -> Read<()> {
        let first = self.peek(0, 1)?.ok_or(GiveUp)?;
        if first.indent != 0 {
            return Err(GiveUp);
        }
        self.emit(Event::StreamStart, 0, 0)?;
        self.emit(Event::DocumentStart(false, None), 0, 0)?;
        if self.block_node(first)?.is_some() {
            return Err(GiveUp);
        }
        let end = self.s.len();
        self.emit(Event::DocumentEnd, end, end)?;
        self.emit(Event::StreamEnd, end, end)
    }

    /// The block collection whose first line is `line`; returns the next content line
    /// after it.
    fn block_node(&mut self, line: Line) -> Read<Option<Line>> {
        self.enter(line);
        if self.is_item(line.content) {
            self.block_seq(line)
        } else {
            let key = self.key(line.content)?;
            self.block_map(line.indent, key)
        }
    }

    /// A block mapping at column `indent` whose first key has been read.
    fn block_map(&mut self, indent: usize, first: Scalar<'t>) -> Read<Option<Line>> {
        self.open(StructureStyle::Block, false, first.start, first.start)?;
        let mut key = first;
        let next = loop {
            let colon = key.after;
            self.scalar(key)?;
            match self.map_value(indent, colon)? {
                Some(line) if line.indent == indent => {
                    self.enter(line);
                    key = self.key(line.content)?;
                }
                Some(line) if line.indent > indent => return Err(GiveUp),
                next => break next,
            }
        };
        self.close(false)?;
        Ok(next)
    }

    /// The value after the key whose `:` is at `colon`; returns the next content line.
    fn map_value(&mut self, indent: usize, colon: usize) -> Read<Option<Line>> {
        let at = self.skip_spaces(colon + 1);
        if self.ends_line(at) {
            let next = self.peek(self.next_line(at), self.line + 1)?;
            return match next {
                Some(line) if line.indent > indent => self.block_node(line),
                // An indentless list: its start event sits after the first dash.
                Some(line) if line.indent == indent && self.is_item(line.content) => Err(GiveUp),
                _ => {
                    self.null(colon)?;
                    Ok(next)
                }
            };
        }
        if matches!(self.s[at], b'|' | b'>') {
            return self.block_scalar(at, indent);
        }
        let after = self.inline_value(at)?;
        self.after_value(after, indent)
    }

    /// A block list at `line`'s indentation.
    fn block_seq(&mut self, line: Line) -> Read<Option<Line>> {
        let indent = line.indent;
        self.open(StructureStyle::Block, true, line.content, line.content)?;
        let mut dash = line.content;
        let next = loop {
            let next = self.item(indent, dash)?;
            match next {
                Some(line) if line.indent == indent && self.is_item(line.content) => {
                    self.enter(line);
                    dash = line.content;
                }
                Some(line) if line.indent >= indent => return Err(GiveUp),
                next => break next,
            }
        };
        self.close(true)?;
        Ok(next)
    }

    /// One list item, its `-` at `dash`; returns the next content line.
    fn item(&mut self, indent: usize, dash: usize) -> Read<Option<Line>> {
        let at = self.skip_spaces(dash + 1);
        if self.ends_line(at) {
            let eol = self.line_end(at);
            let next = self.peek(self.next_line(at), self.line + 1)?;
            return match next {
                Some(line) if line.indent > indent => self.block_node(line),
                _ => {
                    // An empty item's null sits at the end of its line.
                    self.null(eol)?;
                    Ok(next)
                }
            };
        }
        if self.is_item(at) {
            return Err(GiveUp);
        }
        match self.s[at] {
            b'|' | b'>' => self.block_scalar(at, indent),
            b'[' | b'{' => {
                let after = self.inline_value(at)?;
                self.after_value(after, indent)
            }
            _ => {
                let head = self.scalar_at(at, false)?;
                if self.is_key_end(head.after) {
                    // A mapping that starts on the item's line, at the key's column.
                    let column = at - self.ls;
                    return self.block_map(column, head);
                }
                let after = head.after;
                self.scalar(head)?;
                self.after_value(after, indent)
            }
        }
    }

    /// The rest of a line after a value that ended at `after`; returns the next content
    /// line, which must not be indented past `indent` (a continuation or an error).
    fn after_value(&mut self, after: usize, indent: usize) -> Read<Option<Line>> {
        let at = self.skip_spaces(after);
        let comment = self.s.get(at) == Some(&b'#') && at > 0 && self.s[at - 1] == b' ';
        if !(comment || self.s.get(at).is_none_or(|&c| c == b'\n')) {
            return Err(GiveUp);
        }
        let next = self.peek(self.next_line(at), self.line + 1)?;
        if next.is_some_and(|line| line.indent > indent) {
            return Err(GiveUp);
        }
        Ok(next)
    }

    /// A value on the key's or item's line: a flow collection or a scalar; returns where it
    /// ended.
    fn inline_value(&mut self, at: usize) -> Read<usize> {
        match self.s[at] {
            b'[' | b'{' => {
                let after = self.flow_node(at)?;
                if self.s.get(after) == Some(&b':') {
                    return Err(GiveUp);
                }
                Ok(after)
            }
            _ => {
                let value = self.scalar_at(at, false)?;
                if self.s.get(value.after) == Some(&b':') {
                    return Err(GiveUp);
                }
                let after = value.after;
                self.scalar(value)?;
                Ok(after)
            }
        }
    }

    /// A literal (`|`) or folded (`>`) block scalar whose header is at `at`, in a node at
    /// column `parent`; returns the next content line. Given up: an indentation indicator,
    /// an empty scalar, a blank line with more spaces than the content's indentation, a
    /// more-indented line in a folded scalar, and a scalar that runs to the text's end
    /// without a line break.
    fn block_scalar(&mut self, at: usize, parent: usize) -> Read<Option<Line>> {
        let s = self.s;
        let literal = s[at] == b'|';
        let mut i = at + 1;
        let chomp = match s.get(i) {
            Some(&c @ (b'-' | b'+')) => {
                i += 1;
                c
            }
            _ => b' ',
        };
        let h = self.skip_spaces(i);
        let comment = s.get(h) == Some(&b'#') && h > i;
        if !(comment || s.get(h).is_none_or(|&c| c == b'\n')) {
            return Err(GiveUp);
        }
        // The lines: (start, end without the line break), up to the first line indented
        // less than the content that is not blank.
        let mut start = self.next_line(h);
        let mut number = self.line + 1;
        let mut lines: Vec<(usize, usize)> = Vec::new();
        // The first content line; its indentation is the content's.
        let mut first: Option<Line> = None;
        let next = loop {
            if start >= s.len() {
                break None;
            }
            let end = self.line_end(start);
            if end == s.len() {
                // No line break at the text's end.
                return Err(GiveUp);
            }
            let spaces = self.skip_spaces(start) - start;
            let blank = start + spaces == end;
            match first.map(|line| line.indent) {
                indent if blank => {
                    if indent.map_or(spaces > parent + 1, |n| spaces > n) {
                        return Err(GiveUp);
                    }
                }
                None if spaces > parent => {
                    first = Some(Line {
                        start,
                        content: start + spaces,
                        indent: spaces,
                        number,
                    });
                }
                Some(n) if spaces >= n => {
                    if !literal && spaces > n {
                        return Err(GiveUp);
                    }
                }
                _ => break Some(start),
            }
            lines.push((start, end));
            start = end + 1;
            number += 1;
        };
        let first = first.ok_or(GiveUp)?;
        let n = first.indent;
        // Lines after the last content line are trailing blank lines.
        let content = lines
            .iter()
            .rposition(|&(a, b)| self.skip_spaces(a) < b)
            .ok_or(GiveUp)?;
        let text = self.block_text(&lines, n, content, literal, chomp);
        // The span ends where the line that ends the scalar has its first non-space byte,
        // a comment's `#` included.
        let (end, next) = match next {
            Some(at) => (self.skip_spaces(at), self.peek(at, number)?),
            None => (s.len(), None),
        };
        self.enter(first);
        self.emit(
            Event::Scalar(
                Cow::Owned(text),
                if literal {
                    ScalarStyle::Literal
                } else {
                    ScalarStyle::Folded
                },
                0,
                None,
            ),
            first.content,
            end,
        )?;
        if next.is_some_and(|line| line.indent > parent) {
            return Err(GiveUp);
        }
        Ok(next)
    }

    /// A block scalar's text from its lines (`content`: the last that is not blank),
    /// indented `n`, with the chomping indicator applied.
    fn block_text(
        &self,
        lines: &[(usize, usize)],
        n: usize,
        content: usize,
        literal: bool,
        chomp: u8,
    ) -> String {
        let mut text = String::new();
        let mut blank_run = 0;
        for (k, &(a, b)) in lines[..=content].iter().enumerate() {
            let line = self.text.get(a + n..b).unwrap_or("");
            if line.is_empty() {
                blank_run += 1;
                if literal {
                    text.push('\n');
                }
                continue;
            }
            if !literal {
                // Folding: a break between two text lines is a space; blank lines between
                // them are kept as breaks.
                if k > 0 && blank_run == 0 && !text.is_empty() {
                    text.push(' ');
                } else {
                    for _ in 0..blank_run {
                        text.push('\n');
                    }
                }
                blank_run = 0;
                text.push_str(line);
            } else {
                text.push_str(line);
                text.push('\n');
            }
        }
        if !literal {
            text.push('\n');
        }
        match chomp {
            b'-' => {
                text.truncate(text.trim_end_matches('\n').len());
            }
            b'+' => {
                for _ in content + 1..lines.len() {
                    text.push('\n');
                }
            }
            _ => {}
        }
        text
    }

    /// A mapping key at `at`: a scalar followed by `:` and a space or the line's end.
    fn key(&mut self, at: usize) -> Read<Scalar<'t>> {
        let key = self.scalar_at(at, false)?;
        // granit-parser refuses implicit keys over 1024 characters.
        if !self.is_key_end(key.after) || key.end - key.start > 1000 {
            return Err(GiveUp);
        }
        Ok(key)
    }

    fn is_key_end(&self, at: usize) -> bool {
        self.s.get(at) == Some(&b':') && self.s.get(at + 1).is_none_or(|&c| c == b' ' || c == b'\n')
    }

    /// A node inside a flow collection; returns where it ended.
    fn flow_node(&mut self, at: usize) -> Read<usize> {
        match self.s.get(at) {
            Some(b'[') => self.flow_seq(at),
            Some(b'{') => self.flow_map(at),
            Some(_) => {
                let scalar = self.scalar_at(at, true)?;
                let after = scalar.after;
                self.scalar(scalar)?;
                Ok(after)
            }
            None => Err(GiveUp),
        }
    }

    /// `[a, b, ...]` on one line; returns where it ended.
    fn flow_seq(&mut self, at: usize) -> Read<usize> {
        self.open(StructureStyle::Flow, true, at, at + 1)?;
        let mut i = self.skip_spaces(at + 1);
        if self.s.get(i) != Some(&b']') {
            loop {
                let end = self.flow_node(i)?;
                match self.next_entry(end, b']')? {
                    Next::Entry(at) => i = at,
                    Next::Close(at) => break i = at,
                }
            }
        }
        self.close_flow(i)
    }

    /// `{k: v, ...}` on one line; returns where it ended.
    fn flow_map(&mut self, at: usize) -> Read<usize> {
        self.open(StructureStyle::Flow, false, at, at + 1)?;
        let mut i = self.skip_spaces(at + 1);
        if self.s.get(i) != Some(&b'}') {
            loop {
                if matches!(self.s.get(i), Some(b'[' | b'{')) {
                    return Err(GiveUp);
                }
                i = self.flow_node(i)?;
                if !(self.s.get(i) == Some(&b':') && self.s.get(i + 1) == Some(&b' ')) {
                    return Err(GiveUp);
                }
                i = self.skip_spaces(i + 1);
                if matches!(self.s.get(i), Some(b',' | b'}')) {
                    return Err(GiveUp);
                }
                let end = self.flow_node(i)?;
                match self.next_entry(end, b'}')? {
                    Next::Entry(at) => i = at,
                    Next::Close(at) => break i = at,
                }
            }
        }
        self.close_flow(i)
    }

    /// What follows an entry of a flow collection closed by `close`, the entry ending at
    /// `at`: the next entry, or the closing bracket. A trailing comma gives up.
    fn next_entry(&self, at: usize, close: u8) -> Read<Next> {
        let i = self.skip_spaces(at);
        match self.s.get(i) {
            Some(b',') => {
                let next = self.skip_spaces(i + 1);
                if self.s.get(next) == Some(&close) {
                    return Err(GiveUp);
                }
                Ok(Next::Entry(next))
            }
            Some(&c) if c == close => Ok(Next::Close(i)),
            _ => Err(GiveUp),
        }
    }

    /// A one-line scalar at `at` (plain, or quoted without backslashes), in a flow
    /// collection or not.
    fn scalar_at(&self, at: usize, flow: bool) -> Read<Scalar<'t>> {
        match self.s.get(at) {
            Some(b'\'') => self.single_quoted(at),
            Some(b'"') => self.double_quoted(at),
            Some(&c) if self.plain_starts(c, self.s.get(at + 1).copied(), flow) => {
                Ok(self.plain(at, flow))
            }
            _ => Err(GiveUp),
        }
    }

    /// Whether a plain scalar may start with `c` followed by `next`.
    fn plain_starts(&self, c: u8, next: Option<u8>, flow: bool) -> bool {
        match c {
            b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'%' | b'@' | b'`' => false,
            b'-' | b'?' | b':' => next.is_some_and(|n| {
                !(n == b' ' || n == b'\n' || flow && matches!(n, b',' | b'[' | b']' | b'{' | b'}'))
            }),
            _ => true,
        }
    }

    /// A plain scalar from `at` to the end of its line, a `: `, a ` #`, or in a flow
    /// collection a flow indicator; its span leaves out trailing spaces.
    fn plain(&self, at: usize, flow: bool) -> Scalar<'t> {
        let s = self.s;
        let mut i = at;
        let mut end = at;
        while let Some(&c) = s.get(i) {
            let stops = match c {
                b'\n' => true,
                b':' => s.get(i + 1).is_none_or(|&n| {
                    n == b' ' || n == b'\n' || flow && matches!(n, b',' | b'[' | b']' | b'{' | b'}')
                }),
                b'#' => s[i - 1] == b' ',
                b',' | b'[' | b']' | b'{' | b'}' => flow,
                _ => false,
            };
            if stops {
                break;
            }
            if c != b' ' {
                end = i + 1;
            }
            i += 1;
        }
        Scalar {
            text: Cow::Borrowed(&self.text[at..end]),
            style: ScalarStyle::Plain,
            start: at,
            end,
            after: i,
        }
    }

    /// `'...'` on one line; `''` stands for one quote.
    fn single_quoted(&self, at: usize) -> Read<Scalar<'t>> {
        let s = self.s;
        let mut i = at + 1;
        let mut doubled = false;
        loop {
            match s.get(i) {
                Some(b'\'') if s.get(i + 1) == Some(&b'\'') => {
                    doubled = true;
                    i += 2;
                }
                Some(b'\'') => break,
                Some(b'\n') | None => return Err(GiveUp),
                Some(_) => i += 1,
            }
        }
        let inner = &self.text[at + 1..i];
        let text = if doubled {
            Cow::Owned(inner.replace("''", "'"))
        } else {
            Cow::Borrowed(inner)
        };
        Ok(self.quoted(text, ScalarStyle::SingleQuoted, at, i + 1))
    }

    /// `"..."` on one line, without backslash escapes.
    fn double_quoted(&self, at: usize) -> Read<Scalar<'t>> {
        let rest = &self.s[at + 1..];
        let len = rest
            .iter()
            .position(|&c| matches!(c, b'"' | b'\\' | b'\n'))
            .ok_or(GiveUp)?;
        if rest[len] != b'"' {
            return Err(GiveUp);
        }
        let end = at + 1 + len;
        let text = Cow::Borrowed(&self.text[at + 1..end]);
        Ok(self.quoted(text, ScalarStyle::DoubleQuoted, at, end + 1))
    }

    fn quoted(&self, text: Cow<'t, str>, style: ScalarStyle, at: usize, end: usize) -> Scalar<'t> {
        Scalar {
            text,
            style,
            start: at,
            end,
            after: end,
        }
    }

    // Lines.

    /// The first content line from `at` (a line start) on, `number` being `at`'s line.
    fn peek(&self, mut at: usize, mut number: u32) -> Read<Option<Line>> {
        let s = self.s;
        loop {
            let content = self.skip_spaces(at);
            match s.get(content) {
                None => return Ok(None),
                Some(b'\n') => {}
                Some(b'#') => {}
                Some(_) => {
                    let indent = content - at;
                    if indent == 0 && (s[at..].starts_with(b"---") || s[at..].starts_with(b"...")) {
                        return Err(GiveUp);
                    }
                    return Ok(Some(Line {
                        start: at,
                        content,
                        indent,
                        number,
                    }));
                }
            }
            at = self.next_line(content);
            number += 1;
        }
    }

    fn enter(&mut self, line: Line) {
        self.line = line.number;
        self.ls = line.start;
        self.col_cache = (line.start, 0);
    }

    /// Whether `at` holds a block list item's `-`.
    fn is_item(&self, at: usize) -> bool {
        self.s.get(at) == Some(&b'-') && self.s.get(at + 1).is_none_or(|&c| c == b' ' || c == b'\n')
    }

    /// Whether nothing but spaces and a comment is left on the line from `at` (spaces
    /// already skipped).
    fn ends_line(&self, at: usize) -> bool {
        match self.s.get(at) {
            None | Some(b'\n') => true,
            Some(b'#') => self.s[at - 1] == b' ',
            _ => false,
        }
    }

    /// Where the line holding `at` ends (its `\n`, or the text's end).
    fn line_end(&self, at: usize) -> usize {
        self.s[at..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.s.len(), |n| at + n)
    }

    /// Where the line after the one holding `at` starts.
    fn next_line(&self, at: usize) -> usize {
        (self.line_end(at) + 1).min(self.s.len())
    }

    fn skip_spaces(&self, mut at: usize) -> usize {
        while self.s.get(at) == Some(&b' ') {
            at += 1;
        }
        at
    }

    /// The 0-based column, in characters, of byte `at` on the current line.
    fn col(&mut self, at: usize) -> u32 {
        if self.ascii {
            return (at - self.ls) as u32;
        }
        let (mut from, mut col) = self.col_cache;
        if at < from {
            (from, col) = (self.ls, 0);
        }
        col += self.s[from..at]
            .iter()
            .filter(|&&b| (b as i8) >= -0x40)
            .count() as u32;
        self.col_cache = (at, col);
        col
    }

    // Events.

    fn emit(&mut self, event: Event<'t>, start: usize, end: usize) -> Read<()> {
        let col = self.col(start) + 1;
        let pos = Pos {
            range: start..end,
            line: self.line,
            col,
        };
        self.b.event(event, pos).map(|_| ()).map_err(|_| GiveUp)
    }

    fn scalar(&mut self, scalar: Scalar<'t>) -> Read<()> {
        let event = Event::Scalar(scalar.text, scalar.style, 0, None);
        self.emit(event, scalar.start, scalar.end)
    }

    /// An empty value: granit-parser's null, at `at`.
    fn null(&mut self, at: usize) -> Read<()> {
        self.emit(
            Event::Scalar(Cow::Borrowed("~"), ScalarStyle::Plain, 0, None),
            at,
            at,
        )
    }

    fn open(&mut self, style: StructureStyle, seq: bool, start: usize, end: usize) -> Read<()> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(GiveUp);
        }
        let event = if seq {
            Event::SequenceStart(style, 0, None)
        } else {
            Event::MappingStart(style, 0, None)
        };
        self.emit(event, start, end)
    }

    /// Ends a block collection (its end comes from its last child).
    fn close(&mut self, seq: bool) -> Read<()> {
        self.depth -= 1;
        let event = if seq {
            Event::SequenceEnd
        } else {
            Event::MappingEnd
        };
        let at = self.ls;
        self.emit(event, at, at)
    }

    /// Ends a flow collection at its closing bracket `at`; returns where it ended.
    fn close_flow(&mut self, at: usize) -> Read<usize> {
        self.depth -= 1;
        let event = if self.s[at] == b']' {
            Event::SequenceEnd
        } else {
            Event::MappingEnd
        };
        self.emit(event, at, at + 1)?;
        Ok(at + 1)
    }
}

#[cfg(test)]
mod tests;
