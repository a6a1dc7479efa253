//! The text side of the edits that put things back: a node declared in full, group members,
//! seeds, and an operator key removed so its default applies. Undo within a session
//! restores text from the recorded splices; these forms are what a pending undo is written
//! with after the file changed on disk (reapply), so they need no history to be written.

use crate::formats::FileFormat;
use crate::model::{NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Style, Value};

use super::doc::Nav;
use super::{Edit, EditError, Param, Patch};
use crate::formats::chat2graph::{edit as c2g, tools as c2g_tools};

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

/// A Chat2Graph config's patch for the edits this module writes; `None` for the others.
pub(crate) fn c2g_patch(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    edit: &Edit,
) -> Option<Result<Patch, EditError>> {
    let splices = match edit {
        // A removal took the `tools:` entry out unless something else referred to it; a
        // local tool's entry is written again from its properties (all Chat2Graph reads of
        // it), an MCP server's cannot be (its `mcp_transport_config` is not in the graph).
        Edit::AddNode(node) if node.kind != NodeKind::Action => {
            let declared = nav
                .top_list("tools")
                .into_iter()
                .any(|t| nav.name_of(t) == Some(node.name.as_str()));
            let meta = node.meta.as_deref();
            let local = node.kind == NodeKind::Tool && meta.is_none_or(|m| m.ty == "LOCAL_TOOL");
            match declared || c2g::member(nav, &node.name).is_some() {
                true => Ok(Vec::new()),
                false if local => {
                    let module_path = meta.map_or("", |m| m.module_path.as_str());
                    c2g_tools::new_entry(nav, &node.name, &node.desc, module_path)
                        .map(|(s, _)| vec![s])
                }
                false => Err(EditError::Unsupported(format!(
                    "the `tools:` entry of {} `{}` is gone and its MCP settings with it; add it again in your editor",
                    node.kind.as_str(),
                    node.name
                ))),
            }
        }
        Edit::ResetParam { operator, param } => reset(nav, format, tk, operator, *param),
        Edit::AddNode(_)
        | Edit::AddMember { .. }
        | Edit::RemoveMember { .. }
        | Edit::AddSeed { .. }
        | Edit::RemoveSeed { .. } => Err(EditError::Unsupported(format!(
            "{}: a Chat2Graph config builds this from its `toolkit:` chains and workflows; edit those in your editor",
            edit.describe()
        ))),
        _ => return None,
    };
    Some(splices.map(Patch::from))
}

/// Removes the operator's `param` key, so its default applies again.
fn reset(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    operator: &str,
    param: Param,
) -> Result<Vec<Splice>, EditError> {
    operator_map(nav, format, tk, operator).and_then(|map| remove_entry(nav, map, param.key()))
}

/// The undo of `edit` when the text tells more than the graph: setting a threshold or hops
/// the operator did not write is undone by removing the key, not by writing the default.
/// `Some(None)`: the operator writes the key ([`Edit::inverse`] says it all); `None`: `edit`
/// sets neither, or the text holds no such operator.
pub(crate) fn text_inverse(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    edit: &Edit,
) -> Option<Option<Edit>> {
    let (operator, param) = param_of(edit)?;
    let map = operator_map(nav, format, tk, operator).ok()?;
    let written = nav.own_entry(map, param.key()).is_some();
    Some((!written).then(|| Edit::ResetParam {
        operator: operator.clone(),
        param,
    }))
}

fn param_of(edit: &Edit) -> Option<(&String, Param)> {
    match edit {
        Edit::SetThreshold { operator, .. } => Some((operator, Param::Threshold)),
        Edit::SetHops { operator, .. } => Some((operator, Param::Hops)),
        _ => None,
    }
}

fn operator_map(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    operator: &str,
) -> Result<NodeId, EditError> {
    format
        .operator_item(nav, tk, operator)
        .map(|i| nav.doc.resolve(i))
        .ok_or_else(|| EditError::NotFound(format!("operator `{operator}`")))
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

/// Removes `key: value` from a mapping: its whole lines in a block mapping, with the comma
/// before it in a flow mapping. A missing key needs nothing.
fn remove_entry(nav: &Nav<'_, '_>, map: NodeId, key: &str) -> Result<Vec<Splice>, EditError> {
    let Value::Map(entries) = &nav.doc.node(map).value else {
        return Err(EditError::Unsupported(
            "the operator is not a mapping".into(),
        ));
    };
    let Some(i) = entries
        .iter()
        .rposition(|(k, _)| nav.doc.str(*k) == Some(key))
    else {
        return Ok(Vec::new());
    };
    let (k, v) = entries[i];
    let end = |id: NodeId| {
        let s = &nav.doc.node(id).span;
        patch::content_end(nav.text, s).max(s.start)
    };
    let key_start = nav.doc.node(k).span.start;
    if nav.doc.node(map).flow {
        let at = match i {
            0 if entries.len() > 1 => key_start..nav.doc.node(entries[1].0).span.start,
            0 => key_start..end(v),
            _ => end(entries[i - 1].1)..end(v),
        };
        return Ok(vec![Splice::new(at, "")]);
    }
    if entries.len() == 1 {
        return Err(EditError::Unsupported(format!(
            "`{key}` is the only key of its mapping"
        )));
    }
    let from = patch::line_start(nav.text, key_start);
    if !nav.text[from..key_start].trim().is_empty() {
        // The first key of a list item (`- hops: 3`): keep the dash line, cut to the next key.
        let next = nav.doc.node(entries[i + 1].0).span.start;
        return Ok(vec![Splice::new(key_start..next, "")]);
    }
    let to = patch::next_line(nav.text, end(v));
    Ok(vec![Splice::new(from..to, "")])
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
