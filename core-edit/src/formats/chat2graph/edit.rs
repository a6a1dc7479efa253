//! Patching Chat2Graph agentic configs (SPEC 3.2) so that Chat2Graph still loads them:
//! edge scores go to the top-level `scores:` list, threshold and hops into the operator's
//! own (usually anchored) mapping, descriptions into the `actions:`/`tools:` entries.
//! `Call` edges and tools can be added and removed (`c2g_tools`, `c2g_remove`); actions and
//! `Next` edges come from the `toolkit:` chains, whose flattening cannot express them one
//! construct at a time, so those edits are refused with a reason (`c2g_chains`).

use crate::model::{NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Style};

use super::chains::{add_next, remove_next};
use super::remove::{remove_call, remove_tool};
use super::tools::{add_call, add_tool, set_call_score};
use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch};

pub fn patch(nav: &Nav<'_, '_>, tk: &Toolkit, edit: &Edit) -> Result<Patch, EditError> {
    let mut out = Patch::default();
    match edit {
        Edit::SetScore {
            from,
            to,
            to_kind,
            score,
        } => set_call_score(nav, tk, from, to, *to_kind, *score, &mut out)?,
        Edit::SetThreshold { operator, value } => {
            set_op_key(
                nav,
                tk,
                operator,
                "threshold",
                &patch::float(*value),
                &mut out,
            )?;
        }
        Edit::SetHops { operator, value } => {
            set_op_key(nav, tk, operator, "hops", &value.to_string(), &mut out)?;
        }
        Edit::SetDesc { kind, name, text } => {
            let item = declaration(nav, *kind, name)?;
            crate::formats::native::edit::set_desc(nav, item, text, &mut out)?;
        }
        Edit::SetEnabled {
            kind,
            name,
            enabled,
        } => {
            // Chat2Graph reads only the keys it knows, so an `enabled` key keeps the file
            // loadable there while toolscope's filters stage honours it.
            let item = declaration(nav, *kind, name)?;
            crate::formats::native::edit::set_flag(nav, item, "enabled", *enabled, &mut out)?;
        }
        Edit::AddEdge {
            from,
            to,
            to_kind,
            score,
        } if *to_kind != NodeKind::Action => {
            add_call(nav, tk, from, to, *to_kind, *score, &mut out)?;
        }
        Edit::RemoveEdge { from, to, to_kind } if *to_kind != NodeKind::Action => {
            remove_call(nav, tk, from, to, *to_kind, &mut out)?;
        }
        Edit::AddEdge { from, to, .. } => out.splices.extend(add_next(nav, tk, from, to)?),
        Edit::RemoveEdge { from, to, .. } => out.splices.extend(remove_next(nav, from, to)?),
        Edit::RemoveNode { kind, name } => remove_tool(nav, tk, *kind, name, &mut out)?,
        Edit::AddTool {
            name,
            desc,
            callers,
            module_path,
        } => add_tool(nav, name, desc, callers, module_path, &mut out)?,
        other => {
            return Err(EditError::Unsupported(format!(
                "{}: in a Chat2Graph config, actions and `Next` edges come from the `toolkit:` chains; edit those in your editor",
                other.describe()
            )));
        }
    }
    Ok(out)
}

/// The `actions:` or `tools:` entry of a node (the last one, as Chat2Graph keeps the last),
/// or an MCP group's listed member.
pub(crate) fn declaration(
    nav: &Nav<'_, '_>,
    kind: NodeKind,
    name: &str,
) -> Result<NodeId, EditError> {
    let found = match kind {
        NodeKind::Action => nav.decl("actions", name, true),
        _ => nav.decl("tools", name, true).or_else(|| member(nav, name)),
    };
    found.ok_or_else(|| EditError::NotFound(format!("no entry for {} `{name}`", kind.as_str())))
}

pub(crate) fn member(nav: &Nav<'_, '_>, name: &str) -> Option<NodeId> {
    nav.top_list("tools").into_iter().find_map(|g| {
        let list = nav.doc.get(g, "tools")?;
        nav.doc
            .seq(list)?
            .iter()
            .copied()
            .find(|m| nav.doc.map(*m).is_some() && nav.name_of(*m) == Some(name))
    })
}

pub(crate) fn name_text(name: &str) -> String {
    patch::string(name, Style::Plain)
}

/// Updates the last `scores:` entry for the edge, or adds one (creating the list at the end
/// of the file on first use).
pub(crate) fn set_score(
    nav: &Nav<'_, '_>,
    from: &str,
    to: &str,
    score: f64,
) -> Result<Vec<Splice>, EditError> {
    set_scores(nav, &[(from, to, score)])
}

/// Writes several edge scores: existing entries updated in place, new ones added together
/// (so that a `scores:` list created at the end of the file is created once). A batch of
/// edits holds the new ones back and adds all of its own at once ([`add_scores`]).
pub(crate) fn set_scores(
    nav: &Nav<'_, '_>,
    edges: &[(&str, &str, f64)],
) -> Result<Vec<Splice>, EditError> {
    let mut out = Vec::new();
    let mut new_items = Vec::new();
    for (from, to, score) in edges {
        let value = patch::float(*score);
        match nav.score_entries(from, to).last() {
            Some(&(_, entry)) => out.push(nav.set_entry(entry, "score", &value)?),
            None => new_items.push(format!(
                "{{from: {}, to: {}, score: {value}}}",
                name_text(from),
                name_text(to)
            )),
        }
    }
    if new_items.is_empty() || nav.hold_new_scores(&new_items) {
        return Ok(out);
    }
    out.push(add_scores(nav, &new_items)?);
    Ok(out)
}

/// The insertion of new `scores:` entries (each `{from: .., to: .., score: ..}`, at least
/// one): after the list's last item in its style, under an empty `scores:`, or in a new
/// `scores:` list at the end of the file. The same text as adding them one at a time, each
/// after the one before.
pub fn add_scores(nav: &Nav<'_, '_>, new_items: &[String]) -> Result<Splice, EditError> {
    let nl = patch::newline(nav.text);
    let root = nav
        .root()
        .ok_or_else(|| EditError::Unsupported("the file is not a mapping".into()))?;
    let block_items = |indent: &str| new_items.join(&format!("{nl}{indent}- "));
    // Top-level keys may be indented (the whole document shifted right).
    let top = nav.key_indent(root);
    Ok(match nav.own_entry(root, "scores") {
        Some((_, list))
            if nav.doc.node(nav.doc.resolve(list)).flow && nav.doc.seq(list).is_some() =>
        {
            nav.append_item(nav.doc.resolve(list), &new_items.join(", "))?
        }
        Some((_, list)) if nav.doc.seq(list).is_some_and(|s| !s.is_empty()) => {
            let list = nav.doc.resolve(list);
            let first = nav
                .doc
                .seq(list)
                .map_or(0, |s| nav.doc.node(s[0]).span.start);
            let dash = patch::dash_before(nav.text, first)
                .ok_or_else(|| EditError::Unsupported("list item dash not found".into()))?;
            nav.append_item(list, &block_items(&patch::indent_at(nav.text, dash)))?
        }
        Some((k, v)) if nav.is_empty_value(v) => {
            let inner = format!("{top}  ");
            nav.replace_value(k, v, &format!("{nl}{inner}- {}", block_items(&inner)))?
        }
        Some(_) => return Err(EditError::Unsupported("`scores` is not a list".into())),
        // A flow mapping as the whole document: one more entry in it.
        None if nav.doc.node(root).flow => {
            nav.add_entry(root, "scores", &format!("[{}]", new_items.join(", ")))?
        }
        None => {
            let inner = format!("{top}  ");
            new_section(
                nav,
                &format!("{top}scores:{nl}{inner}- {}", block_items(&inner)),
            )?
        }
    })
}

/// Removes the `scores:` entries for which `matches(from, to, index)` holds.
pub(crate) fn remove_scores(
    nav: &Nav<'_, '_>,
    matches: impl Fn(&str, &str, usize) -> bool,
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
        .filter(|(i, e)| {
            let text = |k: &str| nav.doc.get(**e, k).and_then(|v| nav.doc.str(v));
            text("from")
                .zip(text("to"))
                .is_some_and(|(f, t)| matches(f, t, *i))
        })
        .map(|(i, _)| i)
        .collect();
    if stale.is_empty() {
        return Ok(Vec::new());
    }
    nav.scores_removed();
    nav.remove_items(scores, &stale)
}

/// A new top-level section at the very end of the file, after a blank line; or, when the
/// file ends with a block scalar whose value anything appended would change, just before
/// the last top-level key.
fn new_section(nav: &Nav<'_, '_>, body: &str) -> Result<Splice, EditError> {
    let text = nav.text;
    let nl = patch::newline(text);
    if nav.end_is_fragile() {
        let last_key = nav
            .root()
            .and_then(|r| nav.doc.map(r)?.last().map(|(k, _)| *k))
            .ok_or_else(|| EditError::Unsupported("the file is not a mapping".into()))?;
        let at = patch::line_start(text, nav.doc.node(last_key).span.start);
        if !text[at..nav.doc.node(last_key).span.start]
            .trim()
            .is_empty()
        {
            return Err(EditError::Unsupported(
                "the file ends with a block scalar and its last key is indented; add `scores:` in your editor".into(),
            ));
        }
        return Ok(Splice::insert(at, format!("{body}{nl}{nl}")));
    }
    if let Some(at) = document_end_marker(text) {
        // `...` ends the document: the section goes before it, not into a next document.
        let blank = text[..at].ends_with(&format!("{nl}{nl}")) || at == 0;
        let sep = if blank { "" } else { nl };
        return Ok(Splice::insert(at, format!("{sep}{body}{nl}")));
    }
    Ok(end_section(text, body))
}

/// The start of a final `...` line (only blank and comment lines after it).
fn document_end_marker(text: &str) -> Option<usize> {
    let mut end = text.len();
    while end > 0 {
        let start = patch::line_start(text, end - 1);
        let line = text[start..end].trim();
        if line == "..." || line.starts_with("... #") {
            return Some(start);
        }
        if !(line.is_empty() || line.starts_with('#')) {
            return None;
        }
        end = start;
    }
    None
}

fn end_section(text: &str, body: &str) -> Splice {
    let nl = patch::newline(text);
    let end = text.len();
    let with = if text.is_empty() {
        format!("{body}{nl}")
    } else if !text.ends_with('\n') {
        format!("{nl}{nl}{body}")
    } else if text.ends_with(&format!("{nl}{nl}")) || text == nl {
        format!("{body}{nl}")
    } else {
        format!("{nl}{body}{nl}")
    };
    Splice::insert(end, with)
}

/// The mapping of an operator: `leader:` or the n-th operator of an expert's workflow.
pub(crate) fn operator_map(nav: &Nav<'_, '_>, name: &str) -> Option<NodeId> {
    if name == "leader" {
        return nav.root().and_then(|r| nav.doc.get(r, "leader"));
    }
    for expert in nav.top_list("experts") {
        let profile = nav.doc.get(expert, "profile");
        let expert_name = profile
            .and_then(|p| nav.doc.get(p, "name"))
            .and_then(|n| nav.doc.str(n))
            .unwrap_or("");
        let mut n = 0;
        let chains = nav
            .doc
            .get(expert, "workflow")
            .and_then(|w| nav.doc.seq(w))
            .unwrap_or_default();
        for chain in chains {
            for op in nav.doc.seq(*chain).unwrap_or_default() {
                if nav.doc.map(*op).is_none() {
                    continue;
                }
                n += 1;
                if format!("{expert_name}/{n}") == name {
                    return Some(*op);
                }
            }
        }
    }
    None
}

fn set_op_key(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    op: &str,
    key: &str,
    value: &str,
    out: &mut Patch,
) -> Result<(), EditError> {
    let name = tk.operator(op).map_or(op, |o| o.name.as_str());
    let item =
        operator_map(nav, name).ok_or_else(|| EditError::NotFound(format!("operator `{op}`")))?;
    let map = nav.doc.resolve(item);
    if map != item {
        let anchor = nav.doc.anchor_name(item).unwrap_or_default();
        out.notes.push(format!(
            "{key} written to the anchored operator &{anchor}; every workflow using it changes"
        ));
    }
    out.splices.push(nav.set_entry(map, key, value)?);
    Ok(())
}
