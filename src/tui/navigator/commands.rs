//! The lists' commands (navigator and inspector): moving the cursor, paging, opening a
//! row, and `:goto`.

use toolscope_core::model::NodeKind;

use crate::tui::app::{ActivePane, App};
use crate::tui::panes::Panes;
use crate::tui::row::{Command, cmd};

use super::Row;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("up", [], None, "", Lists, "move up (inspector: previous edge)", |a, _| {
        list_step(a, -1);
        Ok(())
    }),
    cmd!("down", [], None, "", Lists, "move down (inspector: next edge)", |a, _| {
        list_step(a, 1);
        Ok(())
    }),
    cmd!("page-up", [], None, "", Lists, "page up", |a, _| {
        list_step(a, -page(a));
        Ok(())
    }),
    cmd!("page-down", [], None, "", Lists, "page down", |a, _| {
        list_step(a, page(a));
        Ok(())
    }),
    cmd!("first", [], None, "", Lists, "first row", |a, _| {
        list_step(a, isize::MIN / 2);
        Ok(())
    }),
    cmd!("last", [], None, "", Lists, "last row", |a, _| {
        list_step(a, isize::MAX / 2);
        Ok(())
    }),
    cmd!("open", [], None, "", Lists, "operator: activate; node: centre (a group of 9+ members: also expand/collapse); edge: go to its other end", |a, _| {
        open(a);
        Ok(())
    }),
    cmd!("goto", ["g"], Nodes, "NAME", Lists, "select and centre a node", goto),
];

fn page(app: &App) -> isize {
    let p = Panes::new(app.size, app.layout_hint());
    (p.nav_inner().height as isize - 1).max(1)
}

pub fn list_step(app: &mut App, delta: isize) {
    match app.active_pane {
        // The diff panel has no edge cursor: j/k scroll it.
        ActivePane::Inspector if delta.abs() == 1 && !app.diff_panel => {
            let n = app.node_edges().len();
            app.inspector.step_edge(delta, n);
        }
        ActivePane::Inspector => {
            app.inspector.scroll_by(delta.clamp(-1000, 1000) as i64);
        }
        _ => {
            app.nav.step(delta);
            let h = Panes::new(app.size, app.layout_hint()).nav_inner().height as usize;
            app.nav.scroll_to_cursor(h);
            if let Some(Row::Node(ix)) = app.nav.current() {
                app.select(ix);
                app.ensure_selection_visible();
            }
        }
    }
}

fn open(app: &mut App) {
    if app.active_pane == ActivePane::Inspector {
        if let Some(&(_, other, _)) = app.node_edges().get(app.inspector.edge_cursor()) {
            app.select(other);
            app.ensure_selection_visible();
        }
        return;
    }
    match app.nav.current() {
        Some(Row::Operator(i)) if app.active_pane == ActivePane::Navigator => {
            crate::tui::editing::choose_operator(app, i)
        }
        Some(Row::Node(ix)) if app.active_pane == ActivePane::Navigator => {
            // A group of many members: Enter expands / collapses its member rows.
            app.nav.toggle_group(&app.tk, ix);
            app.select(ix);
            app.centre_on_selection();
        }
        _ => app.centre_on_selection(),
    }
}

/// Filters the navigator and selects the first matching node.
pub fn set_filter(app: &mut App, filter: String) {
    app.nav.filter = filter;
    app.nav.rebuild(&app.tk);
    if let Some(Row::Node(ix)) = app.nav.current() {
        app.select(ix);
        app.ensure_selection_visible();
    }
}

fn goto(app: &mut App, name: &str) -> Result<(), String> {
    let ix = find_node(app, name)?;
    app.select(ix);
    app.centre_on_selection();
    Ok(())
}

/// A node by exact name, else the one node whose name contains `name` (ignoring case).
fn find_node(app: &App, name: &str) -> Result<petgraph::stable_graph::NodeIndex, String> {
    let kinds = [NodeKind::Action, NodeKind::Tool, NodeKind::Group];
    if let Some(ix) = kinds.into_iter().find_map(|k| app.tk.find(k, name)) {
        return Ok(ix);
    }
    let needle = name.to_lowercase();
    let hits: Vec<_> = app
        .tk
        .graph
        .node_indices()
        .filter(|&ix| app.tk.name(ix).to_lowercase().contains(&needle))
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no node named `{name}`")),
        many => {
            let mut names: Vec<&str> = many.iter().map(|&ix| app.tk.name(ix)).collect();
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
