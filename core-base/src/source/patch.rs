//! Lossless patching: small text splices at the byte positions the parser reports.
//!
//! Every edit becomes a few [`Splice`]s on the BOM-less body of a file; nothing outside the
//! spliced ranges changes, so comments, anchors, quoting, blank lines and line endings stay
//! as written. New lines copy the indentation of their neighbours and the file's line ending.
//! Chosen over a lossless syntax tree (yaml-edit) because it matches neighbours' indentation
//! exactly and reuses the positions the loader already computes.

// Scalar writing rules live in `emit`, shared with the native exporter.
pub use super::emit::{double_quoted, float, plain_ok};

use std::ops::Range;

use super::yaml::{Doc, NodeId, Style, Value};

/// Replace `at` (byte range in the body) with `with`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    pub at: Range<usize>,
    pub with: String,
}

impl Splice {
    pub fn new(at: Range<usize>, with: impl Into<String>) -> Splice {
        Splice {
            at,
            with: with.into(),
        }
    }

    pub fn insert(pos: usize, with: impl Into<String>) -> Splice {
        Splice::new(pos..pos, with)
    }
}

/// The splices in text order with their ranges shifted by `offset`, after checking that
/// each lies in `text` on character boundaries and that none overlaps the one before.
fn ordered<'s>(
    text: &str,
    splices: &'s [Splice],
    offset: usize,
) -> Result<Vec<(Range<usize>, &'s Splice)>, String> {
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.at.start, s.at.end));
    let mut last = 0;
    sorted
        .into_iter()
        .map(|s| {
            let (start, end) = (s.at.start + offset, s.at.end + offset);
            let ok = start >= last
                && end >= start
                && end <= text.len()
                && text.is_char_boundary(start)
                && text.is_char_boundary(end);
            if !ok {
                return Err(format!(
                    "internal error: bad or overlapping splice {:?}",
                    s.at
                ));
            }
            last = end;
            Ok((start..end, s))
        })
        .collect()
}

/// Applies splices (any order, non-overlapping) to `text`, shifted by `offset` bytes (the
/// BOM). Returns the new text and the splices that undo the change, in application order.
pub fn apply(
    text: &str,
    splices: &[Splice],
    offset: usize,
) -> Result<(String, Vec<Splice>), String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut undo = Vec::with_capacity(splices.len());
    let mut last = 0;
    for (at, s) in ordered(text, splices, offset)? {
        out.push_str(&text[last..at.start]);
        let new_start = out.len();
        out.push_str(&s.with);
        undo.push(Splice::new(new_start..out.len(), &text[at.clone()]));
        last = at.end;
    }
    out.push_str(&text[last..]);
    Ok((out, undo))
}

/// [`apply`] without building the new text: only the splices that undo the change (in
/// application order), after the same checks. For callers that splice the text in place
/// later ([`apply_in_place`]), so a large file is not copied once more.
pub fn undo_of(text: &str, splices: &[Splice], offset: usize) -> Result<Vec<Splice>, String> {
    Ok(undo_in_place(text, &ordered(text, splices, offset)?))
}

/// The undo splices of `ordered` applied in place: each at its start shifted by what the
/// splices before it added or removed.
fn undo_in_place(text: &str, ordered: &[(Range<usize>, &Splice)]) -> Vec<Splice> {
    let mut shift = 0isize;
    ordered
        .iter()
        .map(|(at, s)| {
            let new_start = at.start.saturating_add_signed(shift);
            shift += s.with.len() as isize - at.len() as isize;
            Splice::new(new_start..new_start + s.with.len(), &text[at.clone()])
        })
        .collect()
}

/// [`apply`] on the text in place (the splices from the last one back, so earlier
/// positions stay valid); the text is unchanged when a splice is bad.
pub fn apply_in_place(
    text: &mut String,
    splices: &[Splice],
    offset: usize,
) -> Result<Vec<Splice>, String> {
    let ordered = ordered(text, splices, offset)?;
    let undo = undo_in_place(text, &ordered);
    for (at, s) in ordered.iter().rev() {
        text.replace_range(at.clone(), &s.with);
    }
    Ok(undo)
}

/// The file's line ending: `\r\n` when the first line ends that way.
pub fn newline(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

pub fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

/// Position just after the line break of the line holding `pos` (or the end of text).
pub fn next_line(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
}

/// End of the line holding `pos`, before its line break.
pub fn line_end(text: &str, pos: usize) -> usize {
    let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
    if end > pos && text.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// Column (in bytes) of `pos` within its line, as spaces for indentation.
pub fn indent_at(text: &str, pos: usize) -> String {
    " ".repeat(pos - line_start(text, pos))
}

/// End of a node's real content: spans of block nodes run on to the next token, over blank
/// lines and indentation; this stops after the last non-blank byte.
pub fn content_end(text: &str, span: &Range<usize>) -> usize {
    let s = &text[span.clone()];
    span.start + s.trim_end_matches([' ', '\t', '\r', '\n']).len()
}

/// Where a new line goes after a node: the start of the line after its content (and after a
/// comment on that line). `None` when the node ends the file without a final line break.
pub fn after_line(text: &str, span: &Range<usize>) -> Option<usize> {
    let end = content_end(text, span);
    let at = next_line(text, end.max(span.start));
    (at <= text.len() && text[..at].ends_with('\n')).then_some(at)
}

/// A line inserted after the node `span` with the given indentation and content.
pub fn insert_line_after(text: &str, span: &Range<usize>, indent: &str, content: &str) -> Splice {
    let nl = newline(text);
    match after_line(text, span) {
        Some(at) => Splice::insert(at, format!("{indent}{content}{nl}")),
        None => Splice::insert(text.len(), format!("{nl}{indent}{content}")),
    }
}

/// The dash of the block sequence item starting at or after `item_start`.
pub fn dash_before(text: &str, item_start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = item_start;
    while i > 0 {
        i -= 1;
        if bytes[i] == b'-'
            && bytes.get(i + 1).is_some_and(|b| b.is_ascii_whitespace())
            && text[line_start(text, i)..i]
                .bytes()
                .all(|b| b == b' ' || b == b'-')
        {
            return Some(i);
        }
    }
    None
}

/// A string written in the preferred style when that is safe, else double-quoted.
pub fn string(s: &str, prefer: Style) -> String {
    match prefer {
        Style::SingleQuoted
            if !s.contains(['\n', '\r'])
                && !s
                    .chars()
                    .any(|c| c.is_control() || super::emit::yaml11_break(c)) =>
        {
            format!("'{}'", s.replace('\'', "''"))
        }
        Style::DoubleQuoted => double_quoted(s),
        _ if plain_ok(s) => s.to_string(),
        _ => double_quoted(s),
    }
}

/// The source text of a single-line flow scalar (to copy a name as written), or the name
/// quoted anew.
pub fn name_as_written(text: &str, doc: &Doc, id: NodeId) -> String {
    let node = doc.node(id);
    let src = &text[node.span.clone()];
    let single_line = !src.contains('\n');
    match &node.value {
        Value::Scalar {
            style: Style::Plain | Style::SingleQuoted | Style::DoubleQuoted,
            text: value,
        } => {
            if single_line && !src.is_empty() {
                let quoted = matches!(src.as_bytes()[0], b'"' | b'\'');
                if quoted || plain_ok(value) {
                    return src.to_string();
                }
            }
            string(value, Style::Plain)
        }
        Value::Scalar { text: value, .. } => string(value, Style::Plain),
        _ => String::new(),
    }
}

/// Replaces a scalar value with new text, keeping a block scalar a block scalar (with the
/// content indentation it had) and a quoted one quoted the same way. `header_from` is where
/// to look for the block indicator (the end of the key).
pub fn replace_text(
    text: &str,
    doc: &Doc,
    value: NodeId,
    header_from: usize,
    new: &str,
    block_indent: &str,
) -> Result<Splice, String> {
    let node = doc.node(value);
    let Value::Scalar { style, .. } = &node.value else {
        return Err("the value is not a scalar".into());
    };
    let nl = newline(text);
    match style {
        Style::Literal | Style::Folded => {
            let header = text[header_from..node.span.start]
                .find(['|', '>'])
                .map(|i| header_from + i)
                .ok_or("block scalar header not found")?;
            let indent = indent_at(text, node.span.start);
            let end = content_end(text, &node.span).max(node.span.start);
            // A comment on the header line stays there.
            let token = text[header + 1..]
                .find(|c: char| !(c.is_ascii_digit() || c == '+' || c == '-'))
                .map_or(text.len(), |i| header + 1 + i);
            let rest = &text[token..line_end(text, token).min(end).max(token)];
            let with = match block(new, &indent, nl) {
                Some(b) => with_header_comment(&b, rest),
                None => format!("{}{rest}", double_quoted(new)),
            };
            Ok(Splice::new(header..end, with))
        }
        _ if new.contains('\n') && !node.flow && !block_indent.is_empty() => {
            // A one-line value becomes a block; a comment after it moves to the header
            // line (it cannot follow the block's last line).
            let rest_end = line_end(text, node.span.end);
            let rest = &text[node.span.end..rest_end];
            let commented = rest.trim_start().starts_with('#');
            let (to, rest) = if commented {
                (rest_end, rest)
            } else {
                (node.span.end, "")
            };
            let with = match block(new, block_indent, nl) {
                Some(b) => with_header_comment(&b, rest),
                None => format!("{}{rest}", double_quoted(new)),
            };
            Ok(Splice::new(node.span.start..to, with))
        }
        other => Ok(Splice::new(node.span.clone(), string(new, *other))),
    }
}

/// A block scalar (`|` header, line break, body) with `rest` (spaces and a comment, or
/// nothing) after its header.
fn with_header_comment(block: &str, rest: &str) -> String {
    match block.find(['\r', '\n']) {
        Some(i) if !rest.is_empty() => format!("{}{rest}{}", &block[..i], &block[i..]),
        _ => block.to_string(),
    }
}

/// `new` as a literal block scalar (header included) whose lines carry `indent`; `None` when
/// a literal block cannot hold it exactly.
pub fn block(new: &str, indent: &str, nl: &str) -> Option<String> {
    let (body, chomp) = match new.strip_suffix('\n') {
        Some(b) if b.ends_with('\n') => return None,
        Some(b) => (b, ""),
        None => (new, "-"),
    };
    let bad = body.is_empty()
        || body.starts_with([' ', '\t'])
        || body.starts_with('\n')
        || body
            .chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t') || super::emit::yaml11_break(c))
        || body.contains('\r');
    if bad {
        return None;
    }
    let mut out = format!("|{chomp}");
    for line in body.split('\n') {
        out.push_str(nl);
        if !line.is_empty() {
            out.push_str(indent);
            out.push_str(line);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_place_and_undo_of_agree_with_apply() {
        let text = "\u{feff}ab\ncd\nef\n";
        let splices = [
            Splice::new(6..7, "XYZ"),
            Splice::insert(0, "--"),
            Splice::new(3..5, ""),
        ];
        let (new, undo) = apply(text, &splices, 3).unwrap();
        assert_eq!(undo_of(text, &splices, 3).unwrap(), undo);
        let mut t = text.to_string();
        assert_eq!(apply_in_place(&mut t, &splices, 3).unwrap(), undo);
        assert_eq!(t, new);
        let bad = [Splice::new(1..2, "x"), Splice::new(1..3, "y")];
        assert!(apply_in_place(&mut t, &bad, 0).is_err());
        assert_eq!(t, new);
    }

    #[test]
    fn floats_keep_a_decimal_point() {
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(0.0), "0.0");
        assert_eq!(float(0.75), "0.75");
        assert_eq!(float(0.1), "0.1");
    }

    #[test]
    fn misreadable_strings_are_quoted() {
        for s in [
            "yes", "No", "on", "OFF", "null", "~", "1.5", "12", "", " x", "a: b", "#x", "y", "1e3",
            "0x1F", "-x",
        ] {
            assert!(!plain_ok(s), "{s:?} must be quoted");
        }
        for s in ["SchemaGetter", "query design", "a-b_c.d"] {
            assert!(plain_ok(s), "{s:?} can stay plain");
        }
        assert_eq!(string("yes", Style::Plain), "\"yes\"");
        assert_eq!(string("it's", Style::SingleQuoted), "'it''s'");
    }

    #[test]
    fn splices_apply_and_undo_exactly() {
        let text = "\u{feff}a: 1\nb: 2\n";
        let (new, undo) = apply(
            text,
            &[Splice::new(3..4, "0.5"), Splice::insert(10, "c: 3\n")],
            3,
        )
        .unwrap();
        assert_eq!(new, "\u{feff}a: 0.5\nb: 2\nc: 3\n");
        let (back, _) = apply(&new, &undo, 0).unwrap();
        assert_eq!(back, text);
    }

    #[test]
    fn blocks_keep_chomping() {
        assert_eq!(block("a\nb\n", "  ", "\n").unwrap(), "|\n  a\n  b");
        assert_eq!(
            block("a\n\nb", "  ", "\r\n").unwrap(),
            "|-\r\n  a\r\n\r\n  b"
        );
        assert!(block(" lead", "  ", "\n").is_none());
        assert!(block("a\n\n", "  ", "\n").is_none());
    }
}
