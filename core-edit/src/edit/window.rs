//! Windows: the lines of the one declaration an edit changes (found from the node's
//! recorded position). A format that can prove a large file's save from those lines alone
//! edits there (the native format: `formats::native::window`); the workspace proves the
//! save and rereads a changed file in them. What is here names no format.

use crate::model::{NodeKind, Origin, Toolkit};
use crate::source::patch;

use super::Edit;

/// The lines an edit was made in: a whole item of a top-level list, on the body (the text
/// after a BOM), with what it declares.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
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
pub enum Subject {
    /// An action or tool.
    Node(NodeKind, String),
    /// An operator, by name.
    Operator(String),
}

/// The item an edit would be patched in (see `formats::native::window`), if any.
pub fn subject(edit: &Edit, tk: &Toolkit) -> Option<Subject> {
    origin(edit, tk).map(|(_, s)| s)
}

/// Where the declaration the edit changes was read from, and what it declares.
pub(crate) fn origin(edit: &Edit, tk: &Toolkit) -> Option<(Origin, Subject)> {
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
pub fn declaration_lines(text: &str, origin: Origin) -> Option<std::ops::Range<usize>> {
    let start = nth_line(text, origin.line)?;
    item_lines(text, start, (origin.col as usize).checked_sub(1)?)
}

/// [`declaration_lines`] of the item whose mapping starts at byte `at` (a node's span
/// start in a parse of the whole text), without counting lines from the top.
pub fn lines_at(text: &str, at: usize) -> Option<std::ops::Range<usize>> {
    let start = patch::line_start(text, at);
    item_lines(text, start, at - start)
}

/// The lines of the block sequence item whose dash is on the line starting at `start` and
/// whose mapping starts `col` bytes into it.
fn item_lines(text: &str, start: usize, col: usize) -> Option<std::ops::Range<usize>> {
    let line = &text[start..patch::line_end(text, start)];
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
}
