//! The lists' commands (navigator and inspector): moving the cursor, paging, opening a
//! row, and `:goto`.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::{NodeKind, Toolkit};

use crate::tui::action::{Action, NavigatorAction};
use crate::tui::app::ActivePane;
use crate::tui::ctx::Ctx;
use crate::tui::update::row::{Command, cmd};

use super::{Navigator, Row};

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("up", [], None, "", Lists, "move up (inspector: previous edge)", @Navigator |n, c, _| Ok(list_step(n, c, -1))),
    cmd!("down", [], None, "", Lists, "move down (inspector: next edge)", @Navigator |n, c, _| Ok(list_step(n, c, 1))),
    cmd!("page-up", [], None, "", Lists, "a page up in the active list (navigator rows, inspector edges)", @Navigator |n, c, _| Ok(list_step(n, c, -page(c)))),
    cmd!("page-down", [], None, "", Lists, "a page down in the active list (navigator rows, inspector edges)", @Navigator |n, c, _| Ok(list_step(n, c, page(c)))),
    cmd!("first", [], None, "", Lists, "first row", @Navigator |n, c, _| Ok(list_step(n, c, isize::MIN / 2))),
    cmd!("last", [], None, "", Lists, "last row", @Navigator |n, c, _| Ok(list_step(n, c, isize::MAX / 2))),
    cmd!("open", [], None, "", Lists, "operator: activate; node: centre (a group of 9+ members: also expand/collapse); edge: go to its other end", @Navigator |n, c, _| Ok(open(n, c))),
    cmd!("unfold", [], None, "", Lists, "inspector: show the whole description, or fold it to its first lines again", @Ctx |_, _| Ok(vec![Action::Navigator(NavigatorAction::ToggleFold)])),
    cmd!("goto", ["g"], Nodes, "NAME", Lists, "select and centre a node", @Navigator |_, c, arg| goto(c, arg)),
];

fn page(c: &Ctx) -> isize {
    (c.nav_height() as isize - 1).max(1)
}

/// Moves the active list's cursor by `delta` rows (the inspector's: by edges, or scrolls).
pub fn list_step(nav: &mut Navigator, c: &Ctx, delta: isize) -> Vec<Action> {
    match c.active {
        // The diff panel has no edge cursor: j/k scroll it.
        ActivePane::Inspector if delta.abs() == 1 && !c.diff_panel => {
            vec![Action::Navigator(NavigatorAction::EdgeStep(delta))]
        }
        ActivePane::Inspector => vec![Action::Navigator(NavigatorAction::Scroll(
            delta.clamp(-1000, 1000) as i64,
        ))],
        _ => {
            nav.step(delta);
            nav.scroll_to_cursor(c.nav_height());
            match nav.current() {
                Some(Row::Node(node)) => vec![Action::Navigator(NavigatorAction::Select {
                    node,
                    centre: false,
                })],
                _ => Vec::new(),
            }
        }
    }
}

fn open(nav: &mut Navigator, c: &Ctx) -> Vec<Action> {
    if c.active == ActivePane::Inspector {
        return c
            .edge_target
            .map(|node| {
                Action::Navigator(NavigatorAction::Select {
                    node,
                    centre: false,
                })
            })
            .into_iter()
            .collect();
    }
    match nav.current() {
        Some(Row::Operator(i)) if c.active == ActivePane::Navigator => {
            vec![Action::Navigator(NavigatorAction::Operator(i))]
        }
        Some(Row::Node(ix)) if c.active == ActivePane::Navigator => {
            // A group of many members: Enter expands / collapses its member rows.
            nav.toggle_group(c.tk, ix);
            vec![Action::Navigator(NavigatorAction::Select {
                node: ix,
                centre: true,
            })]
        }
        _ => vec![Action::Navigator(NavigatorAction::Centre)],
    }
}

/// Filters the navigator and selects the first matching node.
pub fn set_filter(nav: &mut Navigator, c: &Ctx, filter: String) -> Vec<Action> {
    nav.filter = filter;
    nav.rebuild(c.tk);
    match nav.current() {
        Some(Row::Node(node)) => vec![Action::Navigator(NavigatorAction::Select {
            node,
            centre: false,
        })],
        _ => Vec::new(),
    }
}

fn goto(c: &Ctx, name: &str) -> Result<Vec<Action>, String> {
    let node = find_node(c.tk, name)?;
    Ok(vec![Action::Navigator(NavigatorAction::Select {
        node,
        centre: true,
    })])
}

/// A node by exact name, else the one node whose name contains `name` (ignoring case).
fn find_node(tk: &Toolkit, name: &str) -> Result<NodeIndex, String> {
    let kinds = [NodeKind::Action, NodeKind::Tool, NodeKind::Group];
    if let Some(ix) = kinds.into_iter().find_map(|k| tk.find(k, name)) {
        return Ok(ix);
    }
    let needle = name.to_lowercase();
    let hits: Vec<_> = tk
        .graph
        .node_indices()
        .filter(|&ix| tk.name(ix).to_lowercase().contains(&needle))
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no node named `{name}`")),
        many => {
            let mut names: Vec<&str> = many.iter().map(|&ix| tk.name(ix)).collect();
            names.sort_unstable();
            names.truncate(5);
            Err(format!(
                "`{name}` matches {} nodes: {}, ...",
                many.len(),
                names.join(", ")
            ))
        }
    }
}
