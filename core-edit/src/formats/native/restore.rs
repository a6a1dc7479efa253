//! The native format's text for the edits that put things back (see `formats::restore`):
//! a node declared in full, group members and seeds.

use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch};
use crate::model::{NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Style};

use crate::formats::FileFormat;
use crate::formats::restore::reset;

/// The native format's patch for the edits this module writes; `None` for the others.
pub(crate) fn native_patch(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    edit: &Edit,
) -> Option<Result<Patch, EditError>> {
    let splices = match edit {
        Edit::AddNode(node) => declare(nav, node),
        Edit::AddMember { group, tool } => {
            list_of(nav, "groups", group, "tools").and_then(|(map, list)| {
                insert_item(nav, map, "tools", list, usize::MAX, tool).map(|s| vec![s])
            })
        }
        Edit::RemoveMember { group, tool } => list_of(nav, "groups", group, "tools")
            .and_then(|(_, list)| remove_item(nav, list, tool)),
        Edit::AddSeed {
            operator,
            action,
            at,
        } => list_of(nav, "operators", operator, "actions").and_then(|(map, list)| {
            insert_item(nav, map, "actions", list, *at, action).map(|s| vec![s])
        }),
        Edit::RemoveSeed { operator, action } => list_of(nav, "operators", operator, "actions")
            .and_then(|(_, list)| remove_item(nav, list, action)),
        Edit::ResetParam { operator, param } => reset(nav, format, tk, operator, *param),
        _ => return None,
    };
    Some(splices.map(Patch::from))
}

/// The mapping of declaration `name` in top-level list `decls`, and its `key` list if any.
fn list_of(
    nav: &Nav<'_, '_>,
    decls: &str,
    name: &str,
    key: &str,
) -> Result<(NodeId, Option<NodeId>), EditError> {
    let map = nav
        .decl(decls, name, false)
        .map(|i| nav.doc.resolve(i))
        .ok_or_else(|| EditError::NotFound(format!("`{name}` under `{decls}`")))?;
    let list = nav
        .own_entry(map, key)
        .map(|(_, v)| v)
        .filter(|v| !nav.is_empty_value(*v))
        .map(|v| nav.doc.resolve(v));
    if list.is_some_and(|l| nav.doc.seq(l).is_none()) {
        return Err(EditError::Unsupported(format!(
            "`{key}` of `{name}` is not a list"
        )));
    }
    Ok((map, list))
}

fn item_text(name: &str) -> String {
    patch::string(name, Style::Plain)
}

/// Puts `name` at position `at` of a list (the end when `at` is past it), creating the
/// list as a flow list when the mapping has none.
fn insert_item(
    nav: &Nav<'_, '_>,
    map: NodeId,
    key: &str,
    list: Option<NodeId>,
    at: usize,
    name: &str,
) -> Result<Splice, EditError> {
    let item = item_text(name);
    let Some(list) = list else {
        return nav.set_entry(map, key, &format!("[{item}]"));
    };
    let items = nav.doc.seq(list).unwrap_or_default();
    let Some(&before) = items.get(at) else {
        return nav.append_item(list, &item);
    };
    let start = nav.doc.node(before).span.start;
    if nav.doc.node(list).flow {
        return Ok(Splice::insert(start, format!("{item}, ")));
    }
    let dash = patch::dash_before(nav.text, start)
        .ok_or_else(|| EditError::Unsupported("list item dash not found".into()))?;
    let line = patch::line_start(nav.text, dash);
    let nl = patch::newline(nav.text);
    Ok(Splice::insert(
        line,
        format!("{}- {item}{nl}", patch::indent_at(nav.text, dash)),
    ))
}

fn remove_item(
    nav: &Nav<'_, '_>,
    list: Option<NodeId>,
    name: &str,
) -> Result<Vec<Splice>, EditError> {
    let found = list.and_then(|l| {
        let i = nav
            .doc
            .seq(l)?
            .iter()
            .position(|i| nav.ref_name(*i) == Some(name))?;
        Some((l, i))
    });
    let (list, i) = found.ok_or_else(|| EditError::NotFound(format!("list item `{name}`")))?;
    nav.remove_items(list, &[i])
}

/// Declares a removed node again at the end of its top-level list, with all its properties,
/// indented like the list's items.
fn declare(nav: &Nav<'_, '_>, node: &crate::model::Node) -> Result<Vec<Splice>, EditError> {
    let list = match node.kind {
        NodeKind::Action => "actions",
        NodeKind::Tool => "tools",
        NodeKind::Group => "groups",
    };
    let nl = patch::newline(nav.text);
    let root = nav
        .root()
        .ok_or_else(|| EditError::Unsupported("the file is not a mapping".into()))?;
    // `declaration` writes items at two spaces; shift to where this file's dashes are.
    let written = crate::export::native::declaration(node);
    let shifted = |indent: &str| -> String {
        let lines: Vec<String> = written
            .lines()
            .map(|l| {
                let l = l.strip_prefix("  ").unwrap_or(l);
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{indent}{l}")
                }
            })
            .collect();
        lines.join(nl)
    };
    let seq = nav
        .doc
        .get(root, list)
        .map(|l| nav.doc.resolve(l))
        .filter(|l| nav.doc.seq(*l).is_some_and(|s| !s.is_empty()));
    let Some(seq) = seq else {
        let indent = nav.key_indent(root);
        let body = format!("{list}:{nl}{}", shifted(&format!("{indent}  ")));
        return match nav.own_entry(root, list) {
            Some(_) => Err(EditError::Unsupported(format!(
                "`{list}` is empty or not a list; add `{}` in your editor",
                node.name
            ))),
            None => Ok(vec![patch::insert_line_after(
                nav.text,
                &nav.doc.node(root).span,
                "",
                body.strip_prefix(indent.as_str()).unwrap_or(&body),
            )]),
        };
    };
    if nav.doc.node(seq).flow {
        return Err(EditError::Unsupported(format!(
            "`{list}` is a flow list; add `{}` in your editor",
            node.name
        )));
    }
    let items = nav.doc.seq(seq).unwrap_or_default();
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return Err(EditError::Unsupported("empty list".into()));
    };
    let dash = patch::dash_before(nav.text, nav.doc.node(*first).span.start)
        .ok_or_else(|| EditError::Unsupported("list item dash not found".into()))?;
    let indent = patch::indent_at(nav.text, dash);
    let body = shifted(&indent);
    Ok(vec![patch::insert_line_after(
        nav.text,
        &nav.doc.node(*last).span,
        "",
        &body,
    )])
}
