//! Patching native toolkit files (SPEC 3.1): edges live in the `tools`/`next` lists of the
//! calling action, threshold and hops in the operator, descriptions in the declarations.

use crate::model::{NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Value};

use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch};

use super::member::{member_item, member_of_listed_group};

pub fn patch(nav: &Nav<'_, '_>, tk: &Toolkit, edit: &Edit) -> Result<Patch, EditError> {
    let mut out = Patch::default();
    match edit {
        Edit::SetScore {
            from,
            to,
            to_kind,
            score,
        } => {
            set_score(nav, tk, from, to, *to_kind, *score, &mut out)?;
        }
        Edit::SetThreshold { operator, value } => {
            set_op_key(nav, operator, "threshold", &patch::float(*value), &mut out)?;
        }
        Edit::SetHops { operator, value } => {
            set_op_key(nav, operator, "hops", &value.to_string(), &mut out)?;
        }
        Edit::SetDesc { kind, name, text } => {
            let item = declaration(nav, *kind, name)?;
            set_desc(nav, item, text, &mut out)?;
        }
        Edit::SetEnabled {
            kind,
            name,
            enabled,
        } => {
            let item = declaration(nav, *kind, name)?;
            set_flag(nav, item, "enabled", *enabled, &mut out)?;
        }
        Edit::AddEdge {
            from,
            to,
            to_kind,
            score,
        } => {
            if has_members(tk, *to_kind, to) {
                return Err(EditError::Unsupported(format!(
                    "a reference to group `{to}` calls each of its member tools; add edges to them"
                )));
            }
            let item = declaration(nav, NodeKind::Action, from)?;
            out.splices
                .push(add_ref(nav, item, list_key(*to_kind), to, *score)?);
        }
        Edit::RemoveEdge { from, to, to_kind } => {
            let (list, index) = find_ref(nav, tk, from, to, *to_kind)?;
            if let Some(g) = member_of_listed_group(nav, tk, list, to, *to_kind) {
                return Err(EditError::Unsupported(format!(
                    "{from} -> {to} also comes from the reference to group `{}`, which calls each of its members; remove that reference to remove the edge",
                    g.name
                )));
            }
            out.splices.extend(nav.remove_items(list, &[index])?);
        }
        Edit::AddAction { name, desc } => {
            out.splices
                .push(add_declaration(nav, "actions", name, desc, "")?);
        }
        Edit::AddTool {
            name,
            desc,
            callers,
            module_path,
        } => {
            out.splices
                .push(add_declaration(nav, "tools", name, desc, module_path)?);
            for (caller, score) in callers {
                let item = declaration(nav, NodeKind::Action, caller)?;
                out.splices.push(add_ref(nav, item, "tools", name, *score)?);
            }
        }
        Edit::RemoveNode { kind, name } => remove_node(nav, tk, *kind, name, &mut out)?,
        // Written by `restore::patch` for both formats.
        other => {
            return Err(EditError::Unsupported(format!(
                "{} has no native form",
                other.describe()
            )));
        }
    }
    Ok(out)
}

fn list_key(to_kind: NodeKind) -> &'static str {
    if to_kind == NodeKind::Action {
        "next"
    } else {
        "tools"
    }
}

fn decl_list(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Action => "actions",
        NodeKind::Tool => "tools",
        NodeKind::Group => "groups",
    }
}

/// The declaration of a node (the first one, as the loader keeps the first).
fn declaration(nav: &Nav<'_, '_>, kind: NodeKind, name: &str) -> Result<NodeId, EditError> {
    nav.decl(decl_list(kind), name, false).ok_or_else(|| {
        EditError::NotFound(format!(
            "no declaration of {} `{name}` under `{}`",
            kind.as_str(),
            decl_list(kind)
        ))
    })
}

/// The action's own `tools` or `next` list (resolved), if it has one.
fn action_list(
    nav: &Nav<'_, '_>,
    from: &str,
    to_kind: NodeKind,
) -> Result<Option<NodeId>, EditError> {
    let item = declaration(nav, NodeKind::Action, from)?;
    Ok(nav
        .doc
        .get(item, list_key(to_kind))
        .map(|l| nav.doc.resolve(l))
        .filter(|l| nav.doc.seq(*l).is_some()))
}

/// The index of the item naming `to` in `list`.
fn item_index(nav: &Nav<'_, '_>, list: NodeId, to: &str) -> Option<usize> {
    let items = nav.doc.seq(list)?;
    items.iter().position(|i| nav.ref_name(*i) == Some(to))
}

/// The list and index of the reference that makes the edge `from -> to`.
fn find_ref(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    from: &str,
    to: &str,
    to_kind: NodeKind,
) -> Result<(NodeId, usize), EditError> {
    let list = action_list(nav, from, to_kind)?;
    if let Some(found) = list.and_then(|l| Some((l, item_index(nav, l, to)?))) {
        return Ok(found);
    }
    let via_group = tk.find(to_kind, to).is_some_and(|t| {
        tk.in_edges(t)
            .any(|(e, _)| tk.graph[e].kind == crate::model::EdgeKind::Has)
    });
    Err(if via_group {
        EditError::Unsupported(format!(
            "edge {from} -> {to} comes from a reference to {to}'s group; edit that reference"
        ))
    } else {
        EditError::NotFound(format!(
            "no `{}` item `{to}` in action `{from}`",
            list_key(to_kind)
        ))
    })
}

fn set_score(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    from: &str,
    to: &str,
    to_kind: NodeKind,
    score: f64,
    out: &mut Patch,
) -> Result<(), EditError> {
    if current_score(tk, from, to, to_kind) == Some(score) {
        return Ok(());
    }
    let list = action_list(nav, from, to_kind)?;
    let direct = list.and_then(|l| item_index(nav, l, to));
    let group = list.and_then(|l| member_of_listed_group(nav, tk, l, to, to_kind));
    match (list, direct, group) {
        // The member gets an item of its own next to its group's reference.
        (Some(list), None, Some(g)) => {
            out.splices
                .push(member_item(nav, list, g.index, to, score)?);
            out.notes.push(format!(
                "written as an item of its own for member `{to}`, next to the reference to group `{}` (its other members keep the group's score)",
                g.name
            ));
            return Ok(());
        }
        // Back to the group's score: the member's own item is no longer needed.
        (Some(list), Some(index), Some(g)) if g.score == score => {
            if let Ok(splices) = nav.remove_items(list, &[index]) {
                out.splices.extend(splices);
                out.notes.push(format!(
                    "the item of member `{to}` was removed: the reference to group `{}` gives it {}",
                    g.name,
                    patch::float(score)
                ));
                return Ok(());
            }
        }
        _ => {}
    }
    let (list, index) = find_ref(nav, tk, from, to, to_kind)?;
    let item = nav
        .doc
        .seq(list)
        .map(|s| s[index])
        .ok_or_else(|| EditError::NotFound(to.into()))?;
    let value = patch::float(score);
    let resolved = nav.doc.resolve(item);
    if nav.is_alias(item) || nav.doc.map(item).is_none() {
        if !nav.is_alias(item) && nav.aliased(item) {
            return Err(EditError::Unsupported(format!(
                "`{to}` is anchored and used elsewhere"
            )));
        }
        let name_node = nav.doc.get(resolved, "name").unwrap_or(resolved);
        let name = patch::name_as_written(nav.text, nav.doc, nav.doc.resolve(name_node));
        let span = nav.doc.node(item).span.clone();
        out.splices.push(Splice::new(
            span,
            format!("{{name: {name}, score: {value}}}"),
        ));
        if nav.is_alias(item) {
            out.notes.push(format!(
                "the alias item for `{to}` was rewritten as a mapping with its own score"
            ));
        }
        return Ok(());
    }
    if nav.aliased(item) {
        return Err(EditError::Unsupported(format!(
            "the reference to `{to}` is anchored and used elsewhere; scoring it would change every use"
        )));
    }
    out.splices.push(nav.set_entry(item, "score", &value)?);
    Ok(())
}

fn set_op_key(
    nav: &Nav<'_, '_>,
    op: &str,
    key: &str,
    value: &str,
    out: &mut Patch,
) -> Result<(), EditError> {
    let item = nav
        .decl("operators", op, false)
        .ok_or_else(|| EditError::NotFound(format!("operator `{op}` under `operators`")))?;
    let map = nav.doc.resolve(item);
    if map != item {
        let anchor = nav.doc.anchor_name(item).unwrap_or_default();
        out.notes.push(format!(
            "written to the anchored definition &{anchor}; every use of it changes"
        ));
    }
    out.splices.push(nav.set_entry(map, key, value)?);
    Ok(())
}

/// Writes a boolean key into a declaration mapping (the anchored one, with a note, when the
/// declaration is reached through an alias).
pub fn set_flag(
    nav: &Nav<'_, '_>,
    item: NodeId,
    key: &str,
    value: bool,
    out: &mut Patch,
) -> Result<(), EditError> {
    let map = nav.doc.resolve(item);
    if map != item {
        let anchor = nav.doc.anchor_name(item).unwrap_or_default();
        out.notes.push(format!(
            "written to the anchored definition &{anchor}; every use of it changes"
        ));
    }
    out.splices
        .push(nav.set_entry(map, key, if value { "true" } else { "false" })?);
    Ok(())
}

/// Writes a description into a declaration mapping (reached through an alias if need be).
pub fn set_desc(
    nav: &Nav<'_, '_>,
    item: NodeId,
    text: &str,
    out: &mut Patch,
) -> Result<(), EditError> {
    let map = nav.doc.resolve(item);
    if map != item {
        let anchor = nav.doc.anchor_name(item).unwrap_or_default();
        out.notes.push(format!(
            "written to the anchored definition &{anchor}; every use of it changes"
        ));
    }
    let flow = nav.doc.node(map).flow;
    let indent = if flow {
        String::new()
    } else {
        format!("{}  ", nav.key_indent(map))
    };
    if let Some((k, v)) = nav.own_entry(map, "desc")
        && matches!(nav.doc.node(v).value, Value::Scalar { .. })
        && !nav.doc.node(v).span.is_empty()
    {
        nav.check_not_shared(v, "desc")?;
        let from = nav.doc.node(k).span.end;
        let splice = patch::replace_text(nav.text, nav.doc, v, from, text, &indent)
            .map_err(EditError::Unsupported)?;
        out.splices.push(nav.untagged(splice));
        return Ok(());
    }
    let nl = patch::newline(nav.text);
    let value = match text.contains('\n') && !flow {
        true => patch::block(text, &indent, nl).unwrap_or_else(|| patch::double_quoted(text)),
        false => patch::string(text, crate::source::yaml::Style::Plain),
    };
    out.splices.push(nav.set_entry(map, "desc", &value)?);
    Ok(())
}

/// A reference item: a bare name at score 1.0, else `{name: X, score: S}`.
pub(crate) fn ref_item(name: &str, score: f64) -> String {
    let name = patch::string(name, crate::source::yaml::Style::Plain);
    if score == 1.0 {
        name
    } else {
        format!("{{name: {name}, score: {}}}", patch::float(score))
    }
}

/// Adds a reference to the `key` list of a declaration, creating the list if needed.
fn add_ref(
    nav: &Nav<'_, '_>,
    decl: NodeId,
    key: &str,
    to: &str,
    score: f64,
) -> Result<Splice, EditError> {
    let map = nav.doc.resolve(decl);
    let item = ref_item(to, score);
    match nav.own_entry(map, key) {
        Some((_, list))
            if nav
                .doc
                .seq(list)
                .is_some_and(|s| !s.is_empty() || nav.doc.node(list).flow) =>
        {
            nav.append_item(nav.doc.resolve(list), &item)
        }
        Some((k, list)) if nav.is_empty_value(list) => {
            nav.replace_value(k, list, &format!("[{item}]"))
        }
        Some(_) => Err(EditError::Unsupported(format!("`{key}` is not a list"))),
        None if nav.doc.node(map).flow => nav.add_entry(map, key, &format!("[{item}]")),
        None => {
            let nl = patch::newline(nav.text);
            let indent = format!("{}  ", nav.key_indent(map));
            nav.add_entry(map, key, &format!("{nl}{indent}- {item}"))
        }
    }
}

/// A new declaration at the end of a top-level list, shaped like the others.
/// A new declaration at the end of its top-level list: `name`, then `module_path` when one
/// is given (a tool's), then `desc`.
fn add_declaration(
    nav: &Nav<'_, '_>,
    list: &str,
    name: &str,
    desc: &str,
    module_path: &str,
) -> Result<Splice, EditError> {
    let nl = patch::newline(nav.text);
    let plain = |t: &str| patch::string(t, crate::source::yaml::Style::Plain);
    // The name and, when given, the module path on its own line (`inner`: the keys' indent).
    let named = |inner: &str| match module_path {
        "" => plain(name),
        m => format!("{}{nl}{inner}module_path: {}", plain(name), plain(m)),
    };
    let root = nav
        .root()
        .ok_or_else(|| EditError::Unsupported("the file is not a mapping".into()))?;
    let seq = nav
        .doc
        .get(root, list)
        .filter(|l| nav.doc.seq(*l).is_some_and(|s| !s.is_empty()));
    let Some(seq) = seq else {
        let indent = nav.key_indent(root);
        let name_text = named(&format!("{indent}    "));
        let body = format!(
            "{list}:{nl}{indent}  - name: {name_text}{nl}{indent}    desc: {}",
            desc_text(desc, &format!("{indent}      "), nl)
        );
        return match nav.own_entry(root, list) {
            Some((k, v)) if nav.is_empty_value(v) => nav.replace_value(
                k,
                v,
                &format!(
                    "{nl}{indent}  - name: {name_text}{nl}{indent}    desc: {}",
                    desc_text(desc, &format!("{indent}      "), nl)
                ),
            ),
            // `list: []` (as a removal leaves it): back to a block list.
            Some((k, v))
                if nav.doc.seq(v).is_some_and(<[NodeId]>::is_empty) && !nav.is_alias(v) =>
            {
                nav.replace_empty_flow(
                    k,
                    v,
                    &format!(
                        "{nl}{indent}  - name: {name_text}{nl}{indent}    desc: {}",
                        desc_text(desc, &format!("{indent}      "), nl)
                    ),
                )
            }
            Some(_) => Err(EditError::Unsupported(format!("`{list}` is not a list"))),
            None => Ok(nav.insert_after(root, &indent, &body)),
        };
    };
    let seq = nav.doc.resolve(seq);
    if nav.doc.node(seq).flow {
        let module = match module_path {
            "" => String::new(),
            m => format!(", module_path: {}", plain(m)),
        };
        return nav.append_item(
            seq,
            &format!("{{name: {}{module}, desc: {}}}", plain(name), plain(desc)),
        );
    }
    let items = nav.doc.seq(seq).unwrap_or_default();
    let last = *items
        .last()
        .ok_or_else(|| EditError::Unsupported("empty list".into()))?;
    let dash = patch::dash_before(nav.text, nav.doc.node(items[0]).span.start)
        .ok_or_else(|| EditError::Unsupported("list item dash not found".into()))?;
    let indent = patch::indent_at(nav.text, dash);
    let inner = format!("{indent}  ");
    let name_text = named(&inner);
    let body = format!(
        "- name: {name_text}{nl}{inner}desc: {}",
        desc_text(desc, &format!("{inner}  "), nl)
    );
    Ok(nav.insert_after(last, &indent, &body))
}

fn desc_text(desc: &str, block_indent: &str, nl: &str) -> String {
    if desc.contains('\n') {
        patch::block(desc, block_indent, nl).unwrap_or_else(|| patch::double_quoted(desc))
    } else {
        patch::string(desc, crate::source::yaml::Style::Plain)
    }
}

/// Removes the declarations of the node and its cascade, and every reference to them.
fn remove_node(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    kind: NodeKind,
    name: &str,
    out: &mut Patch,
) -> Result<(), EditError> {
    let removed = crate::edit::graph::removal(tk, kind, name)?;
    let gone = |k: NodeKind, n: &str| removed.nodes.iter().any(|x| x.kind == k && x.name == n);
    let mut lists: Vec<(NodeId, Vec<usize>)> = Vec::new();
    for list in ["actions", "tools", "groups"] {
        let Some(seq) = nav
            .root()
            .and_then(|r| nav.doc.get(r, list))
            .map(|s| nav.doc.resolve(s))
        else {
            continue;
        };
        let kind = match list {
            "actions" => NodeKind::Action,
            "tools" => NodeKind::Tool,
            _ => NodeKind::Group,
        };
        let hits = indices(nav, seq, |item| {
            nav.doc.map(item).is_some() && nav.name_of(item).is_some_and(|n| gone(kind, n))
        });
        lists.push((seq, hits));
    }
    // References in the actions and groups that stay.
    for (list, owner_kind) in [("actions", NodeKind::Action), ("groups", NodeKind::Group)] {
        for item in nav.top_list(list) {
            if nav.name_of(item).is_some_and(|o| gone(owner_kind, o)) {
                continue;
            }
            for key in ["tools", "next"] {
                let Some(seq) = nav.doc.get(item, key).map(|s| nav.doc.resolve(s)) else {
                    continue;
                };
                let hits = indices(nav, seq, |r| match nav.ref_name(r) {
                    Some(t) if key == "next" => gone(NodeKind::Action, t),
                    Some(t) => gone(NodeKind::Tool, t) || gone(NodeKind::Group, t),
                    None => false,
                });
                lists.push((seq, hits));
            }
        }
    }
    lists.sort_by_key(|(s, _)| *s);
    lists.dedup_by_key(|(s, _)| *s);
    for (seq, hits) in lists {
        if !hits.is_empty() {
            out.splices.extend(nav.remove_items(seq, &hits)?);
        }
    }
    if removed.nodes.len() > 1 {
        let names: Vec<&str> = removed.nodes[1..].iter().map(|n| n.name.as_str()).collect();
        out.notes
            .push(format!("the cascade also removed {}", names.join(", ")));
    }
    for op in &tk.operators {
        let named: Vec<&str> = op
            .actions
            .iter()
            .filter(|a| gone(NodeKind::Action, a))
            .map(String::as_str)
            .collect();
        if !named.is_empty() {
            out.notes.push(format!(
                "operator `{}` still names {} (left as written; lint reports it)",
                op.name,
                named.join(", ")
            ));
        }
    }
    Ok(())
}

fn indices(nav: &Nav<'_, '_>, seq: NodeId, hit: impl Fn(NodeId) -> bool) -> Vec<usize> {
    nav.doc
        .seq(seq)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, i)| hit(**i))
        .map(|(i, _)| i)
        .collect()
}

/// The score the edge has now, if it exists.
pub fn current_score(tk: &Toolkit, from: &str, to: &str, to_kind: NodeKind) -> Option<f64> {
    let a = tk.action(from)?;
    let b = tk.find(to_kind, to)?;
    tk.edge(a, b).map(|e| tk.graph[e].score)
}

/// Whether `name` is a group with member tools.
fn has_members(tk: &Toolkit, kind: NodeKind, name: &str) -> bool {
    tk.find(kind, name).is_some_and(|g| {
        tk.out_edges(g)
            .any(|(e, _)| tk.graph[e].kind == crate::model::EdgeKind::Has)
    })
}
