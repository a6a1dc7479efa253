//! Parsing a large file on two threads. The scanner is most of a load's time, and a big
//! toolkit is mostly one long block list (`actions:`), so the file is cut in three at line
//! starts: the head with the first part of that list (A), the rest of the list (M) and the
//! top-level keys after it (T). This thread parses A and builds the tree from its events as
//! they come; a second thread parses M and T, each on its own as a standalone document,
//! and keeps their events in a compact buffer. The buffered events are then fed to the
//! same builder, in file order, with their positions moved to where the pieces sit in the
//! file, so the tree is the one a single parse builds, node for node.
//!
//! The cut is used only when it provably gives the same events; anything else returns
//! `None` and the caller parses the whole file on one thread (which also gives any error
//! with its exact position):
//! - M starts at a line holding an item of the list (its indentation, then `- `), and T at
//!   the first line after the list indented less than its items.
//! - Neither M nor T holds `&` or `*` (no anchor or alias can cross the cut), and each
//!   parses on its own without error into one implicit document: M a block list at the
//!   list's column, T a block mapping at column 1.
//! - When A ends, the builder holds exactly the root mapping and the open list, which starts
//!   on the list's first item line at the items' column, and A's last events are the ones
//!   that close the list, the root, the document and the stream. (An indentless list, items
//!   at column 1, fails this: inside a mapping its start is reported after the first dash.)
//! - The buffer stays under a fixed share of M and T's size (a hostile piece gives up).

use granit_parser::{Event, Parser, ScalarStyle, StructureStyle};

use super::build::{Builder, Pos};
use super::{Doc, Limits};

/// Files smaller than this parse on one thread (the cut would not pay for the thread).
pub(super) const MIN_BYTES: usize = 4 << 20;

/// Share of the file (in bytes) parsed on this thread, which also builds the whole tree.
const SHARE_HERE: f64 = 0.46;

/// At most one buffered event per this many bytes of a piece (typical toolkit YAML has one
/// per 10 to 13 bytes); a denser piece gives up.
const BYTES_PER_EVENT: usize = 3;

/// Where the file is cut.
#[derive(Debug, Clone, PartialEq)]
struct Cut {
    /// Start of M (a line holding an item) and of T (the line after the list).
    m: usize,
    t: usize,
    /// 1-based lines of those starts.
    m_line: u32,
    t_line: u32,
    /// The list's first item line and its column (1-based, of the `-`).
    first_line: u32,
    col: u32,
}

/// The tree of `text`, built from three pieces parsed on two threads; `None` when the file
/// does not allow the cut (see the module documentation).
pub(super) fn parse(text: &std::sync::Arc<str>, limits: &Limits) -> Option<Doc> {
    if text.len() < MIN_BYTES || std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return None;
    }
    parse_at(text, limits, (text.len() as f64 * SHARE_HERE) as usize)
}

/// [`parse`] whatever the file's size, with M starting at the first item at or after
/// byte `target`.
fn parse_at(text: &std::sync::Arc<str>, limits: &Limits, target: usize) -> Option<Doc> {
    let cut = plan(text, target)?;
    let (m_text, t_text) = (&text[cut.m..cut.t], &text[cut.t..]);
    if [m_text, t_text]
        .iter()
        .any(|p| p.bytes().any(|b| b == b'&' || b == b'*'))
    {
        return None;
    }
    std::thread::scope(|s| {
        let worker = s.spawn(|| {
            let m = Buffer::read(m_text, cut.m, cut.m_line, limits)?;
            let t = Buffer::read(t_text, cut.t, cut.t_line, limits)?;
            Some((m, t))
        });
        // The tree's budget counts what the buffers may take, so the two threads together
        // stay within the memory budget one thread has.
        let reserve = Buffer::most_bytes(m_text.len()) + Buffer::most_bytes(t_text.len());
        let here = head(text, &cut, limits, reserve);
        let there = worker.join().ok().flatten();
        let ((mut builder, held), (m, t)) = (here?, there?);
        // M's items, the list's end, T's keys, then the ends of the root, the document
        // and the stream.
        m.feed_list(&mut builder, &cut)?;
        let mut held = held.into_iter();
        let (end, pos) = held.next()?;
        builder.event(end, pos).ok()?;
        t.feed_keys(&mut builder)?;
        for (event, pos) in held {
            builder.event(event, pos).ok()?;
        }
        Some(builder.finish())
    })
}

/// Finds the top-level `actions:` list and the first line at or after byte `target` where
/// one of its items starts.
fn plan(text: &str, target: usize) -> Option<Cut> {
    let mut lines = Lines::new(text);
    // The key alone on its line at column 1 (a comment may follow).
    loop {
        let (_, line) = lines.next()?;
        if let Some(rest) = line.strip_prefix("actions:") {
            let rest = rest.trim_start_matches(' ').trim_end_matches('\r');
            if rest.is_empty() || rest.starts_with('#') {
                break;
            }
        }
    }
    // Its first item fixes the items' indentation.
    let (first_line, indent) = loop {
        let (_, line) = lines.next()?;
        if blank_or_comment(line) {
            continue;
        }
        let indent = indent_of(line);
        if !is_item(line, indent) {
            return None;
        }
        break (lines.number, indent);
    };
    let mut m = None;
    while let Some((start, line)) = lines.next() {
        if blank_or_comment(line) {
            continue;
        }
        let at = indent_of(line);
        let ends = at < indent || (at == 0 && indent == 0 && !line.starts_with('-'));
        if ends {
            let (m, m_line) = m?;
            return Some(Cut {
                m,
                t: start,
                m_line,
                t_line: lines.number,
                first_line,
                col: indent as u32 + 1,
            });
        }
        if m.is_none() && start >= target && at == indent && is_item(line, indent) {
            m = Some((start, lines.number));
        }
    }
    // The list runs to the end of the file: T is empty.
    let (m, m_line) = m?;
    Some(Cut {
        m,
        t: text.len(),
        m_line,
        t_line: lines.number + 1,
        first_line,
        col: indent as u32 + 1,
    })
}

fn blank_or_comment(line: &str) -> bool {
    let content = line.trim_start_matches(' ').trim_end_matches('\r');
    content.is_empty() || content.starts_with('#')
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether the line holds an item of a block list at `indent`: `- ` or a lone `-`.
fn is_item(line: &str, indent: usize) -> bool {
    let rest = line[indent..].trim_end_matches('\r');
    rest == "-" || rest.starts_with("- ")
}

/// A line iterator that knows each line's byte start; `number` is the 1-based number of
/// the line returned last.
struct Lines<'a> {
    text: &'a str,
    at: usize,
    number: u32,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        Lines {
            text,
            at: 0,
            number: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    /// The line's byte start and its text without the `\n`.
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        if self.at >= self.text.len() {
            return None;
        }
        let start = self.at;
        let rest = &self.text[start..];
        let len = rest.find('\n').unwrap_or(rest.len());
        self.at = start + len + 1;
        self.number += 1;
        Some((start, &rest[..len]))
    }
}

fn options(limits: &Limits) -> granit_parser::Options {
    granit_parser::options! {
        emit_anchor_events: true,
        emit_comments: false,
        flow_nesting_limit: limits.max_depth,
        block_nesting_limit: limits.max_depth,
    }
}

/// An event's position, `piece_at` bytes and `line0` lines into the file.
fn pos_of(span: &granit_parser::Span, piece_at: usize, line0: u32) -> Pos {
    let start = span.start.byte_offset().unwrap_or(0);
    let end = span.end.byte_offset().unwrap_or(start);
    Pos {
        range: piece_at + start..piece_at + end,
        line: span.start.line() as u32 + line0,
        col: span.start.col() as u32 + 1,
    }
}

/// The events A ends with when it ends inside the list.
fn closes_the_list(held: &[(Event<'_>, Pos)]) -> bool {
    matches!(
        held,
        [
            (Event::SequenceEnd, _),
            (Event::MappingEnd, _),
            (Event::DocumentEnd, _),
            (Event::StreamEnd, _)
        ]
    )
}

/// Parses A on this thread into a builder; returns it with A's last four events held back
/// (they close the list, the root, the document and the stream, and go in last).
fn head<'t>(
    text: &'t std::sync::Arc<str>,
    cut: &Cut,
    limits: &Limits,
    reserve: usize,
) -> Option<(Builder, Vec<(Event<'t>, Pos)>)> {
    let a = &text[..cut.m];
    let mut builder = Builder::new(std::sync::Arc::clone(text), limits, 1);
    if !builder.reserve(reserve) {
        return None;
    }
    let mut held: std::collections::VecDeque<(Event<'t>, Pos)> =
        std::collections::VecDeque::with_capacity(5);
    for next in Parser::new_from_str_with_options(a, options(limits)) {
        let (event, span) = next.ok()?;
        held.push_back((event, pos_of(&span, 0, 0)));
        if held.len() > 4 {
            let (event, pos) = held.pop_front()?;
            if !builder.event(event, pos).ok()? {
                return None;
            }
        }
    }
    let held: Vec<_> = held.into();
    if !closes_the_list(&held) || !builder.holds_open_list(cut.first_line, cut.col) {
        return None;
    }
    Some((builder, held))
}

/// One piece's events, positions already moved to the file.
struct Buffer<'t> {
    piece: &'t str,
    events: Vec<Buffered>,
    /// Scalar texts that are not a slice of the piece (escapes, folded lines).
    owned: String,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    /// A scalar: the range of its text in the piece, or in [`Buffer::owned`] when `true`.
    Scalar(ScalarStyle, u32, u32, bool),
    SeqStart(StructureStyle),
    SeqEnd,
    MapStart(StructureStyle),
    MapEnd,
    StreamStart,
    StreamEnd,
    /// A document start (`true`: an explicit `---`).
    DocStart(bool),
    DocEnd,
}

#[derive(Debug, Clone, Copy)]
struct Buffered {
    kind: Kind,
    start: u32,
    end: u32,
    line: u32,
    col: u32,
}

impl<'t> Buffer<'t> {
    /// Most events a piece of `len` bytes may buffer.
    fn most_events(len: usize) -> usize {
        len / BYTES_PER_EVENT + 16
    }

    /// Most bytes the buffer of a piece of `len` bytes may take: its events, and its
    /// decoded texts (never longer than the piece; a string grows to at most twice that).
    fn most_bytes(len: usize) -> usize {
        Self::most_events(len) * std::mem::size_of::<Buffered>() + 2 * len
    }

    /// Parses a piece on its own; `None` on an error, an anchor or alias, a tag-less
    /// surprise, or more events than the piece's size allows.
    fn read(piece: &'t str, at: usize, first_line: u32, limits: &Limits) -> Option<Buffer<'t>> {
        let cap = Self::most_events(piece.len());
        let mut buf = Buffer {
            piece,
            events: Vec::with_capacity((piece.len() / 12).min(cap)),
            owned: String::new(),
        };
        let base = piece.as_ptr() as usize;
        for next in Parser::new_from_str_with_options(piece, options(limits)) {
            let (event, span) = next.ok()?;
            let (len, room) = (buf.events.len(), buf.events.capacity());
            if len >= cap {
                return None;
            }
            if len == room {
                // Grows by at most the cap, never past it (the budget counted the cap).
                buf.events.reserve_exact(room.max(1024).min(cap - len));
            }
            let kind = match event {
                Event::Scalar(text, style, 0, _) => {
                    let inside = (text.as_ptr() as usize)
                        .checked_sub(base)
                        .filter(|o| o + text.len() <= piece.len());
                    match (inside, &text) {
                        (Some(o), std::borrow::Cow::Borrowed(_)) => {
                            Kind::Scalar(style, u32::try_from(o).ok()?, text.len() as u32, false)
                        }
                        _ => {
                            let o = buf.owned.len();
                            buf.owned.push_str(&text);
                            Kind::Scalar(style, u32::try_from(o).ok()?, text.len() as u32, true)
                        }
                    }
                }
                Event::SequenceStart(style, 0, _) => Kind::SeqStart(style),
                Event::SequenceEnd => Kind::SeqEnd,
                Event::MappingStart(style, 0, _) => Kind::MapStart(style),
                Event::MappingEnd => Kind::MapEnd,
                Event::StreamStart => Kind::StreamStart,
                Event::StreamEnd => Kind::StreamEnd,
                Event::DocumentStart(explicit, _) => Kind::DocStart(explicit),
                Event::DocumentEnd => Kind::DocEnd,
                // Anchors, aliases (and anything newer): one thread.
                _ => return None,
            };
            let pos = pos_of(&span, at, first_line - 1);
            buf.events.push(Buffered {
                kind,
                start: u32::try_from(pos.range.start).ok()?,
                end: u32::try_from(pos.range.end).ok()?,
                line: pos.line,
                col: pos.col,
            });
        }
        Some(buf)
    }

    /// The event as the parser gave it, with its position in the file.
    fn event(&self, b: &Buffered) -> (Event<'t>, Pos) {
        let event = match b.kind {
            Kind::Scalar(style, o, len, owned) => {
                let range = o as usize..o as usize + len as usize;
                let text: std::borrow::Cow<'t, str> = if owned {
                    std::borrow::Cow::Owned(self.owned[range].to_string())
                } else {
                    std::borrow::Cow::Borrowed(&self.piece[range])
                };
                Event::Scalar(text, style, 0, None)
            }
            Kind::SeqStart(style) => Event::SequenceStart(style, 0, None),
            Kind::SeqEnd => Event::SequenceEnd,
            Kind::MapStart(style) => Event::MappingStart(style, 0, None),
            Kind::MapEnd => Event::MappingEnd,
            Kind::StreamStart => Event::StreamStart,
            Kind::StreamEnd => Event::StreamEnd,
            Kind::DocStart(explicit) => Event::DocumentStart(explicit, None),
            Kind::DocEnd => Event::DocumentEnd,
        };
        let pos = Pos {
            range: b.start as usize..b.end as usize,
            line: b.line,
            col: b.col,
        };
        (event, pos)
    }

    /// The events inside one implicit document whose root is a block collection opened by
    /// `root` at column `col`; `None` for any other shape.
    fn inner(&self, root: fn(&Kind) -> bool, col: u32) -> Option<&[Buffered]> {
        let e = &self.events;
        let n = e.len();
        if n < 6 {
            return None;
        }
        let shape = matches!(e[0].kind, Kind::StreamStart)
            && matches!(e[1].kind, Kind::DocStart(false))
            && root(&e[2].kind)
            && e[2].col == col
            && matches!(e[n - 2].kind, Kind::DocEnd)
            && matches!(e[n - 1].kind, Kind::StreamEnd);
        // Exactly one document: no other start or end inside.
        let one = e[3..n - 2].iter().all(|b| {
            !matches!(
                b.kind,
                Kind::DocStart(_) | Kind::DocEnd | Kind::StreamStart | Kind::StreamEnd
            )
        });
        (shape && one).then(|| &e[3..n - 3])
    }

    /// Feeds M's items into the open list (M is one block list at the list's column).
    fn feed_list(&self, builder: &mut Builder, cut: &Cut) -> Option<()> {
        let block_seq = |k: &Kind| matches!(k, Kind::SeqStart(StructureStyle::Block));
        let n = self.events.len();
        if n < 6
            || !matches!(self.events[n - 3].kind, Kind::SeqEnd)
            || self.events[2].line != cut.m_line
        {
            return None;
        }
        for b in self.inner(block_seq, cut.col)? {
            let (event, pos) = self.event(b);
            builder.event(event, pos).ok()?;
        }
        Some(())
    }

    /// Feeds T's keys into the root mapping (T is one block mapping at column 1, or
    /// nothing but blank lines and comments).
    fn feed_keys(&self, builder: &mut Builder) -> Option<()> {
        let only_stream = self.events.len() == 2
            && matches!(self.events[0].kind, Kind::StreamStart)
            && matches!(self.events[1].kind, Kind::StreamEnd);
        if only_stream {
            return Some(());
        }
        let block_map = |k: &Kind| matches!(k, Kind::MapStart(StructureStyle::Block));
        let n = self.events.len();
        if n < 6 || !matches!(self.events[n - 3].kind, Kind::MapEnd) {
            return None;
        }
        for b in self.inner(block_map, 1)? {
            let (event, pos) = self.event(b);
            builder.event(event, pos).ok()?;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::{GenOptions, generate};
    use std::sync::Arc;

    fn kit(actions: usize, seed: u64) -> String {
        generate(GenOptions {
            actions,
            tools: Some(actions / 4 + 1),
            seed,
        })
    }

    /// Cuts `text` at every `step`th byte of its actions list; every cut taken must give the
    /// tree of one parse. Returns how many were taken.
    fn cuts_agree(name: &str, text: &str, step: usize) -> usize {
        let limits = Limits::default();
        let text: Arc<str> = Arc::from(text);
        let one = super::super::build::parse_one(Arc::clone(&text), &limits);
        let mut taken = 0;
        for target in (0..text.len()).step_by(step) {
            let Some(two) = parse_at(&text, &limits, target) else {
                continue;
            };
            let one = one.as_ref().unwrap_or_else(|e| {
                panic!("{name}: the cut parsed a text one parse rejects ({e}) at {target}")
            });
            assert!(
                one.same_tree(&two),
                "{name}: the cut at {target} built another tree"
            );
            taken += 1;
        }
        taken
    }

    /// Replaces the first occurrence of `from` after the actions list's start.
    fn in_actions(text: &str, from: &str, to: &str) -> String {
        let at = text
            .find("\nactions:\n")
            .expect("generated kits have actions");
        let (head, tail) = text.split_at(at);
        format!("{head}{}", tail.replacen(from, to, 1))
    }

    #[test]
    fn generated_kits_cut_anywhere_give_the_tree_of_one_parse() {
        for seed in 1..4 {
            let text = kit(120, seed);
            let taken = cuts_agree("generated", &text, 197);
            assert!(taken > 20, "seed {seed}: only {taken} cuts taken");
        }
    }

    #[test]
    fn awkward_texts_give_the_same_tree_or_one_thread() {
        let b = kit(60, 7);
        let variants = [
            ("plain", b.clone()),
            ("crlf", b.replace('\n', "\r\n")),
            (
                "block scalar",
                in_actions(
                    &b,
                    "    desc: Synthetic action 20.\n",
                    "    desc: |\n      - name: not an item\n\n      kept\n",
                ),
            ),
            (
                "folded",
                in_actions(
                    &b,
                    "    desc: Synthetic action 21.\n",
                    "    desc: >-\n      folded\n      text\n",
                ),
            ),
            (
                "quoted across lines",
                in_actions(
                    &b,
                    "    desc: Synthetic action 22.\n",
                    "    desc: \"two\n      - name: inside a string\n      \"\n",
                ),
            ),
            (
                "under-indented quote",
                in_actions(
                    &b,
                    "    desc: Synthetic action 28.\n",
                    "    desc: \"two\n  - name: inside a string\n  \"\n",
                ),
            ),
            (
                "plain across lines",
                in_actions(
                    &b,
                    "    desc: Synthetic action 23.\n",
                    "    desc: Synthetic\n      action twenty three\n",
                ),
            ),
            (
                "escapes",
                in_actions(
                    &b,
                    "    desc: Synthetic action 24.\n",
                    "    desc: \"tab\\there \\u00e9\"\n",
                ),
            ),
            (
                "comments",
                in_actions(&b, "  - name: a25\n", "# between items\n\n  - name: a25\n"),
            ),
            (
                "anchor and alias",
                in_actions(
                    &b,
                    "    desc: Synthetic action 26.\n",
                    "    desc: &d Synthetic\n",
                )
                .replacen("desc: Synthetic action 40.", "desc: *d", 1),
            ),
            (
                "flow across lines",
                in_actions(&b, "    next: [", "    next:\n      ["),
            ),
            (
                "tabs",
                in_actions(
                    &b,
                    "    desc: Synthetic action 27.\n",
                    "    desc:\tSynthetic\n",
                ),
            ),
            // An indentless list: its start is reported after the first dash inside the
            // mapping but at the dash on its own, so it is parsed on one thread.
            (
                "items at column 1",
                b.replace("\n  - ", "\n- ").replace("\n    ", "\n  "),
            ),
            ("actions last", {
                let ops = b.find("\noperators:").expect("operators");
                let acts = b.find("\nactions:").expect("actions");
                format!("{}{}{}", &b[..acts], &b[ops..], &b[acts..ops])
            }),
            ("explicit document", format!("---\n{b}")),
            ("a second document", format!("{b}---\nactions: []\n")),
            ("document end", format!("{b}...\n")),
            (
                "broken in the list",
                in_actions(
                    &b,
                    "    desc: Synthetic action 30.\n",
                    "    desc: [unclosed\n",
                ),
            ),
            ("broken after", format!("{b}tail: [\n")),
            (
                "a tag",
                in_actions(
                    &b,
                    "    desc: Synthetic action 31.\n",
                    "    desc: !!str Synthetic\n",
                ),
            ),
            (
                "lone dash item",
                in_actions(&b, "  - name: a32\n", "  -\n    name: a32\n"),
            ),
        ];
        let mut taken = 0;
        for (name, text) in &variants {
            assert!(
                *name == "plain" || text != &b,
                "{name}: the variant changed nothing"
            );
            let n = cuts_agree(name, text, 151);
            // Cuts must be taken where the shape allows; where it does not, one thread.
            let one_thread = [
                "items at column 1",
                "under-indented quote",
                "a second document",
                "broken in the list",
                "broken after",
            ];
            assert_eq!(n == 0, one_thread.contains(name), "{name}: {n} cuts taken");
            taken += n;
        }
        assert!(taken > 500, "only {taken} cuts taken");
    }

    /// Through the size gate, as a load takes it: a generated kit over [`MIN_BYTES`].
    #[test]
    fn a_large_kit_is_cut_and_gives_the_tree_of_one_parse() {
        let text: Arc<str> = Arc::from(kit(20_000, 11));
        assert!(text.len() > MIN_BYTES, "{} bytes", text.len());
        let limits = Limits::default();
        let one = super::super::build::parse_one(Arc::clone(&text), &limits).expect("parses");
        if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
            assert!(parse(&text, &limits).is_none(), "one core: one thread");
            return;
        }
        let two = parse(&text, &limits).expect("a large kit is cut");
        assert!(one.same_tree(&two));
    }

    #[test]
    fn a_file_without_a_top_level_actions_list_is_not_cut() {
        let b = kit(30, 2);
        assert!(plan(&b.replace("\nactions:\n", "\nsteps:\n"), 0).is_none());
        assert!(plan(&b.replace("\nactions:\n", "\nactions: # the list\n"), 0).is_some());
        assert!(plan(&b.replace("\nactions:\n", "\nactions: []\nrest:\n"), 0).is_none());
    }
}
