//! Chat2Graph `Call` edges and tools: references in the actions' `tools:` lists (aliases of
//! the anchored `tools:` entries where possible) and their `scores:` entries.

use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Style};

use super::c2g::{declaration, name_text, set_score, set_scores};
use super::doc::Nav;
use super::{EditError, Patch};

pub(super) fn add_call(
    nav: &Nav<'_, '_>,
    from: &str,
    to: &str,
    score: f64,
    out: &mut Patch,
) -> Result<(), EditError> {
    let action = nav.doc.resolve(declaration(nav, NodeKind::Action, from)?);
    let tool = nav.decl("tools", to, true).ok_or_else(|| {
        EditError::Unsupported(format!("`{to}` has no `tools:` entry to refer to"))
    })?;
    let anchor = nav.doc.node(tool).anchor.as_ref().map(|b| b.0.clone());
    let defined_at = nav.doc.node(tool).span.start;
    out.splices.push(tool_ref(
        nav,
        action,
        from,
        to,
        anchor.as_deref(),
        defined_at,
    )?);
    if score != 1.0 {
        out.splices.extend(set_score(nav, from, to, score)?);
    }
    Ok(())
}

/// Adds a reference to tool `to` to an action's `tools` list: an alias of its anchor when
/// the anchor is defined before, else `{name: X}`.
fn tool_ref(
    nav: &Nav<'_, '_>,
    action: NodeId,
    from: &str,
    to: &str,
    anchor: Option<&str>,
    defined_at: usize,
) -> Result<Splice, EditError> {
    let list = nav.own_entry(action, "tools");
    let at = list.map_or(nav.doc.node(action).span.start, |(_, v)| {
        nav.doc.node(v).span.start
    });
    let item = match anchor {
        Some(a) if defined_at < at => format!("*{a}"),
        _ => format!("{{name: {}}}", name_text(to)),
    };
    let nl = patch::newline(nav.text);
    match list {
        Some((_, list))
            if nav
                .doc
                .seq(list)
                .is_some_and(|s| !s.is_empty() || nav.doc.node(list).flow) =>
        {
            nav.append_item(nav.doc.resolve(list), &item)
        }
        Some((k, v)) if nav.is_empty_value(v) => Ok(nav.replace_value(k, v, &format!("[{item}]"))),
        Some(_) => Err(EditError::Unsupported(format!(
            "`tools` of `{from}` is not a list"
        ))),
        None if nav.doc.node(action).flow => nav.add_entry(action, "tools", &format!("[{item}]")),
        None => {
            let indent = format!("{}  ", nav.key_indent(action));
            nav.add_entry(action, "tools", &format!("{nl}{indent}- {item}"))
        }
    }
}

/// A new `tools:` entry (anchored, shaped like the last one) and references to it from its
/// callers, with their scores. Chat2Graph keeps only tools some chained action calls.
pub(super) fn add_tool(
    nav: &Nav<'_, '_>,
    name: &str,
    desc: &str,
    callers: &[(String, f64)],
    out: &mut Patch,
) -> Result<(), EditError> {
    if callers.is_empty() {
        return Err(EditError::Unsupported(
            "in a Chat2Graph config a tool is part of the graph only when an action calls it; name a caller".into(),
        ));
    }
    let list = nav
        .root()
        .and_then(|r| nav.doc.get(r, "tools"))
        .map(|l| nav.doc.resolve(l))
        .filter(|l| nav.doc.seq(*l).is_some_and(|s| !s.is_empty()) && !nav.doc.node(*l).flow)
        .ok_or_else(|| {
            EditError::Unsupported("no block `tools:` list to add the tool to".into())
        })?;
    let items = nav.doc.seq(list).unwrap_or_default();
    let (first, last) = (items[0], items[items.len() - 1]);
    let anchor = new_anchor(nav, name);
    let style = nav
        .doc
        .get(last, "name")
        .and_then(|n| match &nav.doc.node(n).value {
            crate::source::yaml::Value::Scalar { style, .. } => Some(*style),
            _ => None,
        })
        .unwrap_or(Style::Plain);
    let nl = patch::newline(nav.text);
    let dash = patch::dash_before(nav.text, nav.doc.node(first).span.start)
        .ok_or_else(|| EditError::Unsupported("list item dash not found".into()))?;
    let indent = patch::indent_at(nav.text, dash);
    let inner = format!("{indent}  ");
    let desc_text = if desc.contains('\n') {
        patch::block(desc, &format!("{inner}  "), nl).unwrap_or_else(|| patch::double_quoted(desc))
    } else {
        patch::string(desc, style)
    };
    let body = format!(
        "- &{anchor}{nl}{inner}name: {}{nl}{inner}desc: {desc_text}",
        patch::string(name, style)
    );
    let spaced = items.len() > 1 && {
        let prev = nav.doc.node(items[items.len() - 2]).span.clone();
        let gap = &nav.text[patch::content_end(nav.text, &prev)..nav.doc.node(last).span.start];
        gap.contains("\n\n") || gap.contains("\n\r\n")
    };
    let mut splice = nav.insert_after(last, &indent, &body);
    if spaced {
        splice.with.insert_str(0, nl);
    }
    let defined_at = splice.at.start;
    out.splices.push(splice);
    let mut scores = Vec::new();
    for (caller, score) in callers {
        let action = nav.doc.resolve(declaration(nav, NodeKind::Action, caller)?);
        out.splices.push(tool_ref(
            nav,
            action,
            caller,
            name,
            Some(&anchor),
            defined_at,
        )?);
        if *score != 1.0 {
            scores.push((caller.as_str(), name, *score));
        }
    }
    out.splices.extend(set_scores(nav, &scores)?);
    Ok(())
}

/// An anchor name for a new tool that no node uses yet: `<name>_tool`, then numbered.
fn new_anchor(nav: &Nav<'_, '_>, name: &str) -> String {
    let base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let taken = |a: &str| {
        nav.doc
            .nodes()
            .any(|n| n.anchor.as_ref().is_some_and(|b| b.0 == a))
    };
    let mut anchor = format!("{base}_tool");
    let mut n = 2;
    while taken(&anchor) {
        anchor = format!("{base}_tool_{n}");
        n += 1;
    }
    anchor
}

pub(super) fn remove_call(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    from: &str,
    to: &str,
    to_kind: NodeKind,
    out: &mut Patch,
) -> Result<(), EditError> {
    let target = tk
        .find(to_kind, to)
        .ok_or_else(|| EditError::NotFound(to.into()))?;
    let callers = tk
        .in_edges(target)
        .filter(|(e, _)| tk.graph[*e].kind == EdgeKind::Call)
        .count();
    let via_group = tk
        .in_edges(target)
        .any(|(e, _)| tk.graph[e].kind == EdgeKind::Has);
    if callers <= 1 || via_group {
        return Err(EditError::Unsupported(format!(
            "in a Chat2Graph config `{to}` would leave the graph with this edge (or comes from an MCP group); edit the config in your editor"
        )));
    }
    let action = nav.doc.resolve(declaration(nav, NodeKind::Action, from)?);
    let list = nav.doc.get(action, "tools").map(|l| nav.doc.resolve(l));
    let Some(list) = list else {
        return Err(EditError::NotFound(format!("`tools` of `{from}`")));
    };
    let hits: Vec<usize> = nav
        .doc
        .seq(list)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, i)| nav.doc.map(**i).is_some() && nav.name_of(**i) == Some(to))
        .map(|(i, _)| i)
        .collect();
    out.splices.extend(nav.remove_items(list, &hits)?);
    out.splices
        .extend(remove_scores(nav, |f, t| f == from && t == to)?);
    Ok(())
}

/// Removes the `scores:` entries whose (from, to) match.
fn remove_scores(
    nav: &Nav<'_, '_>,
    matches: impl Fn(&str, &str) -> bool,
) -> Result<Vec<Splice>, EditError> {
    let Some(scores) = nav
        .root()
        .and_then(|r| nav.doc.get(r, "scores"))
        .map(|s| nav.doc.resolve(s))
    else {
        return Ok(Vec::new());
    };
    let stale: Vec<usize> = nav
        .doc
        .seq(scores)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            let text = |k: &str| nav.doc.get(**e, k).and_then(|v| nav.doc.str(v));
            text("from")
                .zip(text("to"))
                .is_some_and(|(f, t)| matches(f, t))
        })
        .map(|(i, _)| i)
        .collect();
    if stale.is_empty() {
        return Ok(Vec::new());
    }
    nav.remove_items(scores, &stale)
}

/// Removes a tool (or a member-less MCP group) from the graph: every action's reference to
/// it and its `scores:` entries. Its `tools:` entry stays: Chat2Graph ignores tools that no
/// chained action calls, and other files of the config may alias it.
pub(super) fn remove_tool(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    kind: NodeKind,
    name: &str,
    out: &mut Patch,
) -> Result<(), EditError> {
    let ix = tk
        .find(kind, name)
        .ok_or_else(|| EditError::NotFound(format!("{} `{name}`", kind.as_str())))?;
    let has = tk
        .out_edges(ix)
        .chain(tk.in_edges(ix))
        .any(|(e, _)| tk.graph[e].kind == EdgeKind::Has);
    if kind == NodeKind::Action || has {
        return Err(EditError::Unsupported(format!(
            "in a Chat2Graph config `{name}` is part of the `toolkit:` chains or of an MCP group; edit the config in your editor"
        )));
    }
    let mut lists: Vec<NodeId> = Vec::new();
    for action in nav.top_list("actions") {
        let Some(list) = nav.doc.get(action, "tools").map(|l| nav.doc.resolve(l)) else {
            continue;
        };
        if lists.contains(&list) {
            continue;
        }
        lists.push(list);
        let hits: Vec<usize> = nav
            .doc
            .seq(list)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|(_, i)| nav.doc.map(**i).is_some() && nav.name_of(**i) == Some(name))
            .map(|(i, _)| i)
            .collect();
        if !hits.is_empty() {
            out.splices.extend(nav.remove_items(list, &hits)?);
        }
    }
    out.splices.extend(remove_scores(nav, |_, t| t == name)?);
    out.notes.push(format!(
        "the `tools:` entry of `{name}` stays; Chat2Graph ignores tools no chained action calls"
    ));
    Ok(())
}
