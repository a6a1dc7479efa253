//! A fast path for edits to large native files: instead of parsing the whole file to find
//! one declaration, cut out the lines of that declaration (found from the node's recorded
//! position) and parse only those. Used only when the positions are fresh (no unsaved edit
//! to the file) and the cut-out holds no anchor or alias; anything unexpected falls back to
//! the full parse, and the whole file is still verified before it is written.

use crate::model::{NodeKind, Origin, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::{Format, Limits, SourceFile, yaml};

use super::doc::Nav;
use super::{Edit, Patch};
use crate::formats::native::edit as native;

/// The lines an edit was made in: a whole item of a top-level list, on the body (the text
/// after a BOM), with what it declares.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Window {
    pub range: std::ops::Range<usize>,
    /// Column (0-based) of the item's mapping: every content line of the item but its
    /// first is indented at least this much, and the line after it less.
    pub col: usize,
    /// 1-based line of the window's first line.
    pub line: u32,
    pub subject: Subject,
}

/// What a window's item declares.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Subject {
    /// An action or tool.
    Node(NodeKind, String),
    /// An operator, by name.
    Operator(String),
}

/// The patch computed on the declaration's lines, or `None` to use the full parse.
#[cfg(test)]
pub(crate) fn patch(edit: &Edit, file: &SourceFile, tk: &Toolkit) -> Option<Patch> {
    patch_in_window(edit, file, tk).map(|(p, _)| p)
}

/// The lines of the declaration an edit changes, parsed on their own.
struct Cut<'f> {
    origin: Origin,
    subject: Subject,
    /// The lines, on the body (the text after a BOM).
    range: std::ops::Range<usize>,
    text: &'f str,
    doc: yaml::Doc,
}

/// Cuts out and parses the declaration `edit` changes; `None` (use the full parse) for a
/// Chat2Graph file, a node without a position, or lines holding an anchor, alias or merge
/// key (something outside could refer into them, or they to something outside).
fn cut<'f>(edit: &Edit, file: &'f SourceFile, tk: &Toolkit) -> Option<Cut<'f>> {
    if file.format != Format::Native {
        return None;
    }
    let (origin, subject) = origin(edit, tk)?;
    let body = crate::source::strip_bom(&file.text);
    let range = declaration_lines(body, origin)?;
    let text = &body[range.clone()];
    if text.contains(['&', '*', '<']) {
        return None;
    }
    let doc = yaml::parse(text, &Limits::default()).ok()?;
    Some(Cut {
        origin,
        subject,
        range,
        text,
        doc,
    })
}

/// [`patch`] with the window it was computed in.
pub(crate) fn patch_in_window(
    edit: &Edit,
    file: &SourceFile,
    tk: &Toolkit,
) -> Option<(Patch, Window)> {
    let c = cut(edit, file, tk)?;
    let nav = Nav::new(c.text, &c.doc, true);
    let mut out: Patch = native::patch(&nav, tk, edit).ok()?;
    out.notes.extend(nav.notes.take());
    // The whole-document check on the cut-out (no anchors or aliases in it): anything it
    // finds sends the edit to the full path, which checks the whole file.
    let (new_cut, _) = patch::apply(c.text, &out.splices, 0).ok()?;
    super::unchanged::same_outside(c.text, &out.splices, &new_cut).ok()?;
    for s in &mut out.splices {
        *s = Splice::new(
            s.at.start + c.range.start..s.at.end + c.range.start,
            std::mem::take(&mut s.with),
        );
    }
    let col = c.origin.col as usize - 1;
    Some((
        out,
        Window {
            range: c.range,
            col,
            line: c.origin.line,
            subject: c.subject,
        },
    ))
}

/// [`super::text_inverse`] on the operator's lines alone: `Some(inverse)` when the window
/// holds the operator (the inverse itself may be `None`), `None` to use the full parse. The
/// question (did the operator write the key?) is about the operator's own mapping, which
/// the window holds whole.
pub(crate) fn text_inverse(edit: &Edit, file: &SourceFile, tk: &Toolkit) -> Option<Option<Edit>> {
    let c = cut(edit, file, tk)?;
    let nav = Nav::new(c.text, &c.doc, true);
    super::restore::text_inverse(&nav, crate::formats::of(Format::Native), tk, edit)
}

/// The item an edit would be patched in (see [`patch_in_window`]), if any.
pub(crate) fn subject(edit: &Edit, tk: &Toolkit) -> Option<Subject> {
    origin(edit, tk).map(|(_, s)| s)
}

/// Where the declaration the edit changes was read from, and what it declares.
fn origin(edit: &Edit, tk: &Toolkit) -> Option<(Origin, Subject)> {
    match edit {
        Edit::SetScore { from, .. }
        | Edit::AddEdge { from, .. }
        | Edit::RemoveEdge { from, .. } => Some((
            tk.node(tk.action(from)?).origin?,
            Subject::Node(NodeKind::Action, from.clone()),
        )),
        Edit::SetDesc { kind, name, .. } if *kind != NodeKind::Group => Some((
            tk.node(tk.find(*kind, name)?).origin?,
            Subject::Node(*kind, name.clone()),
        )),
        Edit::SetThreshold { operator, .. } | Edit::SetHops { operator, .. } => Some((
            tk.operator(operator)?.origin?,
            Subject::Operator(operator.clone()),
        )),
        _ => None,
    }
}

/// The lines of the block sequence item whose mapping starts at `origin`: from the line of
/// its dash to the next line (not blank, not a comment) indented less than the mapping.
pub(crate) fn declaration_lines(text: &str, origin: Origin) -> Option<std::ops::Range<usize>> {
    let start = nth_line(text, origin.line)?;
    let line = &text[start..patch::line_end(text, start)];
    let col = origin.col as usize - 1;
    let trimmed = line.trim_start_matches(' ');
    let dash_col = line.len() - trimmed.len();
    if !line.is_char_boundary(col) || !trimmed.starts_with("- ") || dash_col + 2 > col {
        return None;
    }
    let mut end = patch::next_line(text, start);
    while end < text.len() {
        let next = &text[end..patch::line_end(text, end)];
        let content = next.trim_start_matches(' ');
        let indent = next.len() - content.len();
        let skip = content.is_empty() || content.starts_with('#');
        if !skip && indent < col {
            break;
        }
        end = patch::next_line(text, end);
    }
    Some(start..end)
}

/// Byte offset of the start of 1-based line `n`. Operators sit at the end of a file, so
/// this walks most of it: `memchr` finds the line breaks a vector at a time (a `find` per
/// line was tens of milliseconds of a threshold edit at 100k actions).
fn nth_line(text: &str, n: u32) -> Option<usize> {
    match n {
        0 => None,
        1 => Some(0),
        _ => memchr::memchr_iter(b'\n', text.as_bytes())
            .nth(n as usize - 2)
            .map(|i| i + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::load_text;

    #[test]
    fn nth_line_finds_each_line_start() {
        let text = "a\n\nbc\n  d\ne";
        let starts: Vec<Option<usize>> = (0..7).map(|n| nth_line(text, n)).collect();
        assert_eq!(
            starts,
            [None, Some(0), Some(2), Some(3), Some(6), Some(10), None]
        );
        assert_eq!(nth_line("", 1), Some(0));
        assert_eq!(nth_line("x\n", 2), Some(2));
    }
    use crate::synth::{GenOptions, generate};
    use std::path::Path;

    #[test]
    fn the_cut_out_gives_the_same_splices_as_the_full_parse() {
        let mut text = generate(GenOptions {
            actions: 100,
            tools: None,
            seed: 7,
        });
        text.push_str(
            "operators:\n  - name: big\n    actions: [a1]\n    # a comment\n\n    hops: 1\n",
        );
        let load = load_text(Path::new("g.yaml"), text, None, &Limits::default()).unwrap();
        let (file, tk) = (load.source, load.toolkit);
        let mut checked = 0;
        for e in tk.graph.edge_indices().step_by(9) {
            let (u, v) = tk.graph.edge_endpoints(e).unwrap();
            let (from, to, to_kind) = (tk.name(u).to_string(), tk.name(v).to_string(), tk.kind(v));
            let edits = [
                Edit::SetScore {
                    from: from.clone(),
                    to: to.clone(),
                    to_kind,
                    score: 0.33,
                },
                Edit::RemoveEdge {
                    from: from.clone(),
                    to: to.clone(),
                    to_kind,
                },
                Edit::SetDesc {
                    kind: tk.kind(v),
                    name: to.clone(),
                    text: "New.\nLines.\n".into(),
                },
                Edit::AddEdge {
                    from: to.clone(),
                    to: from.clone(),
                    to_kind: NodeKind::Action,
                    score: 0.5,
                },
            ];
            for edit in edits {
                let full = edit
                    .patch(&file, &tk, Limits::default().verify_each_edit_bytes)
                    .map(|p| p.splices);
                if let Some(fast) = patch(&edit, &file, &tk) {
                    assert_eq!(Ok(fast.splices), full, "{}", edit.describe());
                    checked += 1;
                }
            }
        }
        for edit in [
            Edit::SetThreshold {
                operator: "big".into(),
                value: 0.75,
            },
            Edit::SetHops {
                operator: "big".into(),
                value: 2,
            },
        ] {
            let fast = patch(&edit, &file, &tk).expect("operator window");
            assert_eq!(
                Ok(fast.splices),
                edit.patch(&file, &tk, Limits::default().verify_each_edit_bytes)
                    .map(|p| p.splices)
            );
        }
        assert!(checked > 40, "only {checked} edits took the fast path");
    }
}
