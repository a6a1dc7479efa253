//! The graph pane's commands: the focus view and the whole graph, zoom, the
//! neighbourhood view, scores, panning and walking along edges.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::EdgeKind;

use crate::tui::app::{App, Level};
use crate::tui::commands::table::{Command, cmd};

/// Keys pan by this many cells across, and by this many down.
const PAN_X: i32 = 8;
const PAN_Y: i32 = 3;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("focus-view", [], None, "", Graph hint "focus", "focus view (recommendation + frontier) / whole graph", |a, _| {
        super::toggle(a);
        Ok(())
    }),
    cmd!("side-panes", [], None, "", Graph, "hide / show the side panes (the graph takes the width)", |a, _| {
        super::toggle_side_panes(a);
        Ok(())
    }),
    cmd!("refit", [], None, "", Graph, "fit the focus view to the whole recommendation again", |a, _| {
        super::refit_command(a);
        Ok(())
    }),
    cmd!("show-more", [], None, "", Graph, "focus view: go to the nodes beyond the pane's edge (the `N more` marks), then back", |a, _| {
        super::more::go(a);
        Ok(())
    }),
    cmd!("toggle-scores", [], None, "", Graph hint "scores", "show or hide edge scores", |a, _| {
        keep_centre(a, |a| a.show_scores = !a.show_scores);
        Ok(())
    }),
    cmd!("toggle-zoom", [], None, "", Graph hint "zoom", "zoom: detailed / compact / fit", |a, _| {
        keep_centre(a, super::cycle_zoom);
        Ok(())
    }),
    cmd!("neighbourhood", [], None, "", Graph, "neighbourhood view of the selection", |a, _| {
        toggle_neighbourhood(a);
        Ok(())
    }),
    cmd!("radius-up", [], None, "", Graph, "neighbourhood: one hop more", |a, _| {
        set_radius(a, a.radius.saturating_add(1).min(50));
        Ok(())
    }),
    cmd!("radius-down", [], None, "", Graph, "neighbourhood: one hop less", |a, _| {
        set_radius(a, a.radius.saturating_sub(1).max(1));
        Ok(())
    }),
    cmd!("centre", [], None, "", Graph, "centre on the selection", |a, _| {
        a.centre_on_selection();
        Ok(())
    }),
    cmd!("parent", [], None, "", Graph, "select a parent (along an incoming edge)", |a, _| {
        walk(a, false);
        Ok(())
    }),
    cmd!("child", [], None, "", Graph, "select a child (along an outgoing edge)", |a, _| {
        walk(a, true);
        Ok(())
    }),
    cmd!("pan-left", [], None, "", Graph, "pan left (mouse: drag)", |a, _| {
        pan(a, -PAN_X, 0);
        Ok(())
    }),
    cmd!("pan-right", [], None, "", Graph, "pan right", |a, _| {
        pan(a, PAN_X, 0);
        Ok(())
    }),
    cmd!("pan-up", [], None, "", Graph, "pan up (mouse: wheel)", |a, _| {
        pan(a, 0, -PAN_Y);
        Ok(())
    }),
    cmd!("pan-down", [], None, "", Graph, "pan down", |a, _| {
        pan(a, 0, PAN_Y);
        Ok(())
    }),
];

/// Changes a view setting while keeping the selection at the same place on screen.
fn keep_centre(app: &mut App, f: impl FnOnce(&mut App)) {
    f(app);
    app.centre_on_selection();
}

fn toggle_neighbourhood(app: &mut App) {
    if app.neighbourhood.is_some() {
        app.neighbourhood = None;
        app.centre_on_selection();
    } else if let Some(ix) = app.selected {
        app.open_neighbourhood(ix, app.radius);
    }
}

fn set_radius(app: &mut App, r: u32) {
    app.radius = r;
    if let (Some(n), Some(ix)) = (&app.neighbourhood, app.selected) {
        let _ = n;
        app.open_neighbourhood(ix, r);
    }
}

/// Selects a neighbour: along outgoing (`forward`) or incoming edges, `Next` first.
fn walk(app: &mut App, forward: bool) {
    let Some(ix) = app.selected else { return };
    let mut around: Vec<(bool, String, NodeIndex)> = if forward {
        app.tk
            .out_edges(ix)
            .map(|(e, v)| {
                (
                    app.tk.graph[e].kind != EdgeKind::Next,
                    app.tk.name(v).to_string(),
                    v,
                )
            })
            .collect()
    } else {
        app.tk
            .in_edges(ix)
            .map(|(e, v)| {
                (
                    app.tk.graph[e].kind != EdgeKind::Next,
                    app.tk.name(v).to_string(),
                    v,
                )
            })
            .collect()
    };
    around.sort();
    match around.first() {
        Some(&(_, _, v)) => {
            app.select(v);
            app.ensure_selection_visible();
        }
        None => app.set_status(Level::Info, if forward { "no child" } else { "no parent" }),
    }
}

pub fn pan(app: &mut App, dx: i32, dy: i32) {
    app.view.x += dx;
    app.view.y += dy;
}
