//! Chat2Graph: taking calls and tools out. An action's `tools:` list names a local tool or
//! a whole MCP server, and Chat2Graph builds a tool (or server) only where a chained action
//! names it. So the last call of a tool takes the tool out of the graph, as in Chat2Graph's
//! (see [`leaves_uncalled`]), and a tool taken out loses its `tools:` entry too unless
//! something else in the file still refers to it: an entry no action names is what lint
//! reports as TS050, and a removal should leave a file that lints as clean as it was.

use petgraph::stable_graph::NodeIndex;

use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Value};

use super::edit::{declaration, remove_scores};
use crate::edit::doc::Nav;
use crate::edit::graph::{edges_to, members};
use crate::edit::{Edit, EditError, Patch, Transaction};

/// The MCP server a known tool belongs to.
fn group_of(tk: &Toolkit, t: NodeIndex) -> Option<NodeIndex> {
    tk.in_edges(t)
        .find(|(e, _)| tk.graph[*e].kind == EdgeKind::Has)
        .map(|(_, g)| g)
}

fn called(tk: &Toolkit, n: NodeIndex) -> bool {
    tk.in_edges(n)
        .any(|(e, _)| tk.graph[e].kind == EdgeKind::Call)
}

/// The names a node's scores are written for: itself and, for a server, its known tools.
fn score_names(tk: &Toolkit, n: NodeIndex) -> Vec<String> {
    std::iter::once(n)
        .chain(members(tk, n))
        .map(|m| tk.name(m).to_string())
        .collect()
}

/// Removes the call `from -> to`: the items of the action's `tools:` list naming it (or
/// naming the MCP server `to` comes from) and its `scores:` entries. A tool of a server
/// with other tools cannot be unlinked alone: the action names the whole server.
pub(crate) fn remove_call(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    from: &str,
    to: &str,
    to_kind: NodeKind,
    out: &mut Patch,
) -> Result<(), EditError> {
    let (Some(a), Some(b)) = (tk.action(from), tk.find(to_kind, to)) else {
        return Err(EditError::NotFound(format!("edge {from} -> {to}")));
    };
    let named = match group_of(tk, b) {
        Some(g) => {
            let others: Vec<&str> = edges_to(tk, a, g)
                .into_iter()
                .filter(|(_, m)| *m != b)
                .map(|(_, m)| tk.name(m))
                .collect();
            if !others.is_empty() {
                return Err(EditError::Unsupported(format!(
                    "`{from}` calls `{to}` because its `tools:` names the MCP server `{g}`, and Chat2Graph gives an action every tool of a server it names: `{to}` cannot be unlinked alone; unlinking `{g}` from `{from}` removes all of them ({to}, {})",
                    others.join(", "),
                    g = tk.name(g),
                )));
            }
            g
        }
        None => b,
    };
    let name = tk.name(named);
    let action = nav.doc.resolve(declaration(nav, NodeKind::Action, from)?);
    let list = nav.doc.get(action, "tools").map(|l| nav.doc.resolve(l));
    let hits = list.map(|l| items_naming(nav, l, name)).unwrap_or_default();
    let Some(list) = list.filter(|_| !hits.is_empty()) else {
        return Err(EditError::Unsupported(format!(
            "the `tools:` of `{from}` does not name `{name}`; edit the config in your editor"
        )));
    };
    out.splices.extend(nav.remove_items(list, &hits)?);
    let gone = score_names(tk, named);
    out.splices.extend(remove_scores(nav, |f, t, _| {
        f == from && gone.iter().any(|g| g == t)
    })?);
    Ok(())
}

/// Positions of the items of `list` that name `name`.
fn items_naming(nav: &Nav<'_, '_>, list: NodeId, name: &str) -> Vec<usize> {
    nav.doc
        .seq(list)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, i)| nav.doc.map(**i).is_some() && nav.name_of(**i) == Some(name))
        .map(|(i, _)| i)
        .collect()
}

/// Removes a tool or an MCP server (with its known tools) from the graph: every action's
/// reference to it, its `scores:` entries and its `tools:` entry. A known tool of a server
/// goes only with its server (when it is the server's only tool, removing it removes the
/// server, as the cascade does).
pub(crate) fn remove_tool(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    kind: NodeKind,
    name: &str,
    out: &mut Patch,
) -> Result<(), EditError> {
    let ix = tk
        .find(kind, name)
        .ok_or_else(|| EditError::NotFound(format!("{} `{name}`", kind.as_str())))?;
    if kind == NodeKind::Action {
        return Err(EditError::Unsupported(format!(
            "in a Chat2Graph config `{name}` is a vertex because the `toolkit:` chains name it; take it out of the chains (and operators) in your editor"
        )));
    }
    let named = match group_of(tk, ix) {
        Some(g) if members(tk, g).len() == 1 => g,
        Some(g) => {
            return Err(EditError::Unsupported(format!(
                "`{name}` is a tool of the MCP server `{g}`, which Chat2Graph asks for its tools when it loads and gives them all to every action naming it: one cannot be left out; remove `{g}` (all its tools) instead",
                g = tk.name(g)
            )));
        }
        None => ix,
    };
    let target = tk.name(named);
    let mut lists: Vec<NodeId> = Vec::new();
    let mut refs: Vec<NodeId> = Vec::new();
    for action in nav.top_list("actions") {
        let Some(list) = nav.doc.get(action, "tools").map(|l| nav.doc.resolve(l)) else {
            continue;
        };
        if lists.contains(&list) {
            continue;
        }
        lists.push(list);
        let hits = items_naming(nav, list, target);
        if !hits.is_empty() {
            let items = nav.doc.seq(list).unwrap_or_default();
            refs.extend(hits.iter().map(|i| items[*i]));
            out.splices.extend(nav.remove_items(list, &hits)?);
        }
    }
    let gone = score_names(tk, named);
    out.splices
        .extend(remove_scores(nav, |_, t, _| gone.iter().any(|g| g == t))?);
    remove_entry(nav, target, &refs, out)
}

/// Removes the `tools:` entries called `name` unless something other than `removed` (the
/// references being removed) still refers to one of them through its anchor: then they
/// stay, with a note saying where.
fn remove_entry(
    nav: &Nav<'_, '_>,
    name: &str,
    removed: &[NodeId],
    out: &mut Patch,
) -> Result<(), EditError> {
    let Some(list) = nav
        .root()
        .and_then(|r| nav.doc.get(r, "tools"))
        .map(|l| nav.doc.resolve(l))
    else {
        return Ok(());
    };
    let entries = items_naming(nav, list, name);
    let items = nav.doc.seq(list).unwrap_or_default();
    let kept = entries.iter().find_map(|i| {
        let entry = items[*i];
        nav.doc.nodes().enumerate().find_map(|(id, n)| {
            let alias = matches!(n.value, Value::Alias(t) if t == entry);
            (alias && !removed.contains(&(id as NodeId))).then_some(n.line)
        })
    });
    if let Some(line) = kept {
        out.notes.push(format!(
            "the `tools:` entry of `{name}` stays: line {line} still refers to it (Chat2Graph ignores a tool no chained action calls)"
        ));
        return Ok(());
    }
    if entries.is_empty() || nav.doc.node(list).flow || nav.aliased(list) {
        return Ok(());
    }
    for splice in nav.remove_items(list, &entries)? {
        out.splices.push(tidy(nav.text, splice));
    }
    out.notes.push(format!(
        "the `tools:` entry of `{name}` is removed with it (undo puts it back)"
    ));
    Ok(())
}

/// A block item's removal widened over what belongs to it: comment lines below it indented
/// deeper than its dash, and one blank line when a blank line also precedes it (so the
/// blank lines that separate entries do not pile up).
fn tidy(text: &str, mut s: Splice) -> Splice {
    if !s.with.is_empty() || s.at.is_empty() {
        return s;
    }
    let dash_col = text[s.at.clone()].len() - text[s.at.clone()].trim_start().len();
    let mut end = s.at.end;
    while end < text.len() {
        let next = patch::next_line(text, end);
        let line = &text[end..next];
        let trimmed = line.trim_start();
        let deeper = line.len() - trimmed.len() > dash_col;
        if !(trimmed.starts_with('#') && deeper) {
            break;
        }
        end = next;
    }
    let blank = |l: &str| l.trim().is_empty();
    let before_blank = s.at.start > 0 && {
        let prev = patch::line_start(text, s.at.start - 1);
        blank(&text[prev..s.at.start])
    };
    if before_blank && end < text.len() {
        let next = patch::next_line(text, end);
        if blank(&text[end..next]) {
            end = next;
        }
    }
    s.at.end = end;
    s
}

/// The removals a Chat2Graph file needs after `txn`: a tool or MCP server `txn` leaves with
/// no calling action is not part of the graph Chat2Graph builds (nor of toolscope's reading
/// of the file), so the call that was its last takes it out, written as `set remove` writes
/// it. Empty when nothing is left uncalled (or `txn` does not apply: applying says why).
pub(crate) fn leaves_uncalled(own: &Toolkit, txn: &Transaction) -> Vec<Edit> {
    let unlinked: Vec<(NodeKind, &str)> = txn
        .edits
        .iter()
        .filter_map(|e| match e {
            Edit::RemoveEdge { to, to_kind, .. } if *to_kind != NodeKind::Action => {
                Some((*to_kind, to.as_str()))
            }
            _ => None,
        })
        .collect();
    if unlinked.is_empty() {
        return Vec::new();
    }
    let mut after = own.clone();
    if txn.apply_graph(&mut after).is_err() {
        return Vec::new();
    }
    let mut out: Vec<Edit> = Vec::new();
    for (kind, name) in unlinked {
        let Some(t) = after.find(kind, name) else {
            continue; // taken out by `txn` itself
        };
        let (kind, node) = match group_of(&after, t) {
            Some(g) => (NodeKind::Group, g),
            None => (kind, t),
        };
        let still =
            called(&after, node) || members(&after, node).into_iter().any(|m| called(&after, m));
        let edit = Edit::RemoveNode {
            kind,
            name: after.name(node).to_string(),
        };
        if !still && !out.contains(&edit) {
            out.push(edit);
        }
    }
    out
}
