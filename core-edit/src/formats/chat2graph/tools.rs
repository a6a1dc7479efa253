//! Chat2Graph `Call` edges and tools added and scored: references in the actions' `tools:`
//! lists (aliases of the anchored `tools:` entries where possible), their `scores:` entries,
//! and new `tools:` entries written as Chat2Graph's own are.
//!
//! An MCP server whose tools toolscope knows (listed in its entry, or in the MCP cache) is
//! not called in the graph: each of its tools is (SPEC 1). An edit of `action -> server`
//! is made on those edges (see `graph::edges_to`), and its score is written for each tool:
//! a `scores:` entry naming the server would score only the tools without an entry of
//! their own (TS063), and setting the server's score sets every tool's.

use crate::model::{NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Style};

use super::edit::{declaration, name_text, remove_scores, set_score, set_scores};
use crate::edit::doc::Nav;
use crate::edit::graph::{edges_to, members};
use crate::edit::{EditError, Patch};

pub(crate) fn add_call(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    from: &str,
    to: &str,
    to_kind: NodeKind,
    score: f64,
    out: &mut Patch,
) -> Result<(), EditError> {
    let action = nav.doc.resolve(declaration(nav, NodeKind::Action, from)?);
    let tool = nav.decl("tools", to, true).ok_or_else(|| {
        let what = match member_of(tk, to, to_kind) {
            Some(g) => format!(
                "`{to}` is a tool of the MCP server `{g}`, and an action's `tools:` names a server as a whole; link `{g}` (all its tools)"
            ),
            None => format!("`{to}` has no `tools:` entry to refer to"),
        };
        EditError::Unsupported(what)
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
    if score == 1.0 {
        return Ok(());
    }
    let known = tool_names(tk, to, to_kind);
    if known.is_empty() {
        out.splices.extend(set_score(nav, from, to, score)?);
    } else {
        let edges: Vec<(&str, &str, f64)> =
            known.iter().map(|m| (from, m.as_str(), score)).collect();
        out.splices.extend(set_scores(nav, &edges)?);
        out.notes.push(known_tools_note(to, &known));
    }
    Ok(())
}

/// The MCP server whose known tool `name` is, when it is one.
pub(crate) fn member_of(tk: &Toolkit, name: &str, kind: NodeKind) -> Option<String> {
    let t = tk.find(kind, name)?;
    tk.in_edges(t)
        .find(|(e, _)| tk.graph[*e].kind == crate::model::EdgeKind::Has)
        .map(|(_, g)| tk.name(g).to_string())
}

/// The known tools of the MCP server `name` (none for a tool, or a server whose tools are
/// unknown).
pub(crate) fn tool_names(tk: &Toolkit, name: &str, kind: NodeKind) -> Vec<String> {
    tk.find(kind, name)
        .map(|g| members(tk, g))
        .unwrap_or_default()
        .into_iter()
        .map(|m| tk.name(m).to_string())
        .collect()
}

fn known_tools_note(group: &str, tools: &[String]) -> String {
    format!(
        "the score of `{group}` is written for each of its tools ({}): toolscope knows them, so Chat2Graph's calls of `{group}` are calls of them",
        tools.join(", ")
    )
}

/// The score of `from -> to`: its `scores:` entry, or, for an MCP server whose tools are
/// known, an entry for each of them (an entry naming the server itself is taken over by a
/// tool's, or removed: it names no edge).
pub(crate) fn set_call_score(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    from: &str,
    to: &str,
    to_kind: NodeKind,
    score: f64,
    out: &mut Patch,
) -> Result<(), EditError> {
    let a = tk.action(from);
    let b = tk.find(to_kind, to);
    let (Some(a), Some(b)) = (a, b) else {
        return Err(EditError::NotFound(format!("edge {from} -> {to}")));
    };
    if tk.edge(a, b).is_some() || members(tk, b).is_empty() {
        if crate::formats::native::edit::current_score(tk, from, to, to_kind) != Some(score) {
            out.splices.extend(set_score(nav, from, to, score)?);
        }
        return Ok(());
    }
    let changed: Vec<String> = edges_to(tk, a, b)
        .into_iter()
        .filter(|(e, _)| tk.graph[*e].score != score)
        .map(|(_, m)| tk.name(m).to_string())
        .collect();
    let stale = nav.score_entries(from, to);
    if changed.is_empty() && stale.is_empty() {
        return Ok(());
    }
    // Entries naming the server become the first new tools' entries (one splice each, so
    // nothing appended later touches them); the rest are removed.
    let has_entry = |m: &str| !nav.score_entries(from, m).is_empty();
    let (old, new): (Vec<&String>, Vec<&String>) = changed.iter().partition(|m| has_entry(m));
    let value = patch::float(score);
    for (entry, m) in stale.iter().zip(&new) {
        let at = nav.doc.node(entry.1).span.clone();
        let text = format!(
            "{{from: {}, to: {}, score: {value}}}",
            name_text(from),
            name_text(m)
        );
        out.splices.push(Splice::new(at, text));
    }
    let taken = stale.len().min(new.len());
    if stale.len() > taken {
        let gone: Vec<usize> = stale[taken..].iter().map(|(i, _)| *i).collect();
        out.splices
            .extend(remove_scores(nav, |_, _, i| gone.contains(&i))?);
    }
    let rest: Vec<(&str, &str, f64)> = old
        .into_iter()
        .chain(new.into_iter().skip(taken))
        .map(|m| (from, m.as_str(), score))
        .collect();
    out.splices.extend(set_scores(nav, &rest)?);
    out.notes
        .push(known_tools_note(to, &tool_names(tk, to, to_kind)));
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
        Some((k, v)) if nav.is_empty_value(v) => nav.replace_value(k, v, &format!("[{item}]")),
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

/// A new tool: its `tools:` entry and references to it from its callers, with their scores.
/// Chat2Graph keeps only tools some chained action calls, and imports each tool's class
/// `name` from its `module_path`, so both are needed.
pub(crate) fn add_tool(
    nav: &Nav<'_, '_>,
    name: &str,
    desc: &str,
    callers: &[(String, f64)],
    module_path: &str,
    out: &mut Patch,
) -> Result<(), EditError> {
    if callers.is_empty() {
        return Err(EditError::Unsupported(
            "in a Chat2Graph config a tool is part of the graph only when an action calls it; name a caller".into(),
        ));
    }
    check_module_path(name, module_path).map_err(EditError::Unsupported)?;
    let (splice, anchor) = new_entry(nav, name, desc, module_path)?;
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

/// Whether Chat2Graph can load local tool `name` from `module_path`: its loader runs
/// `importlib.import_module(module_path)` (an empty path fails with "Empty module name")
/// and takes the class `name` from the module. The reason when not.
pub fn check_module_path(name: &str, module_path: &str) -> Result<(), String> {
    let identifier = |s: &str| {
        let mut chars = s.chars();
        chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
            && chars.all(|c| c == '_' || c.is_alphanumeric())
    };
    if module_path.is_empty() {
        return Err(format!(
            "Chat2Graph imports the class `{name}` from the tool's `module_path` (without one its loader fails: \"Empty module name\"); give the module, e.g. `--module-path app.plugin.mine.tools` (the TUI asks for it)"
        ));
    }
    if !module_path.split('.').all(identifier) {
        return Err(format!(
            "`{module_path}` is not a Python module path (dotted names, as `app.plugin.mine.tools`)"
        ));
    }
    if !identifier(name) {
        return Err(format!(
            "Chat2Graph takes the class `{name}` from `{module_path}` by the tool's name, so the name must be a Python class name"
        ));
    }
    Ok(())
}

/// A new anchored `tools:` entry after the last one, shaped like it, keys as Chat2Graph's
/// own entries write them: `name`, `type: LOCAL_TOOL`, `module_path`, then `desc` when
/// there is one. Returns the splice and the anchor.
pub(crate) fn new_entry(
    nav: &Nav<'_, '_>,
    name: &str,
    desc: &str,
    module_path: &str,
) -> Result<(Splice, String), EditError> {
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
    let mut body = format!(
        "- &{anchor}{nl}{inner}name: {}{nl}{inner}type: {}",
        patch::string(name, style),
        patch::string("LOCAL_TOOL", style)
    );
    if !module_path.is_empty() {
        body.push_str(&format!(
            "{nl}{inner}module_path: {}",
            patch::string(module_path, style)
        ));
    }
    if !desc.is_empty() {
        let desc_text = if desc.contains('\n') {
            patch::block(desc, &format!("{inner}  "), nl)
                .unwrap_or_else(|| patch::double_quoted(desc))
        } else {
            patch::string(desc, style)
        };
        body.push_str(&format!("{nl}{inner}desc: {desc_text}"));
    }
    let spaced = items.len() > 1 && {
        let prev = nav.doc.node(items[items.len() - 2]).span.clone();
        let gap = &nav.text[patch::content_end(nav.text, &prev)..nav.doc.node(last).span.start];
        gap.contains("\n\n") || gap.contains("\n\r\n")
    };
    let mut splice = nav.insert_after(last, &indent, &body);
    if spaced {
        splice.with.insert_str(0, nl);
    }
    Ok((splice, anchor))
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
