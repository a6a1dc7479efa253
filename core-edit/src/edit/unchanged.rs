//! Whole-document verification of an edit: everything the file means outside the edited
//! construct must read back the same, not only the graph.
//!
//! Text outside the splices is unchanged by construction, but its meaning can still change:
//! an anchored value edited under an alias used elsewhere, a keep block scalar (`|+`) losing
//! its trailing blank lines to an insertion after it, an indentation change re-parenting
//! what follows. So both texts are parsed and every node of the old document that no splice
//! touches is looked up at its shifted position in the new one and compared: the same kind,
//! scalar text and style, anchor, number of entries, and for an alias the same anchor name
//! (aliases are compared as references, never expanded, so an alias bomb stays cheap).
//! Linear in the document size (plus a log factor for the splice lookup).

use std::collections::HashSet;
use std::ops::Range;

use crate::source::patch::{self, Splice};
use crate::source::yaml::{self, Doc, Limits, NodeId, Value};

/// Checks that `new` (the body after `splices`) means what `old` meant outside the edited
/// constructs. The message names the line in the old text.
pub fn same_outside(old: &str, splices: &[Splice], new: &str) -> Result<(), String> {
    let limits = Limits::default();
    let a = yaml::parse(old, &limits).map_err(|e| format!("the old text does not parse: {e}"))?;
    same_outside_doc(&a, old, splices, new)
}

/// [`same_outside`] with the old text already parsed (the patchers parse it anyway).
pub fn same_outside_doc(a: &Doc, old: &str, splices: &[Splice], new: &str) -> Result<(), String> {
    if splices.is_empty() {
        return Ok(());
    }
    let b = yaml::parse(new, &Limits::default())
        .map_err(|e| format!("the new text does not parse: {e}"))?;
    same_outside_docs(a, old, splices, &b)
}

/// [`same_outside_doc`] with the new text parsed too (a batch parses it for its next edit).
pub fn same_outside_docs(a: &Doc, old: &str, splices: &[Splice], b: &Doc) -> Result<(), String> {
    if splices.is_empty() {
        return Ok(());
    }
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.at.start, s.at.end));
    let shifts = Shifts::new(&sorted);
    let at = Starts::new(b);
    let aliased = aliased_targets(a);
    for (i, n) in a.nodes().enumerate() {
        let id = i as NodeId;
        if edited(old, a, id, &sorted) {
            if let (Value::Scalar { .. }, Some(anchor)) = (&n.value, &n.anchor)
                && aliased.contains(&id)
                && changed_scalar(a, id, b, &at, &shifts)
            {
                return Err(format!(
                    "line {}: the edit changes the anchored value &{}, which is used elsewhere through aliases",
                    n.line, anchor.0
                ));
            }
            continue;
        }
        let found = at
            .get(shifts.map(n.span.start))
            .find(|m| same(a, id, b, *m));
        if found.is_none() {
            return Err(format!(
                "line {}: the edit would change what the file says there (outside the edited construct)",
                n.line
            ));
        }
    }
    Ok(())
}

/// Whether an edited anchored scalar reads differently afterwards (or is gone).
fn changed_scalar(a: &Doc, id: NodeId, b: &Doc, at: &Starts, shifts: &Shifts) -> bool {
    let start = shifts.map(a.node(id).span.start);
    !at.get(start).any(|m| same(a, id, b, m))
}

/// The nodes of a document by start position (sorted once; no map of vectors).
struct Starts(Vec<(usize, NodeId)>);

impl Starts {
    fn new(doc: &Doc) -> Starts {
        let mut v: Vec<(usize, NodeId)> = doc
            .nodes()
            .enumerate()
            .map(|(i, n)| (n.span.start, i as NodeId))
            .collect();
        v.sort_unstable();
        Starts(v)
    }

    fn get(&self, start: usize) -> impl Iterator<Item = NodeId> + '_ {
        let from = self.0.partition_point(|(s, _)| *s < start);
        self.0[from..]
            .iter()
            .take_while(move |(s, _)| *s == start)
            .map(|(_, id)| *id)
    }
}

fn aliased_targets(doc: &Doc) -> HashSet<NodeId> {
    doc.nodes()
        .filter_map(|n| match n.value {
            Value::Alias(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// Whether a splice touches the node: overlaps a scalar's content (a block scalar's header
/// included), or reaches into or onto a collection or an empty value.
fn edited(text: &str, doc: &Doc, id: NodeId, splices: &[&Splice]) -> bool {
    let n = doc.node(id);
    let span = &n.span;
    let touches = |r: &Range<usize>| {
        splices
            .iter()
            .any(|s| s.at.start <= r.end && s.at.end >= r.start)
    };
    let overlaps = |r: &Range<usize>| {
        splices
            .iter()
            .any(|s| s.at.start < r.end && s.at.end > r.start)
    };
    match &n.value {
        // An empty value (`next:` with nothing after it) is a point at its key's end; an
        // edit filling it goes after the colon, or at the end of the key's line.
        _ if span.is_empty() => touches(&(span.start..patch::line_end(text, span.start))),
        Value::Scalar { style, .. } => {
            let end = patch::content_end(text, span).max(span.start);
            let header = match style {
                yaml::Style::Literal | yaml::Style::Folded => {
                    text[..span.start].rfind(['|', '>']).unwrap_or(span.start)
                }
                _ => span.start,
            };
            overlaps(&(header..end))
        }
        Value::Alias(_) => overlaps(span),
        // An entry added after the last one goes after the collection's last line (and
        // after the blank and comment lines that follow it).
        Value::Seq(_) | Value::Map(_) => touches(&(span.start..trailing_end(text, span.end))),
    }
}

/// The end of the blank and comment lines after `pos` (the start of the next content line).
fn trailing_end(text: &str, pos: usize) -> usize {
    let mut at = patch::next_line(text, pos.min(text.len()));
    while at < text.len() {
        let end = patch::next_line(text, at);
        let line = text[at..end].trim();
        if !(line.is_empty() || line.starts_with('#')) {
            break;
        }
        at = end;
    }
    at
}

/// Whether node `x` of `a` and node `y` of `b` say the same (children are compared on
/// their own, so a collection compares its kind, style, anchor and size).
fn same(a: &Doc, x: NodeId, b: &Doc, y: NodeId) -> bool {
    let (m, n) = (a.node(x), b.node(y));
    fn anchor(d: &Doc, id: NodeId) -> Option<&str> {
        d.node(id).anchor.as_ref().map(|v| v.0.as_str())
    }
    if m.flow != n.flow || anchor(a, x) != anchor(b, y) {
        return false;
    }
    match (&m.value, &n.value) {
        (
            Value::Scalar {
                text: t1,
                style: s1,
            },
            Value::Scalar {
                text: t2,
                style: s2,
            },
        ) => t1 == t2 && s1 == s2,
        (Value::Seq(i1), Value::Seq(i2)) => i1.len() == i2.len(),
        (Value::Map(e1), Value::Map(e2)) => e1.len() == e2.len(),
        (Value::Alias(t1), Value::Alias(t2)) => anchor(a, *t1) == anchor(b, *t2),
        _ => false,
    }
}

/// Old positions to new ones, for positions outside every splice.
struct Shifts {
    /// (end of a splice in the old text, total length change up to and including it).
    ends: Vec<(usize, isize)>,
}

impl Shifts {
    fn new(sorted: &[&Splice]) -> Shifts {
        let mut total = 0isize;
        let ends = sorted
            .iter()
            .map(|s| {
                total += s.with.len() as isize - (s.at.end - s.at.start) as isize;
                (s.at.end, total)
            })
            .collect();
        Shifts { ends }
    }

    /// A node starting at `pos` starts after every splice ending at or before it.
    fn map(&self, pos: usize) -> usize {
        let k = self.ends.partition_point(|(end, _)| *end <= pos);
        let shift = if k == 0 { 0 } else { self.ends[k - 1].1 };
        pos.saturating_add_signed(shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_inside_its_construct_passes() {
        let old = "a: 1\nb: [x, y]\nc: &k v\nd: *k\n";
        let s = [Splice::new(3..4, "2")];
        let (new, _) = patch::apply(old, &s, 0).unwrap();
        same_outside(old, &s, &new).unwrap();
    }

    #[test]
    fn an_anchored_value_used_elsewhere_is_caught() {
        let old = "c: &k v\nd: *k\n";
        let s = [Splice::new(6..7, "w")];
        let (new, _) = patch::apply(old, &s, 0).unwrap();
        let err = same_outside(old, &s, &new).unwrap_err();
        assert!(err.contains("&k"), "{err}");
    }

    #[test]
    fn a_keep_block_scalar_losing_its_blank_lines_is_caught() {
        let old = "m:\n  d: |+\n    text\n\n\n  e: 1\n";
        // Inserting right after the text line eats the kept blank lines.
        let at = old.find("\n\n").unwrap() + 1;
        let s = [Splice::insert(at, "  f: 2\n")];
        let (new, _) = patch::apply(old, &s, 0).unwrap();
        assert!(same_outside(old, &s, &new).is_err(), "{new}");
    }

    #[test]
    fn an_alias_bomb_stays_cheap() {
        let mut old = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..40 {
            let p = i - 1;
            old.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        old.push_str("z: 1\n");
        let at = old.len() - 2;
        let s = [Splice::new(at..at + 1, "2")];
        let (new, _) = patch::apply(&old, &s, 0).unwrap();
        same_outside(&old, &s, &new).unwrap();
    }
}
