//! A member's own `Call` score in a native file. A reference to a group in an action's
//! `tools` list calls each member tool of the group at the reference's score (SPEC 1 and
//! 3.1); one member's own score is written as an item of its own next to that reference,
//!
//! ```yaml
//!     tools:
//!       - {name: files, score: 0.6}       # every member of `files` at 0.6 ...
//!       - {name: read_file, score: 0.9}   # ... but read_file at 0.9
//! ```
//!
//! which the loader reads as exactly that edge, wherever it stands in the list (see
//! `source::native`). Setting the member back to the group's score removes the item.

use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Scalar};

use crate::edit::EditError;
use crate::edit::doc::Nav;

/// A reference, in an action's `tools` list, to a group that has `to` as a member.
pub(super) struct GroupRef {
    pub name: String,
    pub index: usize,
    /// The score the reference gives each member (1.0 when it has none).
    pub score: f64,
}

/// The first item of `list` that references a group with member tool `to` (a group
/// reference calls each member, SPEC 1).
pub(crate) fn member_of_listed_group(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    list: NodeId,
    to: &str,
    to_kind: NodeKind,
) -> Option<GroupRef> {
    if to_kind != NodeKind::Tool {
        return None;
    }
    let member = tk.find(NodeKind::Tool, to)?;
    let groups: Vec<&str> = tk
        .in_edges(member)
        .filter(|(e, _)| tk.graph[*e].kind == EdgeKind::Has)
        .map(|(_, g)| tk.name(g))
        .collect();
    let items = nav.doc.seq(list)?;
    items.iter().enumerate().find_map(|(index, &item)| {
        let name = nav.ref_name(item)?;
        // As the loader reads it: a tool of the same name wins over the group.
        if !groups.contains(&name) || tk.find(NodeKind::Tool, name).is_some() {
            return None;
        }
        let score = match nav.doc.map(item).and(nav.doc.get(item, "score")) {
            Some(v) => match nav.doc.scalar(v) {
                Some(Scalar::Float(f)) => f,
                Some(Scalar::Int(i)) => i as f64,
                _ => 1.0,
            },
            None => 1.0,
        };
        Some(GroupRef {
            name: name.to_string(),
            index,
            score,
        })
    })
}

/// A new item `{name: MEMBER, score: S}` right after item `after` of `list`, in the list's
/// style (flow: `, item`; block: a `- item` line at the item's dash column).
pub(crate) fn member_item(
    nav: &Nav<'_, '_>,
    list: NodeId,
    after: usize,
    member: &str,
    score: f64,
) -> Result<Splice, EditError> {
    nav.check_not_shared(list, "the list")?;
    let items = nav.doc.seq(list).unwrap_or_default();
    let prev = *items
        .get(after)
        .ok_or_else(|| EditError::NotFound(format!("item {after}")))?;
    let text = super::edit::ref_item(member, score);
    let span = &nav.doc.node(prev).span;
    if nav.doc.node(list).flow {
        let end = patch::content_end(nav.text, span).max(span.start);
        return Ok(Splice::insert(end, format!(", {text}")));
    }
    let dash = patch::dash_before(nav.text, span.start)
        .ok_or_else(|| EditError::Unsupported("list item dash not found".into()))?;
    let indent = patch::indent_at(nav.text, dash);
    Ok(nav.insert_after(prev, &indent, &format!("- {text}")))
}
