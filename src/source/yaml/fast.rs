//! A fast reader for the plain shape most toolkit files have: block mappings and lists,
//! one-line scalars (plain, or quoted without backslashes) and one-line flow collections,
//! with comments and blank lines between. granit-parser's scanner is most of a load's time
//! (README, Performance); this reader does the same work for that shape in one pass over
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
    let limits = Limits::default();
    let text: Arc<str> = Arc::from(text);
    let Some(fast) = parse(&text, &limits, 1) else {
        return true;
    };
    super::build::parse_one(Arc::clone(&text), &limits).is_ok_and(|granit| fast.same_tree(&granit))
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
        let mut indent = None;
        let mut lines: Vec<(usize, usize)> = Vec::new();
        let mut first = None;
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
            match indent {
                _ if blank => {
                    if indent.is_some_and(|n| spaces > n) || indent.is_none() && spaces > parent + 1
                    {
                        return Err(GiveUp);
                    }
                }
                None if spaces > parent => {
                    indent = Some(spaces);
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
        let (Some(n), Some(first)) = (indent, first) else {
            return Err(GiveUp);
        };
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
                i = self.flow_node(i)?;
                i = self.skip_spaces(i);
                match self.s.get(i) {
                    Some(b',') => {
                        i = self.skip_spaces(i + 1);
                        if self.s.get(i) == Some(&b']') {
                            return Err(GiveUp);
                        }
                    }
                    Some(b']') => break,
                    _ => return Err(GiveUp),
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
                i = self.flow_node(i)?;
                i = self.skip_spaces(i);
                match self.s.get(i) {
                    Some(b',') => {
                        i = self.skip_spaces(i + 1);
                        if self.s.get(i) == Some(&b'}') {
                            return Err(GiveUp);
                        }
                    }
                    Some(b'}') => break,
                    _ => return Err(GiveUp),
                }
            }
        }
        self.close_flow(i)
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
mod tests {
    use super::*;
    use crate::synth::{GenOptions, generate};
    use proptest::prelude::*;

    /// What the fast reader did with `text`: `Some(true)` when it read it (and its tree is
    /// granit-parser's, node for node), `Some(false)` when it gave up. `None` when it read a
    /// text granit-parser rejects or built another tree (the panic message says which).
    fn agrees(name: &str, text: &str) -> bool {
        let limits = Limits::default();
        let text: Arc<str> = Arc::from(text);
        let Some(fast) = parse(&text, &limits, 1) else {
            return false;
        };
        let granit = super::super::build::parse_one(Arc::clone(&text), &limits)
            .unwrap_or_else(|e| panic!("{name}: read a text granit-parser rejects: {e}"));
        assert!(
            fast.same_tree(&granit),
            "{name}: another tree than granit-parser's for {text:?}"
        );
        true
    }

    fn kit(actions: usize, seed: u64) -> String {
        generate(GenOptions {
            actions,
            tools: Some(actions / 4 + 1),
            seed,
        })
    }

    #[test]
    fn generated_kits_are_read_and_give_granits_tree() {
        for seed in 1..4 {
            assert!(agrees("generated", &kit(300, seed)), "seed {seed} not read");
        }
    }

    #[test]
    fn the_bundled_example_is_read_and_gives_granits_tree() {
        assert!(agrees("example", crate::source::EXAMPLE));
    }

    /// Texts at the edges of the shape: each is read (with granit-parser's tree) or given
    /// up, as listed.
    #[test]
    fn awkward_texts_are_read_alike_or_given_up() {
        let read = [
            ("nulls", "c:   \nd:  # x\ns:\n  -   \n  -  # c\n  -\nz:"),
            ("space before colon", "e  : b\nf:   'it''s'  # c\n"),
            (
                "comments and blanks",
                "# head\n\n  # indented\na: 1\n\n# mid\n   \nb:\n  # in\n  - x\n",
            ),
            (
                "compact maps",
                "l:\n  - k: v\n    j: \"q\"\n  -\n    a: 1\n  - [a, {n: b, s: 0.5}, c]\n",
            ),
            (
                "deeper items",
                "a:\n    - x\n    -   y\n    -   k: 1\n        j: 2\nb: 3\n",
            ),
            ("root list", "- a\n- b: 1\n  c: [x]\n-\n"),
            ("no final newline", "a: [1, 2]"),
            (
                "flow spacing",
                "a: [ a ,b,  {x: 1 ,y: 'z'} ]\nb: {}\nc: []\nd: { k: [ ] }\n",
            ),
            (
                "plain oddities",
                "a: b:c\nu: http://x.y/z?q=1#frag\nn: -1\nq: ?x\nc: :x\nh: a#b\np: a - b\n",
            ),
            (
                "flow oddities",
                "a: [http://x, a:b, -1, 'q''s', \"d\"]\nb: {u: a:b}\n",
            ),
            (
                "non-ASCII",
                "名前: é\nl: [é, 中文, {k: ü, v: ö}]\n\"é\": x\n",
            ),
            ("quoted keys", "\"a b\": 1\n'c''d': 2\n- : x\n"),
            ("colon ends", "a:\nb: 1\n"),
            (
                "literal",
                "a: |\n  x\n   y\n\n  z\nb: |-\n  q\n\nc: |+\n  r\n\n\nd: |  # c\n\n  s\n",
            ),
            (
                "literal in lists",
                "e:\n  - |\n    t\n  - k: |\n      u\n    j: 1\n",
            ),
            (
                "folded",
                "a: >\n  x\n  y\n\n  z\n\n\n  w\nb: >-\n\n  q\n  r\nc: >+\n  s\n\n",
            ),
            ("literal then comment", "a: |\n  x\n# c\nb: 1\n"),
            ("literal with hash", "a: |\n  # not a comment\n  x\n"),
            ("literal at end", "a: |\n  x\n\n"),
        ];
        for (name, text) in read {
            // A text granit-parser itself rejects may be read by neither.
            if name == "quoted keys" {
                assert!(!agrees(name, text), "{name}: read");
                continue;
            }
            assert!(agrees(name, text), "{name}: given up");
        }
        let given_up = [
            ("anchor", "a: &x 1\nb: *x\n"),
            ("tag", "a: !t 1\n"),
            ("indentation indicator", "a: |2\n   x\n"),
            ("empty block scalar", "a: |\nb: 1\n"),
            ("more-indented folded", "a: >\n  x\n    y\n"),
            ("block scalar at the end", "a: |\n  x"),
            ("multi-line plain", "a: b\n  c\n"),
            ("multi-line quoted", "a: 'b\n  c'\n"),
            ("multi-line flow", "a: [b,\n  c]\n"),
            ("escape", "a: \"b\\n\"\n"),
            ("explicit key", "? a\n: b\n"),
            ("nested item", "- - a\n"),
            ("indentless", "a:\n- x\n"),
            ("document marker", "---\na: 1\n"),
            ("document end", "a: 1\n...\n"),
            ("directive", "%YAML 1.2\n---\na: 1\n"),
            ("tab", "a:\t1\n"),
            ("crlf", "a: 1\r\n"),
            ("bom", "\u{feff}a: 1\n"),
            ("nel", "a: b\u{85}c\n"),
            ("line separator", "a: b\u{2028}c\n"),
            ("scalar root", "a\n"),
            ("indented root", "  a: 1\n"),
            ("empty", "# only\n\n"),
            ("bad dedent", "a:\n    b: 1\n  c: 2\n"),
            ("key without value in flow", "a: {b}\n"),
            ("pair in flow list", "a: [b: c]\n"),
            ("trailing comma", "a: [b, ]\n"),
            ("json key", "a: {\"b\":1}\n"),
            ("value then key", "a: b: c\n"),
            ("long key", &format!("{}: 1\n", "k".repeat(1200))),
            (
                "deep flow",
                &format!("a: {}{}\n", "[".repeat(300), "]".repeat(300)),
            ),
        ];
        for (name, text) in given_up {
            assert!(!agrees(name, text), "{name}: read");
        }
    }

    /// Pieces of lines, awkward on purpose; random texts are joined from them.
    fn line() -> impl Strategy<Value = String> {
        let indent = prop_oneof![Just(0), Just(2), Just(4), Just(6), Just(1), Just(3)];
        let head = prop::sample::select(vec![
            "", "- ", "-", "k: ", "key: ", "- k: ", "a b: ", "\"q\": ", "'s': ", "k:", "-  ",
            "x : ", "? ",
        ]);
        let value = prop::sample::select(vec![
            "",
            "v",
            "1",
            "-1",
            "a b",
            "a:b",
            "a#b",
            "é",
            "中",
            "'q''s'",
            "'a'",
            "\"d\"",
            "[a, b]",
            "[ ]",
            "{x: 1, y: [2, 3]}",
            "{a: b}",
            "[a, {n: b, s: 0.5}]",
            "[a,b]",
            "{ k : v }",
            ":x",
            "?y",
            "http://u",
            "~",
            "|",
            ">",
            "&a x",
            "*a",
            "!t x",
            "[a",
            "{a",
            "a: b",
            "'a",
            "\"a\\n\"",
            "- x",
            "[b: c]",
            ",",
            "]",
            "@x",
            "%x",
            "a ",
            "|",
            "|-",
            "|+",
            ">",
            ">-",
            ">+",
            "|2",
            "| # c",
            "#x",
            "  ",
            "   x",
        ]);
        let tail = prop::sample::select(vec!["", "", " # c", "  ", "#c", " #"]);
        (indent, head, value, tail).prop_map(|(i, h, v, t)| format!("{}{h}{v}{t}", " ".repeat(i)))
    }

    fn text() -> impl Strategy<Value = String> {
        (prop::collection::vec(line(), 1..14), any::<bool>()).prop_map(|(lines, end)| {
            let mut text = lines.join("\n");
            if end {
                text.push('\n');
            }
            text
        })
    }

    /// A small random source for [`shaped`].
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
    }

    const SCALARS: &[&str] = &[
        "v",
        "1",
        "-1",
        "0.5",
        "a b",
        "a:b",
        "a#b",
        "é",
        "中文",
        "'q''s'",
        "'a'",
        "\"d\"",
        "~",
        ":x",
        "?y",
        "-z",
        "http://u/v",
        "a  ",
        "\"\"",
        "''",
        "x,y",
        "[a]",
        "{a}",
    ];
    const FLOWS: &[&str] = &[
        "[a, b]",
        "[ ]",
        "[]",
        "{}",
        "{x: 1, y: [2, 3]}",
        "{a: b}",
        "[a, {n: b, s: 0.5}]",
        "[a,b]",
        "{ k : v }",
        "[ 'q' , \"d\" ]",
        "[[a], [b, [c]]]",
        "{k: {j: [é]}}",
        "[a:b]",
    ];
    const TAILS: &[&str] = &["", "", "", " # c", "  ", "    #x"];
    const ODD: &[&str] = &[
        "&a x",
        "*a",
        "!t x",
        "[a",
        "a: b",
        "'a",
        "\"a\\n\"",
        "- x",
        "[b: c]",
        "@x",
        "|2",
        "{\"b\":1}",
        "? x",
        "\tx",
        "a\n b",
    ];

    /// A random document of the shape the fast reader handles, with one odd piece now and
    /// then (those texts are given up or read alike).
    fn shaped(seed: u64) -> String {
        let mut rng = Rng(seed | 1);
        let mut out = String::new();
        node(&mut rng, &mut out, 0, 0, false);
        out
    }

    /// A block collection at column `indent`; `inline`: its first line's head is already
    /// written (a list item's `- `).
    fn node(rng: &mut Rng, out: &mut String, indent: usize, depth: usize, inline: bool) {
        let seq = rng.below(3) == 0;
        let entries = 1 + rng.below(4);
        for k in 0..entries {
            if !(inline && k == 0) {
                filler(rng, out, indent);
                out.push_str(&" ".repeat(indent));
            }
            if seq {
                out.push_str(rng.pick(&["- ", "- ", "-  "]));
            } else {
                let key = rng.pick(&["k", "key", "a b", "\"q\"", "'s'", "é", "x "]);
                out.push_str(key);
                out.push_str(rng.pick(&[": ", ": ", ":  "]));
            }
            value(rng, out, indent, depth, seq);
        }
    }

    fn value(rng: &mut Rng, out: &mut String, indent: usize, depth: usize, seq: bool) {
        let choice = rng.below(if depth < 4 { 13 } else { 9 });
        match choice {
            0..=2 => out.push_str(rng.pick(SCALARS)),
            3 | 4 => out.push_str(rng.pick(FLOWS)),
            5 if rng.below(3) == 0 => out.push_str(rng.pick(ODD)),
            5 => out.push_str(rng.pick(SCALARS)),
            6 => {
                out.push_str(rng.pick(&["|", "|-", "|+", ">", ">-", ">+", "| # c"]));
                let n = indent + 1 + rng.below(3);
                for _ in 0..1 + rng.below(3) {
                    out.push('\n');
                    if rng.below(4) > 0 {
                        out.push_str(&" ".repeat(n + rng.below(2) * rng.below(3)));
                        out.push_str(rng.pick(&["text", "# h", "a b", "é"]));
                    } else {
                        out.push_str(&" ".repeat(rng.below(n + 1)));
                    }
                }
                out.push('\n');
                return;
            }
            7 | 8 => {}
            9 if seq && rng.below(2) == 0 => {
                // A mapping on the item's line.
                node(rng, out, indent + 2, depth + 1, true);
                return;
            }
            _ => {
                out.push_str(rng.pick(TAILS));
                out.push('\n');
                let step = rng.pick(&["2", "2", "4", "1", "0"]).len() + rng.below(2);
                node(rng, out, indent + step.min(4), depth + 1, false);
                return;
            }
        }
        out.push_str(rng.pick(TAILS));
        out.push('\n');
    }

    /// Blank and comment lines, now and then.
    fn filler(rng: &mut Rng, out: &mut String, indent: usize) {
        match rng.below(8) {
            0 => out.push('\n'),
            1 => out.push_str("   \n"),
            2 => {
                out.push_str(&" ".repeat(rng.below(indent + 3)));
                out.push_str("# note\n");
            }
            _ => {}
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Whatever the text, a tree the fast reader builds is granit-parser's tree.
        #[test]
        fn a_read_text_gives_granits_tree(text in text()) {
            agrees("random", &text);
        }

        /// The same for texts of the toolkit shape with odd pieces here and there.
        #[test]
        fn a_read_shaped_text_gives_granits_tree(seed in any::<u64>()) {
            agrees("shaped", &shaped(seed));
        }
    }

    /// Enough shaped texts are read that the comparison above means something.
    #[test]
    fn shaped_texts_are_mostly_read() {
        let total = 2000;
        let read = (1..=total as u64)
            .filter(|&seed| agrees("shaped", &shaped(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15))))
            .count();
        assert!(read * 2 > total, "only {read} of {total} read");
    }
}
